"""The per-node half of runtime/batch.py: what each node of a batched loop body reads and writes over a
chunk of iterations, evaluated from its operand expressions with the loop index as a vector, and how
it computes its result (the op record's NumPy semantics, as runtime/executors.py applies them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..dtypes import DataType, bfloat16, from_compute, to_compute
from ..graph.node import Node, TensorRef
from ..graph.numerics import cast_values
from ..graph.ops import REGISTRY
from .executor_base import efn, scalar_as
from .machine import GmRoot, Machine, UbRoot
from .value_memo import once

_ELEMENTWISE = frozenset({"vec_binary", "vec_unary", "vec_scalar", "vec_duplicate", "vec_cast"})


class NotBatchable(Exception):
    """The loop's addresses do not fit the rules of runtime/batch.py: run it iteration by iteration."""


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


def grid_of(start: np.ndarray) -> tuple | None:
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
    scalar_of: Callable | None = None  # elementwise with a scalar operand: Grid -> `scalar` (evaluated again)
    into: Callable | None = None      # elementwise, when it can: (source values, out) writes that result into out


class Grid:
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


def binder(n: Node) -> Callable:
    """The node's per-chunk operand evaluation (raises NotBatchable for nodes this module cannot run)."""
    op = REGISTRY[n.op]
    fam = op.family
    if n.op == "local_tensor":
        _pos, addr, length = n.args
        fa, fl = efn(addr), efn(length)
        size = n.attr("dtype").itemsize

        def bind_root(g: Grid, m: Machine, roots: dict) -> Op:
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

        def bind_copy(g: Grid, m: Machine, roots: dict) -> Op:
            count = g.uniform(fc(g.env))
            if count <= 0:
                raise NotBatchable          # a no-op copy: not worth a special case
            dst = operand(g, m, roots, d, fd, count)
            src = operand(g, m, roots, s, fs, count)
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
        srcs = [d, a] if op.reads_dst() else [a]       # Axpy reads its destination
        compute = None
    else:
        d, *srcs, cnt = n.args
        if fam == "vec_binary" and op.reads is not None and 0 in op.reads:
            srcs = [*srcs, d]           # FusedMulAdd, MulAddDst: the old dst is the third input
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
        elif fam == "vec_scalar" and op.reads_dst():
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(ref(to_compute(ins[0], d.dtype), to_compute(ins[1], srcs[1].dtype), sc), dt)
        elif fam == "vec_scalar":
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(ref(to_compute(ins[0], srcs[0].dtype), sc), dt)
        elif fam == "vec_binary":
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(ref(*(to_compute(x, t.dtype) for x, t in zip(ins, srcs))), dt)
        elif getattr(ref, "pure_costly", False):
            # a transcendental: computed once per value within a warm launch (runtime/value_memo.py)
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(once(ref, to_compute(ins[0], srcs[0].dtype)), dt)
        else:
            def compute(ins: list, sc: Any) -> np.ndarray:
                return from_compute(ref(to_compute(ins[0], srcs[0].dtype)), dt)

    into = None
    ref_into = getattr(ref, "into", None)
    if fam == "vec_binary" and ref_into is not None and dt is not bfloat16 and all(t.dtype == dt for t in srcs):
        def into(ins: list, out: np.ndarray) -> None:      # the stored dtype is the compute dtype here
            ref_into(ins[0], ins[1], out)

    def bind_elementwise(g: Grid, m: Machine, roots: dict) -> Op:
        count = g.uniform(fc(g.env))
        if count <= 0:
            raise NotBatchable
        src_ops = tuple(operand(g, m, roots, t, f, count) for t, f in zip(srcs, fsrc))
        dst = operand(g, m, roots, d, fd, count)
        if fsc is None:
            return Op(n, "elementwise", dst, src_ops, compute, None, into=into)

        def scalar_of(g: Grid) -> Any:
            v = np.asarray(fsc(g.env))
            if v.ndim == 0 or (v.shape == (g.C,) and fam != "vec_duplicate"):
                # a value per core that no iteration changes (the loop index, shape (T, 1), would make
                # it 2-D): a (cores, 1) column that broadcasts over every iteration, made once
                sc = scalar_as(sdt, v)
            else:
                sc = scalar_as(sdt, np.broadcast_to(v, (g.T, g.C)).reshape(g.T * g.C)).reshape(g.T, g.C, 1)
            if fam == "vec_duplicate" and isinstance(sc, np.ndarray) and sc.ndim == 3:
                sc = np.broadcast_to(sc, (g.T, g.C, count))
            return sc
        fn = dup(compute, count, g.C) if fam == "vec_duplicate" else compute
        return Op(n, "elementwise", dst, src_ops, fn, scalar_of(g), into=into, scalar_of=scalar_of)
    return bind_elementwise


def dup(compute: Callable, count: int, C: int) -> Callable:
    def run(ins: list, sc: Any) -> np.ndarray:
        v = np.asarray(sc)
        if v.ndim == 3:
            return np.ascontiguousarray(compute(ins, v))
        return np.ascontiguousarray(np.broadcast_to(compute(ins, v), (1, C, count)))
    return run


# the binder executors.py uses for each op (only the count forms of these families are batched here)
BINDER_FAMILY: dict[str, str] = {}


def init_binder_family() -> None:
    from .executor_base import BINDERS
    for name, op in REGISTRY.items():
        b = BINDERS.get(name)
        if b is not None and b is not BINDERS.get(op.family):
            BINDER_FAMILY[name] = "own"      # an op with its own executor: not one of the families above


def operand(g: Grid, m: Machine, roots: dict, ref: TensorRef, f: Callable, count: int) -> Ub | Gm:
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
    return Gm(root.param, start, count, ref.dtype, grid_of(start))


def value_bytes(op: Op, C: int, copy_gm: set) -> int:
    """Bytes one iteration's result of `op` takes (loads are views of GM unless the loop writes it)."""
    if op.kind in ("elementwise", "ub_copy"):
        return C * op.dst.nbytes * 2      # the result, and a temporary of the computation
    if op.kind == "load" and op.srcs[0].param in copy_gm:
        return C * op.dst.nbytes
    return 0
