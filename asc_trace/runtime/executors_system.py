"""Executors of the cache and system calls (graph/ops/system.py). The model's memories are coherent and it
has no instruction cache, so most change nothing; `get_icache_preload_status` reads idle and `trap` stops
the kernel with an error at the user's line."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..dtypes import from_compute, to_compute
from ..errors import LaunchError
from ..graph.node import Node, TensorRef
from ..graph.ops import OpDef
from ..graph.ops.system import ICACHE_IDLE
from .executor_base import Step, binder
from .machine import Machine


@binder("system")
def _bind_system(node: Node, op: OpDef) -> Step:
    """The calls without an effect on the model's state (cache maintenance, barriers on coherent memory)."""
    return lambda m: None


@binder("get_icache_preload_status")
def _bind_icache_status(node: Node, op: OpDef) -> Step:
    key = f"v{node.id}"

    def run(m: Machine) -> None:
        m.env[key] = ICACHE_IDLE
    return run


@binder("trap")
def _bind_trap(node: Node, op: OpDef) -> Step:
    def run(m: Machine) -> None:
        raise LaunchError("the kernel called asc.trap(): the core stops here, as the hardware's trap instruction "
                          "stops it", node=node, hint="a trap marks a state the kernel treats as fatal; find out "
                          "why this path was taken")
    return run


@binder("mask_reg")
def _bind_mask_reg(node: Node, op: OpDef) -> Step:
    """Mask-register writes: the ops that read the register carry its lane bits from the trace
    (proxies/mask_reg.py); the mode is followed here, as it decides the range of a mask count (mask_positions)."""
    if op.c_name in ("SetMaskCount", "SetMaskNorm"):       # the vendor's mode switches
        counter = op.c_name == "SetMaskCount"

        def set_mode(m: Machine) -> None:
            m.mask_counter = counter
        return set_mode
    return lambda m: None


@binder("atomic")
def _bind_atomic(node: Node, op: OpDef) -> Step:
    """Store-atomic register writes: each UB -> GM copy carries the operation in force (proxies/atomic.py)."""
    return lambda m: None


def _combine(op: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    if op == "add":
        return np.add
    return np.maximum if op == "max" else np.minimum


def atomic_store(m: Machine, ref: TensorRef, off: Any, count: int, node: Node, op: str) -> Callable[[np.ndarray], None]:
    """The writer of a UB -> GM copy under the store-atomic register: each core in turn combines its
    elements with GM's in the element type (float16 rounds in float16, bfloat16 is rounded from float32,
    integers wrap), so cores that store to the same elements accumulate."""
    arr, start = m.gm_span(ref, off, count, node, "the copy destination")
    dt = ref.dtype
    combine = _combine(op)
    starts = np.broadcast_to(np.asarray(start, dtype=np.int64), (m.C,))

    def store(data: np.ndarray) -> None:
        rows = np.broadcast_to(data, (m.C, count))
        for c in range(m.C):
            s0 = int(starts[c])
            target = arr[s0:s0 + count]
            m.journal.save(target)
            with np.errstate(over="ignore"):
                out = combine(to_compute(target, dt), to_compute(rows[c], dt))
            target[...] = from_compute(out, dt)
    return store
