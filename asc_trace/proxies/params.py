"""Constructors of the Ascend C parameter structs, with pyasc's field names and defaults."""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Sequence

from ..dtypes import DataType
from ..errors import TraceError
from ..graph import params as P
from .scalar import to_expr
from .source_loc import user_loc


def _e(v: Any, what: str):
    e = to_expr(v, what)
    if e.type not in ("int", "bool"):
        raise TraceError(f"{what} must be an integer, got `{e}`", user_loc())
    return e


def _struct(cls: type, values: dict[str, Any], any_type: tuple[str, ...] = ()) -> Any:
    """`cls` with every field taken from `values` (a constructor's arguments, by field name) as an
    integer expression, except the fields in `any_type` (e.g. a padding value of the tensor's type)."""
    return cls(**{f.name: (to_expr if f.name in any_type else _e)(values[f.name], f.name) for f in fields(cls)})


def DataCopyParams(block_count: Any = 1, block_len: Any = 0, src_stride: Any = 0, dst_stride: Any = 0
                   ) -> P.DataCopyParams:
    """Blocks of `block_len` x 32 bytes, `src_stride` / `dst_stride` x 32 bytes apart (gaps between blocks)."""
    return _struct(P.DataCopyParams, locals())


def DataCopyExtParams(block_count: Any = 1, block_len: Any = 0, src_stride: Any = 0, dst_stride: Any = 0,
                      rsv: Any = 0) -> P.DataCopyExtParams:
    """DataCopyPad's blocks: `block_len` bytes each; strides in bytes on the GM side, 32-byte blocks on the UB side."""
    return _struct(P.DataCopyExtParams, locals())


def DataCopyPadExtParams(is_pad: Any = False, left_padding: Any = 0, right_padding: Any = 0,
                         padding_value: Any = 0) -> P.DataCopyPadExtParams:
    """Padding of each GM -> UB block: elements on the left and right, filled with `padding_value` if `is_pad`."""
    return _struct(P.DataCopyPadExtParams, locals(), any_type=("padding_value",))


def BinaryRepeatParams(dst_blk_stride: Any = 1, src0_blk_stride: Any = 1, src1_blk_stride: Any = 1,
                       dst_rep_stride: Any = 8, src0_rep_stride: Any = 8, src1_rep_stride: Any = 8
                       ) -> P.BinaryRepeatParams:
    return _struct(P.BinaryRepeatParams, locals())


def UnaryRepeatParams(dst_blk_stride: Any = 1, src_blk_stride: Any = 1, dst_rep_stride: Any = 8,
                      src_rep_stride: Any = 8) -> P.UnaryRepeatParams:
    return _struct(P.UnaryRepeatParams, locals())


class Array(tuple):
    """`asc.array(asc.uint32, [4, 16])`: a small constant array (shapes for ShapeInfo)."""

    dtype: DataType


def array(dtype: DataType, values: Sequence[int]) -> Array:
    if not isinstance(dtype, DataType):
        raise TraceError(f"asc.array takes an element type first, got {dtype!r}", user_loc())
    if not isinstance(values, (list, tuple, range)):
        raise TraceError(f"asc.array takes its values as a list, got {type(values).__name__} {values!r}", user_loc())
    vals = []
    for v in values:
        if not isinstance(v, int):
            raise TraceError(f"asc.array values must be Python ints known while tracing, got {v!r}", user_loc())
        vals.append(v)
    a = Array(vals)
    a.dtype = dtype
    return a


def ShapeInfo(shape: Any = None, original_shape: Any = None, data_format: Any = None) -> P.ShapeInfo:
    """The shape DumpTensor prints a tensor in (a list of ints or asc.array)."""
    if shape is None:
        return P.ShapeInfo(())
    dims = tuple(shape) if isinstance(shape, (list, tuple)) else ()   # anything else is refused below
    if not dims or any(not isinstance(d, int) or d < 1 for d in dims):
        raise TraceError(f"a ShapeInfo shape is a list of positive ints known while tracing, got {shape!r}",
                         user_loc())
    return P.ShapeInfo(dims)
