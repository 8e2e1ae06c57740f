"""Debug output (docs/facts.md#api-debug): `printf` and `DumpTensor(tensor, desc, count[, ShapeInfo])`.
DumpTensor reads the tensor on the scalar unit. Neither steers a kernel's timing: every operand is a value."""
from __future__ import annotations

import re

from ..node import Pipe
from .opdef import VALUES_ALL, CppModel, OpDef, register
from .scalar import Const

# C's printf conversions (flags, width, precision, length modifier, conversion)
PRINTF_CONV = re.compile(r"%(?:%|[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(hh|h|ll|l|z|j|t)?([diouxXfFeEgGcsp]))")
INT_CONV = set("diouxXc")
FLOAT_CONV = set("fFeEgG")


def printf_conversions(fmt: str) -> list[str]:
    return [m.group(2) for m in PRINTF_CONV.finditer(fmt) if m.group(0) != "%%"]


def _dump_accesses(node) -> list:
    ref, _desc, count = node.args[:3]
    return [(ref, Const(0), count, False)]


def _printf(ctx, n) -> str:
    """Each argument converted to what its conversion reads (the backends print int32 / uint32 / float)."""
    fmt, args = n.args
    out = []
    for conv, arg in zip(printf_conversions(fmt), args):
        if isinstance(arg, str):
            out.append(ctx.c_string(arg))
        elif conv in FLOAT_CONV:
            out.append(ctx.cast(arg, "float"))
        elif conv in "uxXo":
            out.append(ctx.cast(arg, "uint32_t"))
        else:
            out.append(ctx.cast(arg, "int32_t"))
    return "AscendC::printf(" + ", ".join([ctx.c_string(fmt)] + out) + ");"


def _dump_tensor(ctx, n) -> str:
    ref, desc, count, shape = n.args
    call = f"AscendC::DumpTensor({ctx.ref(ref)}, {desc.value}, {ctx.cast(count, 'uint32_t')}"
    if shape is None:
        return call + ");"
    dims = ", ".join(str(d) for d in shape.shape)
    return (f"{{\n    uint32_t asct_shape{n.id}[] = {{{dims}}};\n    {call}, "
            f"AscendC::ShapeInfo({len(shape.shape)}, asct_shape{n.id}));\n}}")


register(
    # printf's arguments may differ from core to core; DumpTensor's operands must not (one dump per group)
    OpDef("printf", "debug", None, "printf", doc="C conversions %d %i %u %x %f %s %p", emit=_printf,
          cpp_model=CppModel(header="printf"), values=VALUES_ALL, per_core=(1,), hivm="none"),
    OpDef("dump_tensor", "debug", Pipe.S, "DumpTensor", accesses=_dump_accesses, reads=(0,), emit=_dump_tensor,
          cpp_model=CppModel(header="DumpTensor"), values=VALUES_ALL, per_core=()),
)
