"""`asc.<name>` for every op record whose family has a front-end builder: the one loop the API modules
(api.py, api_vec_more.py, api_fused_cast.py, api_sort.py) share, so a record becomes a public name the same
way whichever module knows how to trace its family."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ..graph.ops import REGISTRY, OpDef

FamilyBuilder = Callable[[OpDef], Callable[..., Any]]


def api_for_families(builders: Mapping[str, FamilyBuilder]) -> dict[str, Callable[..., Any]]:
    """One traced function per record of the given families, named as the op so tracebacks and
    `help(asc.add)` show the op's name rather than the builder's inner closure."""
    out: dict[str, Callable[..., Any]] = {}
    for op in REGISTRY.values():
        builder = builders.get(op.family)
        if builder is not None:
            fn = builder(op)
            fn.__name__ = fn.__qualname__ = op.name
            out[op.name] = fn
    return out
