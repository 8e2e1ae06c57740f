"""Running a loop's iterations together: the data path of a launch whose checks already passed.

A launch is first checked (race checker, events, bounds, queues, operand ranges: runtime/sim.py runs
the pipe model without data effects); when it is clean, its data effects are applied in program
order, which gives the same bytes for a race-free kernel. In program order, an innermost runtime loop
whose body is copies and element-wise vector ops can run node by node over all its iterations at once
(one NumPy call per node on a (iterations, cores, elements) array) instead of iteration by iteration,
when that gives the same bytes:

- every UB read of the body is either written earlier in the same iteration by one node that covers
  it (the value is taken from that node's result: the UB buffers a loop reuses are renamed per
  iteration), or not written by the loop at all (read from the UB as it is);
- on each GM argument the loop writes, the bytes each iteration touches are disjoint from those of
  every other iteration (so no iteration sees another's writes whatever the order).

Any other loop, or a loop whose addresses do not fit these rules at run time, runs iteration by
iteration (runtime/interpreter.py). After a batch the UB holds what program order leaves in it (each
node's last write of each address is put back), so the code after the loop sees the same bytes.
Iterations run in chunks whose results take at most CHUNK_BYTES, to bound the extra memory.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..dtypes import DataType, from_compute, to_compute
from ..graph.expr import free_vars
from ..graph.node import Node, TensorRef, exprs_in
from ..graph.numerics import cast_values
from ..graph.ops import REGISTRY
from .executors import bind, efn, scalar_as
from .interpreter import Interpreter, LoopStep, NodeStep
from .machine import GmRoot, Machine, UbRoot

CHUNK_BYTES = 1 << 20
_SYNC = frozenset({"set_flag", "wait_flag", "pipe_barrier"})
_ELEMENTWISE = frozenset({"vec_binary", "vec_unary", "vec_scalar", "vec_duplicate", "vec_cast"})


class NotBatchable(Exception):
    """The loop's addresses do not fit the rules of the module docstring: run it iteration by iteration."""


# -- what each node does, per iteration ------------------------------------------------------------------

@dataclass(slots=True)
class Ub:
    """A UB operand: byte address per iteration, bytes, element type."""

    addr: np.ndarray
    nbytes: int
    dtype: DataType


@dataclass(slots=True)
class Gm:
    """A GM operand: element start per (iteration, core), element count, element type, argument."""

    param: int
    start: np.ndarray
    count: int
    dtype: DataType
    grid: tuple | None = None     # (s0, per-iteration step, per-core step) when start is such a grid


def _grid_of(start: np.ndarray) -> tuple | None:
    T, C = start.shape
    s0 = int(start[0, 0])
    a = int(start[1, 0] - s0) if T > 1 else 0
    b = int(start[0, 1] - s0) if C > 1 else 0
    if a >= 0 and b >= 0 and np.array_equal(start, s0 + a * np.arange(T)[:, None] + b * np.arange(C)[None, :]):
        return s0, a, b
    return None


@dataclass(slots=True)
class Op:
    node: Node
    kind: str                         # "load", "store", "ub_copy", "elementwise", "root"
    dst: Any = None                   # Ub (or Gm for a store)
    srcs: tuple = ()                  # Ub / Gm operands read
    compute: Callable | None = None   # elementwise: (source values, scalar) -> stored result
    scalar: Any = None
    root: tuple | None = None         # "root": (node id, addr per iteration, bytes)


class _Grid:
    """Evaluates operand expressions over a chunk of iterations: shapes (T, cores)."""

    def __init__(self, m: Machine, key: str, values: np.ndarray) -> None:
        self.T = len(values)
        self.C = m.C
        self.env = dict(m.env)
        self.env[key] = values[:, None]

    def grid(self, v: Any) -> np.ndarray:
        a = np.asarray(v)
        if a.dtype.kind not in "iu":
            if a.dtype.kind == "f" and np.all(a == np.trunc(a)):
                a = a.astype(np.int64)
            else:
                raise NotBatchable
        return np.broadcast_to(a, (self.T, self.C))

    def per_iter(self, v: Any) -> np.ndarray:
        """A value that must be the same on every core (UB addresses): one per iteration."""
        g = self.grid(v)
        if self.C > 1 and not np.all(g == g[:, :1]):
            raise NotBatchable
        return g[:, 0].astype(np.int64)

    def uniform(self, v: Any) -> int:
        """A value that must be the same on every core and every iteration (counts)."""
        if isinstance(v, (int, np.integer)):
            return int(v)
        g = self.grid(v)
        first = g.flat[0]
        if not np.all(g == first):
            raise NotBatchable
        return int(first)


@dataclass(slots=True)
class Plan:
    """A loop's batch for one set of loop bounds, scalars and tensors: its addresses are fixed by them."""

    ops: list
    sources: list
    copy_gm: set
    chunk: int
    roots: dict
    last: list          # (iteration, node index, UB address): each node's last write of each address


class LoopBatch:
    """The static half: whether a loop's body is made of batchable nodes, with their compiled operands;
    and the plans made for it, by what the addresses depend on (PLANS of them at most)."""

    PLANS = 16

    def __init__(self, st: LoopStep) -> None:
        self.step = st
        self.nodes: list[tuple[Node, Callable]] = []
        env_keys: set[str] = set()
        roots: set[int] = set()
        local: set[int] = set()
        for it in st.body:
            if not isinstance(it, NodeStep):
                raise NotBatchable
            n = it.node
            if n.op in _SYNC:
                continue
            self.nodes.append((n, _binder(n)))
            for e in exprs_in(n.args):
                env_keys.update(v.env_key for v in free_vars(e))
            roots.update(a.root for a in n.args if isinstance(a, TensorRef))
            if n.op == "local_tensor":
                local.add(n.id)
        self.env_keys = tuple(sorted(env_keys - {st.key}))
        self.root_ids = tuple(sorted(roots - local))
        self.plans: dict[tuple, Plan] = {}

    # -- the dynamic half --------------------------------------------------------------------------------
    def _key(self, m: Machine, bounds: tuple) -> tuple:
        env = m.env
        parts: list = [m.C, bounds]
        for k in self.env_keys:
            v = env.get(k)
            parts.append((v.dtype.str, v.tobytes()) if isinstance(v, np.ndarray) else v)
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
            if len(self.plans) >= self.PLANS:
                self.plans.clear()
            self.plans[key] = p
        if p is None:
            raise NotBatchable
        return p

    def _plan(self, m: Machine, values: np.ndarray) -> Plan:
        g = _Grid(m, self.step.key, values)
        roots: dict[int, tuple[np.ndarray, int]] = {}
        ops = [bind(g, m, roots) for n, bind in self.nodes]
        ub_writes = [op.dst for op in ops if op.kind in ("load", "ub_copy", "elementwise")]
        sources = [[_source(ops, i, s, ub_writes) for s in op.srcs] for i, op in enumerate(ops)]
        copy_gm = _check_gm(ops)
        per_iter = sum(_value_bytes(op, m.C, copy_gm) for op in ops)
        chunk = max(1, min(len(values), CHUNK_BYTES // max(1, per_iter)))
        return Plan(ops, sources, copy_gm, chunk, roots, _last_writes(ops))

    def run(self, m: Machine, values: np.ndarray, bounds: tuple) -> None:
        """All iterations `values` of the loop, in chunks (raises NotBatchable before any effect)."""
        p = self.plan(m, values, bounds)
        ops, sources, copy_gm, chunk, roots = p.ops, p.sources, p.copy_gm, p.chunk, p.roots
        last = p.last
        k = 0
        for t0 in range(0, len(values), chunk):
            ts = slice(t0, min(len(values), t0 + chunk))
            results = self._chunk(m, ops, sources, copy_gm, ts)
            k = _write_back(m, ops, results, ts, last, k)
        for nid, (addr, nbytes) in roots.items():
            m.roots[nid] = UbRoot(int(addr[-1]), nbytes)
            m.ub_hi = max(m.ub_hi, int(addr.max()) + nbytes)
        m.env[self.step.key] = int(values[-1])

    def _chunk(self, m: Machine, ops: list[Op], sources: list, copy_gm: set, ts: slice) -> list:
        results: list[np.ndarray | None] = [None] * len(ops)
        for i, op in enumerate(ops):
            kind = op.kind
            if kind == "root":
                continue
            ins = [_fetch(m, results, src, ts, copy_gm) for src in sources[i]]
            if kind == "load" or kind == "ub_copy":
                results[i] = ins[0]
            elif kind == "elementwise":
                sc = op.scalar[ts] if isinstance(op.scalar, np.ndarray) and op.scalar.ndim == 3 else op.scalar
                r = op.compute(ins, sc)
                T = ts.stop - ts.start
                results[i] = r if r.shape[0] == T else np.broadcast_to(r, (T, *r.shape[1:]))
            else:                                                     # store
                _gm_view(m, op.dst, ts, writable=True)[...] = ins[0]
        return results


def _binder(n: Node) -> Callable:
    """The node's per-chunk operand evaluation (raises NotBatchable for nodes this module cannot run)."""
    op = REGISTRY[n.op]
    fam = op.family
    if n.op == "local_tensor":
        _pos, addr, length = n.args
        fa, fl = efn(addr), efn(length)
        size = n.attr("dtype").itemsize

        def bind_root(g: _Grid, m: Machine, roots: dict) -> Op:
            a = g.per_iter(fa(g.env))
            nbytes = g.uniform(fl(g.env)) * size
            roots[n.id] = (a, nbytes)
            return Op(n, "root", root=(n.id, a, nbytes))
        return bind_root
    if n.attr("form") in ("mask", "params"):
        raise NotBatchable
    if fam == "data_copy":
        d, s, cnt = n.args
        fd, fs, fc = efn(d.offset), efn(s.offset), efn(cnt)
        kind = {("ub", "gm"): "load", ("gm", "ub"): "store", ("ub", "ub"): "ub_copy"}[(d.space, s.space)]

        def bind_copy(g: _Grid, m: Machine, roots: dict) -> Op:
            count = g.uniform(fc(g.env))
            if count <= 0:
                raise NotBatchable          # a no-op copy: not worth a special case
            dst = _operand(g, m, roots, d, fd, count)
            src = _operand(g, m, roots, s, fs, count)
            return Op(n, kind, dst, (src,))
        return bind_copy
    if fam not in _ELEMENTWISE or BINDER_FAMILY.get(n.op, fam) != fam:
        raise NotBatchable
    ref = op.ref
    if fam == "vec_cast":
        d, s, mode, cnt = n.args
        srcs, sc_expr = [s], None
        mname = mode.name[5:].lower()

        def compute(ins: list, sc: Any) -> np.ndarray:
            return cast_values(ins[0], s.dtype, d.dtype, mname)
    elif fam == "vec_duplicate":
        d, sc_expr, cnt = n.args
        srcs = []
        compute = None      # set below: needs the shape
    elif fam == "vec_scalar":
        d, a, sc_expr, cnt = n.args
        srcs = [d, a] if n.op == "axpy" else [a]
        compute = None
    else:
        d, *srcs, cnt = n.args
        sc_expr = None
        compute = None
    fd, fsrc, fc = efn(d.offset), [efn(t.offset) for t in srcs], efn(cnt)
    fsc = efn(sc_expr) if sc_expr is not None else None
    sdt: DataType = n.attr("src_dtype") or d.dtype
    dt = d.dtype
    if compute is None:
        if fam == "vec_duplicate":
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(sc, dt)
        elif fam == "vec_scalar" and n.op == "axpy":
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(ref(to_compute(ins[0], d.dtype), to_compute(ins[1], srcs[1].dtype), sc), dt)
        elif fam == "vec_scalar":
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(ref(to_compute(ins[0], srcs[0].dtype), sc), dt)
        elif fam == "vec_binary":
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(ref(to_compute(ins[0], srcs[0].dtype), to_compute(ins[1], srcs[1].dtype)), dt)
        else:
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(ref(to_compute(ins[0], srcs[0].dtype)), dt)

    def bind_elementwise(g: _Grid, m: Machine, roots: dict) -> Op:
        count = g.uniform(fc(g.env))
        if count <= 0:
            raise NotBatchable
        src_ops = tuple(_operand(g, m, roots, t, f, count) for t, f in zip(srcs, fsrc))
        dst = _operand(g, m, roots, d, fd, count)
        sc = None
        if fsc is not None:
            v = np.asarray(fsc(g.env))
            if v.ndim == 0:
                sc = scalar_as(sdt, v)
            else:
                sc = scalar_as(sdt, np.broadcast_to(v, (g.T, g.C)).reshape(g.T * g.C)).reshape(g.T, g.C, 1)
        if fam == "vec_duplicate":
            sc = np.broadcast_to(sc, (g.T, g.C, count)) if isinstance(sc, np.ndarray) and sc.ndim == 3 else sc
            return Op(n, "elementwise", dst, src_ops, _dup(compute, count, g.C), sc)
        return Op(n, "elementwise", dst, src_ops, compute, sc)
    return bind_elementwise


def _dup(compute: Callable, count: int, C: int) -> Callable:
    def run(ins: list, sc: Any) -> np.ndarray:
        v = np.asarray(sc)
        if v.ndim == 3:
            return np.ascontiguousarray(compute(ins, v))
        return np.ascontiguousarray(np.broadcast_to(compute(ins, v), (1, C, count)))
    return run


# the binder executors.py uses for each op (only the count forms of these families are batched here)
BINDER_FAMILY: dict[str, str] = {}


def _init_binder_family() -> None:
    from .executors import BINDERS
    for name, op in REGISTRY.items():
        b = BINDERS.get(name)
        if b is not None and b is not BINDERS.get(op.family):
            BINDER_FAMILY[name] = "own"      # an op with its own executor: not one of the families above


def _operand(g: _Grid, m: Machine, roots: dict, ref: TensorRef, f: Callable, count: int) -> Ub | Gm:
    size = ref.dtype.itemsize
    off = f(g.env)
    if ref.space == "ub":
        r = roots.get(ref.root)
        if r is not None:
            base = r[0]
        else:
            root = m.roots.get(ref.root)
            if not isinstance(root, UbRoot) or root.slot >= 0:
                raise NotBatchable          # queue tensors change with every alloc / deque
            base = root.addr
        return Ub(base + g.per_iter(off) * size, count * size, ref.dtype)
    root = m.roots.get(ref.root)
    if not isinstance(root, GmRoot):
        raise NotBatchable
    start = np.broadcast_to(np.asarray(root.start, dtype=np.int64) + g.grid(off), (g.T, g.C))
    return Gm(root.param, start, count, ref.dtype, _grid_of(start))


def _value_bytes(op: Op, C: int, copy_gm: set) -> int:
    """Bytes one iteration's result of `op` takes (loads are views of GM unless the loop writes it)."""
    if op.kind in ("elementwise", "ub_copy"):
        return C * op.dst.nbytes * 2      # the result, and a temporary of the computation
    if op.kind == "load" and op.srcs[0].param in copy_gm:
        return C * op.dst.nbytes
    return 0


# -- the UB: where each read comes from -------------------------------------------------------------------

def _source(ops: list[Op], i: int, src: Any, ub_writes: list[Ub]) -> tuple:
    """("gm", Gm) for a GM read; ("op", j, byte offset, Ub) for a UB read that node j wrote earlier in the
    same iteration; ("ub", Ub) for a UB read no node of the loop writes."""
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
    for w in ub_writes:
        if int(w.addr.min()) < hi and lo < int(w.addr.max()) + w.nbytes:
            raise NotBatchable         # reads what an earlier iteration (or a later node) wrote
    return ("ub", src)


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
    """Program order, innermost loops batched where they can be (launches whose checks passed)."""

    def __init__(self, graph: Any) -> None:
        super().__init__(graph)
        if not BINDER_FAMILY:
            _init_binder_family()
        self.batches: dict[int, LoopBatch | None] = {}

    def bind_node(self, node: Node, ranges: Any, known: set) -> Callable[[Machine], Any]:
        # the launch's checks passed on the same values: the operand range checks cannot fail
        return bind(node, ranges, known, checks=False)

    def run_loop(self, st: LoopStep, m: Machine) -> None:
        key = id(st)
        if key not in self.batches:
            try:
                self.batches[key] = LoopBatch(st)
            except NotBatchable:
                self.batches[key] = None
        lb = self.batches[key]
        if lb is not None:
            env = m.env
            start = m.uniform_int(st.start(env), st.node, "the loop start")
            stop = m.uniform_int(st.stop(env), st.node, "the loop bound")
            step = m.uniform_int(st.step(env), st.node, "the loop step")
            values = np.arange(start, stop, step, dtype=np.int64) if step else None
            if values is not None and len(values) > 1:
                try:
                    with np.errstate(all="ignore"):
                        lb.run(m, values, (start, stop, step))
                    return
                except NotBatchable:
                    pass
        super().run_loop(st, m)
