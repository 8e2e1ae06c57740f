"""Element-wise unary vector ops: `Exp(dst, src, count)` and the mask form
`Exp(dst, src, mask, repeatTime, UnaryRepeatParams)` (docs/facts.md#facts-5)."""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from ..numerics import maximum
from .opdef import EXP, FLOATS, LN_SQRT, UNARY_LIKE, UNARY_SIMPLE, CppModel, OpDef, VecCost, register
from .masked import UNARY_MASK_EMIT

# Transcendentals are approximations on the vector unit: the tolerance is what the tests allow.
_TRANSCENDENTAL_TOL = {"float16": (2e-3, 1e-4), "float32": (1e-5, 1e-7)}
_RECIP_TOL = {"float16": (1e-3, 1e-5), "float32": (1e-6, 1e-30)}


def unary_fields(ctx, n) -> dict[str, str]:
    a = n.args
    return {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "count": ctx.cast(a[2])}


def unary(name: str, c_name: str, ref, dtypes=FLOATS, cost: VecCost = UNARY_LIKE, tol=None, *, cpp: str,
          ins: str, hivm: str = "") -> OpDef:
    """A record of the family: `c_name(dst, src, count)` and its mask form; `cpp`: the C++ expression of
    one element from `a`; `ins`: the instruction."""
    return OpDef(name, "vec_unary", Pipe.V, c_name, arity=1, ref=ref, dtypes=dtypes, cost=cost,
                 emit=f"AscendC::{c_name}({{dst}}, {{src0}}, {{count}});", emit_fields=unary_fields,
                 emit_mask=UNARY_MASK_EMIT.replace("{c}", c_name), cpp_model=CppModel(cpp), printer="dst",
                 tol=tol or {}, writes=(0,), intrinsic=ins, hivm=hivm)


def _via_f64(fn):
    """Transcendentals are evaluated in float64 and rounded once to the element type: a definition the
    C++ model reproduces bit for bit (the vector unit's own approximation is what `tol` allows for)."""
    def ref(x: np.ndarray) -> np.ndarray:
        if np.ndim(x) == 0:
            with np.errstate(all="ignore"):
                return fn(x.astype(np.float64)).astype(x.dtype)
        with np.errstate(all="ignore"):
            # dtype=float64 selects the float64 loop; NumPy widens the input and rounds the result to the
            # output's type in cache-sized blocks, so no float64 array of the input's size is written and
            # read back (the same bits as astype(float64) -> fn -> astype; 20 % less time on 8 x 65,536
            # float32, and a fresh float64 temporary's page faults cost several times the exp itself)
            return fn(x, dtype=np.float64, out=np.empty(x.shape, x.dtype), casting="unsafe")
    ref.pure_costly = True      # a pure function of the input's bits, worth remembering (runtime/value_memo.py)
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
    unary("exp", "Exp", _via_f64(np.exp), cost=EXP, tol=_TRANSCENDENTAL_TOL, cpp="detail::exp_(a)", ins="vexp", hivm="vexp"),
    unary("ln", "Ln", _via_f64(np.log), cost=LN_SQRT, tol=_TRANSCENDENTAL_TOL, cpp="detail::ln_(a)", ins="vln", hivm="vln"),
    unary("abs", "Abs", np.abs, cost=UNARY_SIMPLE, cpp="detail::abs_(a)", ins="vabs", hivm="vabs"),
    unary("relu", "Relu", _relu, frozenset({"float16", "int32", "float32"}), cost=UNARY_SIMPLE,
          cpp="detail::relu_(a)", ins="vrelu", hivm="vrelu"),
    unary("sqrt", "Sqrt", np.sqrt, cost=LN_SQRT, tol=_TRANSCENDENTAL_TOL, cpp="detail::sqrt_(a)", ins="vsqrt", hivm="vsqrt"),
    unary("rsqrt", "Rsqrt", _rsqrt, tol=_RECIP_TOL, cpp="detail::rsqrt(a)", ins="vrsqrt", hivm="vrsqrt"),
    unary("reciprocal", "Reciprocal", _reciprocal, tol=_RECIP_TOL, cpp="detail::recip(a)", ins="vrec", hivm="vrec"),
    unary("bitwise_not", "Not", np.invert, frozenset({"int16", "uint16"}), cpp="detail::bnot(a)", ins="vnot", hivm="vnot"),
)
