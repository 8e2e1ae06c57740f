"""Element-wise unary vector ops: `Exp(dst, src, count)` and the mask form
`Exp(dst, src, mask, repeatTime, UnaryRepeatParams)` (docs/facts.md#facts-5)."""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from ..numerics import maximum
from . import EXP, FLOATS, LN_SQRT, UNARY_LIKE, UNARY_SIMPLE, OpDef, VecCost, register

# Transcendentals are approximations on the vector unit: the tolerance is what the tests allow.
_TRANSCENDENTAL_TOL = {"float16": (2e-3, 1e-4), "float32": (1e-5, 1e-7)}
_RECIP_TOL = {"float16": (1e-3, 1e-5), "float32": (1e-6, 1e-30)}


def _unary(name: str, c_name: str, ref, dtypes=FLOATS, cost: VecCost = UNARY_LIKE, tol=None) -> OpDef:
    return OpDef(name, "vec_unary", Pipe.V, c_name, arity=1, ref=ref, dtypes=dtypes, cost=cost,
                 emit=f"AscendC::{c_name}({{dst}}, {{src0}}, {{count}});", tol=tol or {}, writes=(0,))


def _via_f64(fn):
    """Transcendentals are evaluated in float64 and rounded once to the element type: a definition the
    C++ model reproduces bit for bit (the vector unit's own approximation is what `tol` allows for)."""
    def ref(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return fn(x.astype(np.float64)).astype(x.dtype)
    return ref


def _relu(x: np.ndarray) -> np.ndarray:
    """max(x, +0.0) with IEEE 754-2019 maximum: relu(-0.0) is +0.0, NaN stays NaN (docs/numerics.md)."""
    return maximum(x, x.dtype.type(0))


def _rsqrt(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    return (one / np.sqrt(x)).astype(x.dtype)


def _reciprocal(x: np.ndarray) -> np.ndarray:
    return (x.dtype.type(1) / x).astype(x.dtype)


register(
    _unary("exp", "Exp", _via_f64(np.exp), cost=EXP, tol=_TRANSCENDENTAL_TOL),
    _unary("ln", "Ln", _via_f64(np.log), cost=LN_SQRT, tol=_TRANSCENDENTAL_TOL),
    _unary("abs", "Abs", np.abs, cost=UNARY_SIMPLE),
    _unary("relu", "Relu", _relu, frozenset({"float16", "int32", "float32"}), cost=UNARY_SIMPLE),
    _unary("sqrt", "Sqrt", np.sqrt, cost=LN_SQRT, tol=_TRANSCENDENTAL_TOL),
    _unary("rsqrt", "Rsqrt", _rsqrt, tol=_RECIP_TOL),
    _unary("reciprocal", "Reciprocal", _reciprocal, tol=_RECIP_TOL),
    _unary("bitwise_not", "Not", np.invert, frozenset({"int16", "uint16"})),
)
