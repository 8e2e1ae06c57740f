"""The cube's kernel-side functions with pyasc's names and argument order (ascend-cube-facts §3).
Each checks the operands' positions and element types at the user's line and records one node."""
from __future__ import annotations

from typing import Any

from ..cube_enums import CO2Layout, FixpipeConfig, QuantModes
from ..errors import DTypeError, NotProvidedError, OutOfBoundsError, TraceError
from ..graph.cube_params import (FixpipeParamsV220, InitConstValueParams, LoadData2DParams, LoadData3DParamsV2,
                                 MmadParams, Nd2NzParams)
from ..graph.expr import Const, Expr
from ..graph.node import Pipe, TensorRef, make_attrs
from ..graph.ops.cube import MMAD_DTYPES
from ..graph.params import DataCopyParams
from ..graph.source_loc import SourceLoc
from .context import current
from .scalar import to_expr
from .source_loc import user_loc


def tensor_ref(t: Any, what: str) -> TensorRef:
    """The operand's TensorRef (a LocalTensor, or a GlobalTensor bound with set_global_buffer); read by
    attribute so that this module stays out of the tensors <-> api import cycle."""
    r = getattr(t, "_ref", None)
    if isinstance(r, TensorRef):
        return r
    hint = "bind it first: g.set_global_buffer(addr)" if type(t).__name__ == "GlobalTensor" else None
    raise TraceError(f"{what} must be a LocalTensor or a bound GlobalTensor, got {type(t).__name__}", user_loc(),
                     hint=hint)

_WHERE = {"l1": "A1 / B1 / C1 (L1)", "l0a": "A2 (L0A)", "l0b": "B2 (L0B)", "l0c": "CO1 (L0C)", "bt": "C2 (bias table)",
          "gm": "a GlobalTensor (GM)", "ub": "the Unified Buffer (VECIN / VECOUT / VECCALC)"}


def _at(t: Any, what: str, api: str, spaces: tuple[str, ...], loc: SourceLoc) -> TensorRef:
    """The operand, which must live in one of `spaces`: anything else is the wrong position for this call."""
    r = tensor_ref(t, f"{what} of {api}")
    if r.space not in spaces:
        want = " or ".join(_WHERE[s] for s in spaces)
        hint = ("create the tensor at the position the API expects, e.g. "
                "asc.LocalTensor(asc.float16, asc.TPosition.A2, addr, length)")
        if r.space == "ub":
            hint += ("; TQue / TBuf tensors live in the Unified Buffer whatever their position: cube memories take "
                     "static LocalTensors for now")
        raise TraceError(f"{what} of {api} is in {_WHERE[r.space]}, but {api} takes it in {want}", loc, hint=hint)
    return r


def _const(e: Expr) -> int | None:
    return e.value if isinstance(e, Const) else None


def _range(e: Expr, lo: int, hi: int, what: str, loc: SourceLoc) -> None:
    v = _const(e)
    if v is not None and not lo <= v <= hi:
        raise OutOfBoundsError(f"{what} is {v}, outside {lo}..{hi}", loc)


# The vendor's reason (asc-devkit impl/basic_api/dav_c220/kernel_operator_data_copy_impl.h): the A2 vector core
# has no Nd2Nz copy; DataCopyGM2UBND2NZImpl (:868-893) emulates it with one DataCopyPad per C0 column block
# (DataCopyGM2UBSingleImpl, :830), and its loop over the ND matrices passes `dst + dstNzMatrixStride, src +
# srcNdMatrixStride` (:889-890) whatever the matrix's index, so with nd_num > 1 every matrix lands on the second
# one's place and the first is never written: not the documented layout, and not something to model as if it were.
NZ_INTO_UB = ("asc.data_copy with Nd2NzParams into the Unified Buffer is not provided: on Atlas A2 the vector "
              "core has no Nd2Nz copy, and the vendor's emulation (impl/basic_api/dav_c220/"
              "kernel_operator_data_copy_impl.h:868-893, DataCopyGM2UBND2NZImpl) offsets every ND matrix by one "
              "matrix stride whatever its index (line 890: dst + dstNzMatrixStride, src + srcNdMatrixStride), so "
              "its result is not the documented Nz layout for nd_num > 1")


def data_copy_cube(d_t: Any, s_t: Any, params: Any, loc: SourceLoc) -> None:
    """The cube's DataCopy forms: GM -> L1 with Nd2NzParams (MTE2), GM -> L1 by count (MTE2), and
    L1 (C1) -> bias table (C2) with DataCopyParams in 64-byte blocks (MTE1)."""
    ctx = current("asc.data_copy")
    if isinstance(params, Nd2NzParams):
        if getattr(getattr(d_t, "_ref", None), "space", None) == "ub":
            raise NotProvidedError(NZ_INTO_UB, loc, hint="copy into L1 (TPosition.A1 / B1) for the cube, or keep ND "
                                                          "in the Unified Buffer (data_copy / data_copy_pad)")
        d = _at(d_t, "the destination", "asc.data_copy with Nd2NzParams", ("l1",), loc)
        s = _at(s_t, "the source", "asc.data_copy with Nd2NzParams", ("gm",), loc)
        _same(d, s, "asc.data_copy", loc)
        _range(params.n_value, 0, 16384, "Nd2NzParams.n_value", loc)
        for f in ("src_d_value", "dst_nz_c0_stride", "dst_nz_n_stride"):
            _range(getattr(params, f), 1, 65535, f"Nd2NzParams.{f}", loc)
        c0s, n = _const(params.dst_nz_c0_stride), _const(params.n_value)
        if c0s is not None and c0s % 16 and n != 1:       # one row (a bias vector) stays ND: no fractals
            from ..errors import AlignmentError
            raise AlignmentError(f"Nd2NzParams.dst_nz_c0_stride is {c0s}: the Nz layout in L1 does not tile into "
                                 "16-row fractals, which LoadData moves (512 bytes each)", loc,
                                 hint="give each C0-wide column block a multiple of 16 rows (the row count "
                                      "rounded up to 16)")
        if c0s is not None and n is not None and _const(params.dst_nz_n_stride) == 1 and c0s < n:
            raise OutOfBoundsError(f"Nd2NzParams.dst_nz_c0_stride ({c0s}) is less than n_value ({n}): the column "
                                   "blocks in L1 would overwrite each other", loc,
                                   hint="dst_nz_c0_stride = n_value rounded up to 16")
        ctx.record("data_copy_nd2nz", (d, s, params), loc, Pipe.MTE2, make_attrs(dtype=d.dtype))
        return
    d = tensor_ref(d_t, "the destination of asc.data_copy")
    s = tensor_ref(s_t, "the source of asc.data_copy")
    if d.space == "bt":
        s = _at(s_t, "the source", "asc.data_copy to the bias table", ("l1",), loc)
        if not isinstance(params, DataCopyParams):
            raise TraceError("asc.data_copy from L1 to the bias table takes asc.DataCopyParams (64-byte blocks)", loc)
        if d.dtype.name != "float32" or s.dtype.name not in ("float32", "float16"):
            raise DTypeError(f"the bias table holds float32 (from float32 or float16 in L1), got {s.dtype} -> "
                             f"{d.dtype}", loc)
        ctx.record("data_copy_bias", (d, s, params), loc, Pipe.MTE1, make_attrs(dtype=d.dtype))
        return
    if d.space == "l1" and s.space == "gm" and not isinstance(params, DataCopyParams):
        from ..graph.ops.data_copy import check_copy_length
        _same(d, s, "asc.data_copy", loc)
        n = to_expr(params, "the count of asc.data_copy")
        if n.type != "int":
            raise TraceError(f"the count of asc.data_copy must be an integer, got `{n}`", loc)
        if isinstance(n, Const):
            check_copy_length(n.value, d.dtype, loc=loc)
        ctx.record("data_copy", (d, s, n), loc, Pipe.MTE2, make_attrs(dtype=d.dtype))
        return
    raise NotProvidedError(f"asc.data_copy from {_WHERE[s.space]} to {_WHERE[d.space]} is not provided for the cube "
                           "yet (GM -> L1 by count or with Nd2NzParams, L1 -> bias table are)", loc)


def _same(d: TensorRef, s: TensorRef, api: str, loc: SourceLoc) -> None:
    if d.dtype is not s.dtype:
        raise DTypeError(f"{api}: the destination is {d.dtype} but the source is {s.dtype}", loc)


def load_data(dst: Any, src: Any, params: Any) -> None:
    """`LoadData(dst, src, LoadData2DParams)`: 512-byte fractals from L1 (A1 / B1) into L0A / L0B (MTE1).

    Raises:
        TraceError: operands at the wrong positions, or another params struct.
        DTypeError: different element types, or a transpose of a type that is not 16-bit.
    """
    ctx = current("asc.load_data")
    loc = user_loc()
    if isinstance(params, LoadData3DParamsV2):
        return _load_data_3dv2(ctx, dst, src, params, loc)
    if not isinstance(params, LoadData2DParams):
        raise NotProvidedError(f"asc.load_data takes asc.LoadData2DParams here; {type(params).__name__} (3D, V2) "
                               "is not provided yet", loc)
    d = _at(dst, "dst", "asc.load_data", ("l0a", "l0b"), loc)
    s = _at(src, "src", "asc.load_data", ("l1",), loc)
    _same(d, s, "asc.load_data", loc)
    _range(params.repeat_times, 0, 255, "LoadData2DParams.repeat_times", loc)
    tr = _const(params.if_transpose)
    if tr and d.dtype.itemsize != 2:
        raise DTypeError(f"LoadData2DParams.if_transpose works on 16-bit types only, not {d.dtype}", loc,
                         hint="transpose int8 with load_data_with_transpose, float with LoadData3DV2 (not provided)")
    ctx.record("load_data", (d, s, params), loc, Pipe.MTE1, make_attrs(dtype=d.dtype))


def _load_data_3dv2(ctx: Any, dst: Any, src: Any, p: LoadData3DParamsV2, loc: SourceLoc) -> None:
    """The matmul case of LoadData with LoadData3DParamsV2: a 1 x 1 filter, stride 1, no padding, into L0A (Zz of
    the m x k slice) or L0B (Zn of it: the vendor's Matmul loads a B given K x N this way, K as m, N as k)."""
    d = _at(dst, "dst", "asc.load_data with LoadData3DParamsV2", ("l0a", "l0b"), loc)
    s = _at(src, "src", "asc.load_data with LoadData3DParamsV2", ("l1",), loc)
    _same(d, s, "asc.load_data", loc)
    if d.space == "l0b" and d.dtype.name not in ("float16", "bfloat16", "float32", "int32", "uint32"):
        # kernel_operator_mm_base_impl.h, __NPU_ARCH__ 2201: the B2 destination's types
        raise DTypeError(f"asc.load_data with LoadData3DParamsV2 into L0B takes half, bfloat16, float, int32 or "
                         f"uint32, not {d.dtype}", loc, hint="transpose int8 with load_data_with_transpose")
    unit = {"filter_w": 1, "filter_h": 1, "stride_w": 1, "stride_h": 1, "dilation_filter_w": 1,
            "dilation_filter_h": 1, "en_transpose": 0, "filter_size_w": 0, "filter_size_h": 0, "f_matrix_ctrl": 0}
    for f, want in unit.items():
        if _const(getattr(p, f)) != want:
            raise NotProvidedError(f"asc.load_data with LoadData3DParamsV2.{f} other than {want} (a convolution's "
                                   "img2col) is not provided yet; the matmul case (1 x 1 filter, stride 1) is", loc)
    if any(_const(x) != 0 for x in p.pad_list):
        raise NotProvidedError("asc.load_data with a non-zero LoadData3DParamsV2.pad_list is not provided yet", loc)
    c0 = 32 // d.dtype.itemsize
    # MMB:210-218: k in whole 32-byte columns, m in whole 16-row fractals
    for f, mult in (("k_extension", c0), ("k_start_pt", c0), ("m_extension", 16), ("m_start_pt", 16)):
        v = _const(getattr(p, f))
        if v is not None and v % mult:
            from ..errors import AlignmentError
            raise AlignmentError(f"LoadData3DParamsV2.{f} is {v}: it must be a multiple of {mult} for {d.dtype}", loc)
    ctx.record("load_data_3dv2", (d, s, p), loc, Pipe.MTE1, make_attrs(dtype=d.dtype))


def mmad(dst: Any, fm: Any, filter: Any, *args: Any) -> None:  # noqa: A002 - pyasc's name
    """`Mmad(dst, fm, filter[, bias], MmadParams)`: L0C (CO1) = L0A (A2) x L0B (B2), or += with
    `cmatrix_init_val=False`; the bias form starts from the bias table (C2) and needs `cmatrix_init_val=False`.

    Raises:
        TraceError: operands at the wrong positions; the bias form with `cmatrix_init_val` True.
        DTypeError: an element-type triple Mmad does not accept (float = half x half, float = bfloat16 x
            bfloat16, float = float x float, int32 = int8 x int8).
        OutOfBoundsError: m, n or k outside 0..4095.
    """
    ctx = current("asc.mmad")
    loc = user_loc()
    if len(args) not in (1, 2) or not isinstance(args[-1], MmadParams):
        raise TraceError("asc.mmad(dst, fm, filter, params) or asc.mmad(dst, fm, filter, bias, params) with "
                         "asc.MmadParams", loc)
    p: MmadParams = args[-1]
    c = _at(dst, "dst", "asc.mmad", ("l0c",), loc)
    a = _at(fm, "fm", "asc.mmad", ("l0a",), loc)
    b = _at(filter, "filter", "asc.mmad", ("l0b",), loc)
    triple = (c.dtype.name, a.dtype.name, b.dtype.name)
    if triple not in MMAD_DTYPES:
        ok = "; ".join(f"{x} = {y} x {z}" for x, y, z in sorted(MMAD_DTYPES))
        raise DTypeError(f"asc.mmad does not take {triple[0]} = {triple[1]} x {triple[2]} on Atlas A2 (it takes: {ok})",
                         loc)
    for f in ("m", "n", "k"):
        _range(getattr(p, f), 0, 4095, f"MmadParams.{f}", loc)
    uf = _const(p.unit_flag)
    if uf is not None and uf not in (0, 2, 3):
        raise TraceError(f"MmadParams.unit_flag is {uf}; it is 0, 2 or 3", loc)
    m, n = _const(p.m), _const(p.n)
    if m is not None and n is not None and (-(-m // 16) * 16) * (-(-n // 16) * 16) * 4 > 128 * 1024:
        from ..errors import UBOverflowError
        raise UBOverflowError(f"an Mmad of m={m}, n={n} writes {(-(-m // 16) * 16) * (-(-n // 16) * 16) * 4} bytes of "
                              "L0C, which holds 128 KB", loc, hint="split the tile: m x n x 4 bytes must fit in L0C")
    ops: tuple = (c, a, b)
    if len(args) == 2:
        bias = _at(args[0], "bias", "asc.mmad", ("bt", "l0c"), loc)
        if bias.dtype.name != c.dtype.name:
            raise DTypeError(f"the bias of asc.mmad is {bias.dtype}, the result {c.dtype}: they must match", loc)
        if _const(p.cmatrix_init_val) != 0:
            raise TraceError("asc.mmad with a bias starts from the bias only when MmadParams.cmatrix_init_val is "
                             "False; with True the bias is not loaded", loc,
                             hint="asc.MmadParams(m, n, k, unit_flag=0, cmatrix_source=True, cmatrix_init_val=False)")
        ops = (c, a, b, bias)
    elif _const(p.cmatrix_source):
        raise TraceError("MmadParams.cmatrix_source=True takes the start value from the bias table: pass the bias "
                         "tensor (asc.mmad(dst, fm, filter, bias, params))", loc)
    ctx.record("mmad", (*ops, p), loc, Pipe.M, make_attrs(dtype=c.dtype))


# Fixpipe L0C -> GM conversions (FX:69-80): (source, destination) -> the quantisation mode it needs
_FIX_CONV = {("float32", "float16"): QuantModes.F322F16, ("float32", "bfloat16"): QuantModes.F322BF16,
             ("float32", "float32"): QuantModes.NoQuant, ("int32", "int32"): QuantModes.NoQuant}


def fixpipe(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """`Fixpipe(dst, src, FixpipeParamsV220[, FixpipeConfig])`: L0C (CO1, Nz) -> GM (ND, ROW_MAJOR) on FIX,
    converting with `quant_pre` (F322F16, F322BF16, NoQuant) and applying ReLU with `relu_en`.

    Raises:
        TraceError: operands at the wrong positions.
        DTypeError: a conversion Fixpipe does not make, or a `quant_pre` that does not match the types.
        NotProvidedError: the NZ / column-major outputs, L0C -> L1, quantisation to 8 bits, channel split.
    """
    ctx = current("asc.fixpipe")
    loc = user_loc()
    cfg = kwargs.pop("config", FixpipeConfig())
    rest = list(args)
    if rest and isinstance(rest[-1], (FixpipeConfig, CO2Layout)):
        cfg = rest.pop()
    if kwargs or len(rest) != 1 or not isinstance(rest[0], FixpipeParamsV220):
        raise TraceError("asc.fixpipe(dst, src, asc.FixpipeParamsV220(...)[, asc.FixpipeConfig(...)])", loc,
                         hint="the per-channel quantisation form with a workspace tensor is not provided yet")
    p: FixpipeParamsV220 = rest[0]
    layout = cfg.layout if isinstance(cfg, FixpipeConfig) else cfg
    s = _at(src, "src", "asc.fixpipe", ("l0c",), loc)
    d = tensor_ref(dst, "dst of asc.fixpipe")
    if d.space == "l1":
        from .cube_fixpipe_l1 import fixpipe_to_l1
        return fixpipe_to_l1(ctx, d, s, p, layout, loc)
    if d.space != "gm":
        raise NotProvidedError(f"asc.fixpipe to {_WHERE[d.space]} is not provided (L0C -> GM and -> L1 are; the "
                               "Atlas A2 cube has no L0C -> Unified Buffer path)", loc)
    if layout != CO2Layout.ROW_MAJOR:
        raise NotProvidedError(f"asc.fixpipe with CO2Layout.{CO2Layout(layout).name} is not provided yet "
                               "(ROW_MAJOR, Nz -> ND, is)", loc)
    want = _FIX_CONV.get((s.dtype.name, d.dtype.name))
    if want is None:
        raise DTypeError(f"asc.fixpipe from {s.dtype} in L0C to {d.dtype} in GM is not a conversion this asc_trace "
                         "makes (float32 -> float16 / bfloat16 / float32, int32 -> int32)", loc)
    q = _const(p.quant_pre)
    if q is not None and q != want:
        raise DTypeError(f"asc.fixpipe from {s.dtype} to {d.dtype} needs quant_pre=QuantModes.{want.name}, got "
                         f"{QuantModes(q).name if q in QuantModes._value2member_map_ else q}", loc)
    if q is None:
        raise TraceError("FixpipeParamsV220.quant_pre must be a constant QuantModes", loc)
    _range(p.n_size, 1, 4095, "FixpipeParamsV220.n_size", loc)
    _range(p.m_size, 1, 8192, "FixpipeParamsV220.m_size", loc)
    _range(p.dst_stride, 1, 1 << 32, "FixpipeParamsV220.dst_stride", loc)
    uf = _const(p.unit_flag)
    if uf is not None and uf not in (0, 2, 3):
        raise TraceError(f"FixpipeParamsV220.unit_flag is {uf}; it is 0, 2 or 3", loc)
    if _const(p.nd_num) != 1 or _const(p.is_channel_split):
        raise NotProvidedError("asc.fixpipe with nd_num != 1 or is_channel_split is not provided yet", loc)
    ss, m = _const(p.src_stride), _const(p.m_size)
    if ss is not None and (ss % 16 or (m is not None and ss < m)):
        raise OutOfBoundsError(f"FixpipeParamsV220.src_stride is {ss}: it is the L0C row count of each 16-column "
                               "block, m_size rounded up to 16", loc)
    ctx.record("fixpipe", (d, s, p), loc, Pipe.FIX, make_attrs(dtype=d.dtype))


def init_const_value(dst: Any, params: Any) -> None:
    """`InitConstValue(dst, InitConstValueParams)`: fill L1 (32-byte blocks) or L0A / L0B (512-byte fractals)
    with a constant, e.g. to zero the K padding that Mmad multiplies in.

    Raises:
        TraceError: the tensor is not in L1, L0A or L0B.
        DTypeError: an element type the fill does not take (half, bfloat16, float, int16/32, uint16/32).
    """
    ctx = current("asc.init_const_value")
    loc = user_loc()
    if not isinstance(params, InitConstValueParams):
        raise TraceError("asc.init_const_value(dst, asc.InitConstValueParams(...))", loc)
    d = _at(dst, "dst", "asc.init_const_value", ("l1", "l0a", "l0b"), loc)
    if d.dtype.name not in ("float16", "bfloat16", "float32", "int16", "uint16", "int32", "uint32"):
        raise DTypeError(f"asc.init_const_value does not fill {d.dtype}", loc)
    pipe = Pipe.MTE2 if d.space == "l1" else Pipe.MTE1
    ctx.record("init_const_value", (d, params), loc, pipe, make_attrs(dtype=d.dtype))


# cross_core_set_flag / cross_core_wait_flag: proxies/mix_api.py
