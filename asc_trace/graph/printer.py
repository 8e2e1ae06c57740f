"""The readable dump of a KernelGraph: the debugging interface, the golden-file format and the
compile-cache key. One line per node, loops indented, the user's `file:line` on the right.

    kernel vadd(x: gm f32*, y: gm f32*, z: gm f32*, n: int)
      %0 = global_tensor x + block_idx * n, len=n : gm f32                    # add.py:33
      %3 = local_tensor VECIN @0, len=n // 8 : ub f32                          # add.py:43
      %6 = for i0 in range(0, 16, 1):                                          # add.py:47
        %7 = data_copy %3[(i0 % 2) * (n // 16)] <- %0[i0 * (n // 16)], n // 16 @MTE2   # add.py:51
        ...
      %20 = end_for %6

asc.cond and asc.while_loop indent their regions the same way; a `yield` shows what it assigns:

      %21 = if block_idx == block_num - 1 -> l0: int:                          # tail.py:30
        %22 = yield l0 = n - block_idx * 512                                   # tail.py:30
      %23 = else %21:
        %24 = yield l0 = 512                                                   # tail.py:31
      %25 = end_if %21
      %26 = while l1 > 32 carrying l1: int = l0:                               # halve.py:20
        ...
        %30 = yield l1 = l1 // 2
      %31 = end_while %26
"""
from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any, Iterator, Protocol

from ..errors import set_node_renderer
from .expr import Expr, to_str
from .node import Node, ObjRef, ParamRef, TensorRef
from .regions import REGION_CLOSE, REGION_ELSE, REGION_OPEN, RegionTable

_COMMENT_COL = 76


def fmt_arg(a: Any) -> str:
    if isinstance(a, (TensorRef, ObjRef, ParamRef)):
        return str(a)
    if isinstance(a, Expr):
        return to_str(a)
    if isinstance(a, Enum):
        return a.name
    if isinstance(a, str):
        return repr(a)
    if isinstance(a, (tuple, list)):
        return "(" + ", ".join(fmt_arg(x) for x in a) + ")"
    if dataclasses.is_dataclass(a) and not isinstance(a, type) and type(a).__str__ is not object.__str__:
        return str(a)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        fields = ", ".join(f"{f.name}={fmt_arg(getattr(a, f.name))}" for f in dataclasses.fields(a))
        return f"{type(a).__name__}({fields})"
    return repr(a)


_REGISTRY: dict | None = None


def _registry() -> dict:
    """graph/ops, imported on first use (errors.py imports this module, and the op records import errors)."""
    global _REGISTRY
    if _REGISTRY is None:
        from .ops import REGISTRY
        _REGISTRY = REGISTRY
    return _REGISTRY


def node_text(n: Node, targets: tuple | None = None) -> str:
    """The node without its location: `%7 = add %5 <- %3, %4, 512 : f32 @V` (`targets`: the Vars a
    `yield` assigns, when the caller knows its region). The body's form is the op record's `printer`."""
    op = _registry().get(n.op)
    args = n.args
    form = op.printer if op is not None else "args"
    if op is not None and op.family == "control":     # structure: no attributes, type or pipe
        if n.op == "yield" and targets is not None and args and len(targets) == len(args):
            body = ", ".join(f"{v.name} = {to_str(e)}" for v, e in zip(targets, args))
        else:
            body = form(n)
        return f"%{n.id} = {n.op}" + (f" {body}" if body else "")
    if callable(form):
        body = form(n)
    elif form == "dst" and args and isinstance(args[0], TensorRef):
        body = f"{fmt_arg(args[0])} <- " + ", ".join(fmt_arg(a) for a in args[1:] if a is not None)
    else:
        body = ", ".join(fmt_arg(a) for a in args if a is not None)
    attrs = [(k, v) for k, v in n.attrs if k not in ("dtype", "why", "auto", "sync")]
    if attrs:
        body += (" " if body else "") + " ".join(f"{k}={fmt_arg(v)}" for k, v in attrs)
    text = f"%{n.id} = {n.op}" + (f" {body}" if body else "")
    dtype = n.attr("dtype")
    if dtype is not None:
        text += f" : {dtype.short}"
    if n.pipe is not None:
        text += f" @{n.pipe.value}"
    return text


def node_line(n: Node, locs: bool = True, targets: tuple | None = None) -> str:
    text = node_text(n, targets)
    why = n.attr("why")
    comment = []
    if locs and n.loc.line:
        comment.append(n.loc.short)
    if why:
        comment.append(why)
    if comment:
        text = f"{text:<{_COMMENT_COL - 2}}  # " + "  ".join(comment)
    return text


class Dumpable(Protocol):
    """What the dump reads of a graph (KernelGraph is one; this module sits below it)."""

    name: str
    signature: Any
    notes: list[str]

    def __iter__(self) -> Iterator[Node]: ...

    def region_table(self) -> RegionTable: ...


def format_graph(g: Dumpable, locs: bool = True) -> str:
    lines = [f"kernel {g.name}{g.signature}"]
    depth = 1
    targets = g.region_table().yield_targets
    for n in g:
        if n.op in REGION_CLOSE or n.op == REGION_ELSE:
            depth -= 1
        lines.append("  " * depth + node_line(n, locs, targets.get(n.id)))
        if n.op in REGION_OPEN or n.op == REGION_ELSE:
            depth += 1
    if locs:
        for note in g.notes:
            lines.append(f"  # {note}")
    return "\n".join(lines) + "\n"


# errors show the node they are about as its dump line (errors.py cannot import this module: it is lower)
set_node_renderer(node_line)
