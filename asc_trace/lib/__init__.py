"""pyasc's `asc.lib` host package: `asc_trace.lib.runtime` (streams) and `asc_trace.lib.host` (the tiling of
the high-level Matmul)."""
from __future__ import annotations

from . import host, runtime

__all__ = ["host", "runtime"]
