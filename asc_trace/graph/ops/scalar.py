"""Scalar access to the Unified Buffer: `LocalTensor.GetValue(i)` / `SetValue(i, v)` run on the scalar
unit (S pipe), so the scheduler orders them against the vector and copy pipes with S_V / V_S /
MTE2_S / S_MTE3 events."""
from __future__ import annotations

from ..expr import Const
from ..node import Pipe
from . import OpDef, register


def _get_accesses(node) -> list:
    ref, index = node.args
    return [(ref, index, Const(1), False)]


def _set_accesses(node) -> list:
    ref, index, _value = node.args
    return [(ref, index, Const(1), True)]


register(
    OpDef("get_value", "scalar", Pipe.S, "GetValue", accesses=_get_accesses, reads=(0,),
          emit="{ctype} {var} = {value};"),
    OpDef("set_value", "scalar", Pipe.S, "SetValue", accesses=_set_accesses, writes=(0,), reads=(),
          emit="{tensor}.SetValue({index}, {value});"),
)
