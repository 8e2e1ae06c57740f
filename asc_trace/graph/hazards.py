"""The one definition of a hazard, shared by the scheduler (graph/analysis.py, graph/schedule_sync.py)
and the simulator's race checker (runtime/race_check.py).

Two accesses to overlapping bytes, at least one of them a write, conflict. What orders them depends on
where they run (docs/facts.md#facts-3):

- on two different pipes of one core: a hardware flag from the earlier access's pipe to the later
  one's, `set_flag(HardEvent.<src>_<dst>, id)` after the earlier access and `wait_flag` of the same
  event and id before the later one (or anything that implies it: TQue events, PIPE_ALL barriers,
  a chain of flags through a third pipe);
- on one pipe: instructions issue in order but can overlap, so some same-pipe pairs need a
  `PipeBarrier` of that pipe between them: every dependence on V, and back-to-back copies on MTE2 or
  MTE3 into overlapping destinations (those are the only conflicts a copy pipe can have with itself:
  MTE2 reads GM and writes the UB, MTE3 reads the UB and writes GM). The scalar unit is not a queue
  (PIPE_S barriers are not allowed) and needs none. A set_flag or wait_flag on the pipe between the
  two also keeps them apart (assumed: a set runs once the pipe's earlier work is done, and a wait
  holds back what follows);
- on two cores in one launch: no event orders them, so a GM byte that one core writes and another
  core reads or writes is an error, not something a flag can fix.

bisheng's own `--cce-auto-sync` (on in the build of an `auto_sync=False` kernel, off when our
scheduler synchronises: toolchain/bisheng.py) inserts the V<->V barriers itself (docs/facts.md#facts-3), so those are a
hazard only when the compiler's auto-sync is off (`compiler_sync=False`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..enums import AIV_EVENTS, HardEvent, PipeID
from .node import Pipe

RAW, WAR, WAW = "RAW", "WAR", "WAW"
# When several dependences hold between two instructions, the one named (an in-place op after a copy
# is both RAW and WAW: users think of it as the data flowing, RAW).
KINDS = (RAW, WAR, WAW)

# Same-pipe dependences that need a PipeBarrier of that pipe when the compiler's auto-sync is off.
BARRIER_KINDS: dict[Pipe, frozenset[str]] = {
    Pipe.V: frozenset(KINDS),
    Pipe.MTE2: frozenset({WAW}),
    Pipe.MTE3: frozenset({WAW}),
}
# ... and those bisheng's --cce-auto-sync inserts itself (docs/facts.md#facts-3: "the compiler inserts V<->V barriers").
COMPILER_BARRIERS: frozenset[Pipe] = frozenset({Pipe.V})

# Instruction kinds (graph/hb.py `Instr.kind`) that keep the instructions of their pipe on either side
# of them from overlapping: a barrier, and (assumed, see the module docstring) a set or a wait.
SEPARATORS = frozenset({"barrier", "set", "wait", "barrier_all"})

BARRIER_ID: dict[Pipe, PipeID] = {Pipe.V: PipeID.PIPE_V, Pipe.MTE2: PipeID.PIPE_MTE2, Pipe.MTE3: PipeID.PIPE_MTE3}


@dataclass(frozen=True, slots=True)
class Hazard:
    """What a conflict needs: `fix` is "flag" (the `event` from the earlier pipe to the later one),
    "barrier" (a PipeBarrier of `pipe`), or "error" (two cores: nothing can order them)."""

    kind: str
    fix: str
    event: HardEvent | None = None
    pipe: Pipe | None = None


def dependence(a_write: bool, b_write: bool) -> str | None:
    """The dependence of a later access on an earlier one to the same bytes (None: two reads)."""
    if a_write:
        return WAW if b_write else RAW
    return WAR if b_write else None


def strongest(kinds: Iterable[str]) -> str | None:
    """The kind to name when several dependences hold between two instructions."""
    ks = set(kinds)
    return next((k for k in KINDS if k in ks), None)


def needs_barrier(pipe: Pipe, kind: str | None, compiler_sync: bool = False) -> bool:
    """Whether a same-pipe dependence of `kind` needs a PipeBarrier of `pipe` (with `compiler_sync`,
    bisheng's auto-sync is on and inserts the V barriers itself)."""
    if kind is None or (compiler_sync and pipe in COMPILER_BARRIERS):
        return False
    return kind in BARRIER_KINDS.get(pipe, ())


def fixing_event(src: Pipe, dst: Pipe) -> HardEvent:
    """The flag that orders an access on `src` before one on `dst` (set on src, waited on dst)."""
    return HardEvent[f"{src.value}_{dst.value}"]


def valid_on_aiv(event: HardEvent) -> bool:
    """Whether the event means something on a vector core (docs/facts.md#facts-3: 13 of the 35 do)."""
    return event in AIV_EVENTS


def classify(a_pipe: Pipe, a_write: bool, b_pipe: Pipe, b_write: bool, compiler_sync: bool = False,
             same_core: bool = True) -> Hazard | None:
    """The hazard between an earlier access (a) and a later one (b) to overlapping bytes, or None when
    the pair needs nothing (two reads; a same-pipe pair the pipe keeps in order)."""
    kind = dependence(a_write, b_write)
    if kind is None:
        return None
    if not same_core:
        return Hazard(kind, "error")
    if a_pipe == b_pipe:
        if needs_barrier(a_pipe, kind, compiler_sync):
            return Hazard(kind, "barrier", pipe=a_pipe)
        return None
    return Hazard(kind, "flag", event=fixing_event(a_pipe, b_pipe))


def cross_core_conflict(a_write: bool, b_write: bool) -> bool:
    """Two cores touching the same GM bytes in one launch: an error when either writes."""
    return a_write or b_write


__all__ = ["RAW", "WAR", "WAW", "KINDS", "BARRIER_KINDS", "COMPILER_BARRIERS", "SEPARATORS", "BARRIER_ID",
           "Hazard", "dependence", "strongest", "needs_barrier", "fixing_event", "valid_on_aiv", "classify",
           "cross_core_conflict"]
