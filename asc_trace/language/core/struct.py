"""pyasc's `asc.language.core.struct` (the classes live in asc_trace/kernel_struct.py, below asc.adv's
TCubeTiling, which subclasses Struct)."""
from __future__ import annotations

from ...kernel_struct import BaseField, Field, Struct, StructField

__all__ = ["BaseField", "Field", "Struct", "StructField"]
