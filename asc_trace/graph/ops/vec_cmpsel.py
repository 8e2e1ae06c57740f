"""`Compare(dstMask, src0, src1, CMPMODE, count)` writes a uint8 bitmask (bit i = element i, LSB
first); `Select(dst, selMask, src0, src1 | scalar, SELMODE, count)` takes src0 where the bit is 1.
Compare's count form needs count * sizeof(T) to be a multiple of 256 bytes: the hardware ignores a tail,
asc_trace refuses it (docs/facts.md#facts-5). Select's count form takes any count: the API runs it in counter mode
(SetMaskCount, impl/basic_api/dav_c220/kernel_operator_vec_cmpsel_impl.h), exactly `count` elements."""
from __future__ import annotations

from typing import Any

from ...errors import AlignmentError
from ..expr import Const, binop
from ..node import Pipe, TensorRef
from . import BINARY_LIKE, OpDef, register


def check_count_256(opname: str, count: int, dtype: Any, **where: Any) -> None:
    """The count forms of Compare / Select take whole 256-byte repeats (`where`: the error's loc= or node=)."""
    nbytes = count * dtype.itemsize
    if nbytes % 256:
        raise AlignmentError(f"asc.{opname} of {count} x {dtype} = {nbytes} bytes: the count form needs a multiple "
                             "of 256 bytes (the hardware ignores the tail)",
                             hint="pad the count to a multiple of 256 bytes, or use the mask form for the tail",
                             **where)


def _bytes_of_mask(count):
    return binop("//", binop("+", count, Const(7)), Const(8))


def _compare_accesses(node) -> list:
    dst, a, b, _mode, count = node.args
    return [(dst, Const(0), _bytes_of_mask(count), True), (a, Const(0), count, False), (b, Const(0), count, False)]


def _select_accesses(node) -> list:
    dst, mask, a, b, _mode, count = node.args
    out = [(dst, Const(0), count, True), (mask, Const(0), _bytes_of_mask(count), False), (a, Const(0), count, False)]
    if isinstance(b, TensorRef):
        out.append((b, Const(0), count, False))
    return out


register(
    OpDef("compare", "vec_cmpsel", Pipe.V, "Compare", arity=2, dtypes=frozenset({"float16", "float32", "int32"}),
          cost=BINARY_LIKE, writes=(0,), accesses=_compare_accesses,
          emit="AscendC::Compare({dst}, {src0}, {src1}, AscendC::CMPMODE::{mode}, {count});"),
    OpDef("select", "vec_cmpsel", Pipe.V, "Select", arity=2, dtypes=frozenset({"float16", "float32"}),
          cost=BINARY_LIKE, writes=(0,), accesses=_select_accesses,
          emit="AscendC::Select({dst}, {mask}, {src0}, {src1}, AscendC::SELMODE::{mode}, {count});"),
)
