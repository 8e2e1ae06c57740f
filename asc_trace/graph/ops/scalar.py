"""Scalar access to the Unified Buffer: `LocalTensor.GetValue(i)` / `SetValue(i, v)` run on the scalar
unit (S pipe), so the scheduler orders them against the vector and copy pipes with S_V / V_S /
MTE2_S / S_MTE3 events."""
from __future__ import annotations

from ..expr import Const
from ..node import Pipe
from .opdef import CppModel, OpDef, register


def _get_accesses(node) -> list:
    ref, index = node.args
    return [(ref, index, Const(1), False)]


def _set_accesses(node) -> list:
    ref, index, _value = node.args
    return [(ref, index, Const(1), True)]


def _get_value(ctx, n) -> str:
    # the value becomes a C local of the widest type of its kind (graph/expr.py: float or int64)
    ref, index = n.args
    ctype = "float" if ref.dtype.is_float else "int64_t"
    return (f"const {ctype} asct_v{n.id} = static_cast<{ctype}>({ctx.ref(ref)}.GetValue("
            f"{ctx.cast(index, 'uint32_t')}));")


def _set_value(ctx, n) -> str:
    ref, index, value = n.args
    return f"{ctx.ref(ref)}.SetValue({ctx.cast(index, 'uint32_t')}, {ctx.scalar(value, ref.dtype)});"


register(
    OpDef("get_value", "scalar", Pipe.S, "GetValue", accesses=_get_accesses, reads=(0,), emit=_get_value,
          cpp_model=CppModel(header="LocalTensor::GetValue"), hivm="memref"),
    # the stored value is a value for timing; the executor takes one for all cores
    OpDef("set_value", "scalar", Pipe.S, "SetValue", accesses=_set_accesses, writes=(0,), reads=(), emit=_set_value,
          cpp_model=CppModel(header="LocalTensor::SetValue"), values=(2,), per_core=(), hivm="memref"),
)
