"""Helpers for the records of the family "vec_record": a vector op whose record states its whole call
(`OpDef.operands`), the regions it touches (`OpDef.accesses`) and its semantics on them (`OpDef.ref`), so
that the front end (proxies/api_record.py), the executors (runtime/executors_record.py) and the
emitter need nothing of their own for it: such an op is one file in this package plus its tests."""
from __future__ import annotations

from typing import Any, Callable

from ..expr import Const
from ..node import TensorRef
from .opdef import REGISTRY


OPERAND_KINDS = ("tensor", "int", "scalar")


def operand_kinds(op: Any) -> list[tuple[str, str]]:
    """(name, kind) of each operand of a "vec_record" record, in call order: "name" is a LocalTensor
    ("tensor"), "name:int" an integer value, "name:scalar" a value of the tensors' element type."""
    out = []
    for spec in op.operands:
        name, _, kind = spec.partition(":")
        out.append((name, kind or "tensor"))
    return out


def operand_names(op: Any) -> list[tuple[str, bool]]:
    """(name, is a tensor) of each operand of a "vec_record" record, in call order."""
    return [(name, kind == "tensor") for name, kind in operand_kinds(op)]


def operand_fields(ctx: Any, node: Any) -> dict[str, str]:
    """The emit template's fields: each operand by its name, a tensor as the emitter refers to it, an
    integer value as a C expression, a scalar as a value of the element type (Ascend C wants exactly T)."""
    op = REGISTRY[node.op]
    out = {}
    for (name, kind), arg in zip(operand_kinds(op), node.args):
        if kind == "tensor":
            out[name] = ctx.ref(arg)
        elif kind == "scalar":
            out[name] = ctx.scalar(arg, node.attr("dtype"))
        else:
            out[name] = ctx.cast(arg)
    return out


def fixed_regions(*counts: int) -> Callable[[Any], list]:
    """`accesses` of an op that touches a fixed number of elements from the start of each tensor operand
    (`counts[i]` for the i-th tensor operand): [(TensorRef, first, count, is_write)]."""
    def accesses(node: Any) -> list:
        op = REGISTRY[node.op]
        refs = [(i, a) for i, a in enumerate(node.args) if isinstance(a, TensorRef)]
        return [(a, Const(0), Const(n), i in op.writes) for (i, a), n in zip(refs, counts)]
    return accesses
