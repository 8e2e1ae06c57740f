"""Type conversion `Cast(dst, src, RoundMode, count)` between the pairs Atlas A2 supports (docs/facts.md#facts-5,
Cast docs). Rounding follows the mode exactly (graph/numerics.py); float -> integer saturates and
maps NaN to 0."""
from __future__ import annotations

from ..node import Pipe
from ..numerics import cast_values
from .masked import envelope, last_lane
from .opdef import CppModel, OpDef, VecCost, register

_R = frozenset({"rint", "floor", "ceil", "round", "trunc"})
_ALL_F = _R | {"none", "odd"}

# (src, dst) -> allowed rounding modes (lower-case RoundMode names without CAST_)
CAST_PAIRS: dict[tuple[str, str], frozenset[str]] = {
    ("float16", "float32"): frozenset({"none"}),
    ("bfloat16", "float32"): frozenset({"none"}),
    ("float32", "float16"): _ALL_F,
    ("float32", "bfloat16"): _R,           # CAST_ODD: the A2 Cast refuses it (found on the real API)
    ("float32", "float32"): _R,
    ("float16", "int32"): _R,
    ("float16", "int16"): _R,
    ("float16", "int8"): _R,
    ("float16", "uint8"): _R,
    ("float32", "int32"): _R,
    ("float32", "int16"): _R,
    ("float32", "int64"): _R,
    ("bfloat16", "int32"): _R,
    ("int32", "float32"): _R | {"none"},
    ("int16", "float16"): _R | {"none"},
    ("int16", "float32"): frozenset({"none"}),
    ("int8", "float16"): frozenset({"none"}),
    ("uint8", "float16"): frozenset({"none"}),
}

def _cast_emit(ctx, n) -> str:
    """The count form `Cast(dst, src, RoundMode, count)`, or the mask form `Cast(dst, src, RoundMode, mask,
    repeatTime, UnaryRepeatParams)` (node: dst, src, mode, mask, repeat, params; attr mask_form)."""
    a = n.args
    head = f"AscendC::Cast({ctx.ref(a[0])}, {ctx.ref(a[1])}, AscendC::RoundMode::{a[2].name}, "
    if not n.attr("mask_form"):
        return head + f"{ctx.cast(a[3], 'uint32_t')});"
    p = a[5]
    casts = ("uint16_t", "uint16_t", "uint8_t", "uint8_t")
    params = ", ".join(ctx.cast(getattr(p, f), c) for f, c in
                       zip(("dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride"), casts))
    return head + f"{ctx.mask(n, a[3])}, {ctx.cast(a[4], 'uint8_t')}, AscendC::UnaryRepeatParams({params}));"


def cast_per_repeat(src, dst) -> int:
    """Elements of one repeat of the mask form: 256 bytes of the wider type (each operand is placed by its own
    32-byte blocks and strides)."""
    return 256 // max(src.itemsize, dst.itemsize)


def _cast_accesses(node) -> list:
    from ..expr import Const
    d, s = node.args[:2]
    if not node.attr("mask_form"):
        return [(d, Const(0), node.args[3], True), (s, Const(0), node.args[3], False)]
    mask, repeat, p = node.args[3:]
    per_rep = cast_per_repeat(s.dtype, d.dtype)
    last = last_lane(mask, per_rep)
    last = per_rep - 1 if last is None else last
    return [(d, Const(0), envelope(d.dtype, repeat, p.dst_blk_stride, p.dst_rep_stride, last), True),
            (s, Const(0), envelope(s.dtype, repeat, p.src_blk_stride, p.src_rep_stride, last), False)]


register(
    OpDef("cast", "vec_cast", Pipe.V, "Cast", arity=1, ref=cast_values,
          dtypes=frozenset(s for s, _ in CAST_PAIRS) | frozenset(d for _, d in CAST_PAIRS),
          cost=VecCost(5, 2, "fitted: PTO-ISA cost model for A2: vconv f16 -> f32 5 + 2 (the other pairs "
                             "assumed alike)"),
          emit=_cast_emit, cpp_model=CppModel(header="Cast"), printer="dst", writes=(0,), accesses=_cast_accesses,
          declared={"Cast/6": ("include/basic_api/kernel_operator_vec_vconv_intf.h:61",
                               "interface/kernel_operator_vec_vconv_intf.h:60")}),
)
