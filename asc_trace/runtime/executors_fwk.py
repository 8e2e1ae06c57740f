"""Executors of the TPipe's event-id pool (graph/ops/event_pool.py): the ids were handed out while tracing
and checked there, so at run time a reservation changes nothing the model keeps."""
from __future__ import annotations

from ..graph.node import Node
from ..graph.ops import OpDef
from .executor_base import Step, binder


@binder("event_pool")
def _bind_event_pool(node: Node, op: OpDef) -> Step:
    return lambda m: None
