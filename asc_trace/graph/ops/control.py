"""Structured control flow, each region traced once (graph/kernel_graph.py describes their operands):

- a runtime loop is a `for` ... `end_for` pair;
- `asc.cond` is `if` ... `yield` `else` ... `yield` `end_if`;
- `asc.while_loop` is `while` ... `yield` `end_while`.

None of them touches a tensor. They are not statements of their own but the structure the others sit
in: the region walkers (the interpreter's `prepare`, the emitter's `render`, the printer's indentation,
graph/regions.py) handle them by the role their record gives, and graph/regions.py's tuples are the
one place that names them. Their Ascend C is the C `for` / `if` / `while` the emitter's region walker writes.
"""
from __future__ import annotations

from ..expr import to_str
from ..regions import REGION_CLOSE, REGION_ELSE, REGION_OPEN, REGION_OPS, REGION_YIELD  # noqa: F401 (re-exported)
from .opdef import NA, VALUES_ALL, OpDef, register


def _none(node):
    return []


def _typed(vs) -> str:
    return ", ".join(f"{v.name}: {v.type}" for v in vs)


def _print_for(n) -> str:
    var, start, stop, step = n.args
    return f"{var.name} in range({to_str(start)}, {to_str(stop)}, {to_str(step)}):"


def _print_if(n) -> str:
    pred, outs = n.args
    return f"{to_str(pred)}" + (f" -> {_typed(outs)}" if outs else "") + ":"


def _print_while(n) -> str:
    carried, inits, cond = n.args
    typed = ", ".join(f"{v.name}: {v.type} = {to_str(e)}" for v, e in zip(carried, inits))
    return f"{to_str(cond)} carrying {typed}:"


def _print_region_ref(n) -> str:
    return f"%{n.args[0]}"


def _print_yield(n) -> str:
    """Without the region's targets (graph/printer.py shows `v = value` when it knows them)."""
    return ", ".join(to_str(e) for e in n.args)


_WALKER = NA("structure, not a statement: lower/ascendc.py's region walker writes the C block")
_NO_MODEL = NA("structure: the emitted C for / if / while compiles as it is")


def _region(name: str, c_name: str, printer, **kw) -> OpDef:
    return OpDef(name, "control", None, c_name, accesses=_none, emit=_WALKER, cpp_model=_NO_MODEL, printer=printer,
                 **kw)


register(
    _region("for", "for", _print_for),
    _region("end_for", "}", _print_region_ref),
    # only the predicate decides anything: the outputs are checked, through what they depend on, where used
    _region("if", "if", _print_if, values=(1,)),
    _region("else", "else", lambda n: _print_region_ref(n) + ":"),
    _region("end_if", "}", _print_region_ref),
    _region("while", "while", _print_while, values=(0, 1)),
    _region("yield", "=", _print_yield, values=VALUES_ALL),
    _region("end_while", "}", _print_region_ref),
)
