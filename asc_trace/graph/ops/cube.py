"""The cube core's operations (ascend-cube-facts §3): GM -> L1 with Nd2NzParams (MTE2), L1 -> L0A / L0B
with LoadData2DParams (MTE1), L1 -> bias table (MTE1), Mmad (M) and Fixpipe L0C -> GM (FIX), and the
fill of L1 / L0A / L0B (InitConstValue).

Their semantics on bytes in the fractal layouts are the cube simulator's (runtime/cube_exec.py); here are
what the layers above need: pipes, what each reads and writes (`cube_extent`, in elements from each
operand's start), the emission and the printer form."""
from __future__ import annotations

from typing import Any

from ..cube_params import (FixpipeParamsV220, InitConstValueParams, LoadData2DParams, LoadData3DParamsV2, MmadParams,
                           Nd2NzParams)
from ..expr import Const, Expr, binop
from ..node import Pipe
from .opdef import CppModel, OpDef, register

FRACTAL_BYTES = 512          # one 16 x C0 fractal: 16 rows of 32 bytes
def _cpp(names: str) -> CppModel:
    return CppModel(header=f"{names} (toolchain/include/asc_trace_cube.h: the cube simulator's semantics in C++)")

# ascend-cube-facts §5 (MM:370-373): the (dst, fm, filter) element types Mmad accepts on Atlas A2
MMAD_DTYPES = frozenset({("float32", "float16", "float16"), ("float32", "bfloat16", "bfloat16"),
                         ("float32", "float32", "float32"), ("int32", "int8", "int8")})


def c0(itemsize: int) -> int:
    """Elements in one 32-byte row of a fractal (16 for half / bfloat16, 8 for float, 32 for int8)."""
    return 32 // itemsize


def _c(v: int) -> Expr:
    return Const(v)


def _ceil(x: Expr, d: int) -> Expr:
    return binop("//", binop("+", x, _c(d - 1)), _c(d))


def _mul(*xs: Any) -> Expr:
    out = xs[0] if isinstance(xs[0], Expr) else _c(xs[0])
    for x in xs[1:]:
        out = binop("*", out, x if isinstance(x, Expr) else _c(x))
    return out


def _add(*xs: Any) -> Expr:
    out = xs[0] if isinstance(xs[0], Expr) else _c(xs[0])
    for x in xs[1:]:
        out = binop("+", out, x if isinstance(x, Expr) else _c(x))
    return out


def _minus1(x: Expr) -> Expr:
    return binop("max", _c(0), binop("-", x, _c(1)))


# -- extents: elements from each operand's start that an instruction may touch -----------------------

def nd2nz_extent(node) -> list:
    dst, src, p = node.args
    C0 = c0(dst.dtype.itemsize)
    d = _add(_mul(_minus1(p.nd_num), p.dst_nz_matrix_stride),
             _mul(_minus1(_ceil(p.d_value, C0)), p.dst_nz_c0_stride, C0),
             _mul(_minus1(p.n_value), p.dst_nz_n_stride, C0), C0)
    s = _add(_mul(_minus1(p.nd_num), p.src_nd_matrix_stride), _mul(_minus1(p.n_value), p.src_d_value), p.d_value)
    return [(dst, Const(0), d, True), (src, Const(0), s, False)]


def load2d_extent(node) -> list:
    dst, src, p = node.args
    fs = FRACTAL_BYTES // dst.dtype.itemsize
    d = _add(_mul(_minus1(p.repeat_times), _add(p.dst_gap, 1), fs), fs)
    s = _add(_mul(p.start_index, fs), _mul(_minus1(p.repeat_times), p.src_stride, fs), fs)
    return [(dst, Const(0), d, True), (src, Const(0), s, False)]


def load3d_extent(node) -> list:
    dst, src, p = node.args
    C0 = c0(dst.dtype.itemsize)
    plane = _mul(p.l1_h, p.l1_w, C0)          # one C0-wide channel block of the feature map
    d = _mul(p.m_extension, p.k_extension)
    s = _add(_mul(_ceil(_add(p.k_start_pt, p.k_extension), C0), plane))
    return [(dst, Const(0), d, True), (src, Const(0), s, False)]


def mmad_extent(node) -> list:
    dst, fm, flt = node.args[:3]
    p: MmadParams = node.args[-1]
    k0 = c0(fm.dtype.itemsize)
    m16, n16, kk = _mul(_ceil(p.m, 16), 16), _mul(_ceil(p.n, 16), 16), _mul(_ceil(p.k, k0), k0)
    out = [(dst, Const(0), _mul(m16, n16), True), (fm, Const(0), _mul(m16, kk), False),
           (flt, Const(0), _mul(kk, n16), False)]
    accumulate = not (isinstance(p.cmatrix_init_val, Const) and p.cmatrix_init_val.value and len(node.args) == 4)
    if accumulate:           # L0C read as the start value (or the bias table)
        out.append((node.args[3] if len(node.args) == 5 else dst, Const(0),
                    p.n if len(node.args) == 5 else _mul(m16, n16), False))
    return out


def fixpipe_extent(node) -> list:
    dst, src, p = node.args[:3]
    s = _add(_mul(_minus1(_ceil(p.n_size, 16)), p.src_stride, 16), _mul(_ceil(p.m_size, 16), 256))
    d = _add(_mul(_minus1(p.m_size), p.dst_stride), p.n_size)
    return [(dst, Const(0), d, True), (src, Const(0), s, False)]


def fixpipe_l1_extent(node) -> list:
    dst, src, p = node.args[:3]
    s = _add(_mul(_minus1(_ceil(p.n_size, 16)), p.src_stride, 16), _mul(_ceil(p.m_size, 16), 256))
    d = _add(_mul(_minus1(_ceil(p.n_size, 16)), p.dst_stride, 16), _mul(p.m_size, 16))
    return [(dst, Const(0), d, True), (src, Const(0), s, False)]


def init_extent(node) -> list:
    dst, p = node.args
    unit = (32 if dst.space == "l1" else FRACTAL_BYTES) // dst.dtype.itemsize
    d = _add(_mul(_minus1(p.repeat_times), _add(p.block_num, p.dst_gap), unit), _mul(p.block_num, unit))
    return [(dst, Const(0), d, True)]


def bias_copy_extent(node) -> list:
    dst, src, p = node.args
    unit_d = 64 // dst.dtype.itemsize
    unit_s = 32 // src.dtype.itemsize
    n = _mul(p.block_count, p.block_len, unit_d)
    return [(dst, Const(0), n, True), (src, Const(0), _mul(p.block_count, p.block_len, 2 * unit_s), False)]


# -- emission (struct fields set by name: the C++ constructors' orders differ from pyasc's) ------------

def _struct(ctx, var: str, ctype: str, p: Any, fields: list[tuple[str, str, str]]) -> str:
    lines = [f"AscendC::{ctype} {var};"]
    for py, cname, cty in fields:
        lines.append(f"{var}.{cname} = {ctx.cast(getattr(p, py), cty)};")
    return "\n".join(lines)


def _nd2nz(ctx, n) -> str:
    dst, src, p = n.args
    fields = ", ".join(ctx.cast(getattr(p, f), "uint16_t") for f in
                       ("nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_d_value", "dst_nz_c0_stride",
                        "dst_nz_n_stride", "dst_nz_matrix_stride"))
    return f"AscendC::DataCopy({ctx.ref(dst)}, {ctx.ref(src)}, AscendC::Nd2NzParams({fields}));"


def _load2d(ctx, n) -> str:
    dst, src, p = n.args
    f = [ctx.cast(p.start_index, "uint16_t"), ctx.cast(p.repeat_times, "uint8_t"), ctx.cast(p.src_stride, "uint16_t"),
         ctx.cast(p.sid, "uint8_t"), ctx.cast(p.dst_gap, "uint16_t"), ctx.cast(p.if_transpose, "bool"),
         ctx.cast(p.addr_mode, "uint8_t")]
    return f"AscendC::LoadData({ctx.ref(dst)}, {ctx.ref(src)}, AscendC::LoadData2DParams({', '.join(f)}));"


_MMAD_FIELDS = [("m", "m", "uint16_t"), ("n", "n", "uint16_t"), ("k", "k", "uint16_t"), ("is_bias", "isBias", "bool"),
                ("unit_flag", "unitFlag", "uint8_t"), ("cmatrix_source", "cmatrixSource", "bool"),
                ("cmatrix_init_val", "cmatrixInitVal", "bool")]


_L3_FIELDS = [("l1_h", "l1H", "uint16_t"), ("l1_w", "l1W", "uint16_t"), ("channel_size", "channelSize", "uint16_t"),
              ("k_extension", "kExtension", "uint16_t"), ("m_extension", "mExtension", "uint16_t"),
              ("k_start_pt", "kStartPt", "uint16_t"), ("m_start_pt", "mStartPt", "uint16_t")]


def _load3d(ctx, n) -> str:
    dst, src, p = n.args
    var = f"asct_l3{n.id}"
    decl = _struct(ctx, var, f"LoadData3DParamsV2<{dst.dtype.c_name}>", p, _L3_FIELDS)
    return "{\n" + decl + f"\nAscendC::LoadData({ctx.ref(dst)}, {ctx.ref(src)}, {var});\n}}"


def _mmad(ctx, n) -> str:
    var = f"asct_mp{n.id}"
    ops = ", ".join(ctx.ref(a) for a in n.args[:-1])
    return "{\n" + _struct(ctx, var, "MmadParams", n.args[-1], _MMAD_FIELDS) + f"\nAscendC::Mmad({ops}, {var});\n}}"


_FIX_FIELDS = [("n_size", "nSize", "uint16_t"), ("m_size", "mSize", "uint16_t"),
               ("src_stride", "srcStride", "uint16_t"),
               ("dst_stride", "dstStride", "uint32_t"), ("relu_en", "reluEn", "bool"),
               ("unit_flag", "unitFlag", "uint8_t"), ("nd_num", "ndNum", "uint16_t")]
_QUANT_C = {0: "NoQuant", 1: "F322F16", 2: "F322BF16"}


def _fixpipe(ctx, n) -> str:
    dst, src, p = n.args
    var = f"asct_fp{n.id}"
    body = _struct(ctx, var, "FixpipeParamsV220", p, _FIX_FIELDS)
    q = p.quant_pre.value if isinstance(p.quant_pre, Const) else 0
    body += f"\n{var}.quantPre = QuantMode_t::{_QUANT_C.get(q, 'NoQuant')};"
    call = (f"AscendC::Fixpipe<{dst.dtype.c_name}, {src.dtype.c_name}, AscendC::CFG_ROW_MAJOR>("
            f"{ctx.ref(dst)}, {ctx.ref(src)}, {var});")
    return "{\n" + body + "\n" + call + "\n}"


def _fixpipe_l1(ctx, n) -> str:
    dst, src, p = n.args
    var = f"asct_fp{n.id}"
    body = _struct(ctx, var, "FixpipeParamsV220", p, _FIX_FIELDS)
    q = p.quant_pre.value if isinstance(p.quant_pre, Const) else 0
    body += f"\n{var}.quantPre = QuantMode_t::{_QUANT_C.get(q, 'NoQuant')};"
    call = (f"AscendC::Fixpipe<{dst.dtype.c_name}, {src.dtype.c_name}, AscendC::CFG_NZ>("
            f"{ctx.ref(dst)}, {ctx.ref(src)}, {var});")
    return "{\n" + body + "\n" + call + "\n}"


def _init(ctx, n) -> str:
    dst, p = n.args
    dt = dst.dtype
    f = (f"{ctx.cast(p.repeat_times, 'uint16_t')}, {ctx.cast(p.block_num, 'uint16_t')}, "
         f"{ctx.cast(p.dst_gap, 'uint16_t')}, {ctx.scalar(p.init_value, dt)}")
    return f"AscendC::InitConstValue({ctx.ref(dst)}, AscendC::InitConstValueParams<{dt.c_name}>({f}));"


def _bias_copy(ctx, n) -> str:
    dst, src, p = n.args
    f = ", ".join(ctx.cast(getattr(p, x), "uint16_t") for x in ("block_count", "block_len", "src_stride", "dst_stride"))
    return f"AscendC::DataCopy({ctx.ref(dst)}, {ctx.ref(src)}, AscendC::DataCopyParams({f}));"



# The declarations the emission uses (lower/api_symbols.py): asc-devkit lines; CANN 8.1.RC1 ("-") is not a
# cube target here, its Ascend C lacking the LocalTensor(TPosition, addr, size) constructor cube kernels use.
_MI, _SM = "include/basic_api/kernel_operator_mm_intf.h", "include/basic_api/kernel_struct_mm.h"
_FI, _SF = "include/basic_api/kernel_operator_fixpipe_intf.h", "include/basic_api/kernel_struct_fixpipe.h"
D_ND2NZ = {"Nd2NzParams/8": ("include/basic_api/kernel_struct_data_copy.h:286", "-")}
D_LOAD = {"LoadData/3": (f"{_MI}:64", "-"), "LoadData2DParams/7": (f"{_SM}:45", "-")}
D_LOAD3 = {"LoadData3DParamsV2": (f"{_SM}:226", "-")}
D_MMAD = {"Mmad/4": (f"{_MI}:281", "-"), "Mmad/5": (f"{_MI}:285", "-"), "MmadParams": (f"{_SM}:392", "-")}
D_FIX = {"Fixpipe<>/3": (f"{_FI}:93", "-"), "FixpipeParamsV220": (f"{_SF}:106", "-"),
         "CFG_ROW_MAJOR": (f"{_SF}:102", "-")}
D_INIT = {"InitConstValue/2": (f"{_MI}:384", "-"), "InitConstValueParams<>/4": (f"{_SM}:447", "-")}

register(
    OpDef("data_copy_nd2nz", "cube", Pipe.MTE2, "DataCopy", emit=_nd2nz, cpp_model=_cpp("DataCopy"), printer="dst",
          writes=(0,), reads=(1,), accesses=nd2nz_extent, declared=D_ND2NZ,
          doc="GM (ND) -> L1 (Nz) with asc.Nd2NzParams"),
    OpDef("load_data", "cube", Pipe.MTE1, "LoadData", emit=_load2d, cpp_model=_cpp("LoadData"), printer="dst",
          writes=(0,), reads=(1,), accesses=load2d_extent, declared=D_LOAD,
          doc="L1 -> L0A / L0B with asc.LoadData2DParams"),
    OpDef("load_data_3dv2", "cube", Pipe.MTE1, "LoadData", emit=_load3d, cpp_model=_cpp("LoadData"), printer="dst",
          writes=(0,), reads=(1,), accesses=load3d_extent, declared=D_LOAD3,
          doc="L1 -> L0A with asc.LoadData3DParamsV2 (the matmul case: one instruction per m x k slice)"),
    OpDef("data_copy_bias", "cube", Pipe.MTE1, "DataCopy", emit=_bias_copy, cpp_model=_cpp("cube_bias_copy"),
          printer="dst",
          writes=(0,), reads=(1,), accesses=bias_copy_extent, doc="L1 (C1) -> bias table (C2), 64-byte blocks"),
    OpDef("mmad", "cube", Pipe.M, "Mmad", emit=_mmad, cpp_model=_cpp("Mmad"), printer="dst", writes=(0,),
          accesses=mmad_extent, declared=D_MMAD, doc="L0C (+)= L0A x L0B (+ bias), fp32 / int32 accumulation"),
    OpDef("fixpipe", "cube", Pipe.FIX, "Fixpipe", emit=_fixpipe, cpp_model=_cpp("Fixpipe"), printer="dst", writes=(0,),
          reads=(1,), accesses=fixpipe_extent, declared=D_FIX, doc="L0C (Nz) -> GM (ND), with conversion and ReLU"),
    OpDef("fixpipe_l1", "cube", Pipe.FIX, "Fixpipe", emit=_fixpipe_l1, cpp_model=_cpp("Fixpipe"), printer="dst",
          writes=(0,), reads=(1,), accesses=fixpipe_l1_extent, declared={"CFG_NZ": (f"{_SF}:101", "-")},
          doc="L0C -> L1 (Nz), float32 -> float16 / bfloat16, with ReLU"),
    OpDef("init_const_value", "cube", Pipe.MTE2, "InitConstValue", emit=_init, cpp_model=_cpp("InitConstValue"),
          printer="dst",
          writes=(0,), reads=(), accesses=init_extent, declared=D_INIT,
          doc="fill an L1 / L0A / L0B tensor with a constant"),
)

PARAM_TYPES = (Nd2NzParams, LoadData2DParams, LoadData3DParamsV2, MmadParams, FixpipeParamsV220, InitConstValueParams)
