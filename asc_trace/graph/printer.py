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
from typing import Any

from ..errors import set_node_renderer
from .expr import Expr, to_str
from .node import Node, ObjRef, ParamRef, TensorRef

_COMMENT_COL = 76
_DST_FAMILIES = {"vec_binary", "vec_unary", "vec_scalar", "vec_duplicate", "data_copy", "vec_reduce",
                 "vec_cast", "vec_cmpsel", "vec_whole_reduce", "data_copy_pad"}


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


def _typed(vs: Any) -> str:
    return ", ".join(f"{v.name}: {v.type}" for v in vs)


def node_text(n: Node, targets: tuple | None = None) -> str:
    """The node without its location: `%7 = add %5 <- %3, %4, 512 : f32 @V` (`targets`: the Vars a
    `yield` assigns, when the caller knows its region)."""
    from .ops import REGISTRY
    op = REGISTRY.get(n.op)
    fam = op.family if op else ""
    if n.op == "for":
        var, start, stop, step = n.args
        head = f"%{n.id} = for {var.name} in range({to_str(start)}, {to_str(stop)}, {to_str(step)}):"
        return head
    if n.op in ("end_for", "end_if", "end_while"):
        return f"%{n.id} = {n.op} %{n.args[0]}"
    if n.op == "else":
        return f"%{n.id} = else %{n.args[0]}:"
    if n.op == "if":
        pred, outs = n.args
        return f"%{n.id} = if {to_str(pred)}" + (f" -> {_typed(outs)}" if outs else "") + ":"
    if n.op == "while":
        carried, inits, cond = n.args
        typed = ", ".join(f"{v.name}: {v.type} = {to_str(e)}" for v, e in zip(carried, inits))
        return f"%{n.id} = while {to_str(cond)} carrying {typed}:"
    if n.op == "yield":
        if not n.args:
            return f"%{n.id} = yield"
        if targets is not None and len(targets) == len(n.args):
            return f"%{n.id} = yield " + ", ".join(f"{v.name} = {to_str(e)}" for v, e in zip(targets, n.args))
        return f"%{n.id} = yield " + ", ".join(to_str(e) for e in n.args)
    args = list(n.args)
    if n.op == "global_tensor":
        param, off, size = args
        base = str(param) if to_str(off) == "0" else f"{param} + {to_str(off, 5)}"
        body = base + ("" if size is None else f", len={to_str(size)}")
    elif n.op == "local_tensor":
        pos, addr, size = args
        body = f"{pos.name} @{to_str(addr)}, len={to_str(size)}"
    elif fam in _DST_FAMILIES and args and isinstance(args[0], TensorRef):
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


def format_graph(g: Any, locs: bool = True) -> str:
    from .regions import yield_targets
    lines = [f"kernel {g.name}{g.signature}"]
    depth = 1
    targets = yield_targets(g) if any(n.op == "yield" for n in g) else {}
    for n in g:
        if n.op in ("end_for", "end_if", "end_while", "else"):
            depth -= 1
        lines.append("  " * depth + node_line(n, locs, targets.get(n.id)))
        if n.op in ("for", "if", "while", "else"):
            depth += 1
    if locs:
        for note in g.notes:
            lines.append(f"  # {note}")
    return "\n".join(lines) + "\n"


# errors show the node they are about as its dump line (errors.py cannot import this module: it is lower)
set_node_renderer(node_line)
