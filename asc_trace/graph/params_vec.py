"""Parameter structs and enums of pyasc's further vector families (docs/pyasc-vector-ops.md), as graph
operands (fields are scalar expressions). Field names and defaults are pyasc 1.1's
(python/asc/language/core/types.py); units are the Ascend C API's (strides in 32-byte blocks)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum

from .expr import Expr


class TransposeType(IntEnum):
    """Ascend C TransposeType (the layouts asc.transpose's extended form converts between)."""
    TRANSPOSE_TYPE_NONE = 0
    TRANSPOSE_NZ2ND_0213 = 1
    TRANSPOSE_NZ2NZ_0213 = 2
    TRANSPOSE_NZ2NZ_012_WITH_N = 3
    TRANSPOSE_NZ2ND_012_WITH_N = 4
    TRANSPOSE_NZ2ND_012_WITHOUT_N = 5
    TRANSPOSE_NZ2NZ_012_WITHOUT_N = 6
    TRANSPOSE_ND2ND_ONLY = 7
    TRANSPOSE_ND_UB_GM = 8
    TRANSPOSE_GRAD_ND_UB_GM = 9
    TRANSPOSE_ND2ND_B16 = 10
    TRANSPOSE_NCHW2NHWC = 11
    TRANSPOSE_NHWC2NCHW = 12


class GatherMaskMode(IntEnum):
    """Ascend C GatherMaskMode (pyasc has DEFAULT only)."""
    DEFAULT = 0


@dataclass(frozen=True, slots=True)
class CopyRepeatParams:
    dst_stride: Expr         # block stride, 32-byte blocks
    src_stride: Expr
    dst_repeat_size: Expr    # repeat stride, 32-byte blocks
    src_repeat_size: Expr


@dataclass(frozen=True, slots=True)
class BrcbRepeatParams:
    dst_blk_stride: Expr
    dst_rep_stride: Expr


@dataclass(frozen=True, slots=True)
class GatherRepeatParams:
    dst_blk_stride: Expr
    dst_rep_stride: Expr


@dataclass(frozen=True, slots=True)
class GatherMaskParams:
    src0_block_stride: Expr
    repeat_times: Expr
    src0_repeat_stride: Expr
    src1_repeat_stride: Expr


@dataclass(frozen=True, slots=True)
class TransDataTo5HDParams:
    dst_high_half: Expr
    src_high_half: Expr
    repeat_times: Expr
    dst_rep_stride: Expr
    src_rep_stride: Expr


@dataclass(frozen=True, slots=True)
class TransposeParamsExt:
    n_size: Expr
    c_size: Expr
    h_size: Expr
    w_size: Expr
    transpose_type: TransposeType


@dataclass(frozen=True, slots=True)
class DataCopyPadParams:
    is_pad: Expr
    left_padding: Expr
    right_padding: Expr
    padding_value: Expr


def _positional(obj: object) -> str:
    from .expr import to_str
    parts = [v.name if isinstance(v, IntEnum) else to_str(v) for v in (getattr(obj, f.name) for f in fields(obj))]
    return f"{type(obj).__name__}(" + ", ".join(parts) + ")"


for _cls in (CopyRepeatParams, BrcbRepeatParams, GatherRepeatParams, GatherMaskParams, TransDataTo5HDParams,
             TransposeParamsExt, DataCopyPadParams):
    _cls.__str__ = _positional  # type: ignore[method-assign]
