"""pyasc's `asc.language.core`: dtypes, tensors, enums, structs; every other name is asc_trace's."""
from __future__ import annotations

from .._delegate import delegate
from . import dtype, struct
from .struct import Field, Struct, StructField  # noqa: F401

__getattr__ = delegate(__name__)
