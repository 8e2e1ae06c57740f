"""The readable dump of a KernelGraph: the debugging interface, the golden-file format and the
compile-cache key. One line per node, loops indented, the user's `file:line` on the right.

    kernel vadd(x: gm f32*, y: gm f32*, z: gm f32*, n: int)
      %0 = global_tensor x + block_idx * n, len=n : gm f32                    # add.py:33
      %3 = local_tensor VECIN @0, len=n // 8 : ub f32                          # add.py:43
      %6 = for i0 in range(0, 16, 1):                                          # add.py:47
        %7 = data_copy %3[(i0 % 2) * (n // 16)] <- %0[i0 * (n // 16)], n // 16 @MTE2   # add.py:51
        ...
      %20 = end_for %6
"""
from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

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


def node_text(n: Node) -> str:
    """The node without its location: `%7 = add %5 <- %3, %4, 512 : f32 @V`."""
    from .ops import REGISTRY
    op = REGISTRY.get(n.op)
    fam = op.family if op else ""
    if n.op == "for":
        var, start, stop, step = n.args
        head = f"%{n.id} = for {var.name} in range({to_str(start)}, {to_str(stop)}, {to_str(step)}):"
        return head
    if n.op == "end_for":
        return f"%{n.id} = end_for %{n.args[0]}"
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


def node_line(n: Node, locs: bool = True) -> str:
    text = node_text(n)
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
    lines = [f"kernel {g.name}{g.signature}"]
    depth = 1
    for n in g:
        if n.op == "end_for":
            depth -= 1
        lines.append("  " * depth + node_line(n, locs))
        if n.op == "for":
            depth += 1
    if locs:
        for note in g.notes:
            lines.append(f"  # {note}")
    return "\n".join(lines) + "\n"
