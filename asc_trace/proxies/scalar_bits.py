"""pyasc's scalar-unit functions on values known while tracing: bit counts (Ascend C GetBitCount /
ScalarGetCountOfValue, CountLeadingZero, GetSFFValue, CountBitsCntSameAsSignBit), ScalarCast, and the
constant GetDataBlockSizeInBytes.

They compute a Python int (or float) while tracing, so the emitted source holds the constant: the same
result the scalar unit gives (the definitions are the vendor's documented ones, which
toolchain/stub/stub_fun.h's bcnt / clz / sff / sflbits model too). Of a runtime value (a kernel
argument, a loop index) they are not provided yet: a NotProvidedError says so at the user's line.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..enums import RoundMode, member
from ..errors import NotProvidedError, TraceError
from ..graph.expr import Const
from .scalar import to_expr
from .source_loc import user_loc

_U64 = (1 << 64) - 1


def _known(value: Any, what: str, fn: str, kind: type = int) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        e: Any = Const(value)                       # a Python number (a uint64 may pass int64's range)
    else:
        e = to_expr(value, f"the {what} of asc.{fn}")
    if not isinstance(e, Const):
        raise NotProvidedError(f"asc.{fn} of a runtime value (`{e}`) is not provided yet: only of a value known "
                               "while tracing", user_loc(), hint="pass a Python literal or an asc.ConstExpr parameter")
    if kind is int and not isinstance(e.value, int):
        raise TraceError(f"the {what} of asc.{fn} is an integer, got {e.value!r}", user_loc())
    return e.value


def _bit(count_value: Any, fn: str) -> int:
    if not isinstance(count_value, int) or count_value not in (0, 1):
        raise TraceError(f"count_value of asc.{fn} is the bit to look for, 0 or 1 (a Python int), got {count_value!r}",
                         user_loc())
    return count_value


def scalar_get_count_of_value(value_in: Any, count_value: int) -> int:
    """How many bits of the 64-bit `value_in` are `count_value` (0 or 1): Ascend C ScalarGetCountOfValue."""
    v = _known(value_in, "value", "scalar_get_count_of_value") & _U64
    ones = bin(v).count("1")
    return ones if _bit(count_value, "scalar_get_count_of_value") else 64 - ones


def scalar_count_leading_zero(value_in: Any) -> int:
    """Leading zero bits of the 64-bit `value_in` (64 for 0): Ascend C ScalarCountLeadingZero."""
    v = _known(value_in, "value", "scalar_count_leading_zero") & _U64
    return 64 - v.bit_length()


def scalar_get_sff_value(value_in: Any, count_value: int) -> int:
    """The position of the first bit equal to `count_value`, from the least significant one; -1 if there is
    none: Ascend C ScalarGetSFFValue."""
    v = _known(value_in, "value", "scalar_get_sff_value") & _U64
    if not _bit(count_value, "scalar_get_sff_value"):
        v = ~v & _U64
    return (v & -v).bit_length() - 1 if v else -1


def count_bits_cnt_same_as_sign_bit(value_in: Any) -> int:
    """How many bits after the sign bit of the int64 `value_in`, from the top, equal the sign bit (63 for 0
    and -1): Ascend C CountBitsCntSameAsSignBit."""
    v = _known(value_in, "value", "count_bits_cnt_same_as_sign_bit")
    if not -(1 << 63) <= v < (1 << 63):
        raise TraceError(f"asc.count_bits_cnt_same_as_sign_bit takes an int64, got {v}", user_loc())
    u = ((~v if v < 0 else v) << 1) & _U64
    return 64 - u.bit_length() if u else 63


def _round_int(x: float, mode: RoundMode) -> int:
    if mode == RoundMode.CAST_ROUND:                 # to nearest, ties away from zero
        return int(math.copysign(math.floor(abs(x) + 0.5), x))
    if mode == RoundMode.CAST_RINT:                  # to nearest, ties to even
        return int(round(x))
    if mode == RoundMode.CAST_FLOOR:
        return math.floor(x)
    return math.ceil(x)


def _to_half_odd(x: np.float32) -> float:
    """float32 -> float16 rounded to odd: truncate toward zero, and set the last bit if that was inexact."""
    h = np.float16(x)
    if np.isinf(h) or float(h) == float(x):
        return float(h)
    if abs(float(h)) > abs(float(x)):                # NumPy rounded away from zero: step back toward it
        h = np.nextafter(h, np.float16(0))
    bits = h.view(np.uint16)
    return float((bits | np.uint16(1)).view(np.float16))


def scalar_cast(value_in: Any, dtype: DataType, round_mode: RoundMode) -> Any:
    """A float32 value converted to int32 (RoundMode CAST_ROUND, CAST_RINT, CAST_FLOOR, CAST_CEIL) or to
    float16 (CAST_ODD): Ascend C ScalarCast<float, T, mode>."""
    loc = user_loc()
    v = _known(value_in, "value", "scalar_cast", float)
    try:
        mode = member(RoundMode, round_mode)
    except (ValueError, TypeError):
        raise TraceError(f"round_mode of asc.scalar_cast is an asc.RoundMode, got {round_mode!r}", loc) from None
    x = np.float32(v)                                # pyasc passes the value as a float32
    name = getattr(dtype, "name", None)
    if name == "int32":
        if mode not in (RoundMode.CAST_ROUND, RoundMode.CAST_RINT, RoundMode.CAST_FLOOR, RoundMode.CAST_CEIL):
            raise TraceError(f"asc.scalar_cast to int32 takes CAST_ROUND, CAST_RINT, CAST_FLOOR or CAST_CEIL, not "
                             f"{mode.name}", loc)
        if not np.isfinite(x):
            raise TraceError(f"asc.scalar_cast of {v} to int32 is not defined", loc)
        out = _round_int(float(x), mode)
        if not -(1 << 31) <= out < (1 << 31):
            raise TraceError(f"asc.scalar_cast of {v} to int32 is out of range", loc)
        return out
    if name in ("float16", "half"):
        if mode != RoundMode.CAST_ODD:
            raise TraceError(f"asc.scalar_cast to float16 takes CAST_ODD (ScalarCast's only mode for half), not "
                             f"{mode.name}", loc)
        return _to_half_odd(x)
    raise TraceError(f"asc.scalar_cast converts to asc.int32 or asc.float16, not {dtype!r}", loc)


def get_data_block_size_in_bytes() -> int:
    """The bytes of one data block, 32 (Ascend C GetDataBlockSizeInBytes: `constexpr`, ONE_BLK_SIZE)."""
    return 32


__all__ = ["count_bits_cnt_same_as_sign_bit", "get_data_block_size_in_bytes", "scalar_cast", "scalar_count_leading_zero", "scalar_get_count_of_value",
           "scalar_get_sff_value"]
