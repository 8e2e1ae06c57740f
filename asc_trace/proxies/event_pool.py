"""`get_tpipe_ptr()` and the TPipe's event-id pool: `alloc_event_id`, `release_event_id`, `fetch_event_id`
(graph/ops/event_pool.py says how the ids reach the emitted source and the scheduler)."""
from __future__ import annotations

from typing import Any

from ..enums import HardEvent
from ..errors import SyncError, TraceError
from ..graph.expr import Const
from .context import current
from .source_loc import user_loc

NUM_IDS = 8     # ids per HardEvent on A2 (docs/facts.md#facts-3)


class EventPool:
    """The ids the kernel has reserved, per event, as the TPipe's 8-bit mask per event keeps them."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held: dict[HardEvent, set[int]] = {}

    def _event(self, event: Any, what: str) -> HardEvent:
        from .api import _event
        return _event(event, user_loc(), what)

    def _straight_line(self, ctx: Any, what: str) -> None:
        # an id reserved in a runtime loop or branch would differ between its trips or paths; asc_trace's ids
        # are constants known while tracing, so the reservation must be where it runs exactly once
        if getattr(ctx, "regions", None):
            raise TraceError(f"TPipe.{what} inside a runtime loop or branch: asc_trace gives each reserved event id "
                             "a value while tracing, and here it could differ from trip to trip", user_loc(),
                             hint="reserve the ids you need once, before the loop, and release them after it")

    def alloc(self, event: Any) -> int:
        ctx = current("TPipe.alloc_event_id")
        ev = self._event(event, "alloc_event_id")
        self._straight_line(ctx, "alloc_event_id")
        held = self.held.setdefault(ev, set())
        free = [i for i in range(NUM_IDS) if i not in held]
        if not free:
            raise SyncError(f"alloc_event_id: all {NUM_IDS} ids of HardEvent.{ev.name} are reserved already "
                            "(Ascend C's AllocEventID fails the same way)", user_loc(),
                            hint="release_event_id an id you no longer need first")
        eid = free[0]
        held.add(eid)
        ctx.record("alloc_event_id", (ev, Const(eid)), user_loc())
        return eid

    def release(self, eid: Any, event: Any) -> None:
        ctx = current("TPipe.release_event_id")
        ev = self._event(event, "release_event_id")
        self._straight_line(ctx, "release_event_id")
        if isinstance(eid, bool) or not isinstance(eid, int):
            raise TraceError(f"release_event_id takes the id alloc_event_id returned, got {eid!r}", user_loc())
        held = self.held.get(ev, set())
        if eid not in held:
            raise SyncError(f"release_event_id({eid}, HardEvent.{ev.name}): that id is not reserved (alloc_event_id "
                            "did not return it, or it was released already)", user_loc(),
                            hint="release exactly the ids alloc_event_id returned, each once")
        held.discard(eid)
        ctx.record("release_event_id", (ev, Const(eid)), user_loc())

    def fetch(self, event: Any) -> int:
        current("TPipe.fetch_event_id")
        ev = self._event(event, "fetch_event_id")
        held = self.held.get(ev, set())
        free = [i for i in range(NUM_IDS) if i not in held]
        if not free:
            raise SyncError(f"fetch_event_id: all {NUM_IDS} ids of HardEvent.{ev.name} are reserved", user_loc())
        return free[0]


def get_tpipe_ptr() -> Any:
    """`asc.get_tpipe_ptr()`: the kernel's TPipe (Ascend C `GetTPipePtr()`).

    Raises:
        TraceError: no TPipe has been created yet in this kernel.
    """
    ctx = current("asc.get_tpipe_ptr")
    pipe = getattr(ctx, "asc_tpipe", None)
    if pipe is None:
        raise TraceError("asc.get_tpipe_ptr() before the kernel created its TPipe", user_loc(),
                         hint="pipe = asc.TPipe() first (one per kernel); get_tpipe_ptr() then returns it")
    return pipe
