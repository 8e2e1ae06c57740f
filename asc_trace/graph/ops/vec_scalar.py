"""Vector-scalar ops `Adds(dst, src, scalar, count)` and `Duplicate(dst, scalar, count)` (facts §5).

The scalar has exactly the element type of the tensors (api trap 1): the runtime rounds it to that
type before use, and the lowering casts it, as bisheng requires.
"""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from . import ARITH, SIMPLE_RATE, OpDef, register

_EMIT = "AscendC::{c}({dst}, {src0}, {scalar}, {count});"


def _scalar(name: str, c_name: str, ref, dtypes=ARITH) -> OpDef:
    return OpDef(name, "vec_scalar", Pipe.V, c_name, arity=1, ref=ref, dtypes=dtypes, rate=SIMPLE_RATE,
                 emit=_EMIT.replace("{c}", c_name), writes=(0,))


register(
    _scalar("adds", "Adds", np.add),
    _scalar("muls", "Muls", np.multiply),
    _scalar("maxs", "Maxs", np.maximum),
    _scalar("mins", "Mins", np.minimum),
    OpDef("duplicate", "vec_duplicate", Pipe.V, "Duplicate", arity=0,
          ref=lambda scalar, n, dtype: np.full(n, scalar, dtype=dtype),
          dtypes=frozenset({"float16", "float32", "bfloat16", "int16", "int32", "uint16", "uint32"}),
          rate=SIMPLE_RATE, emit="AscendC::Duplicate({dst}, {scalar}, {count});", writes=(0,)),
)
