"""Numerics shared by the op records: rounding modes of Cast and the summation order of reductions.

The C++ model of the API (toolchain/include/kernel_operator.h) implements the same definitions, so the
simulator, eager and cpp backends agree bit for bit. Where the hardware's exact behaviour is not
documented (the order of a reduction's additions), the definition here is the assumption and the
op's tolerance against NumPy says how far from an exact result it may land.
"""
from __future__ import annotations

import numpy as np

from typing import Any

from ..dtypes import DataType, bf16_to_f32, f32_to_bf16
from .scalar_ops import any_nan, first_nan, ieee_max, ieee_min

MODES = ("none", "rint", "floor", "ceil", "round", "trunc", "odd")


def _integral(x: np.ndarray, mode: str) -> np.ndarray:
    """Round float64 values to integral values."""
    if mode in ("rint", "none"):
        return np.rint(x)
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    if mode == "trunc":
        return np.trunc(x)
    if mode == "round":                 # nearest, ties away from zero; -0.0 and NaN keep their sign
        return np.copysign(np.floor(np.abs(x) + 0.5), x)
    raise ValueError(f"mode {mode} does not round to integers")


def to_float_type(x: np.ndarray, np_dtype: np.dtype, mode: str) -> np.ndarray:
    """Round float64 values `x` to float16 / float32 with a rounding mode (none = nearest even)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        r = x.astype(np_dtype)                  # round to nearest, ties to even
    if mode in ("none", "rint"):
        return r
    with np.errstate(invalid="ignore", over="ignore"):
        back = r.astype(np.float64)
        inf = np_dtype.type(np.inf)
        down = np.nextafter(r, -inf)
        up = np.nextafter(r, inf)
        if mode == "floor":
            return np.where(back > x, down, r)
        if mode == "ceil":
            return np.where(back < x, up, r)
        if mode == "trunc":
            return np.where(np.abs(back) > np.abs(x), np.where(x > 0, down, up), r)
        lo = np.where(back > x, down, r)            # the two neighbours of x
        hi = np.where(back < x, up, r)
        if mode == "round":                         # nearest, ties away from zero
            lo64, hi64 = lo.astype(np.float64), hi.astype(np.float64)
            tie = (x - lo64) == (hi64 - x)
            away = np.where(x > 0, hi, lo)
            return np.where(tie & (lo != hi), away, r)
        if mode == "odd":                           # inexact results take the neighbour with an odd last bit
            bits_t = np.uint16 if np_dtype == np.float16 else np.uint32
            lo_odd = (lo.view(bits_t) & 1) == 1
            pick = np.where(lo_odd, lo, hi)
            return np.where(back == x, r, pick)
    raise ValueError(f"unknown rounding mode {mode}")


def saturate_int(x: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """Integral float64 values to an integer type: saturating (+-inf and values past the range give
    the type's max / min), NaN -> 0 (docs/numerics.md). The comparisons are made in float64 against
    2**bits exactly, because the type's max (2**63 - 1) itself is not a float64."""
    info = np.iinfo(np_dtype)
    x = np.where(np.isnan(x), 0.0, np.asarray(x, dtype=np.float64))
    top = float(info.max) + 1.0                     # 2**bits(-1): exact in float64
    big = x >= top
    small = x < float(info.min)
    safe = np.where(big | small, 0.0, x).astype(np_dtype)
    return np.where(big, info.max, np.where(small, info.min, safe)).astype(np_dtype)


def cast_values(src: np.ndarray, sdt: DataType, ddt: DataType, mode: str) -> np.ndarray:
    """Cast stored `src` values of type `sdt` to stored values of type `ddt` (bfloat16 as bits)."""
    if sdt.name == "bfloat16":
        x = bf16_to_f32(src).astype(np.float64)
    else:
        x = np.asarray(src).astype(np.float64)
    if ddt.name == "bfloat16":     # from float32, whose values float64 holds exactly
        return f32_to_bf16(x.astype(np.float32), "rint" if mode == "none" else mode)
    if ddt.is_float:
        if sdt.is_float and ddt.itemsize >= sdt.itemsize and mode != "none" and sdt.name != "bfloat16":
            return to_float_type(_integral(x, mode), ddt.np, "rint")   # float -> float: round to integral
        return to_float_type(x, ddt.np, mode)
    if sdt.is_float:
        return saturate_int(_integral(x, mode), ddt.np)
    return saturate_int(x, ddt.np)


add = first_nan(np.add)
subtract = first_nan(np.subtract)
multiply = first_nan(np.multiply)
divide = first_nan(np.divide)


def maximum(a: np.ndarray, b: Any) -> np.ndarray:
    """Vector Max / Maxs / Relu: IEEE 754-2019 maximum for floats (a NaN operand wins, the first
    one if both are NaN; +0.0 is above -0.0), plain max for integers. The hardware's signed-zero
    rule is not documented: this is our choice, the same on every backend (docs/numerics.md)."""
    return _pick(a, b, True)


def minimum(a: np.ndarray, b: Any) -> np.ndarray:
    """Vector Min / Mins: IEEE 754-2019 minimum for floats (-0.0 is below +0.0), plain min for ints."""
    return _pick(a, b, False)


def _pick(a: np.ndarray, b: Any, pick_max: bool) -> np.ndarray:
    a = np.asarray(a)
    b = np.asarray(b, dtype=a.dtype) if np.ndim(b) == 0 else np.asarray(b)
    if a.dtype.kind != "f":
        return np.maximum(a, b) if pick_max else np.minimum(a, b)
    return np.asarray((ieee_max if pick_max else ieee_min)(a, b), dtype=a.dtype)


def tree_sum(values: np.ndarray, dt_np: np.dtype, width: int, *, nan_rule_always: bool = False) -> np.ndarray:
    """Sum the last axis the way ReduceSum does: zero-pad to whole repeats of `width`, reduce each
    repeat as a binary tree of adjacent pairs (x0+x1, x2+x3, ..., then the pair sums pairwise; the
    order the Ascend C docs give for ReduceDataBlock / ReduceRepeat SUM), adding in the element type,
    then reduce the per-repeat sums the same way (asc_trace's definition: the docs say nothing of the
    order across repeats), until one value is left. Returns shape values.shape[:-1].
    `nan_rule_always` applies `add`'s two-NaN rule at every level even without a NaN in the input (the
    definition itself, which the tests hold the fast path to)."""
    v = np.asarray(values, dtype=dt_np)
    # without a NaN among the values, every NaN a sum makes (inf + -inf) has the same bits, so the
    # two-NaN rule of `add` cannot change one: the bare ufunc gives the same bits in one pass per level
    fast = not nan_rule_always and (v.dtype.kind != "f" or not any_nan(v))
    pairs = np.add if fast else add
    while True:
        n = v.shape[-1]
        reps = max(1, -(-n // width))
        pad = reps * width - n
        if pad:
            v = np.concatenate([v, np.zeros(v.shape[:-1] + (pad,), dt_np)], axis=-1)
        v = v.reshape(v.shape[:-1] + (reps, width))
        w = width
        while w > 1:
            w //= 2
            v = pairs(v[..., 0:2 * w:2], v[..., 1:2 * w:2]).astype(dt_np, copy=False)
        v = v[..., 0]                    # (..., reps)
        if reps == 1:
            return v[..., 0]
