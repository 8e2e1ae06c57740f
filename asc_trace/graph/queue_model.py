"""The TQue model: which set or wait each queue operation issues, and how it moves the queue's buffers
(docs/facts.md#facts-6).

One statement of both, read by the scheduler's analysis (graph/analysis.py), the proof
(graph/sync_proof.py) and the simulator's queue binders (runtime/executors.py, runtime/machine.py):
- VECIN queues are filled by MTE2 and drained by V, VECOUT queues filled by V and drained by MTE3;
- enque sets the buffer's `enq` event on the producer pipe, deque waits for it on the consumer pipe;
- free_tensor sets the buffer's `free` event on the consumer pipe, and alloc_tensor of a buffer used
  before waits for it on the producer pipe (a buffer's first use waits for nothing).
An event's key is ("que", queue node id, buffer, "enq" | "free"): one event per buffer, as the framework
keeps one event id per buffer.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from ..enums import TPosition
from .hb import QUE_PIPES
from .node import Pipe
from .ops.framework import QUEUE_EVENTS, QUEUE_MOVES


@lru_cache(maxsize=None)     # pure, and asked for every queue operation the proof walks
def que_pipes(pos: Any) -> tuple[Pipe, Pipe] | None:
    """(producer, consumer) pipes of a queue at TPosition `pos`, None for a position no pipe pair serves."""
    return QUE_PIPES.get(TPosition(pos))


@lru_cache(maxsize=4096)
def que_event(pos: Any, op: str, que: int, slot: int, reused: bool = True) -> tuple[Pipe, str, tuple] | None:
    """(pipe, "set" | "wait", event key) that queue operation `op` on buffer `slot` issues, or None (an
    alloc_tensor of a buffer not used before, or a position without a pipe pair)."""
    pipes = que_pipes(pos)
    if pipes is None or (op == "alloc_tensor" and not reused):
        return None
    side, kind, event = QUEUE_EVENTS[op]
    return pipes[side], kind, ("que", que, slot, event)


# The queue operations that hand a buffer out (alloc_tensor, deque); the others take one back. Both lists
# a buffer goes through are first in, first out (ops/framework.py QUEUE_MOVES), so a queue's buffers go
# round in a fixed order and a loop's schedule repeats with the buffer count's period.
HANDS_OUT = frozenset(op for op, (way, _list) in QUEUE_MOVES.items() if way == "out")


class QueSlots(NamedTuple):
    """Where one TQue's buffers are: `free` (the free list) and `inq` (enqueued), both oldest first; any
    other buffer of the queue is held by the program. `used`: the buffers handed out by alloc_tensor at
    least once (their next alloc_tensor waits for the free event), or None where the caller reads that
    elsewhere (the proof, from its flag state, which stays exact where paths join).

    Immutable, so that the proof can keep it in path states and compare them; a tuple, so that the
    simulator's every queue operation stays cheap. The scheduler's analysis (graph/analysis.py), the proof
    (graph/sync_proof.py) and the simulator (runtime/machine.py QueState) all move buffers with it."""

    free: tuple[int, ...]
    inq: tuple[int, ...] = ()
    used: frozenset[int] | None = frozenset()

    @classmethod
    def fresh(cls, num: int, track_use: bool = True) -> "QueSlots":
        """A queue just given `num` buffers by init_buffer: all free, none used yet."""
        return cls(tuple(range(num)), (), frozenset() if track_use else None)

    def hand_out(self, op: str) -> tuple[int, bool, "QueSlots"] | None:
        """alloc_tensor / deque: (the buffer handed out, whether it was handed out by an alloc_tensor
        before, the queue after), or None when the list it takes from is empty (on the NPU the call would
        wait forever)."""
        if QUEUE_MOVES[op][1] == "free":
            free = self.free
            if not free:
                return None
            slot, used = free[0], self.used
            if used is None:
                return slot, True, QueSlots(free[1:], self.inq, None)
            if slot in used:
                return slot, True, QueSlots(free[1:], self.inq, used)
            return slot, False, QueSlots(free[1:], self.inq, used | {slot})
        inq = self.inq
        if not inq:
            return None
        return inq[0], True, QueSlots(self.free, inq[1:], self.used)

    def take_back(self, op: str, slot: int) -> "QueSlots":
        """enque / free_tensor of the held buffer `slot`: the queue after it."""
        if QUEUE_MOVES[op][1] == "free":
            return QueSlots(self.free + (slot,), self.inq, self.used)
        return QueSlots(self.free, self.inq + (slot,), self.used)

    def held(self, slot: int) -> bool:
        """Whether buffer `slot` (one of this queue's) is held by the program: neither free nor enqueued."""
        return slot not in self.free and slot not in self.inq

    def renamed(self, pi: dict[int, int]) -> "QueSlots":
        """The same state with every buffer renamed by `pi` (graph/sync_proof_symmetry.py)."""
        used = self.used if self.used is None else frozenset(pi.get(s, s) for s in self.used)
        return QueSlots(tuple(pi[s] for s in self.free), tuple(pi[s] for s in self.inq), used)
