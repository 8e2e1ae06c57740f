"""pyasc's `asc.language` package: the kernel-side API under pyasc's module paths
(`asc.language.core.struct.Struct`, `asc.language.fwk.tpipe.TQueBind`, ...), the same objects as `asc_trace.*`.

Imported on demand (`import asc_trace.language`), so the top-level package does not depend on it.
"""
from __future__ import annotations

from asc_trace import *  # noqa: F401,F403 - the same names as asc.*
from asc_trace import __all__ as _top_all

from . import basic, core, fwk
from ._delegate import delegate

__getattr__ = delegate(__name__)
__all__ = list(_top_all)
