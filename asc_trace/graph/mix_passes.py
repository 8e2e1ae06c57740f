"""The pass pipeline of a mixed cube + vector kernel: the cross-core flags (graph/cross_core_sync.py), then
the split into the cube core's side and the vector cores' side (graph/mix_split.py), each scheduled by its
own core's passes (graph/cube_sync.py, graph/schedule_sync.py)."""
from __future__ import annotations

import sys
from typing import Any

from .. import config
from ..errors import OptionError
from ..kernel_options import as_options
from .kernel_graph import KernelGraph
from .mix_split import MixGraph, is_mixed, side_graph, sides
from .verify import verify

MIX_KERNEL_TYPE = "KERNEL_TYPE_MIX_AIC_1_2"


def check_mix_kernel_type(g: KernelGraph, options: dict[str, Any]) -> None:
    """A mixed kernel is KERNEL_TYPE_MIX_AIC_1_2 (inferred from its calls); another kernel type is refused."""
    kt = options.get("kernel_type")
    asked = getattr(g, "core_type_asked", None)
    if asked is not None:       # proxies/core_type.py answered "vector" while tracing; the kernel is mixed
        from ..errors import NotProvidedError
        raise NotProvidedError(f"{asked[0]}() in a mixed cube + vector kernel: tracing the kernel once per core type "
                               "is not provided yet, so the answer was the vector core's and a cube block may have "
                               "been dropped", asked[1],
                               hint="drop the `if`: in a mixed kernel each call runs on the core its operands say "
                                    "(cube calls on the cube core, vector calls on the vector cores)")
    if kt is None or kt in (MIX_KERNEL_TYPE, "mix"):
        return
    cube, vec = is_mixed(g) or (None, None)
    raise OptionError(f"kernel_type={kt!r}, but this kernel has work for both the cube core and the vector cores "
                      "(a mixed kernel: KernelType.MIX_AIC_1_2)", vec.loc if vec is not None else None,
                      related=[("cube work", cube.loc)] if cube is not None else (),
                      hint="leave kernel_type unset (asc_trace recognises a mixed kernel from its calls) or pass "
                           "KernelType.MIX_AIC_1_2")


def run_mix_passes(graph: KernelGraph, options: dict[str, Any], pipeline: Any) -> MixGraph:
    """`pipeline`: graph/passes.py's, the vector side's passes."""
    from .cube_sync import cube_pipeline
    check_mix_kernel_type(graph, options)
    check = config.check_passes()
    debug = config.debug_level() >= 2
    if as_options(options).auto_sync:
        from .cross_core_sync import insert_cross_core_sync
        graph = insert_cross_core_sync(graph)
        if debug:
            sys.stderr.write(f"--- after cross_core_sync ---\n{graph}")
    where = sides(graph)
    out = []
    for side, steps in (("aic", cube_pipeline(options)), ("aiv", pipeline(options))):
        g = side_graph(graph, side, where)
        for name, fn in steps:
            g = fn(g)
            if check:
                verify(g)
            if debug:
                sys.stderr.write(f"--- {side}: after {name} ---\n{g}")
        out.append(g)
    return MixGraph.of(graph, out[0], out[1])
