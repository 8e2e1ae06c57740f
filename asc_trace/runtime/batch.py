"""Running a loop's iterations together: the data path of a launch whose checks already passed.

A launch is first checked (race checker, events, bounds, queues, operand ranges: runtime/sim.py runs
the pipe model without data effects); when it is clean, its data effects are applied in program
order, which gives the same bytes for a race-free kernel. In program order, an innermost runtime loop
whose body is copies and element-wise vector ops can run node by node over all its iterations at once
(one NumPy call per node on a (iterations, cores, elements) array) instead of iteration by iteration,
when that gives the same bytes:

- every UB read of the body is either written earlier in the same iteration by one node that covers
  it (the value is taken from that node's result: the UB buffers a loop reuses are renamed per
  iteration), or not written by the loop at all (read from the UB as it is), or an element-wise
  node's read of its own destination that no other node writes (an accumulator: that node alone runs
  iteration after iteration, with program order's arithmetic);
- on each GM argument the loop writes, the bytes each iteration touches are disjoint from those of
  every other iteration (so no iteration sees another's writes whatever the order).

Any other loop, or a loop whose addresses do not fit these rules at run time, runs iteration by
iteration (runtime/interpreter.py). After a batch the UB holds what program order leaves in it (each
node's last write of each address is put back), so the code after the loop sees the same bytes.
Iterations run in chunks whose results take at most CHUNK_BYTES, to bound the extra memory. An
element-wise node whose only reader is a store to a strided GM range computes straight into it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..graph.expr import free_vars
from ..graph.node import Node, TensorRef, exprs_in
from ..graph.scalar_ops import any_nan
from ..graph.ops import REGISTRY
from .batch_ops import BINDER_FAMILY, Gm, Grid, NotBatchable, Op, Ub, binder, init_binder_family, value_bytes
from .executors import bind
from .interpreter import Interpreter, LoopStep, NodeStep
from .machine import GmRoot, Machine, UbRoot

CHUNK_BYTES = 1 << 20       # the results of one chunk of iterations take at most this many bytes
_SYNC = frozenset(name for name, op in REGISTRY.items() if op.family == "sync")   # events and barriers


@dataclass(slots=True)
class Plan:
    """A loop's batch for one set of loop bounds, scalars and tensors: its addresses are fixed by them."""

    ops: list
    sources: list
    copy_gm: set
    chunk: int
    roots: dict
    last: list          # (iteration, node index, UB address): each node's last write of each address
    fused: dict         # element-wise node index -> the store that only copies its result to GM: computed there
    carried: frozenset  # element-wise nodes that read their own previous result: run iteration by iteration


class LoopBatch:
    """The static half: whether a loop's body is made of batchable nodes, with their compiled operands;
    and the plans made for it, by what the addresses depend on (PLANS of them at most, and as many as
    hold PLAN_ELEMENTS per-iteration addresses and starts together: a nest's inner loop has a plan per
    outer iteration, a long loop large ones)."""

    PLANS = 64
    PLAN_ELEMENTS = 1 << 22

    def __init__(self, st: LoopStep, data_keys: frozenset[str] = frozenset()) -> None:
        self.step = st
        self.nodes: list[tuple[Node, Callable]] = []
        env_keys: set[str] = set()
        value_keys: set[str] = set()
        roots: set[int] = set()
        local: set[int] = set()
        for it in st.body:
            if not isinstance(it, NodeStep):
                raise NotBatchable
            n = it.node
            if n.op in _SYNC:
                continue
            self.nodes.append((n, binder(n)))
            values = REGISTRY[n.op].value_positions(len(n.args))
            for i, a in enumerate(n.args):
                keys = {v.env_key for e in exprs_in(a) for v in free_vars(e)}
                (value_keys if i in values else env_keys).update(keys)
            roots.update(a.root for a in n.args if isinstance(a, TensorRef))
            if n.op == "local_tensor":
                local.add(n.id)
        # Values computed from tensor data (`data_keys`: read from the UB) that only feed the values of
        # element-wise ops change at every launch but not the plan: they are left out of its key, and
        # the scalars that use them are evaluated again at each run of the plan.
        self.revalue = bool(value_keys & data_keys)
        env_keys |= value_keys - data_keys
        self.env_keys = tuple(sorted(env_keys - {st.key}))
        self.root_ids = tuple(sorted(roots - local))
        self.plans: dict[tuple, Plan] = {}
        self._held = 0              # elements of the plans kept (see PLAN_ELEMENTS)

    # -- the dynamic half --------------------------------------------------------------------------------
    def _key(self, m: Machine, bounds: tuple) -> tuple:
        env = m.env
        parts: list = [m.C, bounds]
        for k in self.env_keys:
            v = env.get(k)
            # a plan bakes in the scalars: -0.0 is not 0.0 (and a NaN is itself) here
            parts.append((v.dtype.str, v.tobytes()) if isinstance(v, np.ndarray) else
                         v.hex() if v.__class__ is float else v)
        for r in self.root_ids:
            root = m.roots.get(r)
            if isinstance(root, UbRoot):
                parts.append((root.addr, root.nbytes, root.slot))
            elif isinstance(root, GmRoot):
                st = root.start
                parts.append((root.param, st.tobytes() if isinstance(st, np.ndarray) else st))
            else:
                parts.append(None)
        return tuple(parts)

    def plan(self, m: Machine, values: np.ndarray, bounds: tuple) -> Plan:
        key = self._key(m, bounds)
        p = self.plans.get(key, self)
        if p is self:
            try:
                p = self._plan(m, values)
            except NotBatchable:
                p = None
            size = len(values) * m.C * max(1, len(self.nodes))      # about what the plan's arrays hold
            if len(self.plans) >= self.PLANS or self._held + size > self.PLAN_ELEMENTS:
                self.plans.clear()
                self._held = 0
            self.plans[key] = p
            self._held += size
        if p is None:
            raise NotBatchable
        return p

    def _plan(self, m: Machine, values: np.ndarray) -> Plan:
        g = Grid(m, self.step.key, values)
        roots: dict[int, tuple[np.ndarray, int]] = {}
        ops = [bind(g, m, roots) for n, bind in self.nodes]
        ub_writes = [op.dst for op in ops if op.kind in ("load", "ub_copy", "elementwise")]
        sources = [[_source(ops, i, s, ub_writes) for s in op.srcs] for i, op in enumerate(ops)]
        copy_gm = _check_gm(ops)
        fused = {i: j for i, j in _fusions(ops, sources).items()
                 if not any(src[0] == "carry" for src in sources[i])}
        # a fused result is the GM itself: only the NaN test's booleans are extra
        per_iter = sum(m.C * op.dst.nbytes // op.dst.dtype.itemsize if i in fused else value_bytes(op, m.C, copy_gm)
                       for i, op in enumerate(ops))
        chunk = max(1, min(len(values), CHUNK_BYTES // max(1, per_iter)))
        carried = frozenset(i for i, srcs in enumerate(sources) if any(src[0] == "carry" for src in srcs))
        return Plan(ops, sources, copy_gm, chunk, roots, _last_writes(ops), fused, carried)

    def run(self, m: Machine, values: np.ndarray, bounds: tuple) -> Plan:
        """All iterations `values` of the loop, in chunks (raises NotBatchable before any effect); the
        plan it ran (runtime/replay.py keeps it to run the same launch again)."""
        p = self.plan(m, values, bounds)
        if self.revalue:
            g = Grid(m, self.step.key, values)
            p = replace(p, ops=[op if op.scalar_of is None else replace(op, scalar=op.scalar_of(g)) for op in p.ops])
        self.execute(m, p, len(values), True)
        for nid, (addr, nbytes) in p.roots.items():
            m.roots[nid] = UbRoot(int(addr[-1]), nbytes)
            m.ub_hi = max(m.ub_hi, int(addr.max()) + nbytes)
        m.env[self.step.key] = int(values[-1])
        return p

    def execute(self, m: Any, p: Plan, count: int, write_back: bool) -> None:
        """The data effects of `count` iterations planned by `p`; `write_back`: leave in the UB what program
        order leaves there (not needed when nothing reads the UB afterwards). `m` needs only `gm`, `C`
        and `ub`."""
        ops, last = p.ops, p.last
        k = 0
        carry: dict[int, np.ndarray] = {}      # each accumulator's value at the end of the last chunk
        for t0 in range(0, count, p.chunk):
            ts = slice(t0, min(count, t0 + p.chunk))
            results = self._chunk(m, p, ts, carry)
            if write_back:
                k = _write_back(m, ops, results, ts, last, k)

    def _chunk(self, m: Machine, p: Plan, ts: slice, carry: dict) -> list:
        ops, sources, copy_gm, fused = p.ops, p.sources, p.copy_gm, p.fused
        results: list[np.ndarray | None] = [None] * len(ops)
        for i, op in enumerate(ops):
            kind = op.kind
            if kind == "root" or results[i] is not None:        # a fused store: written by its producer
                continue
            srcs = sources[i]
            ins = [None if src[0] == "carry" else _fetch(m, results, src, ts, copy_gm) for src in srcs]
            if kind == "load" or kind == "ub_copy":
                results[i] = ins[0]
            elif i in p.carried:
                results[i] = _accumulate(m, op, srcs, ins, ts, carry, i)
            elif kind == "elementwise":
                j = fused.get(i)
                if j is not None:
                    out = _gm_view(m, ops[j].dst, ts, writable=True)
                    op.into(ins, out)
                    results[i] = results[j] = out
                    continue
                sc = op.scalar[ts] if isinstance(op.scalar, np.ndarray) and op.scalar.ndim == 3 else op.scalar
                r = op.compute(ins, sc)
                T = ts.stop - ts.start
                results[i] = r if r.shape[0] == T else np.broadcast_to(r, (T, *r.shape[1:]))
            else:                                                     # store
                _gm_view(m, op.dst, ts, writable=True)[...] = ins[0]
        return results

# -- the UB: where each read comes from -------------------------------------------------------------------

def _source(ops: list[Op], i: int, src: Any, ub_writes: list[Ub]) -> tuple:
    """("gm", Gm) for a GM read; ("op", j, byte offset, Ub) for a UB read that node j wrote earlier in the
    same iteration; ("ub", Ub) for a UB read no node of the loop writes; ("carry", Ub) for an element-wise
    node's read of its own destination, which no other node writes (an accumulator: run in order)."""
    if isinstance(src, Gm):
        return ("gm", src)
    a, nb = src.addr, src.nbytes
    for j in range(i - 1, -1, -1):
        w = ops[j]
        if w.kind not in ("load", "ub_copy", "elementwise"):
            continue
        wa, wn = w.dst.addr, w.dst.nbytes
        over = (wa < a + nb) & (a < wa + wn)
        if not over.any():
            continue
        d = a - wa
        if over.all() and np.all(d >= 0) and np.all(d + nb <= wn) and np.all(d == d[0]):
            return ("op", j, int(d[0]), src)
        raise NotBatchable
    lo, hi = int(a.min()), int(a.max()) + nb
    own = ops[i].dst if ops[i].kind == "elementwise" else None
    carried = False
    for w in ub_writes:
        if int(w.addr.min()) < hi and lo < int(w.addr.max()) + w.nbytes and _overlap(w, a, nb):
            if w is own and _same_place(own, src):
                carried = True         # an accumulator: this node's own result of the iteration before
                continue
            raise NotBatchable         # reads what an earlier iteration (or a later node) wrote
    return ("carry", src) if carried else ("ub", src)


def _accumulate(m: Any, op: Op, srcs: list, ins: list, ts: slice, carry: dict, i: int) -> np.ndarray:
    """An accumulator's values over the chunk, one iteration after the other (exactly program order's
    arithmetic): each iteration reads the value the one before it left, the first one the UB's."""
    acc = carry.get(i)
    if acc is None:
        u = op.dst
        a = int(u.addr[0])
        acc = m.ub[:, a:a + u.nbytes].view(u.dtype.np).copy()
    T = ts.stop - ts.start
    fast = _running(op, srcs, ins, acc)
    if fast is not None:
        carry[i] = fast[-1]
        return fast
    out = np.empty((T, *acc.shape), acc.dtype)
    sc = op.scalar
    per_iter = isinstance(sc, np.ndarray) and sc.ndim == 3
    for t in range(T):
        args = [acc if src[0] == "carry" else x[t] for src, x in zip(srcs, ins)]
        r = op.compute(args, sc[ts.start + t] if per_iter else sc)
        out[t] = r
        acc = out[t]
    carry[i] = acc
    return out


def _running(op: Op, srcs: list, ins: list, acc: np.ndarray) -> np.ndarray | None:
    """A float32 add / max / min accumulator's values by the bare ufunc, iteration after iteration as the
    loop does: the same bits unless a NaN is involved (the rule for two NaN operands) or, for max / min,
    signed zeros meet; then None, and the op's own rule runs."""
    name = op.node.op
    if len(srcs) != 2 or acc.dtype != np.float32 or op.scalar is not None:
        return None
    ufunc = np.add if name == "add" else np.maximum if name == "max" else np.minimum if name == "min" else None
    (x,) = [v for src, v in zip(srcs, ins) if src[0] != "carry"] or [None]
    if ufunc is None or x is None or x.dtype != np.float32:
        return None
    out = np.empty(x.shape, np.float32)
    prev = acc
    for t in range(len(x)):     # one call per iteration: ufunc.accumulate along this axis is far slower
        prev = ufunc(prev, x[t], out=out[t])
    if any_nan(out) or (ufunc is not np.add and not out.all()):
        return None
    return out


def _overlap(w: Ub, a: np.ndarray, nb: int) -> bool:
    """Whether any iteration's write `w` meets any iteration's read of `nb` bytes at `a` (their extents
    can overlap while the places do not: a multi-buffered tile at 0 and 5120 around a tensor at 1024)."""
    wu, au = np.unique(w.addr), np.unique(a)
    if len(wu) * len(au) > 1 << 16:
        return True                    # many places: assume the worst
    return bool(np.any((wu[:, None] < au[None, :] + nb) & (au[None, :] < wu[:, None] + w.nbytes)))


def _same_place(dst: Ub, src: Ub) -> bool:
    """The same bytes at the same address in every iteration."""
    a = dst.addr
    return (dst.nbytes == src.nbytes and dst.dtype == src.dtype and np.array_equal(a, src.addr)
            and bool(np.all(a == a[0])))


def _fetch(m: Machine, results: list, src: tuple, ts: slice, copy_gm: set) -> np.ndarray:
    """A source's values for the chunk, shape (T, cores, elements)."""
    kind = src[0]
    if kind == "op":
        _, j, off, u = src
        v = results[j]
        if off == 0 and v.dtype == u.dtype.np and v.shape[-1] * v.itemsize == u.nbytes:
            return v
        b = v.view(np.uint8) if v.flags.c_contiguous else np.ascontiguousarray(v).view(np.uint8)
        return b[..., off:off + u.nbytes].view(u.dtype.np)
    if kind == "gm":
        g = src[1]
        view = _gm_view(m, g, ts, writable=False)
        return view.copy() if g.param in copy_gm else view
    u = src[1]
    a = u.addr[ts]
    T = len(a)
    if np.all(a == a[0]):
        row = m.ub[:, int(a[0]):int(a[0]) + u.nbytes].view(u.dtype.np)
        return np.broadcast_to(row, (T, *row.shape))
    idx = a[:, None] + np.arange(u.nbytes)
    return np.ascontiguousarray(m.ub[:, idx].transpose(1, 0, 2)).view(u.dtype.np)


def _last_writes(ops: list[Op]) -> list[tuple[int, int, int]]:
    """(iteration, node index, address) of each node's last write of each UB address, in program order:
    what the UB holds after the loop."""
    last = []
    for i, op in enumerate(ops):
        if op.kind not in ("load", "ub_copy", "elementwise"):
            continue
        a = op.dst.addr
        uniq, first = np.unique(a[::-1], return_index=True)
        last.extend((len(a) - 1 - k, i, addr) for addr, k in zip(uniq.tolist(), first.tolist()))
    last.sort()
    return last


def _write_back(m: Machine, ops: list[Op], results: list, ts: slice, last: list, k: int) -> int:
    """Put into the UB the last writes that fall in this chunk (from entry k of `last`); the next entry."""
    ub = m.ub
    while k < len(last) and last[k][0] < ts.stop:
        t, i, addr = last[k]
        dst = ops[i].dst
        ub[:, addr:addr + dst.nbytes].view(dst.dtype.np)[...] = results[i][t - ts.start]
        k += 1
    return k


def _fusions(ops: list[Op], sources: list) -> dict[int, int]:
    """Element-wise node i -> store j, when j copies all of i's result to a strided GM range and nothing
    else reads that result, and no other node of the loop touches j's argument: i can then compute
    straight into the GM (its result, for the UB write-back, is read back from there: nothing changes it)."""
    readers: dict[int, list[int]] = {}
    for k, srcs in enumerate(sources):
        for src in srcs:
            if src[0] == "op":
                readers.setdefault(src[1], []).append(k)
    touches: dict[int, int] = {}
    for op in ops:
        for x in (op.dst, *op.srcs):
            if isinstance(x, Gm):
                touches[x.param] = touches.get(x.param, 0) + 1
    fused = {}
    for i, op in enumerate(ops):
        r = readers.get(i)
        if op.kind != "elementwise" or op.into is None or r is None or len(r) != 1:
            continue
        j = r[0]
        st = ops[j]
        if st.kind != "store" or st.dst.grid is None or touches[st.dst.param] != 1:
            continue
        (src,) = sources[j]
        if src[2] == 0 and src[3].nbytes == op.dst.nbytes and src[3].dtype == op.dst.dtype == st.dst.dtype:
            fused[i] = j
    return fused


# -- GM: iterations must not see each other -----------------------------------------------------------------

def _check_gm(ops: list[Op]) -> set[int]:
    """The GM arguments the loop writes (their loads are copied, not viewed); raise NotBatchable when
    two iterations may touch the same bytes of a written argument."""
    by_param: dict[int, list[Gm]] = {}
    written: set[int] = set()
    for op in ops:
        for x in (op.dst, *op.srcs):
            if isinstance(x, Gm):
                by_param.setdefault(x.param, []).append(x)
        if op.kind == "store":
            written.add(op.dst.param)
    for p in written:
        acc = by_param[p]
        lo = np.minimum.reduce([a.start for a in acc])            # (T, cores): each iteration's extent
        hi = np.maximum.reduce([a.start + a.count for a in acc])
        order = np.argsort(lo, axis=0, kind="stable")
        lo_s = np.take_along_axis(lo, order, axis=0)
        hi_s = np.take_along_axis(hi, order, axis=0)
        if np.any(hi_s[:-1] > lo_s[1:]):
            raise NotBatchable
    return written


def _gm_view(m: Machine, g: Gm, ts: slice, writable: bool) -> np.ndarray:
    """The (T, cores, count) elements of a GM operand: a strided view when the starts are a grid."""
    arr = m.gm[g.param]
    if g.grid is not None:
        s0, a, b = g.grid
        isz = arr.itemsize
        if arr.flags.c_contiguous:       # the plain constructor: as_strided's checks cost more than the copy
            return np.ndarray((ts.stop - ts.start, m.C, g.count), arr.dtype, arr, (s0 + a * ts.start) * isz,
                              (a * isz, b * isz, isz))
        return as_strided(arr[s0 + a * ts.start:], shape=(ts.stop - ts.start, m.C, g.count),
                          strides=(a * isz, b * isz, isz), writeable=writable)
    idx = g.start[ts][..., None] + np.arange(g.count)
    if writable:
        return _Scatter(arr, idx)
    return arr[idx]


class _Scatter:
    """Assignment target for GM elements at arbitrary (non-overlapping) positions."""

    def __init__(self, arr: np.ndarray, idx: np.ndarray) -> None:
        self.arr, self.idx = arr, idx

    def __setitem__(self, key: Any, value: np.ndarray) -> None:
        self.arr[self.idx] = value


# -- the interpreter that uses it ----------------------------------------------------------------------------

class BatchInterpreter(Interpreter):
    """Program order, innermost loops batched where they can be (launches whose checks passed).

    With `tape` set (runtime/tape.py `TapeBuilder`), a run also records each data effect it applies
    and each batched loop it runs: runtime/replay.py then runs the same launch again from that tape."""

    def __init__(self, graph: Any) -> None:
        super().__init__(graph)
        if not BINDER_FAMILY:
            init_binder_family()
        self.batches: dict[int, LoopBatch | None] = {}
        self.data_keys = _data_keys(graph)
        self.tape: Any = None

    def bind_node(self, node: Node, ranges: Any, known: set) -> Callable[[Machine], Any]:
        # the launch's checks passed on the same values: the operand range checks cannot fail
        return bind(node, ranges, known, checks=False)

    def run_node(self, st: NodeStep, m: Machine) -> None:
        ins = st.fn(m)
        if ins is not None and ins.apply is not None:
            ins.apply()
            if self.tape is not None:
                self.tape.node(st, ins)

    def run_yield(self, st: Any, m: Machine) -> None:
        super().run_yield(st, m)
        if self.tape is not None and any(k in self.data_keys for k in st.keys):
            self.tape.fail()            # a value computed from data outside any node: not on a tape

    def run_loop(self, st: LoopStep, m: Machine) -> None:
        key = id(st)
        if key not in self.batches:
            try:
                self.batches[key] = LoopBatch(st, self.data_keys)
            except NotBatchable:
                self.batches[key] = None
        lb = self.batches[key]
        if lb is not None:
            env = m.env
            start = m.uniform_int(st.start(env), st.node, "the loop start")
            stop = m.uniform_int(st.stop(env), st.node, "the loop bound")
            step = m.uniform_int(st.step(env), st.node, "the loop step")
            values = np.arange(start, stop, step, dtype=np.int64) if step else None
            # a single iteration is batched only when recording: the tape then holds one loop entry
            if values is not None and (len(values) > 1 or (self.tape is not None and len(values) == 1)):
                try:
                    with np.errstate(all="ignore"):
                        plan = lb.run(m, values, (start, stop, step))
                    if self.tape is not None:
                        self.tape.loop(lb, plan, len(values), values)
                    return
                except NotBatchable:
                    pass
        if self.tape is not None:
            from .tape_vector import run_loop as run_stacked     # imports this module's neighbours
            if run_stacked(self, st, m):
                return
        super().run_loop(st, m)


def _data_keys(graph: Any) -> frozenset[str]:
    """The env keys of values read from tensor data: a node's result (get_value) and the local values
    (asc.cond / asc.while_loop outputs) that can depend on one."""
    sources = graph.region_table().local_sources
    keys = {key for key, kinds in sources.items() if "node" in kinds}
    for n in graph:
        for e in exprs_in(n.args):
            keys.update(v.env_key for v in free_vars(e) if v.kind == "node")
    return frozenset(keys)
