"""pyasc's `asc.language.basic`: the basic API (vector ops, data copy, sync, ...); every name is asc_trace's."""
from __future__ import annotations

from .._delegate import delegate

__getattr__ = delegate(__name__)
