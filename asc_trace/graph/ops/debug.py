"""Debug output: `printf` (facts: api §8)."""
from __future__ import annotations

from . import OpDef, register

register(
    OpDef("printf", "debug", None, "printf", doc="C conversions %d %i %u %x %f %s %p"),
)
