"""Cross-core flags between the cube core and the two vector cores of an AI core (ascend-cube-facts §6,
BS:89-93): `CrossCoreSetFlag<mode, pipe>(id)` raises counter `id` of the other core(s) once the earlier
work of `pipe` is done; `CrossCoreWaitFlag(id)` blocks the core until its counter is positive, then
lowers it. Operands: (flag id expression, mode, PipeID). Their semantics across cores are the mixed
simulator's (runtime/mix_flags.py); auto_sync derives them from the dataflow through GM
(graph/cross_core_sync.py)."""
from __future__ import annotations

from .opdef import CppModel, OpDef, register

# the three cores of an AI core as threads taking turns at the waits (toolchain/include/asc_trace_mix.h)
_MIX_MODEL = "(asc_trace_mix.h: the mixed simulator's counters)"
_BS = "include/basic_api/kernel_operator_block_sync_intf.h"
FLAG_IDS = range(0, 11)          # ids 11..14 belong to SyncAll (SY:117-120)
MAX_PENDING = 15                 # a counter holds at most 15 sets (ascend-cube-facts §6)


def _set(ctx, n) -> str:
    fid, mode, pipe = n.args
    return f"AscendC::CrossCoreSetFlag<{int(mode)}, {pipe.name}>({ctx.cast(fid, 'uint16_t')});"


def _wait(ctx, n) -> str:
    fid, mode, pipe = n.args
    return f"AscendC::CrossCoreWaitFlag<{int(mode)}, {pipe.name}>({ctx.cast(fid, 'uint16_t')});"


register(
    OpDef("cross_core_set_flag", "cross_core", None, "CrossCoreSetFlag", emit=_set,
          cpp_model=CppModel(header=f"CrossCoreSetFlag {_MIX_MODEL}"),
          declared={"CrossCoreSetFlag<>/1": (f"{_BS}:90", "-")},
          doc="raise a cross-core counter (AIC <-> AIV) once the given pipe's earlier work is done"),
    OpDef("cross_core_wait_flag", "cross_core", None, "CrossCoreWaitFlag", emit=_wait,
          cpp_model=CppModel(header=f"CrossCoreWaitFlag {_MIX_MODEL}"),
          declared={"CrossCoreWaitFlag<>/1": (f"{_BS}:93", "-")},
          doc="block the core until a cross-core counter is positive, then lower it"),
)

CROSS_CORE_OPS = frozenset({"cross_core_set_flag", "cross_core_wait_flag"})
