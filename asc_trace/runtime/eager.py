"""The `eager` backend: run the kernel function itself on real data, core after core, executing each
API call as it is made. Python control flow sees real numbers, so `print`, `pdb` and `if` on
runtime values work inside a kernel; the rules checked are the simulator's."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import AscTraceError, TraceError
from ..graph.expr import Const
from ..graph.node import Node, ParamRef, Pipe, TensorRef
from ..graph.signature import Signature
from ..graph.source_loc import SourceLoc
from ..proxies.context import Context, use
from ..proxies.tensors import GlobalAddress
from ..proxies.tracer import refuse_return
from .base import LaunchJob, Runtime
from .executors import bind
from .machine import GmJournal, Machine
from .printf import emit_output


class EagerContext(Context):
    eager = True

    def __init__(self, m: Machine, core: int, core_num: int) -> None:
        self.m = m
        self.core = core
        self.core_num = core_num
        self._next = 0

    def record(self, op: str, args: tuple[Any, ...], loc: SourceLoc, pipe: Pipe | None = None,
               attrs: tuple[tuple[str, Any], ...] = ()) -> int:
        nid = self._next
        self._next += 1
        node = Node(nid, op, tuple(args), loc, (), pipe, attrs)
        try:
            with np.errstate(all="ignore"):
                ins = bind(node)(self.m)
                if ins is not None and ins.apply is not None:
                    ins.apply()
        except ZeroDivisionError:
            raise AscTraceError("division by zero in a scalar expression", node=node) from None
        return nid

    def block_idx(self) -> int:
        return self.core

    def block_num(self) -> int:
        return self.core_num

    def node_value(self, nid: int, vtype: str) -> Any:
        """A value read from the UB. Floats come back as NumPy float32, so that Python arithmetic on them
        rounds like the kernel's float32 scalar math (and like the simulator)."""
        v = self.m.env[f"v{nid}"]
        if isinstance(v, np.ndarray):
            v = v.reshape(-1)[0]
        v = v.item() if isinstance(v, np.generic) else v
        return np.float32(v) if vtype == "float" else v

    def loop_range(self, start: Any, stop: Any, step: Any, loc: SourceLoc) -> range:
        return range(int(start), int(stop), int(step))

    def read_tensor(self, ref: TensorRef, count: Any, loc: SourceLoc) -> np.ndarray:
        from ..dtypes import to_compute
        m = self.m
        node = Node(-1, "printf", ("", ()), loc)
        if ref.space == "ub":
            root = m.roots[ref.root]
            avail = (root.addr + root.nbytes) // ref.dtype.itemsize - root.addr // ref.dtype.itemsize
            n = int(count) if count is not None else avail - int(ref.offset.value)
            return to_compute(m.ub_view(ref, ref.offset.value, n, node, "the tensor")[0].copy(), ref.dtype)
        raise TraceError("only LocalTensors can be read this way", loc)


def _proxies(sig: Signature) -> list[Any]:
    out = []
    for p in sig.params:
        if p.kind == "gm":
            out.append(GlobalAddress(ParamRef(p.index, p.name), Const(0), p.dtype))
        else:
            out.append(p.value)
    return out


class EagerRuntime(Runtime):
    name = "eager"
    needs_graph = False

    def launch(self, art: Any, job: LaunchJob) -> None:
        sig = job.bound.signature
        journal = GmJournal()
        base = _proxies(sig)
        for i, p in enumerate(sig.params):
            if p.kind == "int":
                base[i] = job.bound.scalars[f"p{i}"]
            elif p.kind == "float":      # float32 arithmetic, as in the kernel
                base[i] = np.float32(job.bound.scalars[f"p{i}"])
        try:
            for core in range(job.core_num):
                m = Machine(np.array([core]), job.core_num, job.bound.arrays, job.bound.scalars, journal)
                ctx = EagerContext(m, core, job.core_num)
                try:
                    with use(ctx):
                        ret = job.fn(*base)
                    refuse_return(ret, job.name, job.fn)
                finally:
                    emit_output([(core, m.out[0])], job.core_num)
        except BaseException:
            journal.rollback()
            raise
        journal.commit()
