"""Executors of the cache and system calls (graph/ops/system.py). The model's memories are coherent and it
has no instruction cache, so most change nothing; `get_icache_preload_status` reads idle and `trap` stops
the kernel with an error at the user's line."""
from __future__ import annotations

from ..errors import LaunchError
from ..graph.node import Node
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
    """Mask-register writes: the ops that read the register carry its value from the trace (proxies/mask_reg.py)."""
    return lambda m: None
