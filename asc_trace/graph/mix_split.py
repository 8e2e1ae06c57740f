"""Mixed cube + vector kernels (KERNEL_TYPE_MIX_AIC_1_2): which side of the AI core runs each node, and
the split of the traced kernel into its cube side and its vector side.

The vendor compiles a mixed kernel twice, once per core type (`__DAV_CUBE__` / `__DAV_VEC__`,
ascend-cube-facts §6), and each compile keeps the work of its own core type. asc_trace does the same on
the traced graph: a node that moves data in a cube memory or runs on a cube pipe is the cube core's; a
node that touches the Unified Buffer, runs on V or MTE3, or builds the vector framework (TPipe / TQue /
TBuf) is the vector cores'; everything else (loops, scalars, GM bindings, printf) runs on both. A
cross-core flag runs where the pipe it names is (FIX / M / MTE1: the cube; V / MTE3: the vector cores); on a
pipe both have (S, MTE2), a set belongs to the side of the nearest data work before it and a wait to the
side of the nearest data work after it (a set follows what it publishes, a wait precedes what it guards),
or the other way when there is none."""
from __future__ import annotations

import dataclasses
from typing import Any

from ..cube_enums import CUBE_SPACES
from ..errors import TraceError
from .expr import Expr, substitute
from .kernel_graph import KernelGraph
from .regions import REGION_CLOSE, REGION_OPEN
from .mix_vars import MIX_VARS, side_values
from .node import Node, Pipe, TensorRef
from .ops import REGISTRY
from .ops.cross_core import CROSS_CORE_OPS

_CUBE_PIPES = frozenset({Pipe.MTE1, Pipe.M, Pipe.FIX})
_VEC_PIPES = frozenset({Pipe.V, Pipe.MTE3})
_PIPE_OF = {"PIPE_FIX": Pipe.FIX, "PIPE_M": Pipe.M, "PIPE_MTE1": Pipe.MTE1, "PIPE_V": Pipe.V, "PIPE_MTE3": Pipe.MTE3}


def own_side(n: Node) -> str | None:
    """"aic", "aiv", or None (both sides run it), for a node other than a cross-core flag.

    Raises:
        TraceError: a call with operands on both core types (a vector op on an L1 / L0 tensor, ...): no
            instruction reaches both, the cube hands data to the vector cores through GM.
    """
    spaces = {a.space for a in n.args if isinstance(a, TensorRef)}
    cube = n.pipe in _CUBE_PIPES or REGISTRY[n.op].family == "cube" or bool(spaces & CUBE_SPACES)
    vec = n.pipe in _VEC_PIPES or "ub" in spaces
    if cube and vec:
        where = "a cube core memory (L1 / L0A / L0B / L0C / bias table)" if spaces & CUBE_SPACES else "a cube pipe"
        raise TraceError(f"asc.{n.op} has operands on both core types: one in the Unified Buffer or on a vector pipe, "
                         f"one in {where}; no instruction reaches both the vector cores' and the cube core's memories",
                         n.loc, hint="the cube core hands its results to the vector cores through GM (Fixpipe to a GM "
                                     "workspace, then data_copy GM -> UB), and back the same way")
    if cube:
        return "aic"
    if n.op == "local_tensor":
        from ..cube_enums import CUBE_MEMORY
        return "aic" if n.args[0] in CUBE_MEMORY else "aiv"
    # TPipe / TQue / TBuf build the vector cores' Unified Buffer (cube positions take static LocalTensors)
    vec_framework = REGISTRY[n.op].family == "framework" and n.op != "global_tensor"
    if n.pipe in _VEC_PIPES or "ub" in spaces or vec_framework:
        return "aiv"
    return None


def sides(g: KernelGraph) -> dict[int, str | None]:
    """Node id -> "aic" / "aiv" / None (both) for every node in program order (see the module docstring)."""
    order = [g.node(i) for i in g.order]
    own = {n.id: (None if n.op in CROSS_CORE_OPS else own_side(n)) for n in order}
    out = dict(own)
    for i, n in enumerate(order):
        if n.op not in CROSS_CORE_OPS:
            continue
        if n.attr("side") is not None:          # placed by auto_sync, which knows
            out[n.id] = n.attr("side")
            continue
        pipe = _PIPE_OF.get(n.args[2].name)         # the pipe the call names (a wait's node runs on S)
        if pipe in _CUBE_PIPES:
            out[n.id] = "aic"
        elif pipe in _VEC_PIPES:
            out[n.id] = "aiv"
        else:
            before = [own[m.id] for m in reversed(order[:i]) if own[m.id] is not None]
            after = [own[m.id] for m in order[i + 1:] if own[m.id] is not None]
            seq = before + after if n.op == "cross_core_set_flag" else after + before
            if not seq:
                raise TraceError(f"asc.{n.op} on PipeID.{n.args[2].name}: no cube or vector work in the kernel says "
                                 "which core runs it", n.loc,
                                 hint="set a flag after the work it publishes and wait before the work it guards, "
                                      "or name a pipe only one core has (PIPE_FIX, PIPE_MTE3)")
            out[n.id] = seq[0]
    return out


def is_mixed(g: KernelGraph) -> tuple[Node, Node] | None:
    """(a cube node, a vector node) when the kernel has work for both core types, else None."""
    cube = vec = None
    for n in g:
        s = None if n.op in CROSS_CORE_OPS else own_side(n)
        if s == "aiv" and REGISTRY[n.op].family == "framework":
            continue        # a TPipe alone is no vector work (the high-level Matmul's cube kernels build one)
        if s == "aic" and cube is None:
            cube = n
        elif s == "aiv" and vec is None:
            vec = n
        if cube is not None and vec is not None:
            return cube, vec
    return None


def _subst_arg(a: Any, m: dict) -> Any:
    if isinstance(a, Expr):
        return substitute(a, m)
    if isinstance(a, tuple):
        return tuple(_subst_arg(x, m) for x in a)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        changes = {}
        for f in dataclasses.fields(a):
            if not f.init:
                continue
            v = getattr(a, f.name)
            w = _subst_arg(v, m)
            if w is not v:
                changes[f.name] = w
        return dataclasses.replace(a, **changes) if changes else a
    return a


def _uses_mix_vars(a: Any) -> bool:
    from .node import exprs_in
    from .expr import free_vars
    return any(v in MIX_VARS for e in exprs_in(a) for v in free_vars(e))


def side_graph(g: KernelGraph, side: str, where: dict[int, str | None] | None = None) -> KernelGraph:
    """The nodes `side` runs, in program order, with the mixed-kernel variables replaced by their values
    there. Regions stay whole (a loop with no work on this side is kept: its bounds may be all it shares)."""
    where = sides(g) if where is None else where
    out = g.copy()
    values = side_values(side)
    keep = []
    for nid in g.order:
        n = g.node(nid)
        s = where.get(nid)
        if s is not None and s != side:
            continue
        if _uses_mix_vars(n.args):
            out.replace(dataclasses.replace(n, args=_subst_arg(n.args, values)))
        keep.append(nid)
    out.set_order(keep)
    out.options = dict(g.options, mix_side=side)
    return out


class MixGraph(KernelGraph):
    """A mixed kernel after its passes: the kernel as traced (with the cross-core flags auto_sync added)
    and each side's scheduled graph, `aic` and `aiv`. `str()` shows both sides."""

    aic: KernelGraph
    aiv: KernelGraph

    @classmethod
    def of(cls, mixed: KernelGraph, aic: KernelGraph, aiv: KernelGraph) -> "MixGraph":
        g = cls(mixed.name, mixed.signature, mixed.options)
        src = mixed.copy()
        g._nodes, g._extra, g.order, g._next_id, g.notes = src._nodes, src._extra, src.order, src._next_id, src.notes
        g.aic, g.aiv = aic, aiv
        return g

    def copy(self) -> "MixGraph":
        return MixGraph.of(super().copy(), self.aic, self.aiv)

    def dump(self, locs: bool = True) -> str:
        from .printer import format_graph
        return ("// mixed kernel (KERNEL_TYPE_MIX_AIC_1_2): the cube core's side\n" + format_graph(self.aic, locs=locs)
                + "// each vector core's side (two per AI core)\n" + format_graph(self.aiv, locs=locs))

    def __str__(self) -> str:
        return self.dump()


__all__ = ["MixGraph", "is_mixed", "own_side", "side_graph", "sides", "REGION_OPEN", "REGION_CLOSE"]
