"""`Compare(dstMask, src0, src1, CMPMODE, count)` writes a uint8 bitmask (bit i = element i, LSB
first); `Select(dst, selMask, src0, src1 | scalar, SELMODE, count)` takes src0 where the bit is 1.
The count forms need count * sizeof(T) to be a multiple of 256 bytes: the hardware ignores a tail,
asc_trace refuses it (facts §5)."""
from __future__ import annotations

from ..expr import Const, binop
from ..node import Pipe, TensorRef
from . import OpDef, register


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
          rate={"float16": 128, "float32": 64, "int32": 64}, writes=(0,), accesses=_compare_accesses,
          emit="AscendC::Compare({dst}, {src0}, {src1}, AscendC::CMPMODE::{mode}, {count});"),
    OpDef("select", "vec_cmpsel", Pipe.V, "Select", arity=2, dtypes=frozenset({"float16", "float32"}),
          rate={"float16": 128, "float32": 64}, writes=(0,), accesses=_select_accesses,
          emit="AscendC::Select({dst}, {mask}, {src0}, {src1}, AscendC::SELMODE::{mode}, {count});"),
)
