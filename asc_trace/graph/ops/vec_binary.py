"""Element-wise binary vector ops: the count form `Add(dst, src0, src1, count)` and the mask form
`Add(dst, src0, src1, mask, repeatTime, BinaryRepeatParams)` (docs/facts.md#facts-5)."""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from ..numerics import add, divide, maximum, minimum, multiply, subtract
from . import ARITH, BINARY, BINARY_LIKE, DIV, FLOATS, MUL, OpDef, VecCost, register

INT16 = frozenset({"int16", "uint16"})


def _binary(name: str, c_name: str, ref, dtypes=ARITH, cost: VecCost = BINARY_LIKE, tol=None) -> OpDef:
    return OpDef(name, "vec_binary", Pipe.V, c_name, arity=2, ref=ref, dtypes=dtypes, cost=cost,
                 emit=f"AscendC::{c_name}({{dst}}, {{src0}}, {{src1}}, {{count}});", tol=tol or {}, writes=(0,))


register(
    _binary("add", "Add", add, cost=BINARY),
    _binary("sub", "Sub", subtract),
    _binary("mul", "Mul", multiply, cost=MUL),
    # The vector unit's division is not correctly rounded; allow an ulp or two.
    _binary("div", "Div", divide, FLOATS, DIV, tol={"float16": (1e-3, 1e-5), "float32": (1e-6, 1e-30)}),
    _binary("max", "Max", maximum),
    _binary("min", "Min", minimum),
    _binary("bitwise_and", "And", np.bitwise_and, INT16),
    _binary("bitwise_or", "Or", np.bitwise_or, INT16),
)
