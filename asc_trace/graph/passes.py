"""The pass pipeline: pure functions KernelGraph -> KernelGraph, run in order after tracing.

ASC_TRACE_DEBUG=2 prints the dump after each pass; ASC_TRACE_CHECK=1 verifies after each pass.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

from .. import config
from .kernel_graph import KernelGraph
from .verify import verify
from ..kernel_options import as_options

Pass = Callable[[KernelGraph], KernelGraph]


def pipeline(options: dict[str, Any]) -> list[tuple[str, Pass]]:
    from .auto_place import auto_place
    # LocalTensorAuto tensors get their UB addresses first, so every later pass sees fixed ones
    passes: list[tuple[str, Pass]] = [("auto_place", auto_place), ("verify", verify)]
    opts = as_options(options)
    if opts.auto_sync:
        from .multi_buffer import multi_buffer
        from .schedule_sync import insert_sync
        copies = opts.multi_buffer
        passes.append(("multi_buffer", lambda g: multi_buffer(g, copies)))
        passes.append(("insert_sync", insert_sync))
    else:
        from .dataflow import dataflow
        passes.append(("dataflow", dataflow))
    return passes


def run_passes(graph: KernelGraph, options: dict[str, Any]) -> KernelGraph:
    check = config.check_passes()
    debug = config.debug_level() >= 2
    from .cube_graph import is_cube_graph, is_mix_graph, refuse_lone_cube_barrier
    refuse_lone_cube_barrier(graph)
    steps = pipeline(options)
    if is_mix_graph(graph):
        from .mix_passes import run_mix_passes
        return run_mix_passes(graph, options, pipeline)
    from .ops.cross_core import CROSS_CORE_OPS
    flag = next((n for n in graph if n.op in CROSS_CORE_OPS), None)
    if flag is not None:
        from ..errors import SyncError
        raise SyncError(f"asc.{flag.op} synchronises the cube core and the vector cores of a mixed kernel, but this "
                        f"kernel has work for {'the cube core' if is_cube_graph(graph) else 'the vector cores'} only",
                        node=flag, hint="a kernel that runs on one core type has no other core to synchronise with; "
                                        "drop the cross-core flag")
    if is_cube_graph(graph):
        from .cube_sync import check_kernel_type, cube_pipeline
        check_kernel_type(graph, options)
        steps = cube_pipeline(options)
    elif options.get("kernel_type") in ("cube", "aic", "KERNEL_TYPE_AIC_ONLY"):
        from ..errors import OptionError
        raise OptionError(f"kernel {graph.name} is declared a cube kernel (kernel_type AIC_ONLY / matmul_cube_only) "
                          "but records no cube instruction", None,
                          hint="drop the option, or check that `if asc.ascend_is_aic():` blocks hold the cube work")
    for name, fn in steps:
        graph = fn(graph)
        if check:
            verify(graph)
        if debug:
            sys.stderr.write(f"--- after {name} ---\n{graph}")
    return graph
