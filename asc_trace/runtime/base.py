"""The interface every backend implements: prepare a compiled kernel once, then launch it."""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Callable

from ..graph.kernel_graph import KernelGraph
from ..graph.node import TensorRef
from ..graph.ops import written
from ..graph.source_loc import SourceLoc
from .args import BoundArgs


@dataclass
class LaunchJob:
    """One launch: the kernel, its bound arguments, the core count and stream, and the call site."""

    name: str
    fn: Callable[..., Any]
    graph: KernelGraph | None
    bound: BoundArgs
    core_num: int
    stream: Any
    loc: SourceLoc | None
    options: dict[str, Any]


class Runtime:
    """A backend. `prepare` builds what the backend runs (an interpreter, a shared library, an NPU
    binary) once per compiled kernel; `launch` runs it and writes the outputs in place."""

    name = "?"

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> Any:
        return None

    def launch(self, artifact: Any, job: LaunchJob) -> None:
        raise NotImplementedError

    @classmethod
    def available(cls) -> bool:
        return True


_WRITTEN: "weakref.WeakKeyDictionary[KernelGraph, tuple[int, frozenset[int]]]" = weakref.WeakKeyDictionary()


def written_params(graph: KernelGraph) -> frozenset[int]:
    """Indices of the GM parameters the kernel writes (backends that cannot undo writes stage these).
    Remembered per graph while its nodes stay the same: every launch asks (runtime/gm_sharing.py)."""
    hit = _WRITTEN.get(graph)
    if hit is not None and hit[0] == len(graph.order):
        return hit[1]
    out = frozenset(_written_params(graph))
    _WRITTEN[graph] = (len(graph.order), out)
    return out


def _written_params(graph: KernelGraph) -> set[int]:
    gm_param: dict[int, int] = {}
    for n in graph:
        if n.op == "global_tensor":
            gm_param[n.id] = n.args[0].index
    out: set[int] = set()
    for n in graph:
        for ref in written(n):
            if isinstance(ref, TensorRef) and ref.space == "gm" and ref.root in gm_param:
                out.add(gm_param[ref.root])
    return out
