"""Running a node's scalar-side checks (graph/operand_checks.py) on the CPU backends, and the one
table from an error kind to its error class (shared with the cpp backend's C++ failures)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import (AlignmentError, AscTraceError, LaunchError, NotProvidedError, OutOfBoundsError, QueueError,
                      ScalarError, SyncError, UBOverflowError)
from ..graph.expr import compile_expr
from ..graph.node import Node
from ..graph.operand_checks import Check, Ranges, node_checks

ERRORS: dict[str, type[AscTraceError]] = {"bounds": OutOfBoundsError, "scalar": ScalarError, "sync": SyncError,
                                          "alignment": AlignmentError, "ub": UBOverflowError, "queue": QueueError,
                                          "launch": LaunchError, "not_provided": NotProvidedError}


def with_checks(node: Node, step: Callable[[Any], Any], ranges: Ranges | None = None,
                known: set | None = None) -> Callable[[Any], Any]:
    """`step` preceded by the node's operand checks (none: `step` itself, at no cost)."""
    checks = node_checks(node, ranges, known)
    if not checks:
        return step
    compiled = [(compile_expr(c.expr), c.lo, c.hi, c) for c in checks]

    def run(m: Any) -> Any:
        env = m.env
        for f, lo, hi, c in compiled:
            v = f(env)                       # a division by zero raises ScalarFault here
            if lo is not None and not (v.__class__ is int and lo <= v <= hi):
                check_value(c, v, node)
        return step(m)
    return run


def check_value(c: Check, v: Any, node: Node) -> None:
    if isinstance(v, np.ndarray):
        bad = (v < c.lo) | (v > c.hi)
        if not bad.any():
            return
        v = int(v.flat[int(np.argmax(bad))])
    elif c.lo <= v <= c.hi:
        return
    raise ERRORS[c.below if v < c.lo else c.above](c.message(int(v)), node=node)
