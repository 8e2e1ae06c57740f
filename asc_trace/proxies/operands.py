"""Operand checks every kernel-side API family shares (the vector families of api.py, the others of
api_ops.py, the high-level API of asc_trace/adv): counts, scalars, dtypes, masks, copy directions.
They know nothing of the tensor proxies (tensors.py checks its own operands with `vec_operand`), so
tensors.py, api.py and api_ops.py all import this module and none of them needs another's helpers."""
from __future__ import annotations

from typing import Any

from ..dtypes import DataType
from ..enums import member
from ..errors import DTypeError, TraceError
from ..graph.expr import Const, Expr
from ..graph.node import Pipe, TensorRef
from ..graph.ops.opdef import OpDef
from ..graph.params import Mask
from ..graph.source_loc import SourceLoc
from .scalar import to_expr


def check_same_dtype(opname: str, refs: list[TensorRef], names: list[str], loc: SourceLoc) -> DataType:
    first = refs[0].dtype
    for r, n in zip(refs[1:], names[1:]):
        if r.dtype is not first:
            detail = ", ".join(f"{nm} is {rr.dtype}" for rr, nm in zip(refs, names))
            raise DTypeError(f"operand dtypes of asc.{opname} differ: {detail}", loc,
                             hint="convert with asc.cast first; Ascend C vector ops take one element type")
    return first


def check_supported(op: OpDef, dtype: DataType, loc: SourceLoc) -> None:
    if not op.supports(dtype.name):
        allowed = ", ".join(sorted(op.dtypes or ()))
        raise DTypeError(f"asc.{op.name} does not support {dtype} on Atlas A2 (supported: {allowed})", loc,
                         hint="cast to a supported type with asc.cast first" if dtype.name == "bfloat16" else None)


def count_expr(count: Any, loc: SourceLoc, what: str = "count") -> Expr:
    e = to_expr(count, f"the {what}")
    if e.type != "int":
        raise TraceError(f"the {what} must be an integer, got `{e}`", loc)
    if isinstance(e, Const) and e.value < 0:
        raise TraceError(f"the {what} must not be negative, got {e.value}", loc)
    return e


def scalar_for(dtype: DataType, value: Any, opname: str, loc: SourceLoc) -> Expr:
    """The scalar operand, which Ascend C requires to have exactly the tensors' element type."""
    e = to_expr(value, f"the scalar of asc.{opname}")
    if e.type == "float" and not dtype.is_float:
        raise DTypeError(f"asc.{opname} on {dtype} tensors needs an integer scalar, got `{e}`", loc)
    return e


def mask_arg(mask: Any, dtype: DataType, loc: SourceLoc) -> Mask:
    """A mask-form `mask`: a count of contiguous elements per repeat, or [mask0, mask1] bit words
    (mask0 covers elements 0-63 of a repeat, mask1 elements 64-127), as Ascend C's uint64_t mask[2]."""
    if isinstance(mask, (list, tuple)):
        if len(mask) != 2 or not all(isinstance(m, int) and 0 <= m < (1 << 64) for m in mask):
            raise TraceError("a bit mask is [mask0, mask1]: two 64-bit Python ints", loc)
        # a 32-bit type has 64 lanes per repeat, so mask1 selects nothing: A2 ignores it (asc-devkit
        # kernel_utils_base.h SetMask asserts maskHigh == 0 only on the 3510 / 5102 cores) and so do we
        return Mask(bits=(int(mask[0]), int(mask[1])))
    e = to_expr(mask, "the mask")
    if e.type != "int":
        raise TraceError(f"a mask count must be an integer, got `{e}`", loc)
    # a count past the repeat's {per_repeat} elements selects them all (the vendor's SetMask(len) sets the
    # full mask for len >= 128), so only a count below 1 is refused
    if isinstance(e, Const) and e.value < 1:
        raise TraceError(f"a mask count selects 1 or more elements per repeat, got {e.value}", loc)
    return Mask(count=e)


def copy_pipe(d: TensorRef, s: TensorRef, what: str, loc: SourceLoc) -> Pipe:
    if d.space == "ub" and s.space == "gm":
        return Pipe.MTE2
    if d.space == "gm" and s.space == "ub":
        return Pipe.MTE3
    if d.space == "ub" and s.space == "ub":
        return Pipe.V
    raise TraceError(f"{what} cannot copy GM to GM; stage the data through a LocalTensor", loc)


def enum_arg(enum_type: type, value: Any, what: str, loc: SourceLoc) -> Any:
    """An enum argument as `enum_type`, a TraceError at the user's line for anything else - a member of another
    asc enum included (enums.member)."""
    try:
        return member(enum_type, value)
    except (ValueError, TypeError):
        raise TraceError(f"{what} must be an asc.{enum_type.__name__}, got {value!r}", loc) from None
