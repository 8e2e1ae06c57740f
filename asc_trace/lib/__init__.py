"""pyasc's `asc.lib` host package: `asc_trace.lib.runtime` (streams). pyasc's `asc.lib.host` (the
matmul tiling helpers) belongs to the cube and is not provided yet."""
from __future__ import annotations

from . import runtime

__all__ = ["runtime"]
