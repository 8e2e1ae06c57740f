"""The CMPMASK register and the Compare / Select forms that involve it (asc-devkit include/basic_api/
kernel_operator_vec_cmpsel_intf.h; the A2 steps in impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h and
kernel_operator_vec_cmpsel_impl.h).

CMPMASK is a 128-bit register of the vector unit, read and written only by vector-pipe instructions, so program
order on the V pipe orders every access to it and no synchronisation is involved. What writes it on A2:

- `Compare(src0, src1, cmpMode, mask, repeatParams)` (no dst, `vcmp_*`): one repeat; bit i = lane i's result.
  A float repeat has 64 lanes: the high 64 bits are left undefined (asc_trace's poison, 0xFF bytes).
- `SetCmpMask(src)`: the first 16 bytes of src. `GetCmpMask(dst)` copies the register to dst's first 16 bytes.
- every Select but the register forms: VSEL_CMPMASK_SPR loads the first 16 bytes of sel_mask; the scalar mode
  loads the scalar duplicated over the 16 bytes; the tensor-tensor mode
  loads sel_mask's address (undefined content for asc_trace: poison).

What reads it: Select in VSEL_CMPMASK_SPR mode (the same 128 bits select the lanes of every repeat: lane i takes
src0 where bit i is 1), and the scalar register form `Select(dst, selMask, src0, repeatTime, repeatParams)`
(its scalar is the register's low sizeof(T) bytes).

The forms, in the node's attr `form`, and their operands:
    compare "cmp_mask": (dst, src0, src1, mask, repeat, params): vcmpv ignores the mask (the A2 implementation
                        does not set it) and writes every lane's bit, repeats packed one after another in dst
    compare "cmp_reg":  (None, src0, src1, mask, 1, params): one repeat into CMPMASK, lanes the mask leaves out 0
    select "sel_mask":  (dst, sel_mask, src0, src1 | scalar, mask, repeat, params), the mode in attr sel_mode
    select "sel_reg":   (dst, None, src0, src1, mask, repeat, params): Select<T, VSEL_CMPMASK_SPR>, the mask being
                        the vector mask register's value where it is called (proxies/mask_reg.py)
    select "sel_reg_scalar": (dst, sel_mask, src0, None, mask, repeat, params): the scalar from CMPMASK
The compare mode is attr cmp_mode and the select mode attr sel_mode (ints of asc.CMPMODE / asc.SELMODE).
"""
from __future__ import annotations

from typing import Any

from ...enums import CMPMODE, SELMODE
from ..expr import Const, binop
from ..node import Pipe, TensorRef
from .masked import envelope, last_lane, strides
from .opdef import NA, OpDef, VecCost, register

CMPMASK_BYTES = 16
CMP_FORMS = frozenset({"cmp_mask", "cmp_reg"})
SEL_FORMS = frozenset({"sel_mask", "sel_reg", "sel_reg_scalar"})


def reads_cmpmask(node: Any) -> bool:
    """Whether the node's result depends on what an earlier instruction left in CMPMASK."""
    if node.op == "get_cmp_mask":
        return True
    if node.op == "select":
        return node.attr("form") in ("sel_reg", "sel_reg_scalar")
    return False


def cmpmask_form(node: Any) -> bool:
    """Whether a compare / select node is in one of this module's forms (or Select's count form in
    VSEL_CMPMASK_SPR mode), which only sim, eager and cpu_debug run."""
    if node.attr("form") is not None:
        return True
    return node.op == "select" and node.args[4] == SELMODE.VSEL_CMPMASK_SPR


def cmpmask_access(node: Any) -> bool | None:
    """How a node touches CMPMASK: True writes it, False only reads it, None not at all. The vendor orders
    set_cmpmask and the vsel that reads it with PipeBarrier<PIPE_V> (dav_c220 kernel_operator_vec_cmpsel_impl.h),
    so the scheduler treats the register like a UB range shared by V-pipe instructions."""
    if node.op in ("set_cmp_mask",):
        return True
    if node.op == "get_cmp_mask":
        return False
    if node.op == "compare":
        return True if node.attr("form") == "cmp_reg" else None
    if node.op == "select":
        if node.attr("form") is None and node.args[4] != SELMODE.VSEL_CMPMASK_SPR:
            return None     # the count form's own barriers fence its register load before and after
        return not reads_cmpmask(node)      # every other Select loads the register before it selects
    return None


def _sel_bits(node: Any, repeat: Any, per_rep: int) -> Any:
    """Bits of sel_mask a select form reads: 128 for VSEL_CMPMASK_SPR (set_cmpmask), one per lane and repeat
    for the other modes."""
    if node.attr("sel_mode") == int(SELMODE.VSEL_CMPMASK_SPR):
        return Const(CMPMASK_BYTES * 8)
    return binop("*", repeat, Const(per_rep))


def form_accesses(node: Any) -> list:
    """[(TensorRef, first, count, is_write)] of a CMPMASK / mask-form compare or select."""
    a = node.args
    form = node.attr("form")
    repeat = a[-2]
    if node.op == "compare":
        dt = a[1].dtype
        per_rep = 256 // dt.itemsize
        st = strides(node)
        last = per_rep - 1 if form == "cmp_mask" else last_lane(a[-3], per_rep)
        last = per_rep - 1 if last is None else last
        out = [(a[1], Const(0), envelope(dt, repeat, *st[1], last), False),
               (a[2], Const(0), envelope(dt, repeat, *st[2], last), False)]
        if form == "cmp_mask":
            out.insert(0, (a[0], Const(0), binop("*", repeat, Const(per_rep // 8)), True))
        return out
    dst, sel, s0, s1 = a[:4]
    dt = dst.dtype
    per_rep = 256 // dt.itemsize
    st = strides(node)
    last = last_lane(a[-3], per_rep)
    last = per_rep - 1 if last is None else last
    out = [(dst, Const(0), envelope(dt, repeat, *st[0], last), True),
           (s0, Const(0), envelope(dt, repeat, *st[1], last), False)]
    if isinstance(s1, TensorRef):
        out.append((s1, Const(0), envelope(dt, repeat, *st[2], last), False))
    if sel is not None:
        bits = _sel_bits(node, repeat, per_rep)
        units = binop("//", binop("+", bits, Const(8 * sel.dtype.itemsize - 1)), Const(8 * sel.dtype.itemsize))
        out.append((sel, Const(0), units, False))
    return out


def _params(ctx: Any, p: Any) -> str:
    names = ["dst_blk_stride", "src0_blk_stride", "src1_blk_stride", "dst_rep_stride", "src0_rep_stride",
             "src1_rep_stride"]
    return "AscendC::BinaryRepeatParams(" + ", ".join(ctx.cast(getattr(p, f), "uint8_t") for f in names) + ")"


def emit_form(ctx: Any, n: Any) -> str:
    """The Ascend C call of a CMPMASK / mask-form compare or select."""
    a = n.args
    form = n.attr("form")
    params = _params(ctx, a[-1])
    repeat = ctx.cast(a[-2], "uint8_t")
    dt = n.attr("dtype")
    if form == "cmp_mask":
        mode = CMPMODE(n.attr("cmp_mode")).name
        return (f"AscendC::Compare({ctx.ref(a[0])}, {ctx.ref(a[1])}, {ctx.ref(a[2])}, AscendC::CMPMODE::{mode}, "
                f"{ctx.mask(n, a[3])}, {repeat}, {params});")
    if form == "cmp_reg":
        mode = CMPMODE(n.attr("cmp_mode")).name
        return (f"AscendC::Compare({ctx.ref(a[1])}, {ctx.ref(a[2])}, AscendC::CMPMODE::{mode}, {ctx.mask(n, a[3])}, "
                f"{params});")
    # the register forms of Select pass no parameter check that sees their tensors (nor do Get / SetCmpMask):
    # ASC_TRACE_API_TENSORS hands them to cpu_debug's stub layer, to bound the operands by (a no-op elsewhere)
    if form == "sel_reg":
        return (f"ASC_TRACE_API_TENSORS({ctx.ref(a[0])}, {ctx.ref(a[2])}, {ctx.ref(a[3])}); "
                f"AscendC::Select<{dt.c_name}, AscendC::SELMODE::VSEL_CMPMASK_SPR>({ctx.ref(a[0])}, {ctx.ref(a[2])}, "
                f"{ctx.ref(a[3])}, {repeat}, {params});")
    if form == "sel_reg_scalar":
        return (f"ASC_TRACE_API_TENSORS({ctx.ref(a[0])}, {ctx.ref(a[2])}, {ctx.ref(a[2])}); "
                f"AscendC::Select({ctx.ref(a[0])}, {ctx.ref(a[1])}, {ctx.ref(a[2])}, {repeat}, {params});")
    mode = SELMODE(n.attr("sel_mode")).name
    s1 = ctx.ref(a[3]) if isinstance(a[3], TensorRef) else ctx.scalar(a[3], dt)
    return (f"AscendC::Select({ctx.ref(a[0])}, {ctx.ref(a[1])}, {ctx.ref(a[2])}, {s1}, AscendC::SELMODE::{mode}, "
            f"{ctx.mask(n, a[4])}, {repeat}, {params});")


def _one(name: str):
    def accesses(node: Any) -> list:
        t = node.args[0]
        return [(t, Const(0), Const(max(1, CMPMASK_BYTES // t.dtype.itemsize)), name == "get_cmp_mask")]
    return accesses


_I = "include/basic_api/kernel_operator_vec_cmpsel_intf.h"
_C = "interface/kernel_operator_vec_cmpsel_intf.h"
_COST = VecCost(10.0, 1.0, "assumed: one register move of 16 bytes (get_cmpmask / set_cmpmask are not in the "
                           "PTO-ISA cost model)")
_NO_CPP = NA("the cpp backend's C++ API model has no CMPMASK register; sim, eager and cpu_debug run it")

register(
    OpDef("get_cmp_mask", "vec_cmpmask", Pipe.V, "GetCmpMask", arity=0, cost=_COST, writes=(0,),
          accesses=_one("get_cmp_mask"), emit="ASC_TRACE_API_TENSORS({dst}, {dst}, {dst}); AscendC::GetCmpMask({dst});",
          emit_fields=lambda ctx, n: {"dst": ctx.ref(n.args[0])}, cpp_model=_NO_CPP, printer="args",
          declared={"GetCmpMask/1": (f"{_I}:96", f"{_C}:97")}),
    OpDef("set_cmp_mask", "vec_cmpmask", Pipe.V, "SetCmpMask", arity=1, cost=_COST, writes=(),
          accesses=_one("set_cmp_mask"), emit="ASC_TRACE_API_TENSORS({src}, {src}, {src}); AscendC::SetCmpMask({src});",
          emit_fields=lambda ctx, n: {"src": ctx.ref(n.args[0])}, cpp_model=_NO_CPP, printer="args",
          declared={"SetCmpMask/1": (f"{_I}:99", f"{_C}:100")}),
)
