"""Gathers by offsets held in a tensor (docs/pyasc-vector-ops.md); the addresses are data, so the source is
read anywhere in its tensor (`src_len`, its elements from the view's start, bounds the read) and each offset
is checked when the instruction runs:

- `Gather(dst, src, srcOffset, srcBaseOffset, count)` (vgather): dst[i] = the element at byte
  srcBaseOffset + srcOffset[i] of src (srcOffset: uint32 byte offsets, multiples of sizeof(T)). The mask
  form `(..., mask, repeatTime, dstRepStride)` takes lane e of repeat r from srcOffset[r x (elements per
  repeat) + e] into dst[r x dstRepStride x (elements per block) + e]. 16- and 32-bit elements.
  Node: (dst, src, offsets, base, src_len, count) or (dst, src, offsets, base, src_len, mask, repeat, dst_rep).
- `Gatherb(dst, src, offset, repeatTime, GatherRepeatParams)` (vgatherb): per repeat, 8 uint32 byte offsets
  each pick one 32-byte block of src (a multiple of 32), written to dst blocks dstBlkStride apart, repeats
  dstRepStride apart; uint16 / uint32. Node: (dst, src, offsets, src_len, repeat, GatherRepeatParams).

Scatter is not supported on A2 (asc-devkit dav_c220 ScatterImpl reports it unsupported): not provided.
"""
from __future__ import annotations

from ..expr import Const, binop
from ..node import Pipe
from .masked import last_lane
from .opdef import NA, CppModel, OpDef, VecCost, register

GATHER_DTYPES = frozenset({"float16", "bfloat16", "uint16", "int16", "float32", "uint32", "int32"})


def _gather_accesses(node) -> list:
    d, s, off, _base, src_len = node.args[:5]
    if not node.attr("mask_form"):
        count = node.args[5]
        return [(d, Const(0), count, True), (off, Const(0), count, False), (s, Const(0), src_len, False)]
    mask, repeat, dst_rep = node.args[5:]
    per_block = 32 // d.dtype.itemsize
    per_rep = 8 * per_block
    last = last_lane(mask, per_rep)
    last = per_rep - 1 if last is None else last
    rm1 = binop("-", repeat, Const(1))
    dst_n = binop("max", Const(0), binop("+", binop("*", binop("*", rm1, dst_rep), Const(per_block)), Const(last + 1)))
    off_n = binop("max", Const(0), binop("+", binop("*", rm1, Const(per_rep)), Const(last + 1)))
    return [(d, Const(0), dst_n, True), (off, Const(0), off_n, False), (s, Const(0), src_len, False)]


def _gather_emit(ctx, n) -> str:
    a = n.args
    head = f"AscendC::Gather({ctx.ref(a[0])}, {ctx.ref(a[1])}, {ctx.ref(a[2])}, {ctx.cast(a[3], 'uint32_t')}, "
    if not n.attr("mask_form"):
        return head + f"{ctx.cast(a[5], 'uint32_t')});"
    return head + f"{ctx.mask(n, a[5])}, {ctx.cast(a[6], 'uint8_t')}, {ctx.cast(a[7], 'uint16_t')});"


def _gatherb_accesses(node) -> list:
    d, s, off, src_len, repeat, p = node.args
    per_block = 32 // d.dtype.itemsize
    last = binop("+", binop("*", binop("-", repeat, Const(1)), p.dst_rep_stride), binop("*", Const(7), p.dst_blk_stride))
    dst_n = binop("max", Const(0), binop("*", binop("+", last, Const(1)), Const(per_block)))
    return [(d, Const(0), dst_n, True), (off, Const(0), binop("*", repeat, Const(8)), False), (s, Const(0), src_len, False)]


def _gatherb_fields(ctx, n) -> dict[str, str]:
    d, s, off, _len, repeat, p = n.args
    return {"dst": ctx.ref(d), "src0": ctx.ref(s), "off": ctx.ref(off), "repeat": ctx.cast(repeat, "uint8_t"),
            "params": f"AscendC::GatherRepeatParams({ctx.cast(p.dst_blk_stride, 'uint8_t')}, "
                      f"{ctx.cast(p.dst_rep_stride, 'uint8_t')})"}


_CPP = CppModel(header="Gather / Gatherb (toolchain/include/asc_trace_gather.h: the simulator's semantics in C++)")
_D, _C = "include/basic_api/", "interface/"
_COST = VecCost(5.9, 2.07, "assumed as vadd (vgather is not in the PTO-ISA cost model; one offset and one element "
                           "read per lane)")

register(
    OpDef("gather", "vec_gather", Pipe.V, "Gather", arity=2, dtypes=GATHER_DTYPES, cost=_COST, emit=_gather_emit,
          repeat_at=6, cpp_model=_CPP, printer="dst", writes=(0,), accesses=_gather_accesses, values=(3,),
          declared={"Gather/5": (f"{_D}kernel_operator_vec_gather_intf.h:98", f"{_C}kernel_operator_vec_gather_intf.h:97"),
                    "Gather/7": (f"{_D}kernel_operator_vec_gather_intf.h:68",
                                 f"{_C}kernel_operator_vec_gather_intf.h:67")}),
    OpDef("gatherb", "vec_gather", Pipe.V, "Gatherb", arity=2, dtypes=frozenset({"uint16", "uint32"}), cost=_COST,
          repeat_at=4, emit="AscendC::Gatherb({dst}, {src0}, {off}, {repeat}, {params});", emit_fields=_gatherb_fields,
          cpp_model=_CPP, printer="dst", writes=(0,), accesses=_gatherb_accesses,
          declared={"Gatherb/5": (f"{_D}kernel_operator_vec_gather_intf.h:52",
                                  f"{_C}kernel_operator_vec_gather_intf.h:52"),
                    "GatherRepeatParams/2": (f"{_D}kernel_struct_gather.h:40", f"{_C}kernel_struct_gather.h:29")}),
)


# -- GatherMask (vreducev2), normal mode ----------------------------------------------------------------
#
# `GatherMask(dst, src0, src1Pattern, reduceMode=false, mask, GatherMaskParams, rsvdCnt)`: per repeat, the
# elements of one 256-byte repeat of src0 (blocks src0BlockStride apart, repeats src0RepeatStride apart) whose
# pattern bit is 1, packed one after another into dst across all repeats; rsvdCnt is how many. The pattern is
# a built-in one (1: even lanes, 2: odd lanes, 3..6: lane 0, 1, 2 or 3 of every 4, 7: every lane; the
# GatherMask docs' patterns 01..01, 10..10, 0001, 0010, 0100, 1000, 1111 read from the lowest bit) or a uint16
# / uint32 tensor of bits, lowest bit first, repeats src1RepeatStride blocks apart. In normal mode the mask
# argument is not used (the vendor sets the full mask in CPU-debug mode). Counter mode (reduceMode=true) is not
# provided. Node: (dst, src0, pattern (int or TensorRef), GatherMaskParams); attrs: count (the selected count
# when the pattern is built in).

def builtin_pattern_lanes(pattern: int, per_rep: int) -> list[int]:
    """The lanes of a repeat built-in pattern 1..7 selects."""
    if pattern == 1:
        return list(range(0, per_rep, 2))
    if pattern == 2:
        return list(range(1, per_rep, 2))
    if 3 <= pattern <= 6:
        return list(range(pattern - 3, per_rep, 4))
    return list(range(per_rep))


def _gm_accesses(node) -> list:
    from ..node import TensorRef
    d, s, pattern, p = node.args
    per_block = 32 // s.dtype.itemsize
    per_rep = 8 * per_block
    rm1 = binop("-", p.repeat_times, Const(1))
    src_last = binop("+", binop("*", rm1, p.src0_repeat_stride), binop("*", Const(7), p.src0_block_stride))
    src_n = binop("max", Const(0), binop("*", binop("+", src_last, Const(1)), Const(per_block)))
    if isinstance(pattern, TensorRef):
        # every lane may be selected: dst can take a whole repeat's elements per repeat
        words = per_rep // (8 * pattern.dtype.itemsize)
        pat_n = binop("max", Const(0), binop("+", binop("*", binop("*", rm1, p.src1_repeat_stride),
                                                         Const(32 // pattern.dtype.itemsize)), Const(words)))
        dst_n = binop("*", p.repeat_times, Const(per_rep))
        return [(d, Const(0), dst_n, True), (s, Const(0), src_n, False), (pattern, Const(0), pat_n, False)]
    dst_n = binop("*", p.repeat_times, Const(len(builtin_pattern_lanes(pattern, per_rep))))
    return [(d, Const(0), dst_n, True), (s, Const(0), src_n, False)]


def _gm_emit(ctx, n) -> str:
    from ..node import TensorRef
    d, s, pattern, p = n.args
    pat = ctx.ref(pattern) if isinstance(pattern, TensorRef) else f"static_cast<uint8_t>({pattern})"
    params = (f"AscendC::GatherMaskParams({ctx.cast(p.src0_block_stride, 'uint8_t')}, "
              f"{ctx.cast(p.repeat_times, 'uint16_t')}, {ctx.cast(p.src0_repeat_stride, 'uint16_t')}, "
              f"{ctx.cast(p.src1_repeat_stride, 'uint8_t')})")
    cnt = f"asct_rsvd{n.id}"
    ctx.pre.append(f"uint64_t {cnt} = 0;")
    return f"AscendC::GatherMask({ctx.ref(d)}, {ctx.ref(s)}, {pat}, false, static_cast<uint32_t>(0), {params}, {cnt});"


register(
    OpDef("gather_mask", "vec_gather_mask", Pipe.V, "GatherMask", arity=2, dtypes=GATHER_DTYPES, cost=_COST,
          emit=_gm_emit, cpp_model=NA("the cpp backend's C++ API model has no GatherMask; sim, eager and cpu_debug "
                                      "run it"), printer="dst", writes=(0,), accesses=_gm_accesses,
          declared={"GatherMask/7": (f"{_D}kernel_operator_vec_gather_mask_intf.h:40",
                                     f"{_C}kernel_operator_vec_gather_mask_intf.h:44"),
                    "GatherMaskParams/4": (f"{_D}kernel_struct_gather.h:68", f"{_C}kernel_struct_gather.h:61")}),
)
