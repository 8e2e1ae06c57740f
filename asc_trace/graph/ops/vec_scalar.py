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
from .masked import DUPLICATE_MASK_EMIT, SCALAR_MASK_EMIT


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


def _unsigned(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"uint{dtype.itemsize * 8}")


def _shift_left(x: np.ndarray, s) -> np.ndarray:
    """vshl: a logical left shift in the element's width (bits past the top are lost)."""
    u = _unsigned(x.dtype)
    return np.left_shift(x.view(u), np.asarray(s).astype(u)).view(x.dtype)


def _shift_right(x: np.ndarray, s) -> np.ndarray:
    """vshr: arithmetic for signed types, logical for unsigned ones (NumPy's right_shift does both)."""
    return np.right_shift(x, np.asarray(s).astype(x.dtype)).astype(x.dtype)


def _shift_declared(c_name: str, devkit: tuple[int, int], cann81: tuple[int, int]) -> dict[str, tuple[str, str]]:
    """Count form (/4) and first mask form (/6) in each generation's kernel_operator_vec_binary_scalar_intf.h."""
    d = "include/basic_api/kernel_operator_vec_binary_scalar_intf.h"
    c = "interface/kernel_operator_vec_binary_scalar_intf.h"
    return {f"{c_name}/4": (f"{d}:{devkit[0]}", f"{c}:{cann81[0]}"),
            f"{c_name}/6": (f"{d}:{devkit[1]}", f"{c}:{cann81[1]}")}


SHIFT_TYPES = frozenset({"int16", "uint16", "int32", "uint32"})


def _axpy_accesses(node) -> list:
    dst, src, _scalar_, count = node.args
    return [(dst, Const(0), count, True), (dst, Const(0), count, False), (src, Const(0), count, False)]


register(
    _scalar("adds", "Adds", add, cost=UNARY_SIMPLE, cpp=CppModel("detail::wrap_add(a, s)"), intrinsic="vadds", hivm="vadd"),
    _scalar("muls", "Muls", multiply, cost=UNARY_SIMPLE, cpp=CppModel("detail::wrap_mul(a, s)"), intrinsic="vmuls", hivm="vmul"),
    _scalar("maxs", "Maxs", maximum, cpp=CppModel("detail::max_(a, s)"), intrinsic="vmaxs", hivm="vmax"),
    _scalar("mins", "Mins", minimum, cpp=CppModel("detail::min_(a, s)"), intrinsic="vmins", hivm="vmin"),
    _scalar("leaky_relu", "LeakyRelu", _leaky_relu, FLOATS, cpp=CppModel("detail::leaky(a, s)"), intrinsic="vlrelu",
            hivm="vmul+vmax"),
    # dst = dst + src * scalar, rounding after the multiply and after the add (two vector steps)
    _scalar("axpy", "Axpy", lambda dst, src, s: add(dst, multiply(src, s).astype(dst.dtype)).astype(dst.dtype), FLOATS,
            cost=VecCost(MUL.startup, MUL.per_repeat, "assumed as vmul (reads dst and src)"),
            accesses=_axpy_accesses, reads=(0, 1), tol={"float16": (1e-3, 1e-3)},
            cpp=CppModel(header="Axpy"), intrinsic="vaxpy", hivm="vmul+vadd"),
    # ShiftLeft (vshl) / ShiftRight (vshr, roundEn false): SupportType<T, int16_t, uint16_t, int32_t, uint32_t>
    # in asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_binary_scalar_impl.h; the front end checks the
    # shift is 0 .. bits-1 (the impl's CheckValueRange)
    _scalar("shift_left", "ShiftLeft", _shift_left, SHIFT_TYPES, cpp=CppModel("detail::shl_(a, s)"),
            declared=_shift_declared("ShiftLeft", (450, 415), (289, 263)), intrinsic="vshl", shift_scalar=True),
    _scalar("shift_right", "ShiftRight", _shift_right, SHIFT_TYPES, cpp=CppModel("detail::shr_(a, s)"),
            declared=_shift_declared("ShiftRight", (516, 478), (340, 314)), intrinsic="vshr",
            shift_scalar=True),
    OpDef("duplicate", "vec_duplicate", Pipe.V, "Duplicate", arity=0,
          ref=lambda scalar, n, dtype: np.full(n, scalar, dtype=dtype),
          dtypes=frozenset({"float16", "float32", "bfloat16", "int16", "int32", "uint16", "uint32"}),
          cost=UNARY_LIKE, emit="AscendC::Duplicate({dst}, {scalar}, {count});", emit_fields=_duplicate_fields,
          emit_mask=DUPLICATE_MASK_EMIT, cpp_model=CppModel(header="Duplicate"), printer="dst", values=(1,),
          writes=(0,), hivm="vbrc",
          declared={"Duplicate/6": ("include/basic_api/kernel_operator_vec_duplicate_intf.h:53",
                                    "interface/kernel_operator_vec_duplicate_intf.h:56")}),
)
