"""`asc.printf` on the CPU backends: C conversions formatted per core, every line tagged with the
core (block) index. The same text comes out of sim, eager and cpp."""
from __future__ import annotations

import re
import sys
from typing import Any, Callable

import numpy as np

from ..graph.expr import Expr, compile_expr
from ..graph.node import Node, TensorRef

_CONV = re.compile(r"%(%|[-+ #0]*(?:\d+)?(?:\.\d+)?)(hh|h|ll|l|z|j|t)?([diouxXfFeEgGcsp]?)")


def block_tag(core: int, core_num: int) -> str:
    return f"[block {core}/{core_num}] "


def py_format(fmt: str, values: list[Any]) -> str:
    """Format like C printf with 64-bit integer arguments (what the emitted code passes)."""
    out: list[str] = []
    pos = 0
    it = iter(values)
    for m in _CONV.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, conv = m.group(1), m.group(3)
        if flags == "%":
            out.append("%")
            continue
        v = next(it)
        if conv in "uxXo" and isinstance(v, int) and v < 0:
            v += 1 << 64
        if conv == "p":
            out.append(f"0x{int(v):x}")
        elif conv in "diuc":
            out.append(("%" + flags + ("d" if conv in "iu" else conv)) % int(v))
        elif conv in "xXo":
            out.append(("%" + flags + conv) % int(v))
        else:
            out.append(("%" + flags + conv) % v)
    out.append(fmt[pos:])
    return "".join(out)


def bind_printf(node: Node) -> Callable[[Any], None]:
    fmt, args = node.args
    getters: list[Callable[[Any], Any]] = []
    for a in args:
        if isinstance(a, str):
            getters.append(lambda m, a=a: a)
        elif isinstance(a, TensorRef):
            f = compile_expr(a.offset)
            getters.append(lambda m, a=a, f=f: _address(m, a, f(m.env)))
        else:
            f = compile_expr(a) if isinstance(a, Expr) else (lambda env, a=a: a)
            getters.append(lambda m, f=f: f(m.env))

    def run(m: Any) -> None:
        vals = [g(m) for g in getters]
        for c in range(m.C):
            m.out[c].append(py_format(fmt, [_pick(v, c) for v in vals]))
    return run


def _pick(v: Any, c: int) -> Any:
    if isinstance(v, np.ndarray):
        v = v[c] if v.ndim else v[()]
    if isinstance(v, np.generic):
        v = v.item()
    return v


def _address(m: Any, ref: TensorRef, off: Any) -> Any:
    root = m.roots[ref.root]
    if ref.space == "ub":
        return root.addr + int(off) * ref.dtype.itemsize
    return (root.start + off) * ref.dtype.itemsize


def emit_output(per_core: list[tuple[int, list[str]]], core_num: int, stream: Any = None) -> None:
    """Write each core's text, core by core, with the block tag at the start of every line."""
    stream = stream or sys.stdout
    for core, chunks in per_core:
        text = "".join(chunks)
        if not text:
            continue
        tag = block_tag(core, core_num)
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
            stream.write("".join(f"{tag}{ln}\n" for ln in lines))
        else:
            stream.write("".join(f"{tag}{ln}\n" for ln in lines[:-1]) + f"{tag}{lines[-1]}\n")
    stream.flush()
