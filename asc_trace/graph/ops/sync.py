"""Intra-core synchronisation: hardware events and pipe barriers (docs/facts.md#facts-3).

`set_flag(X_Y, id)` runs on pipe X, `wait_flag(X_Y, id)` blocks pipe Y, `pipe_barrier(P)` orders pipe P.
The cpp backend runs a kernel's statements in program order, so its C++ model of these is a no-op.
"""
from __future__ import annotations

from .opdef import CppModel, OpDef, family, register


def _event_fields(ctx, n) -> dict[str, str]:
    ev, eid = n.args
    return {"event": ev.name, "id": ctx.event_id(ev, eid)}


_NOOP = CppModel(header="SetFlag / WaitFlag / PipeBarrier (no-ops: the model runs in program order)")

register(
    OpDef("set_flag", "sync", None, "SetFlag", emit="AscendC::SetFlag<AscendC::HardEvent::{event}>({id});",
          emit_fields=_event_fields, cpp_model=_NOOP, role="flag", sync_side="set"),
    OpDef("wait_flag", "sync", None, "WaitFlag", emit="AscendC::WaitFlag<AscendC::HardEvent::{event}>({id});",
          emit_fields=_event_fields, cpp_model=_NOOP, role="flag", sync_side="wait"),
    # the C spelling of the pipe is the enum name
    OpDef("pipe_barrier", "sync", None, "PipeBarrier", emit="AscendC::PipeBarrier<{pipe}>();",
          emit_fields=lambda ctx, n: {"pipe": n.args[0].name}, cpp_model=_NOOP, role="barrier"),
)

# The event operations a schedule is made of (the scheduler writes them; their records say "flag").
FLAG_OPS = frozenset(op.name for op in family("sync") if op.role == "flag")
