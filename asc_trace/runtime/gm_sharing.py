"""GM arguments that share memory at launch, when the kernel writes one of them.

Arguments that share memory at a launch (`k(x, x)`, two overlapping views of one array) are recorded
in the signature (runtime/args.py: `Param.alias`), so the kernel is compiled per sharing pattern and
the scheduler, the proof and the race checker see one memory (graph/signature.py `gm_home`). What is
left here is a safety net: two written-to arguments that overlap in memory without the graph having
been scheduled for it (memory the launch could not see as shared) are refused, before anything runs.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaunchError
from ..graph.kernel_graph import KernelGraph
from ..graph.source_loc import SourceLoc
from .args import BoundArgs
from .base import written_params


def _span(a: np.ndarray) -> tuple[int, int]:
    lo = a.__array_interface__["data"][0]
    return lo, lo + a.nbytes


def refuse_shared_writes(graph: KernelGraph, bound: BoundArgs, loc: SourceLoc | None) -> None:
    """Raise LaunchError when two GM arguments partly overlap in memory and the kernel writes one of them."""
    if not bound.signature.shared:
        # bound arrays are C-contiguous storage views, and binding records every two that share a byte
        # (runtime/args.py `_shared_memory`): none do
        return
    present = [a for a in bound.arrays if a is not None and a.nbytes]
    if len(present) < 2 or not any(np.may_share_memory(a, b) for k, a in enumerate(present) for b in present[k + 1:]):
        return      # the usual launch: separate arrays (may_share_memory compares their extents, no more)
    spans = [(i, _span(a)) for i, a in enumerate(bound.arrays) if a is not None and a.nbytes]
    writes = written_params(graph)
    names = [p.name for p in bound.signature.params]
    sig = graph.signature
    for k, (i, (lo_i, hi_i)) in enumerate(spans):
        for j, (lo_j, hi_j) in spans[k + 1:]:
            if sig.gm_home(i)[0] == sig.gm_home(j)[0]:
                continue        # the graph was scheduled for this sharing: one memory (graph/signature.py)
            if (i in writes or j in writes) and lo_i < hi_j and lo_j < hi_i:
                w = names[i] if i in writes else names[j]
                raise LaunchError(f"arguments {names[i]!r} and {names[j]!r} partly overlap in memory and the kernel writes "
                                  f"{w!r}: the scheduler orders accesses per argument, so a write through one and an "
                                  "access through the other would be unordered across the pipes", loc,
                                  hint="pass separate arrays (e.g. a copy of the input: `k[n](x.copy(), x, ...)`) "
                                       "and copy the result back, or give the kernel one argument for that memory "
                                       "and index it with two offsets")
