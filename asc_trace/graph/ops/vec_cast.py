"""Type conversion `Cast(dst, src, RoundMode, count)` between the pairs Atlas A2 supports (docs/facts.md#facts-5,
Cast docs). Rounding follows the mode exactly (graph/numerics.py); float -> integer saturates and
maps NaN to 0."""
from __future__ import annotations

from ..node import Pipe
from ..numerics import cast_values
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

def _cast_fields(ctx, n) -> dict[str, str]:
    a = n.args
    return {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "mode": a[2].name, "count": ctx.cast(a[3], "uint32_t")}


register(
    OpDef("cast", "vec_cast", Pipe.V, "Cast", arity=1, ref=cast_values,
          dtypes=frozenset(s for s, _ in CAST_PAIRS) | frozenset(d for _, d in CAST_PAIRS),
          cost=VecCost(5, 2, "fitted: PTO-ISA cost model for A2: vconv f16 -> f32 5 + 2 (the other pairs "
                             "assumed alike)"),
          emit="AscendC::Cast({dst}, {src0}, AscendC::RoundMode::{mode}, {count});", emit_fields=_cast_fields,
          cpp_model=CppModel(header="Cast"), printer="dst", writes=(0,)),
)
