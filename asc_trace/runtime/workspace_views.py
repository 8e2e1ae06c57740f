"""The GM workspace of pyasc's MIX Matmul mode seen in C's element type: the Matmul hands C from the cube core
to its vector client through the kernel's workspace (a uint8 argument, as pyasc's tutorials allocate it), which
the emitted Ascend C reinterprets (`reinterpret_cast<__gm__ float*>(workspace)`, graph/ops/framework.py). The
simulator indexes each argument's array in its own element type, so the launch sees the argument through a view
of that type (the same memory)."""
from __future__ import annotations

import dataclasses

from ..errors import NotProvidedError
from ..graph.kernel_graph import KernelGraph
from .args import BoundArgs


def bind_workspace_views(graph: KernelGraph, bound: BoundArgs) -> BoundArgs:
    """`bound` with each GM argument that the kernel binds only as another element type viewed as that type."""
    seen: dict[int, set] = {}
    for n in graph:
        if n.op == "global_tensor":
            seen.setdefault(n.args[0].index, set()).add(n.attr("dtype"))
    arrays = list(bound.arrays)
    changed = False
    for p in bound.signature.params:
        types = seen.get(p.index)
        arr = arrays[p.index] if p.index < len(arrays) else None
        if not types or arr is None or types == {p.dtype}:
            continue
        if len(types) > 1:
            names = ", ".join(sorted(t.name for t in types))
            raise NotProvidedError(f"GM argument '{p.name}' is bound as {names}: the Matmul's workspace is seen in "
                                   "C's element type only, so the kernel cannot use it as another type too")
        (dt,) = types
        if arr.nbytes % dt.itemsize or not arr.flags.c_contiguous:
            raise NotProvidedError(f"GM argument '{p.name}' ({arr.nbytes} bytes) cannot be seen as {dt.name}: give "
                                   f"the Matmul workspace a whole number of {dt.itemsize}-byte elements, contiguous")
        arrays[p.index] = arr.view(dt.np)
        changed = True
    return dataclasses.replace(bound, arrays=arrays) if changed else bound
