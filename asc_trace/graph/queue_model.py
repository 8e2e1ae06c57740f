"""The TQue sync model: which set or wait each queue operation issues (docs/facts.md#facts-6).

One statement of the rule, read by the scheduler's analysis (graph/analysis.py), the proof
(graph/sync_proof.py) and the simulator's queue binders (runtime/executors.py):
- VECIN queues are filled by MTE2 and drained by V, VECOUT queues filled by V and drained by MTE3;
- enque sets the buffer's `enq` event on the producer pipe, deque waits for it on the consumer pipe;
- free_tensor sets the buffer's `free` event on the consumer pipe, and alloc_tensor of a buffer used
  before waits for it on the producer pipe (a buffer's first use waits for nothing).
An event's key is ("que", queue node id, buffer, "enq" | "free"): one event per buffer, as the framework
keeps one event id per buffer.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..enums import TPosition
from .hb import QUE_PIPES
from .node import Pipe
from .ops.framework import QUEUE_EVENTS


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
