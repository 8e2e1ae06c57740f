"""`Compare(dstMask, src0, src1, CMPMODE, count)` writes a uint8 bitmask (bit i = element i, LSB
first); `Select(dst, selMask, src0, src1 | scalar, SELMODE, count)` takes src0 where the bit is 1.
Compare's count form needs count * sizeof(T) to be a multiple of 256 bytes: the hardware ignores a tail,
asc_trace refuses it (docs/facts.md#facts-5). Select's count form takes any count: the API runs it in counter mode
(SetMaskCount, impl/basic_api/dav_c220/kernel_operator_vec_cmpsel_impl.h), exactly `count` elements.

The forms that involve the CMPMASK register (compare without dst, select in VSEL_CMPMASK_SPR mode, the mask /
repeat forms, get_cmp_mask / set_cmp_mask) are described in cmpmask.py."""
from __future__ import annotations

from typing import Any

from ...enums import SELMODE
from ...errors import AlignmentError
from ..expr import Const, binop
from ..node import Pipe, TensorRef
from .cmpmask import CMP_FORMS, CMPMASK_BYTES, SEL_FORMS, emit_form, form_accesses
from .opdef import BINARY_LIKE, CppModel, OpDef, register


def check_count_256(opname: str, count: int, dtype: Any, **where: Any) -> None:
    """The count forms of Compare / Select take whole 256-byte repeats (`where`: the error's loc= or node=)."""
    nbytes = count * dtype.itemsize
    if nbytes % 256:
        raise AlignmentError(f"asc.{opname} of {count} x {dtype} = {nbytes} bytes: the count form needs a multiple "
                             "of 256 bytes (the hardware ignores the tail)",
                             hint="pad the count to a multiple of 256 bytes, or use the mask form for the tail",
                             **where)


def _bytes_of_mask(count):
    return binop("//", binop("+", count, Const(7)), Const(8))


def _compare_accesses(node) -> list:
    if node.attr("form") in CMP_FORMS:
        return form_accesses(node)
    dst, a, b, _mode, count = node.args
    return [(dst, Const(0), _bytes_of_mask(count), True), (a, Const(0), count, False), (b, Const(0), count, False)]


def mask_units(count, itemsize: int):
    """Elements of a sel_mask of `itemsize`-byte words that hold `count` bits (Select's U: uint8 .. uint64)."""
    bits = 8 * itemsize
    return binop("//", binop("+", count, Const(bits - 1)), Const(bits))


def _select_accesses(node) -> list:
    if node.attr("form") in SEL_FORMS:
        return form_accesses(node)
    dst, mask, a, b, mode, count = node.args
    # VSEL_CMPMASK_SPR loads the first 128 bits of sel_mask into CMPMASK (set_cmpmask) and applies them to
    # every repeat; the other modes read one bit per element
    bits = Const(CMPMASK_BYTES * 8) if mode == SELMODE.VSEL_CMPMASK_SPR else count
    out = [(dst, Const(0), count, True), (mask, Const(0), mask_units(bits, mask.dtype.itemsize), False),
           (a, Const(0), count, False)]
    if isinstance(b, TensorRef):
        out.append((b, Const(0), count, False))
    return out


def _compare_fields(ctx, n) -> dict[str, str]:
    a = n.args
    return {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "src1": ctx.ref(a[2]), "mode": a[3].name,
            "count": ctx.cast(a[4], "uint32_t")}


def _select_fields(ctx, n) -> dict[str, str]:
    a = n.args
    src1 = ctx.ref(a[3]) if isinstance(a[3], TensorRef) else ctx.scalar(a[3], n.attr("dtype"))
    return {"dst": ctx.ref(a[0]), "mask": ctx.ref(a[1]), "src0": ctx.ref(a[2]), "src1": src1, "mode": a[4].name,
            "count": ctx.cast(a[5], "uint32_t")}


def _emit_compare(ctx, n) -> str:
    if n.attr("form") in CMP_FORMS:
        return emit_form(ctx, n)
    return "AscendC::Compare({dst}, {src0}, {src1}, AscendC::CMPMODE::{mode}, {count});".format(
        **_compare_fields(ctx, n))


def _emit_select(ctx, n) -> str:
    if n.attr("form") in SEL_FORMS:
        return emit_form(ctx, n)
    return "AscendC::Select({dst}, {mask}, {src0}, {src1}, AscendC::SELMODE::{mode}, {count});".format(
        **_select_fields(ctx, n))


_I = "include/basic_api/kernel_operator_vec_cmpsel_intf.h"
_C = "interface/kernel_operator_vec_cmpsel_intf.h"

register(
    OpDef("compare", "vec_cmpsel", Pipe.V, "Compare", arity=2, dtypes=frozenset({"float16", "float32", "int32"}),
          cost=BINARY_LIKE, writes=(0,), accesses=_compare_accesses, emit=_emit_compare,
          cpp_model=CppModel(header="Compare"), printer="dst",
          declared={"Compare/7": (f"{_I}:61", f"{_C}:64")}),
    OpDef("select", "vec_cmpsel", Pipe.V, "Select", arity=2, dtypes=frozenset({"float16", "float32"}),
          cost=BINARY_LIKE, writes=(0,), accesses=_select_accesses, emit=_emit_select,
          cpp_model=CppModel(header="Select"), printer="dst",
          # the scalar src1 is a value for timing; the executor takes one for all cores
          values=(3,), per_core=(),
          declared={"Select/8": (f"{_I}:190", f"{_C}:168"), "Select/5": (f"{_I}:211", f"{_C}:187"),
                    "Select<>/5": (f"{_I}:204", f"{_C}:179")}),
)
