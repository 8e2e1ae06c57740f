"""What every executor module builds on: the binder table, the operand-expression helpers and the
count form of the element-wise ops. Kept apart from executors.py so that the op-family executor
modules (executors_ops.py, executors_adv.py, ...) register into it without importing each other."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..dtypes import DataType, bfloat16, from_compute, to_compute
from ..graph.expr import Expr, compile_expr
from ..graph.hb import Instr
from ..graph.node import Node, Pipe, TensorRef
from ..graph.ops import OpDef
from .machine import Machine

Step = Callable[[Machine], Instr | None]
BINDERS: dict[str, Callable[[Node, OpDef], Step]] = {}


def binder(*keys: str):
    def deco(fn):
        for k in keys:
            BINDERS[k] = fn
        return fn
    return deco


def efn(e: Expr | None) -> Callable[[dict], Any]:
    return compile_expr(e) if e is not None else (lambda env: None)


def scalar_as(dt: DataType, s: Any) -> Any:
    """A scalar operand rounded to the element type (bisheng needs exactly T), as a compute value.
    Per-core scalars become a column so they broadcast over each core's row."""
    arr = np.asarray(s)
    if dt is bfloat16:
        v = to_compute(from_compute(np.asarray(arr, dtype=np.float32), dt), dt)
    elif dt.is_float:
        v = arr.astype(np.float32).astype(dt.np)   # the C code holds a float, then converts it to T
    else:
        v = arr.astype(np.int64).astype(dt.np)   # wraps like a C conversion
    return v[:, None] if v.ndim == 1 else v[()]


# -- vector ops ---------------------------------------------------------------------------------

def bind_elementwise(node: Node, dst: TensorRef, srcs: list[TensorRef], count: Expr,
                     fn: Callable[[list[np.ndarray], Any, int, int], np.ndarray], scalar: Expr | None = None,
                     raw: bool = False) -> Step:
    """The count form shared by element-wise ops: `count` elements from each source, `fn` computes the
    destination (on compute-dtype values, or on stored values with `raw`)."""
    fd, fsrc, fn_n = efn(dst.offset), [efn(t.offset) for t in srcs], efn(count)
    fsc = efn(scalar) if scalar is not None else None
    sdt: DataType = node.attr("src_dtype") or dst.dtype
    names = ["src"] if len(srcs) == 1 else [f"src{i}" for i in range(len(srcs))]
    dt = dst.dtype

    def run(m: Machine) -> Instr | None:
        env = m.env
        n = m.count(fn_n(env), node)
        if n == 0:
            return None
        views = [m.ub_access(t, f(env), n, node, name) for t, f, name in zip(srcs, fsrc, names)]
        ad, vd = m.ub_access(dst, fd(env), n, node, "dst")
        sc = scalar_as(sdt, fsc(env)) if fsc is not None else None

        def apply() -> None:
            ins = [v if raw else to_compute(v, t.dtype) for (_, v), t in zip(views, srcs)]
            out = fn(ins, sc, n, m.C)
            vd[...] = out if raw else from_compute(out, dt)
        ub = tuple((a, n * t.dtype.itemsize, False) for (a, _), t in zip(views, srcs))
        return Instr(node, Pipe.V, "op", apply=apply, ub=ub + ((ad, n * dt.itemsize, True),), work=n)
    return run
