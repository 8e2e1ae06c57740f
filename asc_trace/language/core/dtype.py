"""pyasc's `asc.language.core.dtype`: `DataType` and the `KnownTypes` namespace (`KnownTypes.int32`, ...).

pyasc's `void`, `bit`, `float64` / `double` have no vector-core tensor type here and are left out, so
`KnownTypes.float64` is an AttributeError rather than a type that would fail later."""
from __future__ import annotations

from ...dtypes import (DataType, bfloat16, bool_, float16, float32, float_, half, int8, int16, int32, int64, int_,
                       uint8, uint16, uint32, uint64)


class KnownTypes:
    """pyasc's table of element types; `int1` is the 1-byte bool, and `bool_` is int8, as in pyasc."""
    int1 = bool_
    int8 = int8
    int16 = int16
    int32 = int32
    int64 = int64
    float16 = float16
    float32 = float32
    bfloat16 = bfloat16
    uint8 = uint8
    uint16 = uint16
    uint32 = uint32
    uint64 = uint64
    bool_ = int8
    int_ = int_
    half = half
    float_ = float_


__all__ = ["DataType", "KnownTypes", "bfloat16", "bool_", "float16", "float32", "float_", "half", "int16", "int32",
           "int64", "int8", "int_", "uint16", "uint32", "uint64", "uint8"]
