"""`asc.ascend_is_aic()` / `asc.ascend_is_aiv()`: which core this code is for, answered while tracing.

A kernel's body is traced for one core type, so the answer is a Python bool and `if asc.ascend_is_aic():`
keeps or drops its block at trace time: True for the cube core when the kernel is a cube kernel
(`kernel_type=KernelType.AIC_ONLY`, or pyasc's `matmul_cube_only=True`), False in a vector kernel
(AIV_ONLY, the default). With the kernel type unset the kernel is taken as a vector kernel, as pyasc does
for a kernel without cube work; if it then records cube instructions, the pass that recognises a cube kernel
refuses it at the line that asked (graph/cube_sync.check_kernel_type), rather than have dropped the cube
block silently. A tracer that traces a mixed kernel once per core type sets `core_type` on its context.
"""
from __future__ import annotations

from .context import current
from .source_loc import user_loc

AIC_TYPES = ("cube", "aic", "KERNEL_TYPE_AIC_ONLY")


def _is_aic(api: str) -> bool:
    ctx = current(api)
    core = getattr(ctx, "core_type", None)
    if core is not None:
        return core == "aic"
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
    return not _is_aic("asc.ascend_is_aiv")
