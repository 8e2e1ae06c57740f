"""GM atomics (asc-devkit kernel_operator_set_atomic_intf.h, kernel_operator_common_intf.h): SetAtomicAdd /
Max / Min<T>, SetAtomicType<T>, SetAtomicNone, SetStoreAtomicConfig / GetStoreAtomicConfig.

They write the store-atomic register: while it holds an operation, a UB -> GM DataCopy (MTE3) combines
each element with the one in GM (sum, max or min in the element type) instead of overwriting it. The
writes are issued by the scalar unit in program order before the copies, so asc_trace follows the
register while tracing (proxies/atomic.py) and each UB -> GM copy carries the operation in force as its
`atomic` attribute ((op, dtype name)); the executors, the cpp model and cpu_debug's intrinsics apply it.
Stores of one operation from different cores commute, so the cross-core race check lets them overlap.
"""
from __future__ import annotations

from .opdef import CppModel, OpDef, register

_SA = "include/basic_api/kernel_operator_set_atomic_intf.h"
_SA81 = "interface/kernel_operator_set_atomic_intf.h"
_CI = "include/basic_api/kernel_operator_common_intf.h"
_CI81 = "interface/kernel_operator_common_intf.h"
D_ADD = {"SetAtomicAdd<>/0": (f"{_SA}:39", f"{_SA81}:42")}
D_MAX = {"SetAtomicMax<>/0": (f"{_SA}:47", f"{_SA81}:47")}
D_MIN = {"SetAtomicMin<>/0": (f"{_SA}:50", f"{_SA81}:50")}
D_NONE = {"SetAtomicNone/0": (f"{_SA}:44", f"{_SA81}:44")}
D_TYPE = {"SetAtomicType<>/0": (f"{_SA}:36", f"{_SA81}:39")}
D_SET_CFG = {"SetStoreAtomicConfig<>/0": (f"{_CI}:71", f"{_CI81}:104"),
             "AtomicDtype": (f"{_CI}:66", f"{_CI81}:99"), "AtomicOp": (f"{_CI}:68", f"{_CI81}:101")}
D_GET_CFG = {"GetStoreAtomicConfig/2": (f"{_CI}:73", f"{_CI81}:106")}

# the element types the register takes (dav-c220 SetAtomicTypeImpl: half, float, int16, int32, int8, bfloat16)
ATOMIC_DTYPES = ("float16", "float32", "int16", "int32", "int8", "bfloat16")
# AtomicDtype code of each element type (the register's type field; GetStoreAtomicConfig reads it back)
TYPE_CODE = {"float32": 1, "float16": 2, "int16": 3, "int32": 4, "int8": 5, "bfloat16": 6}


def _typed(call: str):
    def emit(ctx, n) -> str:
        return f"AscendC::{call}<{n.attr('dtype').c_name}>();"
    return emit


def _get_cfg(ctx, n) -> str:
    # the kernel gets the values while tracing (proxies/atomic.py); the call stays in the source as written
    return (f"{{\n    uint16_t asct_type{n.id} = 0, asct_op{n.id} = 0;\n"
            f"    AscendC::GetStoreAtomicConfig(asct_type{n.id}, asct_op{n.id});\n}}")


_MODEL = "(the store-atomic register the model's DataCopy to GM applies)"

register(
    OpDef("set_atomic_add", "atomic", None, "SetAtomicAdd", emit=_typed("SetAtomicAdd"),
          cpp_model=CppModel(header=f"SetAtomicAdd {_MODEL}"), declared=D_ADD),
    OpDef("set_atomic_max", "atomic", None, "SetAtomicMax", emit=_typed("SetAtomicMax"),
          cpp_model=CppModel(header=f"SetAtomicMax {_MODEL}"), declared=D_MAX),
    OpDef("set_atomic_min", "atomic", None, "SetAtomicMin", emit=_typed("SetAtomicMin"),
          cpp_model=CppModel(header=f"SetAtomicMin {_MODEL}"), declared=D_MIN),
    OpDef("set_atomic_type", "atomic", None, "SetAtomicType", emit=_typed("SetAtomicType"),
          cpp_model=CppModel(header=f"SetAtomicType {_MODEL}"), declared=D_TYPE),
    OpDef("set_atomic_none", "atomic", None, "SetAtomicNone", emit="AscendC::SetAtomicNone();",
          emit_fields=lambda ctx, n: {}, cpp_model=CppModel(header=f"SetAtomicNone {_MODEL}"), declared=D_NONE),
    OpDef("set_store_atomic_config", "atomic", None, "SetStoreAtomicConfig",
          emit="AscendC::SetStoreAtomicConfig<AscendC::AtomicDtype::{t}, AscendC::AtomicOp::{o}>();",
          emit_fields=lambda ctx, n: {"t": n.args[0].name, "o": n.args[1].name},
          cpp_model=CppModel(header=f"SetStoreAtomicConfig {_MODEL}"), declared=D_SET_CFG),
    # args: the (type, op) codes the register holds here, which the kernel gets while tracing
    OpDef("get_store_atomic_config", "atomic", None, "GetStoreAtomicConfig", emit=_get_cfg,
          cpp_model=CppModel(header="GetStoreAtomicConfig (reads the model's register)"), declared=D_GET_CFG),
)
