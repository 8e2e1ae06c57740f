"""The op registry: one `OpDef` record per Ascend C operation, one file per API family.

A record carries everything the layers need about its op: the pipe it runs on, the dtypes A2
supports, its NumPy semantics (`ref`), its cost (elements per cycle by dtype), its Ascend C text and
its numeric tolerance against NumPy. Records import only NumPy and `graph/`; the runtime and the
lowering look them up by name. Adding an op = one record here + one row in tests/test_ops.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..node import Pipe


@dataclass(frozen=True, slots=True, eq=False)
class OpDef:
    """Everything asc_trace knows about one operation.

    family: "vec_binary", "vec_unary", "vec_scalar", "vec_duplicate", "data_copy", "sync",
        "framework", "control", "debug", "scalar", ...: selects the API shape, the executor and the emitter.
    pipe: the pipe the instruction runs on; None when it depends on the operands (data_copy) or the
        node is bookkeeping only.
    c_name: the Ascend C function, e.g. "Add".
    arity: number of tensor sources of a vector op.
    ref: NumPy semantics on compute-dtype arrays (float16 stays float16, bfloat16 is widened).
    dtypes: element types the A2 hardware supports for this op (None: any).
    rate: modeled throughput, elements per cycle by dtype name (facts §10).
    emit: Ascend C statement template; fields are the operand names of the family.
    tol: (rtol, atol) by dtype name where the hardware is not bit-exact with NumPy.
    writes: positions of the tensor operands the op writes.
    reads: positions of the tensor operands whose data it reads (None: every other tensor operand).
    accesses: node -> [(TensorRef, first element, element count, is_write)] when the op does not
        touch `count` elements from each operand's start (reductions, strided copies, masks, ...).
    """

    name: str
    family: str
    pipe: Pipe | None = None
    c_name: str = ""
    arity: int = 0
    ref: Callable[..., Any] | None = None
    dtypes: frozenset[str] | None = None
    rate: dict[str, float] = field(default_factory=dict)
    emit: str | None = None
    tol: dict[str, tuple[float, float]] = field(default_factory=dict)
    writes: tuple[int, ...] = ()
    reads: tuple[int, ...] | None = None
    accesses: Callable[[Any], list] | None = None
    doc: str = ""

    def supports(self, dtype_name: str) -> bool:
        return self.dtypes is None or dtype_name in self.dtypes

    def tolerance(self, dtype_name: str) -> tuple[float, float]:
        return self.tol.get(dtype_name, (0.0, 0.0))

    def __repr__(self) -> str:
        return f"OpDef({self.name})"


REGISTRY: dict[str, OpDef] = {}


def register(*ops: OpDef) -> None:
    for op in ops:
        if op.name in REGISTRY:
            raise ValueError(f"op {op.name!r} registered twice")
        REGISTRY[op.name] = op


def get(name: str) -> OpDef:
    return REGISTRY[name]


def family(name: str) -> list[OpDef]:
    return [op for op in REGISTRY.values() if op.family == name]


# A2 dtype groups (facts §5)
ARITH = frozenset({"int16", "float16", "int32", "float32"})
FLOATS = frozenset({"float16", "float32"})
# Simple ops move 256 B/cycle: 128 half or int16 elements, 64 float or int32 elements (facts §10).
SIMPLE_RATE = {"float16": 128, "int16": 128, "float32": 64, "int32": 64, "bfloat16": 128,
               "uint16": 128, "uint32": 64, "int8": 256, "uint8": 256}
SLOW_RATE = {"float16": 32, "float32": 32}   # Exp / Ln / Sqrt / Div

from . import (control, data_copy, debug, framework, scalar, sync, vec_binary, vec_cast, vec_cmpsel,  # noqa: E402,F401
               vec_reduce, vec_scalar, vec_unary)


def accesses(node) -> list:
    """[(TensorRef, first element, element count, is_write)] of every tensor operand a node touches."""
    from ..expr import Const, Expr
    op = REGISTRY[node.op]
    if node.attr("form") == "mask":
        from .masked import mask_accesses
        return mask_accesses(node)
    if op.accesses is not None:
        return op.accesses(node)
    count = node.args[-1] if node.args else None
    if not isinstance(count, Expr):
        return []
    return [(r, Const(0), count, True) for r in written(node)] + [(r, Const(0), count, False) for r in read(node)]


def written(node) -> list:
    """The tensor operands a node writes."""
    from ..node import TensorRef
    op = REGISTRY[node.op]
    return [node.args[i] for i in op.writes if isinstance(node.args[i], TensorRef)]


def read(node) -> list:
    """The tensor operands whose data a node reads."""
    from ..node import TensorRef
    op = REGISTRY[node.op]
    idx = op.reads if op.reads is not None else [i for i in range(len(node.args)) if i not in op.writes]
    return [node.args[i] for i in idx if isinstance(node.args[i], TensorRef)]
