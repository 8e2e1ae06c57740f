"""Reductions (docs/facts.md#facts-5, #api-reduce-results):

- `ReduceSum/ReduceMax/ReduceMin(dst, src, sharedTmpBuffer, count[, calIndex])`: the result lands in
  dst[0]; with calIndex, dst[1] holds the index as T's bit pattern (ties: the smallest index).
  ReduceSum's order of additions is asc_trace's definition (graph/numerics.py `tree_sum`), hence a
  tolerance against NumPy's sum.
- `WholeReduceSum/Max/Min(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride[, order])`:
  one result per 256-byte repeat (max/min also its index, placed by ReduceOrder); dstRepStride counts
  whole results (`whole_result_width`), so repeat r writes at r * dstRepStride * width.
"""
from __future__ import annotations

from ...enums import HardEvent
from ..expr import Const, binop
from ..node import Pipe
from .opdef import FLOATS, CppModel, OpDef, VecCost, register
from .masked import BLOCKS, envelope, last_lane


def _tmp_elems(dtype, count):
    """Elements of sharedTmpBuffer the count form uses: one partial result per 256-byte repeat."""
    per = 256 // dtype.itemsize
    return binop("max", Const(per), binop("*", binop("//", binop("+", count, Const(per - 1)), Const(per)), Const(1)))


def _reduce_mask_accesses(node) -> list:
    """The mask form (dst, src, tmp, mask, repeatTime, srcRepStride): the selected lanes of each repeat, repeats
    srcRepStride blocks apart (block stride 1, DEFAULT_BLK_STRIDE in the vendor's ReduceRepeatParams)."""
    dst, src, tmp, mask, repeat, src_rep = node.args[:6]
    per = 256 // src.dtype.itemsize
    last = last_lane(mask, per)
    last = per - 1 if last is None else last
    out_n = Const(2) if node.attr("cal_index") else Const(1)
    return [(dst, Const(0), out_n, True), (tmp, Const(0), _tmp_elems(src.dtype, binop("*", repeat, Const(per))), True),
            (src, Const(0), envelope(src.dtype, repeat, Const(1), src_rep, last), False)]


def _reduce_accesses(node) -> list:
    if node.attr("mask_form"):
        return _reduce_mask_accesses(node)
    dst, src, tmp, count = node.args[:4]
    out_n = Const(2) if node.attr("cal_index") else Const(1)
    return [(dst, Const(0), out_n, True), (tmp, Const(0), _tmp_elems(src.dtype, count), True),
            (src, Const(0), count, False)]


# The count forms synchronise the scalar unit with V inside the call, alike in both CANN generations
# (CANN 8.1.RC1 basic_api/impl/dav_c220/kernel_operator_vec_reduce_impl.h and asc-devkit
# impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h: ReduceSumImpl(dst, src, count),
# ReduceImplNoIndex, ReduceImplThirdStep[NoIndex], ReduceTailCompute): after the vector work, V sets V_S
# and the scalar unit waits it, writes the result into dst (and the index), then sets S_V and S_MTE3,
# which V and MTE3 wait. Every id is `GetTPipePtr()->FetchEventID(evt)`: the first the TPipe has not
# reserved. The one path without: ReduceMax/Min with calIndex over at most one 256-byte repeat
# (ReduceImplWithIndex, repeatTimes == 1: one vector instruction writes dst).
REDUCE_SYNC = ((Pipe.V, "set", HardEvent.V_S), (Pipe.S, "wait", HardEvent.V_S),
               (Pipe.S, "set", HardEvent.S_V), (Pipe.V, "wait", HardEvent.S_V),
               (Pipe.S, "set", HardEvent.S_MTE3), (Pipe.MTE3, "wait", HardEvent.S_MTE3))
REDUCE_EVENTS = (HardEvent.V_S, HardEvent.S_V, HardEvent.S_MTE3)


def _reduce_sync(node, value) -> tuple | None:
    if node.op == "reduce_sum" or not node.attr("cal_index"):
        return REDUCE_SYNC
    if node.attr("mask_form"):        # ReduceImplWithIndex: one repeat is one vector instruction into dst
        repeat = value(node.args[4])
        return None if repeat is None else (REDUCE_SYNC if repeat > 1 else ())
    count = value(node.args[3])
    if count is None:
        return None
    return REDUCE_SYNC if count > 256 // node.args[1].dtype.itemsize else ()


def whole_result_width(op_name: str, order: int | None, itemsize: int) -> int:
    """Elements of dst one repeat's result takes, which is also the unit of dstRepStride (docs
    ReduceRepeat, table 3): the sum or the value alone 1; value and index 2; the index alone is a
    uint32 (two half slots, one float slot)."""
    if op_name == "whole_reduce_sum" or order == 2:
        return 1
    if order == 3:
        return 4 // itemsize
    return 2


def _whole_accesses(node) -> list:
    dst, src, _mask, repeat, dst_rep, src_blk, src_rep = node.args[:7]
    per_block = 32 // src.dtype.itemsize
    last = binop("+", binop("*", binop("-", repeat, Const(1)), src_rep), binop("*", Const(BLOCKS - 1), src_blk))
    src_n = binop("max", Const(0), binop("*", binop("+", last, Const(1)), Const(per_block)))
    width = whole_result_width(node.op, node.attr("order"), src.dtype.itemsize)
    dst_n = binop("max", Const(0), binop("*", binop("+", binop("*", binop("-", repeat, Const(1)), dst_rep), Const(1)),
                                         Const(width)))
    return [(dst, Const(0), dst_n, True), (src, Const(0), src_n, False)]


def _reduce_emit(ctx, n) -> str:
    """The count form from the template; the mask form `(dst, src, tmp, mask, repeatTime, srcRepStride[, calIndex])`."""
    if not n.attr("mask_form"):
        return _COUNT_FORM[n.op].format(**_reduce_fields(ctx, n))
    a = n.args
    index = "" if n.op == "reduce_sum" else f", {'true' if n.attr('cal_index') else 'false'}"
    return (f"AscendC::{REDUCE_C_NAMES[n.op]}({ctx.ref(a[0])}, {ctx.ref(a[1])}, {ctx.ref(a[2])}, {ctx.mask(n, a[3], const=True)}, "
            f"{ctx.cast(a[4], 'int32_t')}, {ctx.cast(a[5], 'int32_t')}{index});")


def _reduce_fields(ctx, n) -> dict[str, str]:
    a = n.args
    return {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "tmp": ctx.ref(a[2]), "count": ctx.cast(a[3]),
            "cal_index": "true" if n.attr("cal_index") else "false"}


_ORDER = ["ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"]


def _whole_fields(ctx, n) -> dict[str, str]:
    a = n.args
    return {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "mask": ctx.mask(n, a[2], const=True),
            "repeat": ctx.cast(a[3]), "dst_rep": ctx.cast(a[4]), "src_blk": ctx.cast(a[5]),
            "src_rep": ctx.cast(a[6]), "order": _ORDER[n.attr("order") or 0]}


REDUCE_C_NAMES = {"reduce_sum": "ReduceSum", "reduce_max": "ReduceMax", "reduce_min": "ReduceMin"}
_COUNT_FORM: dict[str, str] = {}


def _reduce(name: str, c_name: str, emit: str, **kw) -> OpDef:
    _COUNT_FORM[name] = emit
    return OpDef(name, "vec_reduce", Pipe.V, c_name, arity=1, dtypes=FLOATS, cost=_REDUCE, emit=_reduce_emit,
                 emit_fields=_reduce_fields, cpp_model=CppModel(header=c_name), printer="dst", writes=(0, 2),
                 accesses=_reduce_accesses, api_sync=_reduce_sync, api_events=REDUCE_EVENTS, **kw)


def _whole(name: str, c_name: str, emit: str, **kw) -> OpDef:
    return OpDef(name, "vec_whole_reduce", Pipe.V, c_name, arity=1, dtypes=FLOATS, cost=_WHOLE, emit=emit,
                 emit_fields=_whole_fields, cpp_model=CppModel(header=c_name), printer="dst", writes=(0,),
                 accesses=_whole_accesses, **kw)


# vcadd (a whole-repeat reduction): 20-23 cycles startup (midpoint) + 7 per repeat. ReduceSum / ReduceMax are
# software sequences of such reductions (docs/facts.md#facts-10), repeated over the partial results.
_VCADD = "fitted: PTO-ISA cost model for A2: vcadd 20-23 + 7 (startup: midpoint)"
_WHOLE = VecCost(21.5, 7, _VCADD)
_REDUCE = VecCost(21.5, 7, _VCADD + "; levels until one value is left", levels=True)
_SUM_TOL = {"float16": (5e-3, 5e-3), "float32": (1e-5, 1e-6)}

# the mask forms' declarations (the count forms' are in lower/api_symbols.txt); the int32_t-mask overload's line
_RD, _RC = "include/basic_api/kernel_operator_vec_reduce_intf.h", "interface/kernel_operator_vec_reduce_intf.h"

register(
    _reduce("reduce_sum", "ReduceSum", "AscendC::ReduceSum({dst}, {src0}, {tmp}, {count});", tol=_SUM_TOL,
            declared={"ReduceSum/6": (f"{_RD}:129", f"{_RC}:239")}, hivm="vreduce:sum"),
    _reduce("reduce_max", "ReduceMax", "AscendC::ReduceMax({dst}, {src0}, {tmp}, {count}, {cal_index});",
            declared={"ReduceMax/7": (f"{_RD}:98", f"{_RC}:208")}, hivm="vreduce:max"),
    _reduce("reduce_min", "ReduceMin", "AscendC::ReduceMin({dst}, {src0}, {tmp}, {count}, {cal_index});",
            declared={"ReduceMin/7": (f"{_RD}:114", f"{_RC}:224")}, hivm="vreduce:min"),
    _whole("whole_reduce_sum", "WholeReduceSum",
           "AscendC::WholeReduceSum({dst}, {src0}, {mask}, {repeat}, {dst_rep}, {src_blk}, {src_rep});", tol=_SUM_TOL),
    _whole("whole_reduce_max", "WholeReduceMax",
           "AscendC::WholeReduceMax({dst}, {src0}, {mask}, {repeat}, {dst_rep}, {src_blk}, {src_rep}, "
           "AscendC::ReduceOrder::{order});"),
    _whole("whole_reduce_min", "WholeReduceMin",
           "AscendC::WholeReduceMin({dst}, {src0}, {mask}, {repeat}, {dst_rep}, {src_blk}, {src_rep}, "
           "AscendC::ReduceOrder::{order});"),
)
