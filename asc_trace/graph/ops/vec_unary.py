"""Element-wise unary vector ops, count form: `Exp(dst, src, count)` (facts §5)."""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from . import FLOATS, SIMPLE_RATE, SLOW_RATE, OpDef, register

_EMIT = "AscendC::{c}({dst}, {src0}, {count});"
# Transcendentals are approximations on the vector unit: the tolerance is what the tests allow.
_TRANSCENDENTAL_TOL = {"float16": (2e-3, 1e-4), "float32": (1e-5, 1e-7)}


def _unary(name: str, c_name: str, ref, dtypes=FLOATS, rate=SIMPLE_RATE, tol=None) -> OpDef:
    return OpDef(name, "vec_unary", Pipe.V, c_name, arity=1, ref=ref, dtypes=dtypes, rate=rate,
                 emit=_EMIT.replace("{c}", c_name), tol=tol or {}, writes=(0,))


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, x.dtype.type(0))


register(
    _unary("exp", "Exp", np.exp, rate=SLOW_RATE, tol=_TRANSCENDENTAL_TOL),
    _unary("ln", "Ln", np.log, rate=SLOW_RATE, tol=_TRANSCENDENTAL_TOL),
    _unary("abs", "Abs", np.abs),
    _unary("relu", "Relu", _relu, frozenset({"float16", "int32", "float32"})),
    _unary("sqrt", "Sqrt", np.sqrt, rate=SLOW_RATE, tol=_TRANSCENDENTAL_TOL),
)
