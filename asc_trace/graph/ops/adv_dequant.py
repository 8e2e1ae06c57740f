"""AscendDequant (Ascend C `include/adv_api/quantization/ascend_dequant.h`), the vendor's A2 (dav-c220) steps
(`impl/adv_api/detail/quantization/dequant/ascend_dequant_common_impl.h`):

- UpdateDequantParams (DeQuantMode::DEQUANT_WITH_SINGLE_ROW, the default): {1, n, c} with c a whole number of
  dst blocks dividing n becomes {n / c, c, c}, so a one-row call reuses its c scales for every c elements.
- CastSrc: int32 -> float (CAST_NONE) of the whole chunk; DequantMul: * the float scales, but only the first
  calCount elements of each row of n (the others leave as the plain int -> float conversion: the vendor's
  behaviour, modelled as it is); a partial last row (the calCount forms) is multiplied by the first scales.
- CastDst: float -> dst, each row of n written at a row pitch of n rounded up to a 32-byte block of dst
  (dst's padding is left as it was); float dst is `Adds(x, 0)` (so -0.0 leaves as +0.0), half CAST_NONE
  (nearest even), bfloat16 CAST_RINT.
- Scales: float as they are, bfloat16 widened, uint64 by its low 32 bits read as a float (GatherMask);
  the scalar form duplicates one float scale calCount times.

The temporary buffer: deqScale as float (calCount rounded up to 8) + k rows of n floats, k >= 1;
GetAscendDequantMaxMinTmpSize (impl/adv_api/tiling/quantization/ascend_dequant_tiling_impl.cpp) asks
(64 + m n + n + 8) x 4 bytes at most and (64 + 2 n + 8) x 4 at least.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import bf16_to_f32, bfloat16, float16, float32, int32
from ..expr import Const
from ..numerics import cast_values
from .adv_common import AdvSpec, Steps, adv_fields, adv_record, register_adv
from .opdef import CppModel

FLOAT_PER_BLOCK = 8
FLOAT_PER_REPEAT = 64
BLOCK = 32


def dst_inner(n: int, dst_itemsize: int) -> int:
    """The row pitch of dst: n rounded up to a 32-byte block of dst (the vendor's dstInner)."""
    per = BLOCK // dst_itemsize
    return -(-n // per) * per


def update_params(m: int, n: int, cal: int, dst_itemsize: int, single_row: bool) -> tuple[int, int, int]:
    """UpdateDequantParams: {1, k c, c} -> {k, c, c} when c is whole dst blocks (DEQUANT_WITH_SINGLE_ROW)."""
    if single_row and m == 1 and cal % (BLOCK // dst_itemsize) == 0 and n % cal == 0:
        return n // cal, cal, cal
    return m, n, cal


def dst_extent(count: int, n: int, pitch: int) -> int:
    """Elements of dst from its start to the last one written (row r of n at r x pitch)."""
    last = count - 1
    return last // n * pitch + last % n + 1


def _scales(st: Steps, ins, sc, node, cal: int) -> np.ndarray:
    """The float scales the vendor puts in the temporary buffer (CastDeqscale / Duplicate)."""
    if "scale" not in ins:
        v = np.full(cal, np.float32(sc["scale"]), np.float32)
        st._note("duplicate", v)
        return v
    s = np.asarray(ins["scale"])[..., :cal]
    kind = node.attr("scale_dtype").name
    if kind == "uint64":            # GatherMask of the even float words: each scale's low 32 bits
        st._note("gather_mask", s.astype(np.float32))
        return (s.astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
    st._note("adds" if kind == "float32" else "cast", s.astype(np.float32))
    return s.astype(np.float32)     # bfloat16 arrives widened (exact), float as it is


def _dequant(st: Steps, ins, sc, node) -> dict:
    m, n, cal = node.attr("params")
    src = np.asarray(ins["src"])
    count = src.shape[-1]
    st._note("cast", src.astype(np.float32))
    f = cast_values(src, int32, float32, "none").astype(np.float32)
    scale = _scales(st, ins, sc, node, cal)
    col = np.arange(count) % n
    hit = col < cal
    with np.errstate(all="ignore"):
        f[..., hit] = f[..., hit] * scale[..., col[hit]]
    st._note("mul", f)
    ddt = node.attr("dtype")
    if ddt is float32:
        y = st.scalar("adds", f, np.float32(0.0))
    elif ddt is float16:
        y = st.cast(f, float16, "none")
    else:                           # bfloat16: CAST_RINT; the executor stores compute values, so widen back
        st._note("cast", f)
        y = bf16_to_f32(cast_values(f, float32, bfloat16, "rint"))
    out = np.array(ins["dst_in"], copy=True)
    pitch = dst_inner(n, ddt.itemsize)
    out[..., np.arange(count) // n * pitch + col] = y
    return {"dst": out}


def _extent(node, name: str):
    """src: the count; scale: calCount; dst: to its last written element. A count known only at run time
    is allowed where dst's pitch is n (the front end checks), so dst's extent is the count too."""
    from .adv_common import operands
    m, n, cal = node.attr("params")
    if name == "scale":
        return Const(cal)
    count = node.attr("total")
    if count is None:
        return operands(node)[3]
    if name == "src":
        return Const(count)
    return Const(dst_extent(count, n, dst_inner(n, node.attr("dtype").itemsize)))


def dequant_tmp(m: int, n: int) -> tuple[int, int]:
    """GetAscendDequantMaxMinTmpSize for a source of [m, n] -> (max, min) bytes."""
    scale = n + FLOAT_PER_BLOCK
    return (FLOAT_PER_REPEAT + m * n + scale) * 4, (FLOAT_PER_REPEAT + n + scale) * 4


def _min_tmp(node, count) -> int:
    m, n, _c = node.attr("params")
    return dequant_tmp(m, n)[1]


def _max_tmp(node, count) -> int:
    m, n, _c = node.attr("params")
    return dequant_tmp(max(-(-int(count or 0) // n), 1), n)[0]


MULTI_ROW = "AscendC::DeQuantMode::DEQUANT_WITH_MULTI_ROW"


def _emit(ctx, node) -> str:
    f = adv_fields(ctx, node)
    sdt = node.attr("scale_dtype")
    tmpl = f"{f['T']}, {sdt.c_name}" + (f", {MULTI_ROW}" if node.attr("multi_row") else "")
    form = node.attr("form")
    last = {"params": ", {%d, %d, %d}" % node.attr("given"), "count": f", {f['count']}", "size": ""}[form]
    scale = f["scale"]
    tmp = f", {f['tmp']}" if f["tmp"] else ""
    return f"AscendC::AscendDequant<{tmpl}>({f['dst']}, {f['src']}, {scale}{tmp}{last});"


DECLARED = {
    "AscendDequant<>/5": ("include/adv_api/quantization/ascend_dequant.h:59", "lib/quantization/ascend_dequant.h:46"),
    "AscendDequant<>/4": ("include/adv_api/quantization/ascend_dequant.h:87", "lib/quantization/ascend_dequant.h:70"),
    "AscendDequant<>/3": ("include/adv_api/quantization/ascend_dequant.h:207",
                          "lib/quantization/ascend_dequant.h:175"),
    "DeQuantMode::DEQUANT_WITH_MULTI_ROW": ("impl/basic_api/utils/kernel_utils_mode.h:183",
                                            "impl/utils/kernel_utils_mode.h:246"),
}
DST_TYPES = frozenset({"float16", "float32", "bfloat16"})
# exact: one int -> float conversion, one float multiplication, one rounding to dst, as the vendor does
TOL = {"float16": (0.0, 0.0), "float32": (0.0, 0.0), "bfloat16": (0.0, 0.0)}

_CPP = CppModel(header="AscendDequant (toolchain/include/asc_trace_adv.h)")

register_adv(
    adv_record("adv_dequant", "AscendDequant",
               AdvSpec(("dst",), ("src", "scale", "dst_in"), _dequant, _min_tmp, _max_tmp, extent=_extent,
                       distinct=(("dst", "src"), ("dst", "scale"))),
               _emit, DST_TYPES, DECLARED, TOL, header="quantization/ascend_dequant.h", cpp_model=_CPP),
    adv_record("adv_dequant_scalar", "AscendDequant",
               AdvSpec(("dst",), ("src", "dst_in"), _dequant, _min_tmp, _max_tmp, scalars=("scale",),
                       extent=_extent, distinct=(("dst", "src"),)),
               _emit, DST_TYPES, {}, TOL, header="quantization/ascend_dequant.h", cpp_model=_CPP),
)
__all__ = ["dst_inner", "update_params", "dequant_tmp", "dst_extent"]
