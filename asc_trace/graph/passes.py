"""The pass pipeline: pure functions KernelGraph -> KernelGraph, run in order after tracing.

ASC_TRACE_DEBUG=2 prints the dump after each pass; ASC_TRACE_CHECK=1 verifies after each pass.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

from .. import config
from .kernel_graph import KernelGraph
from .verify import verify

Pass = Callable[[KernelGraph], KernelGraph]


def pipeline(options: dict[str, Any]) -> list[tuple[str, Pass]]:
    passes: list[tuple[str, Pass]] = [("verify", verify)]
    if options.get("auto_sync", True):
        from .multi_buffer import multi_buffer
        from .schedule_sync import insert_sync
        copies = options.get("multi_buffer", "auto")
        passes.append(("regions", refuse_unscheduled_regions))
        passes.append(("multi_buffer", lambda g: multi_buffer(g, copies)))
        passes.append(("insert_sync", insert_sync))
    return passes


def refuse_unscheduled_regions(g: KernelGraph) -> KernelGraph:
    """A stop-gap until the scheduler handles the regions of asc.cond and asc.while_loop (issue 8,
    item 2; remove this pass when it does): refuse them clearly instead of failing inside the analysis."""
    from ..errors import TraceError
    n = next((n for n in g if n.op in ("if", "while")), None)
    if n is not None:
        what = "asc.cond" if n.op == "if" else "asc.while_loop"
        raise TraceError(f"auto_sync cannot schedule {what} yet", n.loc,
                         hint="write this kernel with @asc.jit(auto_sync=False) and explicit set_flag / wait_flag "
                              "or TQue enque / deque")
    return g


def run_passes(graph: KernelGraph, options: dict[str, Any]) -> KernelGraph:
    check = config.check_passes()
    debug = config.debug_level() >= 2
    for name, fn in pipeline(options):
        graph = fn(graph)
        if check:
            verify(graph)
        if debug:
            sys.stderr.write(f"--- after {name} ---\n{graph}")
    return graph
