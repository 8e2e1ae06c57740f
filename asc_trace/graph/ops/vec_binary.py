"""Element-wise binary vector ops, count form: `Add(dst, src0, src1, count)` (facts §5)."""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from . import ARITH, FLOATS, SIMPLE_RATE, SLOW_RATE, OpDef, register

_EMIT = "AscendC::{c}({dst}, {src0}, {src1}, {count});"


def _binary(name: str, c_name: str, ref, dtypes=ARITH, rate=SIMPLE_RATE, tol=None) -> OpDef:
    return OpDef(name, "vec_binary", Pipe.V, c_name, arity=2, ref=ref, dtypes=dtypes, rate=rate,
                 emit=_EMIT.replace("{c}", c_name), tol=tol or {}, writes=(0,))


register(
    _binary("add", "Add", np.add),
    _binary("sub", "Sub", np.subtract),
    _binary("mul", "Mul", np.multiply),
    # The vector unit's division is not correctly rounded; allow an ulp or two.
    _binary("div", "Div", np.divide, FLOATS, SLOW_RATE, tol={"float16": (1e-3, 1e-5), "float32": (1e-6, 1e-30)}),
    _binary("max", "Max", np.maximum),
    _binary("min", "Min", np.minimum),
)
