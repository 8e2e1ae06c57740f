"""Sort32 (Ascend C `Sort32(dst, src0, src1, repeatTime)`, include/basic_api/kernel_operator_proposal_intf.h; the
vbitsort instruction): each repeat sorts 32 scores of src0 (half / float) with their uint32 indices of src1 by score,
largest first, into 32 (score, index) structures of 8 bytes in dst: the score in the low bytes (a half score in the
low 2, the next 2 reserved), the index in the high 4. Equal scores keep their input order (the API documentation:
"score[i] == score[j] with i > j: score[j] is selected first"); repeats are sorted independently, src0 / src1
advancing 32 elements and dst 256 bytes per repeat.

What the documentation leaves open is refused at run time rather than guessed: a NaN score, and +0 and -0 in one
repeat (whether they tie). The reserved half-score bytes are not written by asc_trace (their content is not
documented); read the scores back with asc.adv.extract, which skips them."""
from __future__ import annotations

from ..expr import Const, binop
from ..node import Pipe
from .opdef import NA, OpDef, VecCost, register

PER_REPEAT = 32
STRUCT_BYTES = 8


def _sort32_accesses(node) -> list:
    d, s0, s1, repeat = node.args
    n = binop("*", repeat, Const(PER_REPEAT))
    return [(d, Const(0), binop("*", n, Const(STRUCT_BYTES // d.dtype.itemsize)), True), (s0, Const(0), n, False),
            (s1, Const(0), n, False)]


def _sort32_fields(ctx, n) -> dict[str, str]:
    d, s0, s1, repeat = n.args
    return {"dst": ctx.ref(d), "src0": ctx.ref(s0), "src1": ctx.ref(s1), "repeat": ctx.cast(repeat, "int32_t")}


register(
    OpDef("sort32", "vec_sort32", Pipe.V, "Sort32", arity=2, dtypes=frozenset({"float16", "float32"}),
          cost=VecCost(30.0, 16.0, "assumed: vbitsort is not in the PTO-ISA cost model (one repeat reads 32 scores "
                                   "and indices and writes 256 bytes)"),
          emit="AscendC::Sort32({dst}, {src0}, {src1}, {repeat});", emit_fields=_sort32_fields,
          cpp_model=NA("the cpp backend's C++ API model has no Sort32; sim and eager run it"), printer="dst",
          writes=(0,), accesses=_sort32_accesses,
          declared={"Sort32/4": ("include/basic_api/kernel_operator_proposal_intf.h:90",
                                 "interface/kernel_operator_proposal_intf.h:102")}),
)

