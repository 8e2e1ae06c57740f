"""Graph nodes and their operands. Nodes are immutable, so passes copy graphs safely."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..dtypes import DataType
from .expr import Expr, to_str
from .source_loc import SourceLoc


class Pipe(str, Enum):
    """The in-order instruction queues of a vector core (docs/facts.md#facts-3)."""

    S = "S"        # scalar unit: GetValue / SetValue, scalar bookkeeping
    MTE2 = "MTE2"  # GM -> UB copies
    V = "V"        # vector unit
    MTE3 = "MTE3"  # UB -> GM copies
    # the cube core's pipes (ascend-cube-facts §3): GM -> L1 is MTE2 there too
    MTE1 = "MTE1"  # L1 -> L0A / L0B / bias table
    M = "M"        # the cube unit (Mmad)
    FIX = "FIX"    # L0C -> GM / L1 (Fixpipe)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class TensorRef:
    """An operand that names memory: `root` is the node defining the storage (a LocalTensor, a queue
    tensor, a TBuf tensor or a GlobalTensor), `offset` counts elements of `dtype` from its start."""

    root: int
    space: str          # "ub" or "gm"
    dtype: DataType
    offset: Expr

    def __str__(self) -> str:
        off = to_str(self.offset)
        return f"%{self.root}" if off == "0" else f"%{self.root}[{off}]"


@dataclass(frozen=True, slots=True)
class ParamRef:
    """An operand naming a kernel parameter (a GM pointer) by position."""

    index: int
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ObjRef:
    """An operand naming a framework object (a TQue, TBuf or TPipe) by the node that created it."""

    root: int
    kind: str   # "que", "tbuf", "pipe"

    def __str__(self) -> str:
        return f"%{self.root}"


@dataclass(frozen=True, slots=True)
class Node:
    """One recorded API call.

    `regions` is the node's scope: the ids of its enclosing regions, outermost first, each a `for`, a
    `while`, an `if` (its then-branch) or an `else` (its else-branch) node; `pipe` is the pipe the
    instruction runs on (None for bookkeeping nodes such as a GlobalTensor binding).
    `attrs` holds op-specific settings as sorted (name, value) pairs so that nodes stay hashable.
    """

    id: int
    op: str
    args: tuple[Any, ...]
    loc: SourceLoc
    regions: tuple[int, ...] = ()
    pipe: Pipe | None = None
    attrs: tuple[tuple[str, Any], ...] = field(default=())

    def attr(self, name: str, default: Any = None) -> Any:
        for k, v in self.attrs:
            if k == name:
                return v
        return default


def exprs_in(args: Any) -> list[Expr]:
    """Every scalar expression inside operands: TensorRef offsets, parameter structs, tuples, in order.
    (A list built by one recursive function: every pass walks the operands of every node, and the nested
    generators this was made of cost more than the walk itself.)"""
    out: list[Expr] = []
    _collect(args if isinstance(args, (tuple, list)) else (args,), out)
    return out


_SKIP, _EXPR, _REF, _SEQ, _STRUCT = range(5)
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    """What an operand of class `cls` holds (per class: isinstance gives the same answer for every
    instance of a class)."""
    k = _KINDS.get(cls)
    if k is None:
        k = _KINDS[cls] = (_EXPR if issubclass(cls, Expr) else _REF if issubclass(cls, TensorRef)
                           else _SKIP if cls in (ObjRef, ParamRef)     # (an int and a str: nothing to walk)
                           else _SEQ if issubclass(cls, (tuple, list)) else _STRUCT if _field_names(cls)
                           else _SKIP)
    return k


def _collect(args: tuple | list, out: list[Expr]) -> None:
    for a in args:
        k = _KINDS.get(a.__class__)
        if k is None:
            k = _kind(a.__class__)
        if k == _SKIP:
            continue
        if k == _EXPR:
            out.append(a)
        elif k == _REF:
            out.append(a.offset)
        elif k == _SEQ:
            _collect(a, out)
        else:
            _collect(tuple(getattr(a, n) for n in _field_names(a.__class__)), out)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The field names of a dataclass operand type (() for other types), per class: every pass walks the
    operands of every node, and dataclasses.fields builds its answer anew at each call."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)) \
            if dataclasses.is_dataclass(cls) and cls is not type else ()
    return names


def make_attrs(**kw: Any) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, v) for k, v in kw.items() if v is not None))
