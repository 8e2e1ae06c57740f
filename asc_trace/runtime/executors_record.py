"""The executor of the family "vec_record" (graph/ops/record_family.py): the record says which regions
the op touches (`OpDef.accesses`) and what it computes on them (`OpDef.ref`), so an op of this family needs
no executor code of its own. Same contract as executors.py: the scalar unit's part (addresses, bounds) now,
the data effect in the returned instruction's `apply`."""
from __future__ import annotations

import numpy as np

from ..dtypes import from_compute, to_compute
from ..graph.hb import Instr, api_steps
from ..graph.node import Node, Pipe
from ..graph.ops import OpDef, accesses
from ..graph.ops.record_family import operand_kinds
from .executor_base import Step, binder, efn, scalar_as
from .machine import Machine


@binder("vec_record")
def _bind_record(node: Node, op: OpDef) -> Step:
    regions = [(t, efn(t.offset), efn(first), efn(count), write) for t, first, count, write in accesses(node)]
    kinds = operand_kinds(op)
    value_fns = [(kind, efn(a)) for (_name, kind), a in zip(kinds, node.args) if kind != "tensor"]
    names = [name for name, kind in kinds if kind == "tensor"]
    dtype = node.attr("dtype")
    ref = op.ref

    def run(m: Machine) -> Instr | None:
        env = m.env
        views, ub = [], []
        for k, (t, off, first, count, write) in enumerate(regions):
            n = m.count(count(env), node)
            addr, view = m.ub_access(t, off(env) + first(env), n, node, names[k] if k < len(names) else "an operand")
            views.append((t, view, write))
            ub.append((addr, n * t.dtype.itemsize, write))
        # an integer value is one per launch (the record's ref takes plain ints); a scalar of the element
        # type is rounded to it as the C call converts it, and may differ by core (a column then)
        values = [scalar_as(dtype, f(env)) if kind == "scalar" else m.uniform_int(f(env), node, "an integer operand")
                  for kind, f in value_fns]

        def apply() -> None:
            # every region is read before any is written (in place is then well defined)
            srcs = [to_compute(v, t.dtype).copy() for t, v, write in views if not write]
            out = ref(*srcs, *values)
            outs = out if isinstance(out, tuple) else (out,)
            for (t, v, _), o in zip([x for x in views if x[2]], outs):
                v[...] = from_compute(np.asarray(o), t.dtype)
        # the cost model counts the elements of the widest region (graph/ops/opdef.py VecCost)
        work = max((v.shape[1] for _t, v, _w in views), default=0)
        # the sets and waits the API call makes itself (OpDef.api_sync), on the operands' values here
        api = api_steps(node, lambda e: m.uniform_int(efn(e)(env), node, "an operand"))
        return Instr(node, Pipe.V, "op", apply=apply, ub=tuple(ub), work=work, api=api or ())
    return run

