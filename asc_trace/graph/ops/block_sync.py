"""Synchronisation between the vector cores of one launch (asc-devkit include/basic_api/
kernel_operator_block_sync_intf.h; pyasc asc.language.basic.block_sync):

- `sync_all()`: `SyncAll<true>()`, the hardware barrier (FFTS flag 14 on A2): every core of the launch
  reaches it before any passes it. Operands: (None, None, used_cores 0).
- `sync_all(gm_workspace, ub_workspace, used_cores=0)`: `SyncAll<true>(gm, ub, usedCores)`, the software
  barrier: each core adds one to its int32 counter at `gm_workspace[block_idx * 8]` and polls the counters
  of the first `used_cores` (0: all) cores, copied into `ub_workspace`, until their sum reaches
  cores x (its own count) (dav_c220 kernel_operator_sync_impl.h SoftSyncAllImpl). The workspace must
  hold zeros before the first launch, as the vendor requires.
- `ib_set(gm, ub, block_idx, event_id)` / `ib_wait(...)`: the int32 word at
  `gm[block_num * 8 * event_id + block_idx * 8]` is a flag: IBSet waits until it is 0 and writes 1, IBWait
  waits until it is 1 and writes 0 (kernel_operator_block_sync_intf_impl.h IBSet / IBWait).

Each begins with PipeBarrier<PIPE_ALL>, so none is an instruction of a pipe the scheduler orders (pipe
None): the scheduler treats what is around them as it would without them (at worst a redundant flag).
Their meaning across cores is runtime/block_sync_sim.py's: the cores of such a launch run as threads
taking turns, and the GM accesses of different cores are ordered only through these calls.
"""
from __future__ import annotations

from ...enums import HardEvent
from .opdef import CppModel, OpDef, family, register

_BS = "include/basic_api/kernel_operator_block_sync_intf.h"
_C81 = "interface/kernel_operator_common_intf.h"
# the words of a core's slot in a workspace: one 32-byte block of int32 (DEFAULT_BLK_NUM / ONE_BLK_SIZE)
SLOT_WORDS = 8
# the hard barrier is the FFTS flag SyncAll keeps for itself (dav_c220 kernel_operator_sync_impl.h)
SYNC_AIV_ONLY_ALL = 14
# the ids the software forms fetch from the TPipe (GetTPipePtr()->FetchEventID): a TPipe must exist
_SOFT_EVENTS = (HardEvent.MTE2_S, HardEvent.S_MTE3, HardEvent.MTE3_MTE2, HardEvent.S_MTE2)
_IB_EVENTS = (HardEvent.MTE2_S, HardEvent.S_MTE3)

# the cores of such a launch run as threads taking turns at these calls (toolchain/include/asc_trace_block_sync.h)
_CPP = CppModel(header="SyncAll / IBSet / IBWait (asc_trace_block_sync.h: the sim's turn-taking, GM words as flags)")


def _sync_all(ctx, n) -> str:
    gm, ub, used = n.args
    if gm is None:
        return "AscendC::SyncAll<true>();"
    return f"AscendC::SyncAll<true>({ctx.ref(gm)}, {ctx.ref(ub)}, {ctx.cast(used, 'int32_t')});"


def _ib(call: str):
    def emit(ctx, n) -> str:
        gm, ub, blk, ev = n.args
        return (f"AscendC::{call}<true>({ctx.ref(gm)}, {ctx.ref(ub)}, {ctx.cast(blk, 'int32_t')}, "
                f"{ctx.cast(ev, 'int32_t')});")
    return emit


def _no_accesses(n) -> list:
    """The words a call touches depend on the block index and the core count at run time (and on what the
    other cores wrote): the runner of block-synchronised launches checks and applies them, not the pipes."""
    return []


def _print(n) -> str:
    parts = ["hard" if n.args[0] is None else "soft"] if n.op == "sync_all" else []
    return " ".join(parts + [repr(a) for a in n.args if a is not None])


# the GM and UB workspaces are written; which words, the runner finds at run time
_COMMON = dict(cpp_model=_CPP, reads=(), writes=(0, 1), accesses=_no_accesses, printer=_print, role="block_sync")

register(
    OpDef("sync_all", "block_sync", None, "SyncAll", emit=_sync_all, **_COMMON,
          declared={"SyncAll<>/0": (f"{_BS}:86", f"{_C81}:97"), "SyncAll<>/3": (f"{_BS}:78", f"{_C81}:81")},
          api_events=_SOFT_EVENTS,
          doc="barrier of every vector core of the launch (hardware, or software through a GM workspace)"),
    OpDef("ib_set", "block_sync", None, "IBSet", emit=_ib("IBSet"), **_COMMON,
          declared={"IBSet<>/4": (f"{_BS}:63", f"{_C81}:67")}, api_events=_IB_EVENTS,
          doc="raise a core's GM flag (waits until the flag is clear)"),
    OpDef("ib_wait", "block_sync", None, "IBWait", emit=_ib("IBWait"), **_COMMON,
          declared={"IBWait<>/4": (f"{_BS}:68", f"{_C81}:71")}, api_events=_IB_EVENTS,
          doc="wait until a core's GM flag is raised, then clear it"),
)

BLOCK_SYNC_OPS = frozenset(op.name for op in family("block_sync"))
