"""pyasc's `asc.language.fwk.tpipe`: TPipe, TQue, TQueBind, TBuf (asc_trace's, see proxies/framework.py)."""
from __future__ import annotations

from ...proxies.buf_pool import TBufPool
from ...proxies.event_pool import get_tpipe_ptr
from ...proxies.framework import TBuf, TPipe, TQue, TQueBind
from .._delegate import delegate

__getattr__ = delegate(__name__)
__all__ = ["TBuf", "TBufPool", "TPipe", "TQue", "TQueBind", "get_tpipe_ptr"]
