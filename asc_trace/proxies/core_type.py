"""`asc.ascend_is_aic()` / `asc.ascend_is_aiv()`: which core this code is for, answered while tracing.

A kernel's body is traced for one core type, so the answer is a Python bool and `if asc.ascend_is_aic():`
keeps or drops its block at trace time: True for the cube core when the kernel is a cube kernel
(`kernel_type=KernelType.AIC_ONLY`, or pyasc's `matmul_cube_only=True`), False in a vector kernel
(AIV_ONLY, the default). With the kernel type unset the kernel is taken as a vector kernel, as pyasc does
for a kernel without cube work; if it then records cube instructions, the pass that recognises a cube kernel
refuses it at the line that asked (graph/cube_sync.check_kernel_type), rather than have dropped the cube
block silently. A tracer that traces a mixed kernel once per core type sets `core_type` on its context:
"aic", "aiv", or "both" (each question answered True: every block kept, `trace_per_core_type` below).
"""
from __future__ import annotations

from typing import Any

from .context import current
from .source_loc import user_loc

AIC_TYPES = ("cube", "aic", "KERNEL_TYPE_AIC_ONLY")


def _is_aic(api: str) -> bool:
    ctx = current(api)
    core = getattr(ctx, "core_type", None)
    if core is not None:
        return core in ("aic", "both")
    options = ctx.graph.options
    if options.get("kernel_type") in AIC_TYPES:
        return True
    # unset, or a mixed kernel (traced once: graph/mix_passes.py refuses the answer there)
    if options.get("kernel_type") in (None, "mix", "KERNEL_TYPE_MIX_AIC_1_2") and not hasattr(ctx.graph,
                                                                                         "core_type_asked"):
        ctx.graph.core_type_asked = (api, user_loc())      # answered "vector": checked once the kernel is known
    return False


def ascend_is_aic() -> bool:
    """True when this code runs on the cube core (AIC): a cube kernel's body."""
    return _is_aic("asc.ascend_is_aic")


def ascend_is_aiv() -> bool:
    """True when this code runs on a vector core (AIV): a vector kernel's body."""
    if getattr(current("asc.ascend_is_aiv"), "core_type", None) == "both":
        return True
    return not _is_aic("asc.ascend_is_aiv")


def trace_per_core_type(fn: Any, signature: Any, options: dict[str, Any], first: Any) -> Any:
    """The traced graph of a mixed kernel that asked `asc.ascend_is_aic()` / `ascend_is_aiv()` (`first`: traced
    answering "vector"). The vendor compiles a mixed kernel once per core type; asc_trace traces it once per core
    type too (cube, vector) and once answering True to both questions, which keeps every block: that graph is
    the kernel, split by its calls as any mixed kernel (graph/mix_split.py). It is right only if each core's own
    work is the same in the per-type trace, so that is checked: a block holding the other core type's work, or
    an else branch with work of its own, makes them differ and is refused at the line that asked.

    Raises:
        NotProvidedError: the traces differ (the kernel is not expressible as one graph split by its calls).
    """
    from ..graph.mix_split import own_side
    from ..graph.ops.cross_core import CROSS_CORE_OPS
    from .tracer import trace
    from ..graph.cube_graph import is_mix_graph
    both = trace(fn, signature, options, core_type="both")
    if not is_mix_graph(both):        # a vector kernel (or a cube one with its type unset): as pyasc answers
        return first

    def work(g: Any, side: str) -> list:
        return [(n.op, n.loc.file, n.loc.line, n.loc.col) for n in g
                if n.op not in CROSS_CORE_OPS and own_side(n) == side]
    for side, name in (("aic", "the cube core"), ("aiv", "the vector cores")):
        alone = trace(fn, signature, options, core_type=side)
        if work(alone, side) != work(both, side):
            from ..errors import NotProvidedError
            api, loc = first.core_type_asked
            raise NotProvidedError(
                f"{api}() in a mixed cube + vector kernel: traced for {name} alone, the kernel's work on {name} "
                "differs from the kernel with every `if asc.ascend_is_aic():` / `ascend_is_aiv()` block kept - an "
                "else branch with work of its own, or a block holding the other core type's work. A mixed kernel "
                "is one graph split by its calls (each call runs on the core its operands name), so such a "
                "branch cannot be kept", loc,
                hint="drop the else branch (or the `if`): cube calls run on the cube core and vector calls on the "
                     "vector cores without it")
    return both
