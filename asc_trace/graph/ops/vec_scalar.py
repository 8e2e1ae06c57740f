"""Vector-scalar ops `Adds(dst, src, scalar, count)` (and the mask form), `LeakyRelu`, `Axpy` and
`Duplicate(dst, scalar, count)` (docs/facts.md#facts-5).

The scalar has exactly the element type of the tensors (api trap 1): the runtime rounds it to that
type before use, and the lowering casts it, as bisheng requires.
"""
from __future__ import annotations

import numpy as np

from ..expr import Const
from ..node import Pipe
from ..numerics import add, maximum, minimum, multiply
from .opdef import ARITH, FLOATS, MUL, UNARY_LIKE, UNARY_SIMPLE, CppModel, OpDef, VecCost, register
from .masked import SCALAR_MASK_EMIT


def _scalar_fields(ctx, n) -> dict[str, str]:
    a = n.args
    sdt = n.attr("src_dtype") or n.attr("dtype")
    return {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "scalar": ctx.scalar(a[2], sdt), "count": ctx.cast(a[3])}


def _scalar(name: str, c_name: str, ref, dtypes=ARITH, cost: VecCost = UNARY_LIKE, *, cpp: CppModel, **kw) -> OpDef:
    # the scalar (operand 2) is a value: it may differ between cores and depend on tensor data
    return OpDef(name, "vec_scalar", Pipe.V, c_name, arity=1, ref=ref, dtypes=dtypes, cost=cost,
                 emit=f"AscendC::{c_name}({{dst}}, {{src0}}, {{scalar}}, {{count}});", emit_fields=_scalar_fields,
                 emit_mask=SCALAR_MASK_EMIT.replace("{c}", c_name), cpp_model=cpp, printer="dst", values=(2,),
                 writes=(0,), **kw)


def _duplicate_fields(ctx, n) -> dict[str, str]:
    a = n.args
    return {"dst": ctx.ref(a[0]), "scalar": ctx.scalar(a[1], n.attr("dtype")), "count": ctx.cast(a[2])}


def _leaky_relu(x: np.ndarray, alpha) -> np.ndarray:
    return np.where(x >= x.dtype.type(0), x, multiply(x, alpha).astype(x.dtype))


def _axpy_accesses(node) -> list:
    dst, src, _scalar_, count = node.args
    return [(dst, Const(0), count, True), (dst, Const(0), count, False), (src, Const(0), count, False)]


register(
    _scalar("adds", "Adds", add, cost=UNARY_SIMPLE, cpp=CppModel("detail::wrap_add(a, s)")),
    _scalar("muls", "Muls", multiply, cost=UNARY_SIMPLE, cpp=CppModel("detail::wrap_mul(a, s)")),
    _scalar("maxs", "Maxs", maximum, cpp=CppModel("detail::max_(a, s)")),
    _scalar("mins", "Mins", minimum, cpp=CppModel("detail::min_(a, s)")),
    _scalar("leaky_relu", "LeakyRelu", _leaky_relu, FLOATS, cpp=CppModel("detail::leaky(a, s)")),
    # dst = dst + src * scalar, rounding after the multiply and after the add (two vector steps)
    _scalar("axpy", "Axpy", lambda dst, src, s: add(dst, multiply(src, s).astype(dst.dtype)).astype(dst.dtype), FLOATS,
            cost=VecCost(MUL.startup, MUL.per_repeat, "assumed as vmul (reads dst and src)"),
            accesses=_axpy_accesses, tol={"float16": (1e-3, 1e-3)},
            cpp=CppModel(header="Axpy")),
    OpDef("duplicate", "vec_duplicate", Pipe.V, "Duplicate", arity=0,
          ref=lambda scalar, n, dtype: np.full(n, scalar, dtype=dtype),
          dtypes=frozenset({"float16", "float32", "bfloat16", "int16", "int32", "uint16", "uint32"}),
          cost=UNARY_LIKE, emit="AscendC::Duplicate({dst}, {scalar}, {count});", emit_fields=_duplicate_fields,
          cpp_model=CppModel(header="Duplicate"), printer="dst", values=(1,), writes=(0,)),
)
