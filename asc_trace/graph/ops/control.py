"""Structured control flow, each region traced once (graph/kernel_graph.py describes their operands):

- a runtime loop is a `for` ... `end_for` pair;
- `asc.cond` is `if` ... `yield` `else` ... `yield` `end_if`;
- `asc.while_loop` is `while` ... `yield` `end_while`.

None of them touches a tensor; the interpreter and the lowering handle them structurally.
"""
from __future__ import annotations

from . import OpDef, register


def _none(node):
    return []


register(
    OpDef("for", "control", None, "for", accesses=_none),
    OpDef("end_for", "control", None, "}", accesses=_none),
    OpDef("if", "control", None, "if", accesses=_none),
    OpDef("else", "control", None, "else", accesses=_none),
    OpDef("end_if", "control", None, "}", accesses=_none),
    OpDef("while", "control", None, "while", accesses=_none),
    OpDef("yield", "control", None, "=", accesses=_none),
    OpDef("end_while", "control", None, "}", accesses=_none),
)
