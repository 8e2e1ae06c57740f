"""The TPipe's event-id pool as the kernel uses it (pyasc `get_tpipe_ptr().alloc_event_id(...)`,
`release_event_id`, `fetch_event_id`; Ascend C `TPipe::AllocEventID<E>()` / `ReleaseEventID<E>(id)` /
`FetchEventID(E)`, asc-devkit impl/basic_api/kernel_tpipe_impl.h).

asc_trace hands out the ids while tracing (the first id of the event the kernel holds no reservation of,
as AllocEventID does) so that each is a constant the scheduler can plan around: from `alloc_event_id` to
its `release_event_id` (or the kernel's end) the id is the kernel's own, and the scheduler's inserted
flags of that event take other ids (graph/sync_ids.py). In the emitted source every flag id with a TPipe
is already reserved from the pool at the TPipe's declaration and read through a table
(lower/ascendc_pipe.py), so these nodes emit a comment: an AllocEventID here would reserve a second id.
Neither node is an instruction of any pipe.
"""
from __future__ import annotations

from .opdef import NA, OpDef, register


def _comment(what: str):
    def emit(ctx, n) -> str:
        ev, eid = n.args
        return (f"// {what} HardEvent::{ev.name} id {eid.value}: the flags that use it read the id the TPipe "
                "reserved for it at its declaration (AllocEventID table)")
    return emit


def _print(n) -> str:
    ev, eid = n.args
    return f"{ev.name} #{eid.value}"


_NO_CALL = NA("emitted as a comment: the ids are reserved at the TPipe's declaration")

register(
    OpDef("alloc_event_id", "event_pool", None, "AllocEventID", emit=_comment("alloc_event_id"),
          cpp_model=_NO_CALL, printer=_print, doc="TPipe.alloc_event_id"),
    OpDef("release_event_id", "event_pool", None, "ReleaseEventID", emit=_comment("release_event_id"),
          cpp_model=_NO_CALL, printer=_print, doc="TPipe.release_event_id"),
)

# (node op) -> +1 reserves the id, -1 gives it back: read by the scheduler's id allocator (graph/sync_ids.py)
POOL_OPS = {"alloc_event_id": 1, "release_event_id": -1}
