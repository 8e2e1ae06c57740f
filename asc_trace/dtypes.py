"""Element types of kernels, with pyasc's names (`asc.float16`, `asc.half`, `asc.float32`, `asc.float_`, ...).

NumPy has no bfloat16, so bfloat16 values are *stored* as their uint16 bit patterns and converted
with the helpers below whenever arithmetic or a comparison with NumPy needs real values.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class DataType:
    """One element type: its size, the NumPy dtype that stores it and its Ascend C spelling."""

    name: str
    short: str
    itemsize: int
    storage: str   # NumPy dtype name of the storage
    kind: str      # "float", "bfloat", "int", "uint", "bool"
    c_name: str

    def sizeof(self) -> int:
        """Bytes per element (pyasc spelling)."""
        return self.itemsize

    @property
    def np(self) -> np.dtype:
        return np.dtype(self.storage)

    @property
    def is_float(self) -> bool:
        return self.kind in ("float", "bfloat")

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint", "bool")

    def __repr__(self) -> str:
        return f"asc.{self.name}"

    def __str__(self) -> str:
        return self.name


float16 = DataType("float16", "f16", 2, "float16", "float", "half")
float32 = DataType("float32", "f32", 4, "float32", "float", "float")
bfloat16 = DataType("bfloat16", "bf16", 2, "uint16", "bfloat", "bfloat16_t")
int8 = DataType("int8", "i8", 1, "int8", "int", "int8_t")
int16 = DataType("int16", "i16", 2, "int16", "int", "int16_t")
int32 = DataType("int32", "i32", 4, "int32", "int", "int32_t")
int64 = DataType("int64", "i64", 8, "int64", "int", "int64_t")
uint8 = DataType("uint8", "u8", 1, "uint8", "uint", "uint8_t")
uint16 = DataType("uint16", "u16", 2, "uint16", "uint", "uint16_t")
uint32 = DataType("uint32", "u32", 4, "uint32", "uint", "uint32_t")
uint64 = DataType("uint64", "u64", 8, "uint64", "uint", "uint64_t")
bool_ = DataType("bool", "b8", 1, "bool", "bool", "bool")

# pyasc aliases
half = float16
float_ = float32
int_ = int32

ALL: tuple[DataType, ...] = (float16, float32, bfloat16, int8, int16, int32, int64,
                             uint8, uint16, uint32, uint64, bool_)
BY_NAME: dict[str, DataType] = {d.name: d for d in ALL}

# NumPy dtype -> DataType for kernel arguments (bfloat16 arrives from torch, see runtime/args.py).
_FROM_NUMPY: dict[np.dtype, DataType] = {np.dtype(d.storage): d for d in ALL if d is not bfloat16}


def from_numpy(dt: np.dtype) -> DataType | None:
    """The kernel dtype of a NumPy dtype, or None if kernels cannot take it (float64, complex, object...)."""
    return _FROM_NUMPY.get(np.dtype(dt))


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    """Widen bfloat16 bit patterns (uint16) to float32 values (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(values: np.ndarray, mode: str = "rint") -> np.ndarray:
    """Round float32 values to bfloat16 bit patterns (uint16).

    `mode` is one of rint (nearest, ties to even), floor, ceil, round (ties away), trunc, odd.
    NaN stays a quiet NaN.
    """
    f = np.ascontiguousarray(values, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    low = bits & 0xFFFF
    high = bits >> 16
    neg = (bits >> 31) & 1
    if mode == "rint":
        up = (low > 0x8000) | ((low == 0x8000) & ((high & 1) == 1))
    elif mode == "round":
        up = low >= 0x8000
    elif mode == "trunc":
        up = np.zeros_like(low, dtype=bool)
    elif mode == "floor":     # magnitude grows only for negative numbers
        up = (low != 0) & (neg == 1)
    elif mode == "ceil":
        up = (low != 0) & (neg == 0)
    elif mode == "odd":       # round to odd: truncate, then force the last bit on if inexact
        high = np.where(low != 0, high | 1, high)
        up = np.zeros_like(low, dtype=bool)
    else:
        raise ValueError(f"unknown rounding mode {mode!r}")
    out = (high + up.astype(np.uint64)).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        out = np.where(nan, np.uint16(0x7FC0) | (neg.astype(np.uint16) << 15), out).astype(np.uint16)
    return out


def to_compute(values: np.ndarray, dt: DataType) -> np.ndarray:
    """Stored values -> values NumPy can compute with (bfloat16 widens to float32)."""
    return bf16_to_f32(values) if dt is bfloat16 else values


def from_compute(values: np.ndarray, dt: DataType) -> np.ndarray:
    """Computed values -> stored values of `dt` (bfloat16 rounds to nearest even)."""
    if dt is bfloat16:
        return f32_to_bf16(values)
    return np.asarray(values).astype(dt.np, copy=False)
