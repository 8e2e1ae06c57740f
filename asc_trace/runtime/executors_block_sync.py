"""Executors of sync_all / ib_set / ib_wait (graph/ops/block_sync.py): each evaluates its operands on one
core and hands the runner of block-synchronised launches (runtime/block_sync_sim.py) a `BlockStep`; only
that runner, which runs the launch's cores as threads taking turns, can carry one out."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import OutOfBoundsError
from ..graph.node import Node, TensorRef
from ..graph.ops import OpDef
from ..graph.ops.block_sync import SLOT_WORDS
from .executor_base import Step, binder, efn
from .machine import Machine


@dataclass(slots=True)
class BlockStep:
    """One core's call, its operands evaluated: `gm` / `ub` the workspaces and their element offsets,
    `words` the GM elements (from the workspace's start) the call polls, `own` the one it writes."""

    node: Node
    kind: str                       # "hard", "soft", "ib_set", "ib_wait"
    gm: TensorRef | None = None
    gm_off: int = 0
    ub: TensorRef | None = None
    ub_off: int = 0
    own: int = 0
    words: tuple[int, ...] = ()
    total: int = 0                  # the cores a soft barrier counts


def _int(m: Machine, f: Any, node: Node, what: str) -> int:
    return m.uniform_int(f(m.env), node, what)


@binder("sync_all")
def _bind_sync_all(node: Node, op: OpDef) -> Step:
    gm, ub, used = node.args
    if gm is None:
        return lambda m: BlockStep(node, "hard")
    fg, fu, fused = efn(gm.offset), efn(ub.offset), efn(used)

    def run(m: Machine) -> BlockStep:
        blk = int(m.cores[0])
        n = _int(m, fused, node, "used_cores")
        if n < 0:
            raise OutOfBoundsError(f"used_cores is negative ({n})", node=node)
        total = n if n else m.core_num
        slots = max(total, blk + 1)        # the vendor reads the first `total` slots and writes its own
        step = BlockStep(node, "soft", gm, _int(m, fg, node, "the gm_workspace offset"), ub,
                         _int(m, fu, node, "the ub_workspace offset"), blk * SLOT_WORDS,
                         tuple(i * SLOT_WORDS for i in range(total)), total)
        # the bounds, as the vendor's copies would touch them: gm and ub hold 8 int32 words per slot
        m.gm_span(gm, step.gm_off, slots * SLOT_WORDS, node, "the gm_workspace of sync_all")
        m.ub_span(ub, step.ub_off, slots * SLOT_WORDS, node, "the ub_workspace of sync_all")
        return step
    return run


@binder("ib_set", "ib_wait")
def _bind_ib(node: Node, op: OpDef) -> Step:
    gm, ub, blk, ev = node.args
    fg, fu, fb, fe = efn(gm.offset), efn(ub.offset), efn(blk), efn(ev)
    kind = node.op

    def run(m: Machine) -> BlockStep:
        b = _int(m, fb, node, "block_idx")
        e = _int(m, fe, node, "event_id")
        if not 0 <= b < m.core_num:
            raise OutOfBoundsError(f"{kind} names core {b}, but the launch has cores 0..{m.core_num - 1}", node=node,
                                   hint="block_idx is the core whose flag is set / waited for")
        if e < 0:
            raise OutOfBoundsError(f"{kind} event_id is negative ({e})", node=node)
        word = m.core_num * SLOT_WORDS * e + b * SLOT_WORDS     # the vendor's gmWorkspace[blockNum*8*eventID + blockIdx*8]
        step = BlockStep(node, kind, gm, _int(m, fg, node, "the gm_workspace offset"), ub,
                         _int(m, fu, node, "the ub_workspace offset"), word, (word,))
        m.gm_span(gm, step.gm_off + word, SLOT_WORDS, node, f"the gm_workspace of {kind}")
        m.ub_span(ub, step.ub_off, SLOT_WORDS, node, f"the ub_workspace of {kind}")
        return step
    return run
