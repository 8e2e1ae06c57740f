"""The kernel's scalar arithmetic, stated once (docs/numerics.md): what every backend computes for
runtime `int` / `float` expressions (kernel arguments, the block index, loop indices, values read
from the UB, and arithmetic on them).

- Integers are int64 and wrap in two's complement (+, -, *, unary -, abs, <<), as the scalar unit's
  64-bit registers do; `//` and `%` are Python's floor division and modulo, with
  INT64_MIN // -1 == INT64_MIN (the wrapped quotient) and INT64_MIN % -1 == 0.
- An integer `//` or `%` by zero, and a shift by a negative count or by 64 or more, have no value:
  they raise `ScalarFault`, which the backends report as `asc.ScalarError` at the user's line.
- Floats are float32 and every operation rounds to float32 (an int operand is rounded to float32
  once, exactly as C's int64 -> float conversion does); `//` and `%` on floats follow NumPy's float32
  floor_divide / remainder, min / max are IEEE 754-2019 maximum / minimum (NaN wins, -0.0 < +0.0);
  a NaN result of + - * / is the first NaN operand's, quieted.

Every function works on Python numbers (one core) and element-wise on NumPy arrays (one value per
core of a group simulated together). The C++ side is `toolchain/include/asc_trace_prelude.h`.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np


class Fn:
    """The scalar expression layer's function-style operators, spelled as Python's builtins (`min(a, b)`,
    `max(a, b)`, `abs(a)`): operators of `Bin` / `Un` expressions on ints and floats, not the vector ops
    asc.min / asc.max / asc.abs of the op registry (which act on tensors and share only the spelling)."""

    MIN = "min"
    MAX = "max"
    ABS = "abs"

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
_MASK = (1 << 64) - 1
_EXACT = 1 << 53           # Python ints up to this magnitude convert to float64 exactly


class ScalarFault(ArithmeticError):
    """A scalar expression without a value (integer division by zero, a bad shift count)."""


def wrap(v: Any) -> Any:
    """An int64 result: Python ints wrap into [INT64_MIN, INT64_MAX]; NumPy int64 arrays already do."""
    if v.__class__ is int and not INT64_MIN <= v <= INT64_MAX:
        return ((v - INT64_MIN) & _MASK) + INT64_MIN
    return v


def fits_int64(v: int) -> bool:
    return INT64_MIN <= v <= INT64_MAX


_F64_SHIFT_MAX = 1024 - 53   # math.ldexp(q, shift) with a 53-bit q overflows float64 beyond this


def to_f32(v: Any) -> Any:
    """Round to float32 once (C's `static_cast<float>` of an int64 or a float).

    NumPy converts a large Python int to float32 through float64, which can round twice; ints beyond
    2**53 are first rounded to odd at 53 bits, which makes the second rounding exact."""
    if isinstance(v, np.ndarray):
        return v.astype(np.float32)
    if v.__class__ is int and not -_EXACT <= v <= _EXACT:
        a = abs(v)
        shift = a.bit_length() - 53
        q = a >> shift
        if a & ((1 << shift) - 1):
            q |= 1                                  # sticky bit: round to odd
        if shift > _F64_SHIFT_MAX:                  # beyond float64, so far beyond float32: rounds to inf
            return np.float32(-np.inf if v < 0 else np.inf)
        d = math.ldexp(float(q), shift)
        return np.float32(-d if v < 0 else d)
    return np.float32(v)


def _any(mask: Any) -> bool:
    return bool(np.any(mask))


def floordiv(a: Any, b: Any) -> Any:
    if a.__class__ is int and b.__class__ is int:      # one core: plain Python ints (the fast path)
        if b == 0:
            raise ScalarFault("integer division by zero")
        return wrap(a // b)
    if _any(np.asarray(b) == 0):
        raise ScalarFault("integer division by zero")
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        with np.errstate(all="ignore"):
            return np.floor_divide(a, b)          # INT64_MIN // -1 wraps to INT64_MIN in NumPy too
    return wrap(a // b)


def mod(a: Any, b: Any) -> Any:
    if a.__class__ is int and b.__class__ is int:
        if b == 0:
            raise ScalarFault("integer modulo by zero")
        return a % b
    if _any(np.asarray(b) == 0):
        raise ScalarFault("integer modulo by zero")
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        with np.errstate(all="ignore"):
            return np.remainder(a, b)
    return a % b


def _shift_count(b: Any) -> None:
    arr = np.asarray(b)
    if _any((arr < 0) | (arr > 63)):
        bad = arr.flat[int(np.argmax((arr < 0) | (arr > 63)))]
        raise ScalarFault(f"shift count {int(bad)} is outside 0..63")


def shl(a: Any, b: Any) -> Any:
    _shift_count(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.left_shift(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    return wrap(a << b)


def shr(a: Any, b: Any) -> Any:
    _shift_count(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.right_shift(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    return a >> b


def _int_minmax(pick_max: bool) -> Callable[[Any, Any], Any]:
    def fn(a: Any, b: Any) -> Any:
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return np.maximum(a, b) if pick_max else np.minimum(a, b)
        return max(a, b) if pick_max else min(a, b)
    return fn


INT_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: wrap(a + b), "-": lambda a, b: wrap(a - b), "*": lambda a, b: wrap(a * b),
    "//": floordiv, "%": mod, "<<": shl, ">>": shr,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    Fn.MIN: _int_minmax(False), Fn.MAX: _int_minmax(True),
}


# -- float32 ------------------------------------------------------------------------------------

def ieee_max(a: Any, b: Any) -> Any:
    """IEEE 754-2019 maximum on float arrays or scalars: NaN if either is NaN (the first NaN),
    +0.0 over -0.0, else the larger."""
    return _ieee_pick(a, b, True)


def ieee_min(a: Any, b: Any) -> Any:
    """IEEE 754-2019 minimum: NaN if either is NaN (the first NaN), -0.0 under +0.0, else the smaller."""
    return _ieee_pick(a, b, False)


def _ieee_pick(a: Any, b: Any, pick_max: bool) -> Any:
    a, b = np.asarray(a), np.asarray(b)
    # the common case in one pass: NumPy's maximum / minimum are exact without NaNs, except for which
    # zero a tie of signed zeros gives (fixed here); with a NaN anywhere, the full rule below
    r = np.maximum(a, b) if pick_max else np.minimum(a, b)
    if r.dtype.kind != "f" or not np.isnan(r).any():
        ties = (r == 0) & (a == b)
        if r.ndim == 0 or not ties.any():
            return r if r.ndim or not ties else _ieee_pick_full(a, b, pick_max)
        a, b = np.broadcast_arrays(a, b)
        return np.where(ties, np.where(np.signbit(a) != pick_max, a, b), r)
    return _ieee_pick_full(a, b, pick_max)


def _ieee_pick_full(a: np.ndarray, b: np.ndarray, pick_max: bool) -> Any:
    a, b = np.broadcast_arrays(a, b)
    bigger = (a > b) if pick_max else (a < b)
    # equal values are the same bits except for signed zeros: max keeps the positive one
    tie_a = (a == b) & (np.signbit(a) != pick_max)
    r = np.where(bigger | tie_a, a, b)
    r = np.where(np.isnan(b), b, r)
    r = np.where(np.isnan(a), a, r)
    return r


def any_nan(x: np.ndarray) -> bool:
    """Whether float array `x` holds a NaN, in one pass and without a boolean temporary: np.maximum.reduce
    propagates any NaN (NumPy's documented rule), where `np.isnan(x).any()` makes a mask of x's size first."""
    return x.size > 0 and bool(np.isnan(np.maximum.reduce(x, axis=None)))


def first_nan(fn: Any) -> Any:
    """An arithmetic ufunc whose NaN result, when both operands are NaN, is the first operand's NaN
    (quieted): the rule of the C model and of x86 (NumPy's vector loops may pick either). With one NaN
    operand, every implementation returns that operand's NaN. Our choice (docs/numerics.md): the prelude's asct_fadd..., and the model's arithmetic, do the same.
    `op.into(a, b, out)` writes the same values into `out` (an array of the result's dtype), so that a
    batched loop computes straight into its destination (runtime/batch.py)."""
    def both_nan(a: Any, b: Any, r: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(where both operands are NaN, the first operand's NaN quieted) when that happens anywhere."""
        if r.dtype.kind != "f":
            return None
        # two NaN operands need a NaN in each: a scalar or per-core operand (adds, muls) tells that
        # without a pass over the result
        sa, sb = np.size(a), np.size(b)
        if min(sa, sb) < r.size and not np.isnan(a if sa <= sb else b).any():
            return None
        if not any_nan(r):
            return None
        a_arr = np.broadcast_to(np.asarray(a, dtype=r.dtype), r.shape)
        both = np.isnan(a_arr) & np.isnan(np.broadcast_to(np.asarray(b, dtype=r.dtype), r.shape))
        if not both.any():
            return None
        bits = np.dtype(f"u{r.dtype.itemsize}")
        quiet = a_arr.view(bits) | bits.type(1 << (np.finfo(r.dtype).nmant - 1))
        return both, quiet.view(r.dtype)

    def op(a: Any, b: Any) -> np.ndarray:
        r = fn(a, b)
        fix = both_nan(a, b, r)
        return r if fix is None else np.where(fix[0], fix[1], r)

    def into(a: Any, b: Any, out: np.ndarray) -> None:
        fn(a, b, out=out)
        fix = both_nan(a, b, out)
        if fix is not None:
            np.copyto(out, fix[1], where=fix[0])
    op.into = into
    return op



def _f32_binary(op: str) -> Callable[[Any, Any], Any]:
    if op in (Fn.MIN, Fn.MAX):
        pick = ieee_max if op == Fn.MAX else ieee_min

        def run(a: Any, b: Any) -> Any:
            r = pick(to_f32(a), to_f32(b))
            return r if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else float(r)
        return run
    fn = {"+": first_nan(np.add), "-": first_nan(np.subtract), "*": first_nan(np.multiply),
          "/": first_nan(np.divide), "//": np.floor_divide,
          "%": np.remainder, "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
          "==": np.equal, "!=": np.not_equal}[op]
    compare = op in ("<", "<=", ">", ">=", "==", "!=")

    def run(a: Any, b: Any) -> Any:
        with np.errstate(all="ignore"):
            r = fn(to_f32(a), to_f32(b))
        if isinstance(r, np.ndarray):
            return r
        return bool(r) if compare else float(r)
    return run


F32_OPS: dict[str, Callable[[Any, Any], Any]] = {
    op: _f32_binary(op) for op in ("+", "-", "*", "/", "//", "%", "<", "<=", ">", ">=", "==", "!=", Fn.MIN, Fn.MAX)}


# -- unary ----------------------------------------------------------------------------------------

def neg(a: Any) -> Any:
    return wrap(-a)


def iabs(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        return np.abs(a)
    return wrap(abs(a))


def lnot(a: Any) -> Any:
    return np.logical_not(a) if isinstance(a, np.ndarray) else (not a)


def f2i(a: Any) -> Any:
    """float -> int64, truncating toward zero and saturating; NaN -> 0 (the rule of casts, docs/numerics.md)."""
    x = np.asarray(a, dtype=np.float64)
    x = np.where(np.isnan(x), 0.0, np.trunc(x))
    big = x >= 2.0 ** 63
    r = np.where(big, 0.0, np.maximum(x, -2.0 ** 63)).astype(np.int64)
    r = np.where(big, INT64_MAX, r)
    return r if isinstance(a, np.ndarray) else int(r)


UN_OPS: dict[str, Callable[[Any], Any]] = {
    "neg": neg, Fn.ABS: iabs, "not": lnot, "int": f2i,
    "float": lambda a: to_f32(a) if isinstance(a, np.ndarray) else float(to_f32(a)),
}
