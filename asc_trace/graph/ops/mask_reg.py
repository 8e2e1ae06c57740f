"""The vector mask register (asc-devkit include/basic_api/kernel_common.h: SetMaskCount, SetMaskNorm,
SetVectorMask, ResetMask).

Vector instructions read a mask register and a mode bit (CTRL[56]: NORMAL lane bits, or COUNTER an element
count). An API call in its mask form with isSetMask=true writes the register first; with isSetMask=false
it reads what an earlier call left. asc_trace follows the register while tracing (proxies/mask_reg.py):
an op with is_set_mask=False takes the value the register holds at that point of the trace as its own
mask operand, so the executors, the checks and the scheduler see an ordinary masked op. These writes
are issued by the scalar unit in program order before the vector instructions that read them, so
they need no synchronisation and have no effect of their own on the simulator.
"""
from __future__ import annotations

from .opdef import CppModel, OpDef, register

_KC = "include/basic_api/kernel_common.h"
_KC81 = "interface/kernel_common.h"
D_COUNT = {"SetMaskCount/0": (f"{_KC}:198", f"{_KC81}:177")}
D_NORM = {"SetMaskNorm/0": (f"{_KC}:200", f"{_KC81}:182")}
D_RESET = {"ResetMask/0": (f"{_KC}:135", f"{_KC81}:110")}
D_SET = {"SetVectorMask<>/2": (f"{_KC}:116", f"{_KC81}:91"), "SetVectorMask<>/1": (f"{_KC}:127", f"{_KC81}:102"),
         "MaskMode": ("impl/basic_api/kernel_reg.h:31", "impl/kernel_reg.h:31")}

# The register writes the tracer follows, by op name (proxies/mask_reg.py walks back over the trace).
MASK_WRITES = frozenset({"set_mask_count", "set_mask_norm", "set_vector_mask", "reset_mask"})


def _set_vector_mask(ctx, n) -> str:
    mode, high, low = n.args
    t = f"{n.attr('dtype').c_name}, AscendC::MaskMode::{mode.name}"
    if high is None:
        return f"AscendC::SetVectorMask<{t}>({ctx.cast(low, 'int32_t')});"
    return f"AscendC::SetVectorMask<{t}>({ctx.cast(high, 'uint64_t')}, {ctx.cast(low, 'uint64_t')});"


_MODEL = "(the model takes each op's mask from the trace)"

register(
    OpDef("set_mask_count", "mask_reg", None, "SetMaskCount", emit="AscendC::SetMaskCount();",
          emit_fields=lambda ctx, n: {}, cpp_model=CppModel(header=f"SetMaskCount {_MODEL}"), declared=D_COUNT),
    OpDef("set_mask_norm", "mask_reg", None, "SetMaskNorm", emit="AscendC::SetMaskNorm();",
          emit_fields=lambda ctx, n: {}, cpp_model=CppModel(header=f"SetMaskNorm {_MODEL}"), declared=D_NORM),
    OpDef("reset_mask", "mask_reg", None, "ResetMask", emit="AscendC::ResetMask();",
          emit_fields=lambda ctx, n: {}, cpp_model=CppModel(header=f"ResetMask {_MODEL}"), declared=D_RESET),
    # (mode, mask_high or None, mask_low or the length); attr dtype: the T of SetVectorMask<T, mode>
    OpDef("set_vector_mask", "mask_reg", None, "SetVectorMask", emit=_set_vector_mask,
          cpp_model=CppModel(header=f"SetVectorMask {_MODEL}"), declared=D_SET),
)
