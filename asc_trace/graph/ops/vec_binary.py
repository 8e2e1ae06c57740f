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
           cpp: str, ins: str, declared: dict[str, tuple[str, str]] | None = None, reads_dst: bool = False,
           hivm: str = "") -> OpDef:
    """A record of the family: `c_name(dst, src0, src1, count)` and its mask form; `cpp` is the C++
    expression of one element from `a` and `b` (and the old `d` for an op that reads dst, `reads_dst`:
    then `ref(a, b, d)`) with toolchain/include/kernel_operator.h's detail:: helpers; `ins` the instruction."""
    return OpDef(name, "vec_binary", Pipe.V, c_name, arity=2, ref=ref, dtypes=dtypes, cost=cost,
                 emit=f"AscendC::{c_name}({{dst}}, {{src0}}, {{src1}}, {{count}});", emit_fields=binary_fields,
                 emit_mask=BINARY_MASK_EMIT.replace("{c}", c_name), cpp_model=CppModel(cpp), printer="dst",
                 tol=tol or {}, writes=(0,), reads=(0, 1, 2) if reads_dst else None, declared=declared or {},
                 intrinsic=ins, hivm=hivm)


def reads_dst(op: OpDef) -> bool:
    """Whether a vector op's result depends on dst's old value (FusedMulAdd, MulAddDst, Axpy)."""
    return op.reads is not None and 0 in op.reads


def _declared(c_name: str, devkit: tuple[int, int], cann81: tuple[int, int]) -> dict[str, tuple[str, str]]:
    """The count form (/4) and the mask form (/6) of a binary op: (count line, first mask line) in each
    generation's kernel_operator_vec_binary_intf.h."""
    d, c = "include/basic_api/kernel_operator_vec_binary_intf.h", "interface/kernel_operator_vec_binary_intf.h"
    return {f"{c_name}/4": (f"{d}:{devkit[0]}", f"{c}:{cann81[0]}"),
            f"{c_name}/6": (f"{d}:{devkit[1]}", f"{c}:{cann81[1]}")}


def _sub_relu(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    diff = subtract(a, b)
    return maximum(diff, diff.dtype.type(0))


def _fused_mul_add(a: np.ndarray, b: np.ndarray, d: np.ndarray) -> np.ndarray:
    """dst = src0 * dst + src1, rounded after the multiply and after the add."""
    return add(multiply(a, d), b)


def _fused_mul_add_relu(a: np.ndarray, b: np.ndarray, d: np.ndarray) -> np.ndarray:
    r = _fused_mul_add(a, b, d)
    return maximum(r, r.dtype.type(0))


def _mul_add_dst(a: np.ndarray, b: np.ndarray, d: np.ndarray) -> np.ndarray:
    """dst = src0 * src1 + dst, rounded after the multiply and after the add."""
    return add(multiply(a, b), d)


# vmadd / vmla / vmaddrelu may round once (fused) where the reference rounds twice: allow an ulp
_FMA_TOL = {"float16": (1e-3, 1e-3), "float32": (1e-6, 1e-6)}


register(
    binary("add", "Add", add, cost=BINARY, cpp="detail::wrap_add(a, b)", ins="vadd", hivm="vadd"),
    binary("sub", "Sub", subtract, cpp="detail::wrap_sub(a, b)", ins="vsub", hivm="vsub"),
    binary("mul", "Mul", multiply, cost=MUL, cpp="detail::wrap_mul(a, b)", ins="vmul", hivm="vmul"),
    # The vector unit's division is not correctly rounded; allow an ulp or two.
    binary("div", "Div", divide, FLOATS, DIV, tol={"float16": (1e-3, 1e-5), "float32": (1e-6, 1e-30)},
           cpp="detail::div(a, b)", ins="vdiv", hivm="vdiv"),
    binary("max", "Max", maximum, cpp="detail::max_(a, b)", ins="vmax", hivm="vmax"),
    binary("min", "Min", minimum, cpp="detail::min_(a, b)", ins="vmin", hivm="vmin"),
    binary("bitwise_and", "And", np.bitwise_and, INT16, cpp="detail::band(a, b)", ins="vand", hivm="vand"),
    binary("bitwise_or", "Or", np.bitwise_or, INT16, cpp="detail::bor(a, b)", ins="vor", hivm="vor"),
    # AddRelu: one vaddrelu instruction on A2 for int16 / half / float (asc-devkit
    # impl/basic_api/dav_c220/kernel_operator_vec_binary_impl.h AddReluIntrinsicsImpl); not in the cost model.
    binary("add_relu", "AddRelu", _add_relu, frozenset({"int16", "float16", "float32"}),
           cpp="detail::relu_(detail::wrap_add(a, b))",
           declared={"AddRelu/4": ("include/basic_api/kernel_operator_vec_binary_intf.h:508",
                                   "interface/kernel_operator_vec_binary_intf.h:440"),
                     "AddRelu/6": ("include/basic_api/kernel_operator_vec_binary_intf.h:489",
                                   "interface/kernel_operator_vec_binary_intf.h:422")}, ins="vaddrelu"),
    # SubRelu (vsubrelu), FusedMulAdd (vmadd: dst = src0 * dst + src1), FusedMulAddRelu (vmaddrelu) and
    # MulAddDst (vmla: dst = src0 * src1 + dst); dtypes from asc-devkit
    # impl/basic_api/dav_c220/kernel_operator_vec_binary_impl.h's SupportType checks (MulAddDst's mixed
    # float dst / half sources is not offered: the family takes one element type)
    binary("sub_relu", "SubRelu", _sub_relu, frozenset({"int16", "float16", "float32"}),
           cpp="detail::relu_(detail::wrap_sub(a, b))", declared=_declared("SubRelu", (716, 705), (604, 594)),
           ins="vsubrelu"),
    binary("fused_mul_add", "FusedMulAdd", _fused_mul_add, FLOATS, tol=_FMA_TOL, reads_dst=True,
           cpp="detail::wrap_add(detail::wrap_mul(a, d), b)", declared=_declared("FusedMulAdd", (617, 597), (532, 514)),
           ins="vmadd"),
    binary("fused_mul_add_relu", "FusedMulAddRelu", _fused_mul_add_relu, FLOATS, tol=_FMA_TOL, reads_dst=True,
           cpp="detail::relu_(detail::wrap_add(detail::wrap_mul(a, d), b))",
           declared=_declared("FusedMulAddRelu", (682, 656), (572, 554)), ins="vmaddrelu"),
    binary("mul_add_dst", "MulAddDst", _mul_add_dst, FLOATS, tol=_FMA_TOL, reads_dst=True,
           cpp="detail::wrap_add(detail::wrap_mul(a, b), d)", declared=_declared("MulAddDst", (268, 249), (240, 222)),
           ins="vmla"),
)
