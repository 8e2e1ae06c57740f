"""pyasc's `asc.language.fwk`: the TPipe framework; every other name is asc_trace's."""
from __future__ import annotations

from .._delegate import delegate
from . import tpipe
from .tpipe import TBuf, TBufPool, TPipe, TQue, TQueBind, get_tpipe_ptr  # noqa: F401

__getattr__ = delegate(__name__)
