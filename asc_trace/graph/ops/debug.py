"""Debug output (docs/facts.md#api-debug): `printf` and `DumpTensor(tensor, desc, count[, ShapeInfo])`. DumpTensor reads
the tensor on the scalar unit."""
from __future__ import annotations

from ..node import Pipe
from . import OpDef, register
from .scalar import Const


def _dump_accesses(node) -> list:
    ref, _desc, count = node.args[:3]
    return [(ref, Const(0), count, False)]


register(
    OpDef("printf", "debug", None, "printf", doc="C conversions %d %i %u %x %f %s %p"),
    OpDef("dump_tensor", "debug", Pipe.S, "DumpTensor", accesses=_dump_accesses, reads=(0,)),
)
