"""GM arguments that share memory at launch, when the kernel writes one of them.

The scheduler and the simulator's race checker treat each GM parameter as its own memory (graph/
analysis.py: one space per parameter; runtime/race_check.py: one shadow per parameter), so an access
through `x` and one through `y` are never a dependence. When `y` is `x`, or a view overlapping it,
and the kernel writes either, a write through one and an access through the other may run in any
order across the pipes: the bytes would depend on timing on the NPU while the CPU backends compute
program order. Until the schedule is made per sharing pattern (issue 18), a launch where a written
argument *partly* overlaps another (`k(a[:n], a[64:])`) is refused on every backend, before anything
runs. Still let through, as before: arguments that only read shared memory (`add(z, x, x)`), and the
exact in-place form, one array passed twice whole (`vadd(x, y, x)`, which tests/test_sim_fast_path.py
relies on). That form is not proven race-free: it is as safe as the kernel's own ordering of each
element's read before its write through the other name (docs/scheduler-aliasing.md).
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
    present = [a for a in bound.arrays if a is not None and a.nbytes]
    if len(present) < 2 or not any(np.may_share_memory(a, b) for k, a in enumerate(present) for b in present[k + 1:]):
        return      # the usual launch: separate arrays (may_share_memory compares their extents, no more)
    spans = [(i, _span(a)) for i, a in enumerate(bound.arrays) if a is not None and a.nbytes]
    writes = written_params(graph)
    names = [p.name for p in bound.signature.params]
    for k, (i, (lo_i, hi_i)) in enumerate(spans):
        for j, (lo_j, hi_j) in spans[k + 1:]:
            if (i in writes or j in writes) and lo_i < hi_j and lo_j < hi_i and (lo_i, hi_i) != (lo_j, hi_j):
                w = names[i] if i in writes else names[j]
                raise LaunchError(f"arguments {names[i]!r} and {names[j]!r} partly overlap in memory and the kernel writes "
                                  f"{w!r}: the scheduler orders accesses per argument, so a write through one and an "
                                  "access through the other would be unordered across the pipes", loc,
                                  hint="pass separate arrays (e.g. a copy of the input: `k[n](x.copy(), x, ...)`) "
                                       "and copy the result back, or give the kernel one argument for that memory "
                                       "and index it with two offsets")
