"""Intra-core synchronisation: hardware events and pipe barriers (docs/facts.md#facts-3).

`set_flag(X_Y, id)` runs on pipe X, `wait_flag(X_Y, id)` blocks pipe Y, `pipe_barrier(P)` orders pipe P.
"""
from __future__ import annotations

from . import OpDef, register

register(
    OpDef("set_flag", "sync", None, "SetFlag", emit="AscendC::SetFlag<AscendC::HardEvent::{event}>({id});"),
    OpDef("wait_flag", "sync", None, "WaitFlag", emit="AscendC::WaitFlag<AscendC::HardEvent::{event}>({id});"),
    OpDef("pipe_barrier", "sync", None, "PipeBarrier", emit="AscendC::PipeBarrier<{pipe}>();"),
)
