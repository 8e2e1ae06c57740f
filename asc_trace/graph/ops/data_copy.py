"""Data movement: `DataCopy` between GM and UB (facts §4).

The pipe follows the direction: GM->UB runs on MTE2, UB->GM on MTE3, UB->UB on V.
"""
from __future__ import annotations

from . import OpDef, register

register(
    OpDef("data_copy", "data_copy", None, "DataCopy", emit="AscendC::DataCopy({dst}, {src}, {count});", writes=(0,),
          doc="count form: count * sizeof(T) must be a multiple of 32 bytes"),
)
