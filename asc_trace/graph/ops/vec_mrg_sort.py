"""MrgSort and Sort (asc-devkit include/basic_api/kernel_operator_proposal_intf.h; the A2 steps in
impl/basic_api/dav_c220/kernel_operator_proposal_impl.h and kernel_operator_proposal_intf_impl.h).

MrgSort merges up to four lists of 8-byte (score, index) structures, each sorted largest score first (Sort32's
output), into one (the vmrgsort4 instruction). `valid_bit` 3 / 7 / 15 says which lists take part (2, 3, 4); each
repeat merges the four lists' next `element_lengths` structures, sources and dst advancing by their total length.
Of equal scores the structure of the earlier list comes first, and within a list the order is kept (the API
documentation's rule "score[i] == score[j], i > j: score[j] is selected first"), so merging consecutive chunks of an
input is a stable sort. With `is_exhausted_suspension` the merge stops when a list runs out (the counts of each list
it used go to the VMS4_SR register, asc.get_mrg_sort_result). Structures move whole (a half score's 2 reserved bytes
travel with it). A repeat time above 1 works only as the API documentation lists (and DoFullSort uses it): four lists
(valid_bit 15) of one length, stored back to back, without exhausted suspension; the front end refuses the rest, and
the run refuses lists that are not back to back. What the documentation leaves open is refused at run time: NaN
scores, +0 and -0 in one merge.

Sort<T, isFullSort>(dst, concat, index, tmp, repeatTime) is, on A2, Sort32(dst, concat, index, repeatTime); with
is_full_sort it then merges the repeats' sorted groups in rounds of four lists through tmp (DoFullSort), so dst holds
all repeatTime * 32 structures sorted (stably), and tmp a copy of them.

Node operands and attrs:
    mrg_sort (dst, src1, src2[, src3[, src4]]): the lists valid_bit uses; attrs lengths (4 ints), valid_bit, repeat,
             exhausted, form
             ("info": MrgSort(dst, list, MrgSort4Info), "list": MrgSort<T, exhausted>(dst, list, counts, sorted,
             valid_bit, repeat_time))
    sort     (dst, concat, index, tmp, repeat); attr full
"""
from __future__ import annotations

from typing import Any

from ..expr import Const, binop
from ..node import Pipe
from .opdef import NA, OpDef, VecCost, register

STRUCT_BYTES = 8
PER_REPEAT = 32
VALID_BITS = {3: 2, 7: 3, 15: 4}


def per_struct(dtype: Any) -> int:
    """Elements of T in one 8-byte structure."""
    return STRUCT_BYTES // dtype.itemsize


def _mrg_accesses(node: Any) -> list:
    lengths, repeat = node.attr("lengths"), node.attr("repeat")
    total = sum(lengths[:VALID_BITS[node.attr("valid_bit")]])
    d = node.args[0]
    per = per_struct(d.dtype)
    out = [(d, Const(0), Const(repeat * total * per), True)]
    for k, s in enumerate(node.args[1:]):
        out.append((s, Const(0), Const(((repeat - 1) * total + lengths[k]) * per), False))
    return out


def _mrg_emit(ctx: Any, n: Any) -> str:
    d, *srcs = n.args
    t = d.dtype.c_name
    # MrgSortSrcList's constructor takes four tensors; the lists valid_bit leaves out are not read (the first
    # list stands in for them)
    refs = [ctx.ref(s) for s in srcs] + [ctx.ref(srcs[0])] * (4 - len(srcs))
    lengths = ", ".join(str(v) for v in n.attr("lengths"))
    lst = f"AscendC::MrgSortSrcList<{t}>({', '.join(refs)})"
    arr = f"asct_mrg{n.id}"
    ex = "true" if n.attr("exhausted") else "false"
    if n.attr("form") == "info":
        return (f"{{ const uint16_t {arr}[4] = {{{lengths}}}; AscendC::MrgSort({ctx.ref(d)}, {lst}, "
                f"AscendC::MrgSort4Info({arr}, {ex}, {n.attr('valid_bit')}, {n.attr('repeat')})); }}")
    return (f"{{ const uint16_t {arr}[4] = {{{lengths}}}; uint32_t {arr}_sorted[4] = {{0, 0, 0, 0}}; "
            f"AscendC::MrgSort<{t}, {ex}>({ctx.ref(d)}, {lst}, {arr}, {arr}_sorted, {n.attr('valid_bit')}, "
            f"{n.attr('repeat')}); }}")


def _sort_accesses(node: Any) -> list:
    d, concat, index, tmp, repeat = node.args
    n = binop("*", repeat, Const(PER_REPEAT))
    nd = binop("*", n, Const(per_struct(d.dtype)))
    out = [(d, Const(0), nd, True), (concat, Const(0), n, False), (index, Const(0), n, False)]
    if node.attr("full"):
        out.append((tmp, Const(0), nd, True))
    return out


def _sort_emit(ctx: Any, n: Any) -> str:
    d, concat, index, tmp, repeat = n.args
    t = d.dtype.c_name
    full = "true" if n.attr("full") else "false"
    # Sort takes tmp by non-const reference: a named tensor, whatever expression the operand is
    return (f"{{ AscendC::LocalTensor<{t}> asct_sorttmp{n.id} = {ctx.ref(tmp)}; AscendC::Sort<{t}, {full}>("
            f"{ctx.ref(d)}, {ctx.ref(concat)}, {ctx.ref(index)}, asct_sorttmp{n.id}, {ctx.cast(repeat, 'int32_t')}); }}")


_P = "include/basic_api/kernel_operator_proposal_intf.h"
_P81 = "interface/kernel_operator_proposal_intf.h"
_S = "include/basic_api/kernel_struct_proposal.h"
_S81 = "interface/kernel_struct_proposal.h"
_NO_CPP = NA("the cpp backend's C++ API model has no merge sort; sim, eager and cpu_debug run it")

register(
    OpDef("mrg_sort", "vec_mrg_sort", Pipe.V, "MrgSort", arity=4, dtypes=frozenset({"float16", "float32"}),
          cost=VecCost(30.0, 16.0, "assumed: vmrgsort4 is not in the PTO-ISA cost model (8-byte structures, 32 per "
                                   "256 bytes)"),
          emit=_mrg_emit, cpp_model=_NO_CPP, printer="dst", writes=(0,), accesses=_mrg_accesses,
          declared={"MrgSort/3": (f"{_P}:78", f"{_P81}:89"), "MrgSort<>/6": (f"{_P}:158", f"{_P81}:170"),
                    "MrgSortSrcList<>/4": (f"{_S}:63", f"{_S81}:49"), "MrgSort4Info/4": (f"{_S}:43", f"{_S81}:29")}),
    OpDef("sort", "vec_sort", Pipe.V, "Sort", arity=2, dtypes=frozenset({"float16", "float32"}),
          cost=VecCost(40.0, 24.0, "assumed: Sort32 then vmrgsort4 rounds, neither in the PTO-ISA cost model"),
          emit=_sort_emit, cpp_model=_NO_CPP, printer="dst", writes=(0, 3), reads=(1, 2), accesses=_sort_accesses,
          declared={"Sort<>/5": (f"{_P}:173", f"{_P81}:184")}),
)
