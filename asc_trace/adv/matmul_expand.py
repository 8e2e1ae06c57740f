"""How one `Matmul.iterate_all` becomes basic cube instructions while tracing, so the scheduler, the simulator,
the race checker and the timing model see real instructions (data_copy with Nd2NzParams, load_data, mmad,
fixpipe), never a black box.

The schedule is one, whatever the MatmulConfig: the core's single_m x single_n block of C is walked in
base_m x base_n tiles (m fastest, as IterateOrder.ORDER_M), each tile's K in base_k steps: A and B tiles GM ->
L1 (Nz), L1 -> L0A (LoadData3DV2, the vendor's fast matmul load) and L0B (B given K x N: LoadData2D with a
transpose per fractal for 16-bit types, LoadData3DV2 for float32; a plain copy when B is given transposed), Mmad
into L0C (the first step from zero or from the bias table), Fixpipe L0C -> GM with the conversion C's type needs. L1, L0A / L0B and L0C are ping-pong when two
buffers fit, so auto_sync's flags let the next step's copies overlap this step's Mmad (docs/cube.md). A K tail
that is not a whole 32-byte column has its L1 buffers zeroed first: Mmad multiplies whatever the padding holds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cube_enums import QuantModes
from ..enums import TPosition
from ..errors import NotProvidedError, TraceError, UBOverflowError
from ..graph.expr import binop
from ..graph.source_loc import SourceLoc
from ..proxies import cube_api as C
from ..proxies.cube_params import (FixpipeParamsV220, InitConstValueParams, LoadData2DParams, LoadData3DParamsV2,
                                   MmadParams, Nd2NzParams)
from ..proxies.loops import runtime_range
from ..proxies.params import DataCopyParams
from ..proxies.scalar import Scalar, to_expr, wrap
from ..proxies.tensors import LocalTensor

L1_BYTES = 512 * 1024 - 128     # TOTAL_L1_SIZE: the vendor's Matmul keeps 128 bytes of L1 for its messages
L0AB_BYTES = 64 * 1024
L0C_BYTES = 128 * 1024
BIAS_TABLE_BYTES = 1024

_QUANT = {("float32", "float16"): QuantModes.F322F16, ("float32", "bfloat16"): QuantModes.F322BF16,
          ("float32", "float32"): QuantModes.NoQuant, ("int32", "int32"): QuantModes.NoQuant}


def smin(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return wrap(binop("min", to_expr(a), to_expr(b)))


def up(x: Any, d: int) -> Any:
    return (x + d - 1) // d * d


def _static(v: Any, what: str, loc: SourceLoc) -> int:
    if isinstance(v, Scalar) or not isinstance(v, int):
        raise TraceError(f"{what} must be known while tracing (it sizes the L1 / L0 buffers), got `{v}`", loc,
                         hint="pass the TCubeTiling as a kernel parameter annotated asc.adv.TCubeTiling, or build it "
                              "in the kernel from constants")
    return int(v)


@dataclass
class Plan:
    """The shapes of one iterate_all: leading dimensions, the core's block, base block and buffers."""

    lda: Any
    ldb: Any
    ldc: Any
    sm: Any
    sn: Any
    sk: int
    bm: int
    bn: int
    bk: int
    trans_b: bool
    c0: int


class Buffers:
    """The L1 / L0 tensors of one expansion (ping-pong where two fit)."""

    def __init__(self, p: Plan, in_dt: Any, has_bias: bool, loc: SourceLoc) -> None:
        sz = in_dt.itemsize
        a_el = up(p.bm, 16) * up(p.bk, p.c0)
        b_el = up(p.bk, 16) * up(p.bn, 16)
        bias_l1 = up(p.bn, 16) * 4 if has_bias else 0
        self.l1_n = 2 if 2 * (a_el + b_el) * sz + bias_l1 <= L1_BYTES and not has_bias else 1
        if (a_el + b_el) * sz + bias_l1 > L1_BYTES:
            raise UBOverflowError(f"a base block of A ({p.bm} x {p.bk}) and of B ({p.bk} x {p.bn}) needs "
                                  f"{(a_el + b_el) * sz + bias_l1} bytes of L1, which holds {L1_BYTES}", loc,
                                  hint="smaller base_m / base_n / base_k in the TCubeTiling")
        for what, n in (("A", a_el), ("B", b_el)):
            if n * sz > L0AB_BYTES:
                raise UBOverflowError(f"a base block of {what} is {n * sz} bytes, more than L0{what} (64 KB)", loc,
                                      hint="smaller base_m / base_n / base_k in the TCubeTiling")
        c_el = up(p.bm, 16) * up(p.bn, 16)
        if c_el * 4 > L0C_BYTES:
            raise UBOverflowError(f"a base block of C ({p.bm} x {p.bn}) is {c_el * 4} bytes of L0C, which holds "
                                  "128 KB", loc, hint="base_m x base_n x 4 bytes must fit in 128 KB")
        if has_bias and up(p.bn, 16) * 4 > BIAS_TABLE_BYTES:
            raise UBOverflowError(f"a bias of base_n = {p.bn} float32 does not fit the 1 KB bias table", loc,
                                  hint="base_n <= 256 with a bias")
        self.l0_n = 2 if 2 * max(a_el, b_el) * sz <= L0AB_BYTES else 1
        self.l0c_n = 2 if 2 * c_el * 4 <= L0C_BYTES and not has_bias else 1
        self.a_el, self.b_el, self.c_el = a_el, b_el, c_el
        a_bytes, b_bytes = a_el * sz, b_el * sz
        self.a1 = LocalTensor(in_dt, TPosition.A1, 0, self.l1_n * a_el)
        self.b1 = LocalTensor(in_dt, TPosition.B1, self.l1_n * a_bytes, self.l1_n * b_el)
        self.a2 = LocalTensor(in_dt, TPosition.A2, 0, self.l0_n * a_el)
        self.b2 = LocalTensor(in_dt, TPosition.B2, 0, self.l0_n * b_el)
        self.bias1 = self.bias2 = None
        if has_bias:
            from ..dtypes import float32
            self.bias1 = LocalTensor(float32, TPosition.C1, self.l1_n * (a_bytes + b_bytes), up(p.bn, 16))
            self.bias2 = LocalTensor(float32, TPosition.C2, 0, up(p.bn, 16))

    def c1(self, out_dt: Any) -> LocalTensor:
        from ..dtypes import float32, int32
        acc = int32 if out_dt.name == "int32" else float32
        return LocalTensor(acc, TPosition.CO1, 0, self.l0c_n * self.c_el)


def _zero_l1(t: Any, n: int) -> None:
    """Zero `n` elements of an L1 tensor; 8-bit types through a uint16 view, as the vendor's Matmul pads them
    (scheduler_base.h StaticPadCommon: InitConstValue takes no 8-bit type; zero bytes are zero either way)."""
    size = t.dtype.itemsize
    if size < 2:
        from ..dtypes import uint16
        t = t.reinterpret_cast(uint16)
    C.init_const_value(t, InitConstValueParams(1, n * size // 32, 0, 0))


def k_step(p: Plan, buf: Buffers, ga: Any, gb: Any, c_l0: Any, row: Any, col: Any, cur_m: Any, cur_n: Any,
           kk: Any, cur_k: int, init: Any, bias: Any = None) -> None:
    """C (+)= A[row:, kk * bk:] x B[kk * bk:, col:] for one K step; `init`: start L0C from zero (True, or a
    runtime condition), accumulate (False), or start from the bias table ("bias")."""
    l1 = kk % 2 if buf.l1_n == 2 else 0
    l0 = kk % 2 if buf.l0_n == 2 else 0
    a1, b1 = buf.a1[l1 * buf.a_el:], buf.b1[l1 * buf.b_el:]
    a2, b2 = buf.a2[l0 * buf.a_el:], buf.b2[l0 * buf.b_el:]
    m16, n16 = up(cur_m, 16), up(cur_n, 16)
    kc = up(cur_k, p.c0)
    if cur_k % p.c0 or (not p.trans_b and cur_k % 16):
        # the K tail: Mmad reads the padding up to a whole fractal column, which must hold zeros
        _zero_l1(a1, buf.a_el)
        _zero_l1(b1, buf.b_el)
    k_off = kk * p.bk
    from ..proxies.api import data_copy
    data_copy(a1, ga[row * p.lda + k_off:], Nd2NzParams(1, cur_m, cur_k, 0, p.lda, m16, 1, 0))
    C.load_data(a2, a1, LoadData3DParamsV2((0, 0, 0, 0), 1, m16, kc, kc, m16, 0, 0))
    if p.trans_b:     # B is N x K: its Nz fractals (16 n x C0 k) are L0B's Zn fractals already
        data_copy(b1, gb[col * p.ldb + k_off:], Nd2NzParams(1, cur_n, cur_k, 0, p.ldb, n16, 1, 0))
        C.load_data(b2, b1, LoadData2DParams(0, (kc // p.c0) * (n16 // 16), 1, 0, 0, False, 0))
    elif p.c0 == 16:  # B is K x N, 16-bit: each 16 x 16 fractal transposed on the way into L0B
        k16 = up(cur_k, 16)
        data_copy(b1, gb[k_off * p.ldb + col:], Nd2NzParams(1, cur_k, cur_n, 0, p.ldb, k16, 1, 0))
        k1, n1 = k16 // 16, n16 // 16
        for i in runtime_range(k1):
            C.load_data(b2[i * n1 * 256:], b1[i * 256:], LoadData2DParams(0, n1, k1, 0, 0, True, 0))
    else:             # B is K x N, 32-bit: LoadData3DV2 into L0B, K as the feature map's m and N as its channels
        # (the vendor's Matmul on dav_c220: load_to_l0b_loadInstr.h, LOAD3DV2), no 32-bit LoadData2D transpose
        k16 = up(cur_k, 16)
        data_copy(b1, gb[k_off * p.ldb + col:], Nd2NzParams(1, cur_k, cur_n, 0, p.ldb, k16, 1, 0))
        C.load_data(b2, b1, LoadData3DParamsV2((0, 0, 0, 0), 1, k16, n16, n16, k16, 0, 0))
    if isinstance(init, str):
        C.mmad(c_l0, a2, b2, bias, MmadParams(cur_m, cur_n, cur_k, unit_flag=0, cmatrix_source=True,
                                              cmatrix_init_val=False))
    else:
        C.mmad(c_l0, a2, b2, MmadParams(cur_m, cur_n, cur_k, unit_flag=0, cmatrix_source=False,
                                        cmatrix_init_val=init))


def out_quant(p: Plan, in_dt: Any, out_dt: Any, loc: SourceLoc) -> QuantModes:
    """The Fixpipe conversion C's type needs; refuses the layouts and types the expansion does not build."""
    if not p.trans_b and in_dt.itemsize == 1:
        how = "LoadDataWithTranspose (load_cbuf_to_cb_transpose)"
        raise NotProvidedError(f"asc.adv.Matmul with B of {in_dt} given K x N (not transposed) is not provided: the "
                               f"vendor's Matmul turns such a B into L0B's layout with {how}, a transposing load "
                               "asc_trace does not model yet (it models the 16-bit LoadData2D transpose and the "
                               "32-bit LoadData3DV2 into L0B)", loc,
                               hint="give B transposed: N x K in GM (on the host np.ascontiguousarray(b.T)), "
                                    f"MatmulType(TPosition.GM, CubeFormat.ND, {in_dt.name}, True), "
                                    "matmul.set_tensor_b(b_global, True), and B's per-core offset "
                                    "n_index * single_core_n * k_b instead of n_index * single_core_n")
    quant = _QUANT.get(("int32" if in_dt.name == "int8" else "float32", out_dt.name))
    if quant is None:
        raise NotProvidedError(f"asc.adv.Matmul from {in_dt} inputs to a {out_dt} C is not provided (C takes "
                               "float32, float16 or bfloat16 from float inputs, int32 from int8)", loc)
    if p.sk // p.bk + (1 if p.sk % p.bk else 0) == 0:
        raise TraceError("asc.adv.Matmul with K = 0: nothing to multiply", loc)
    return quant


def tile_counts(p: Plan) -> tuple[Any, Any]:
    """How many base_m rows and base_n columns of tiles the core's block has (runtime values with runtime tails)."""
    return (p.sm + p.bm - 1) // p.bm, (p.sn + p.bn - 1) // p.bn


def tile_at(p: Plan, t: Any, m_tiles: Any) -> tuple[Any, Any, Any, Any]:
    """Tile `t` in the iteration order (m fastest, IterateOrder.ORDER_M): its first row and column in the
    core's block, and its height and width (smaller at the M / N tails)."""
    row = t % m_tiles * p.bm
    col = t // m_tiles * p.bn
    return row, col, smin(p.sm - row, p.bm), smin(p.sn - col, p.bn)


def l0c_slot(buf: Buffers, c_all: Any, t: Any) -> Any:
    """The L0C half tile `t` accumulates in (ping-pong when two fit)."""
    return c_all[(t % 2) * buf.c_el:] if buf.l0c_n == 2 else c_all


def compute_tile(p: Plan, buf: Buffers, ga: Any, gb: Any, gbias: Any, c_l0: Any, row: Any, col: Any, cur_m: Any,
                 cur_n: Any) -> None:
    """One base block of C = A x B (+ bias) into L0C: its K in base_k steps."""
    full, tail = p.sk // p.bk, p.sk % p.bk
    if gbias is not None:
        from ..proxies.api import data_copy
        data_copy(buf.bias1, gbias[col:], Nd2NzParams(1, 1, cur_n, 0, p.sn, 1, 1, 0))
        data_copy(buf.bias2, buf.bias1, DataCopyParams(1, (cur_n * 4 + 63) // 64, 0, 0))
    if gbias is None:       # as examples/matmul_cube.py: one loop of whole steps, then the tail
        for kk in runtime_range(full):
            k_step(p, buf, ga, gb, c_l0, row, col, cur_m, cur_n, kk, p.bk, kk == 0)
        if tail:
            k_step(p, buf, ga, gb, c_l0, row, col, cur_m, cur_n, full, tail, full == 0)
    else:                   # the first step starts from the bias table, the others accumulate
        for _ in runtime_range(1):
            k_step(p, buf, ga, gb, c_l0, row, col, cur_m, cur_n, 0, p.bk if full else tail, "bias", buf.bias2)
        for kk in runtime_range(1, full):
            k_step(p, buf, ga, gb, c_l0, row, col, cur_m, cur_n, kk, p.bk, False)
        if full and tail:
            k_step(p, buf, ga, gb, c_l0, row, col, cur_m, cur_n, full, tail, False)


def iterate_all(p: Plan, ga: Any, gb: Any, gc: Any, gbias: Any, in_dt: Any, out_dt: Any, loc: SourceLoc) -> None:
    """The whole single_m x single_n block of C on this core."""
    quant = out_quant(p, in_dt, out_dt, loc)
    buf = Buffers(p, in_dt, gbias is not None, loc)
    c_all = buf.c1(out_dt)
    m_tiles, n_tiles = tile_counts(p)
    for t in runtime_range(m_tiles * n_tiles):
        row, col, cur_m, cur_n = tile_at(p, t, m_tiles)
        c_l0 = l0c_slot(buf, c_all, t)
        compute_tile(p, buf, ga, gb, gbias, c_l0, row, col, cur_m, cur_n)
        C.fixpipe(gc[row * p.ldc + col:], c_l0, FixpipeParamsV220(cur_n, cur_m, up(cur_m, 16), p.ldc, quant))
