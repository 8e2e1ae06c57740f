"""Element-wise binary vector ops: the count form `Add(dst, src0, src1, count)` and the mask form
`Add(dst, src0, src1, mask, repeatTime, BinaryRepeatParams)` (docs/facts.md#facts-5)."""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from ..numerics import add, divide, maximum, minimum, multiply, subtract
from .opdef import ARITH, BINARY, BINARY_LIKE, DIV, FLOATS, MUL, CppModel, OpDef, VecCost, register
from .masked import BINARY_MASK_EMIT

INT16 = frozenset({"int16", "uint16"})


def _add_relu(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """relu(a + b): the sum rounded (integers wrap, as `add`), then max with +0 (relu(-0.0) is +0.0)."""
    total = add(a, b)
    return maximum(total, total.dtype.type(0))


def binary_fields(ctx, n) -> dict[str, str]:
    a = n.args
    return {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "src1": ctx.ref(a[2]), "count": ctx.cast(a[3])}


def binary(name: str, c_name: str, ref, dtypes=ARITH, cost: VecCost = BINARY_LIKE, tol=None, *,
           cpp: str, declared: dict[str, tuple[str, str]] | None = None) -> OpDef:
    """A record of the family: `c_name(dst, src0, src1, count)` and its mask form; `cpp` is the C++
    expression of one element from `a` and `b` (toolchain/include/kernel_operator.h's detail:: helpers)."""
    return OpDef(name, "vec_binary", Pipe.V, c_name, arity=2, ref=ref, dtypes=dtypes, cost=cost,
                 emit=f"AscendC::{c_name}({{dst}}, {{src0}}, {{src1}}, {{count}});", emit_fields=binary_fields,
                 emit_mask=BINARY_MASK_EMIT.replace("{c}", c_name), cpp_model=CppModel(cpp), printer="dst",
                 tol=tol or {}, writes=(0,), declared=declared or {})


register(
    binary("add", "Add", add, cost=BINARY, cpp="detail::wrap_add(a, b)"),
    binary("sub", "Sub", subtract, cpp="detail::wrap_sub(a, b)"),
    binary("mul", "Mul", multiply, cost=MUL, cpp="detail::wrap_mul(a, b)"),
    # The vector unit's division is not correctly rounded; allow an ulp or two.
    binary("div", "Div", divide, FLOATS, DIV, tol={"float16": (1e-3, 1e-5), "float32": (1e-6, 1e-30)},
           cpp="detail::div(a, b)"),
    binary("max", "Max", maximum, cpp="detail::max_(a, b)"),
    binary("min", "Min", minimum, cpp="detail::min_(a, b)"),
    binary("bitwise_and", "And", np.bitwise_and, INT16, cpp="detail::band(a, b)"),
    binary("bitwise_or", "Or", np.bitwise_or, INT16, cpp="detail::bor(a, b)"),
    # AddRelu: one vaddrelu instruction on A2 for int16 / half / float (asc-devkit
    # impl/basic_api/dav_c220/kernel_operator_vec_binary_impl.h AddReluIntrinsicsImpl); not in the cost model.
    binary("add_relu", "AddRelu", _add_relu, frozenset({"int16", "float16", "float32"}),
           cpp="detail::relu_(detail::wrap_add(a, b))",
           declared={"AddRelu/4": ("include/basic_api/kernel_operator_vec_binary_intf.h:508",
                                   "interface/kernel_operator_vec_binary_intf.h:440"),
                     "AddRelu/6": ("include/basic_api/kernel_operator_vec_binary_intf.h:489",
                                   "interface/kernel_operator_vec_binary_intf.h:422")}),
)
