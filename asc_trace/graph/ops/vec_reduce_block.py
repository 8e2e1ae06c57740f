"""Reductions inside one repeat, in the repeat form only (docs/pyasc-vector-ops.md):

- `BlockReduceSum/Max/Min(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride)`
  (vcgadd / vcgmax / vcgmin): each 32-byte block of a repeat reduced to one element; a repeat's 8
  results are contiguous and dstRepStride counts whole results (8 elements: 16 bytes for half, 32 for float).
- `PairReduceSum(...)` (vcpadd), same operands: (a0+a1, a2+a3, ...); a repeat's result is half a repeat
  and dstRepStride counts such halves.
- `RepeatReduceSum(dst, src, repeatTime, mask, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)`:
  the sum of each repeat (vcadd, as WholeReduceSum); dstBlkStride is not used by the A2 path (asc-devkit
  impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h RepeatReduceSumImpl), dstRepStride counts
  single elements.

Only the lanes the mask selects take part. The sums add as a tree of adjacent pairs (graph/numerics.py
`tree_sum`, the order the docs give for ReduceDataBlock / ReduceRepeat), in the element type. A result
none of whose lanes the mask selects is not written (the PairReduceSum docs' rule for A2; asc_trace
applies it to the block results too). A mask that selects one lane of a pair is refused: the docs do
not say what PairReduceSum makes of it.

Node operands: (dst, src, mask, repeat, dst_rep, src_blk, src_rep[, dst_blk]).
"""
from __future__ import annotations

from ..expr import Const, binop
from ..node import Pipe
from .masked import BLOCKS, envelope, last_lane
from .opdef import FLOATS, NA, OpDef, VecCost, register

# op -> (layout, reduction): "block" one result per 32-byte block, "pair" one per two lanes, "repeat"
# one per repeat; "sum" / "max" / "min". The executor (runtime/executors_vec_more.py) reads it.
LAYOUT: dict[str, tuple[str, str]] = {
    "block_reduce_sum": ("block", "sum"), "block_reduce_max": ("block", "max"),
    "block_reduce_min": ("block", "min"), "pair_reduce_sum": ("pair", "sum"),
    "repeat_reduce_sum": ("repeat", "sum"),
}


def results_per_repeat(layout: str, itemsize: int) -> int:
    """Elements one repeat writes, which is also the unit of dstRepStride."""
    per_rep = 256 // itemsize
    return {"block": BLOCKS, "pair": per_rep // 2, "repeat": 1}[layout]


def result_of_lane(layout: str, lane: int, itemsize: int) -> int:
    """The result (within its repeat) that lane `lane` of a repeat feeds."""
    return {"block": lane // (32 // itemsize), "pair": lane // 2, "repeat": 0}[layout]


def _accesses(node) -> list:
    dst, src, mask, repeat, dst_rep, src_blk, src_rep = node.args[:7]
    layout = LAYOUT[node.op][0]
    size = src.dtype.itemsize
    per_rep = 256 // size
    last = last_lane(mask, per_rep)
    last = per_rep - 1 if last is None else last
    width = results_per_repeat(layout, size)
    dst_n = binop("max", Const(0), binop("+", binop("*", binop("*", binop("-", repeat, Const(1)), dst_rep),
                                                     Const(width)),
                                          Const(result_of_lane(layout, last, size) + 1)))
    return [(dst, Const(0), dst_n, True), (src, Const(0), envelope(src.dtype, repeat, src_blk, src_rep, last), False)]


_BLOCK_EMIT = "AscendC::{c}({dst}, {src0}, {repeat}, {mask}, {dst_rep}, {src_blk}, {src_rep});"
_REPEAT_EMIT = "AscendC::RepeatReduceSum({dst}, {src0}, {repeat}, {mask}, {dst_blk}, {src_blk}, {dst_rep}, {src_rep});"


def _fields(ctx, n) -> dict[str, str]:
    a = n.args
    out = {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "mask": ctx.mask(n, a[2], const=True),
           "repeat": ctx.cast(a[3]), "dst_rep": ctx.cast(a[4]), "src_blk": ctx.cast(a[5]), "src_rep": ctx.cast(a[6])}
    if len(a) > 7:
        out["dst_blk"] = ctx.cast(a[7])
    return out


# vcgadd / vcgmax / vcpadd are not in the PTO-ISA cost model; taken as vcadd, the repeat reduction it lists
_COST = VecCost(21.5, 7, "assumed as vcadd (PTO-ISA cost model for A2: vcadd 20-23 + 7; the block and pair "
                         "reductions are not listed)")
_NO_CPP = NA("the cpp backend's C++ API model has no repeat-form reductions beyond WholeReduce*; sim, eager and "
             "cpu_debug run them")
_DEVKIT = "impl/basic_api/kernel_operator_vec_reduce_intf_impl.h"
_CANN81 = "interface/kernel_operator_vec_reduce_intf.h"


def _op(name: str, c_name: str, devkit: int, cann81: int, dtypes=FLOATS) -> OpDef:
    nargs = 8 if name == "repeat_reduce_sum" else 7
    return OpDef(name, "vec_block_reduce", Pipe.V, c_name, arity=1, dtypes=dtypes, cost=_COST,
                 emit=_REPEAT_EMIT if nargs == 8 else _BLOCK_EMIT.replace("{c}", c_name), emit_fields=_fields,
                 cpp_model=_NO_CPP, printer="dst", writes=(0,), accesses=_accesses,
                 declared={f"{c_name}/{nargs}": (f"{_DEVKIT}:{devkit}", f"{_CANN81}:{cann81}")})


register(
    _op("block_reduce_sum", "BlockReduceSum", 378, 56),
    _op("block_reduce_max", "BlockReduceMax", 414, 72),
    _op("block_reduce_min", "BlockReduceMin", 450, 88),
    _op("pair_reduce_sum", "PairReduceSum", 486, 104),
    _op("repeat_reduce_sum", "RepeatReduceSum", 613, 129),
)
