"""`asc.printf` on the CPU backends: C conversions formatted per core, every line tagged with the
core (block) index. The same text comes out of sim, eager and cpp."""
from __future__ import annotations

import math
import re
import sys
from typing import Any, Callable

import numpy as np

from ..graph.expr import Expr, compile_expr
from ..graph.node import Node

_CONV = re.compile(r"%(%|[-+ #0]*(?:\d+)?(?:\.\d+)?)(hh|h|ll|l|z|j|t)?([diouxXfFeEgGcsp]?)")


def block_tag(core: int, core_num: int) -> str:
    return f"[block {core}/{core_num}] "


def py_format(fmt: str, values: list[Any]) -> str:
    """Format like C printf with the arguments the emitted code passes: int32_t for %d %i %c,
    uint32_t for %u %x %X %o, float for %f %e %g (a normalised format has no %p or length modifiers)."""
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
        if conv == "c":                         # C prints the low byte; as text, non-ASCII is U+FFFD
            b = int(v) & 0xFF
            out.append(("%" + flags + "s") % (chr(b) if b < 0x80 else "\ufffd"))
        elif conv in "diuxXo":                  # the emitted code passes int32_t / uint32_t
            v = int(v)
            if conv in "uxXo":
                v &= 0xFFFFFFFF
            else:
                v = (v + (1 << 31)) % (1 << 32) - (1 << 31)
            out.append(("%" + flags + ("d" if conv in "iu" else conv)) % v)
        elif conv == "s":
            out.append(("%" + flags + "s") % v)
        else:
            f = float(np.float32(v))
            out.append(_negative_nan(flags, conv) if math.isnan(f) and math.copysign(1.0, f) < 0
                       else ("%" + flags + conv) % f)
    out.append(fmt[pos:])
    return "".join(out)


def _negative_nan(flags: str, conv: str) -> str:
    """C's printf writes a NaN with its sign bit set as "-nan" (Python would write "nan")."""
    m = re.match(r"([-+ #0]*)(\d*)", flags)
    text = "-NAN" if conv.isupper() else "-nan"
    width = int(m.group(2) or 0)
    return text.ljust(width) if "-" in m.group(1) else text.rjust(width)


def bind_printf(node: Node) -> Callable[[Any], None]:
    fmt, args = node.args
    getters: list[Callable[[Any], Any]] = []
    for a in args:
        if isinstance(a, str):
            getters.append(lambda m, a=a: a)
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


def emit_output(per_core: list[tuple[int, list[str]]], core_num: int, stream: Any = None) -> None:
    """Write each core's text, core by core, with the block tag at the start of every line."""
    stream = stream or sys.stdout
    for core, chunks in per_core:
        text = "".join(chunks)
        if not text:
            continue
        tag = block_tag(core, core_num)
        lines = text.split("\n")
        if lines[-1] == "":          # text ending in a newline; an unterminated last line gets one too
            lines.pop()
        stream.write("".join(f"{tag}{ln}\n" for ln in lines))
    stream.flush()


def _cell(v: Any, dt: Any) -> str:
    if not dt.is_float:
        return str(int(v))
    f = float(v)
    return _negative_nan("", "f") if math.isnan(f) and math.copysign(1.0, f) < 0 else f"{f:f}"


def format_dump(desc: int, addr: int, dt: Any, space: str, count: int, values: np.ndarray,
                shape: tuple[int, ...] | None) -> str:
    """DumpTensor's text (docs/facts.md#api-debug): a header line, then the values; with a shape, a matrix of that
    shape with `-` where the dumped data runs out."""
    head = (f"DumpTensor: desc={desc}, addr={addr}, data_type={dt.name}, position={'UB' if space == 'ub' else 'GM'}, "
            f"dump_size={count}\n")
    cells = [_cell(v, dt) for v in values[:count]]
    if not shape:
        return head + "[" + ", ".join(cells) + "]\n"
    total = 1
    for d in shape:
        total *= d
    note = ""
    if total > count:
        note = f"shape is [{', '.join(map(str, shape))}], dumpSize is {count}, data is not enough.\n"
        cells = cells + ["-"] * (total - count)

    def nest(level: int, start: int) -> str:
        if level == len(shape) - 1:
            return "[" + ", ".join(cells[start:start + shape[level]]) + "]"
        step = 1
        for d in shape[level + 1:]:
            step *= d
        inner = [nest(level + 1, start + i * step) for i in range(shape[level])]
        return "[" + (",\n" + " " * (level + 1)).join(inner) + "]"
    return head + note + nest(0, 0) + "\n"
