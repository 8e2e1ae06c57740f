"""Vector-pipe moves and the scalar compare (docs/pyasc-vector-ops.md):

- `Copy(dst, src, mask, repeatTime, CopyRepeatParams)` (vcopy): the mask form of a UB -> UB copy, blocks
  and repeats placed by strides in 32-byte blocks (dstStride / srcStride: block strides, dstRepeatSize /
  srcRepeatSize: repeat strides); 16- and 32-bit elements. Node: (dst, src, mask, repeat, UnaryRepeatParams)
  holding the CopyRepeatParams strides, so that the mask-form accesses (masked.py) read them.
- `Brcb(dst, src, repeatTime, BrcbRepeatParams)` (vbrcb): each repeat reads 8 consecutive src elements and
  fills one 32-byte block of dst with each; dst blocks dstBlkStride apart, repeats dstRepStride apart (in
  blocks); no mask. Node: (dst, src, repeat, BrcbRepeatParams).
- `CompareScalar(dst, src, scalar, CMPMODE, count)`: bit i of the uint8 dst = (src[i] OP scalar); count *
  sizeof(T) a multiple of 256 bytes, as Compare. The mask form `(..., mask, repeatTime, UnaryRepeatParams)`
  writes repeatTime x (elements per repeat) bits packed back to back (the dst strides do not apply). On A2
  the vendor's implementation does not apply the mask it is given (asc-devkit impl/basic_api/dav_c220/
  kernel_operator_vec_cmp_impl.h VcmpvsImpl: `(void)(mask)`): every lane is compared, so asc_trace takes
  only a mask that selects every lane and refuses a partial one, which the hardware would silently ignore.
  Node: (dst, src, scalar, mode, count) or (dst, src, scalar, mode, mask, repeat, UnaryRepeatParams).
"""
from __future__ import annotations

from ..expr import Const, binop
from ..node import Pipe
from .masked import envelope, last_lane, mask_accesses, strides
from .opdef import BINARY_LIKE, NA, UNARY_LIKE, CppModel, OpDef, VecCost, register

B16_B32 = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})


def _copy_fields(ctx, n) -> dict[str, str]:
    d, s, mask, repeat, p = n.args
    params = ", ".join(ctx.cast(x, "uint16_t") for x in (p.dst_blk_stride, p.src_blk_stride, p.dst_rep_stride,
                                                        p.src_rep_stride))
    return {"dst": ctx.ref(d), "src0": ctx.ref(s), "mask": ctx.mask(n, mask), "repeat": ctx.cast(repeat, "uint8_t"),
            "params": f"AscendC::CopyRepeatParams({params})"}


def _brcb_accesses(node) -> list:
    d, s, repeat, p = node.args
    per_block = 32 // d.dtype.itemsize
    last = binop("+", binop("*", binop("-", repeat, Const(1)), p.dst_rep_stride),
                 binop("*", Const(7), p.dst_blk_stride))
    dst_n = binop("max", Const(0), binop("*", binop("+", last, Const(1)), Const(per_block)))
    return [(d, Const(0), dst_n, True), (s, Const(0), binop("*", repeat, Const(8)), False)]


def _brcb_fields(ctx, n) -> dict[str, str]:
    d, s, repeat, p = n.args
    return {"dst": ctx.ref(d), "src0": ctx.ref(s), "repeat": ctx.cast(repeat, "uint8_t"),
            "params": f"AscendC::BrcbRepeatParams({ctx.cast(p.dst_blk_stride, 'uint16_t')}, "
                      f"{ctx.cast(p.dst_rep_stride, 'uint16_t')})"}


def _cmps_accesses(node) -> list:
    if not node.attr("mask_form"):
        d, s, _scalar, _mode, count = node.args
        return [(d, Const(0), binop("//", binop("+", count, Const(7)), Const(8)), True), (s, Const(0), count, False)]
    d, s, _scalar, _mode, mask, repeat, _p = node.args
    per_rep = 256 // s.dtype.itemsize
    last = last_lane(mask, per_rep)
    last = per_rep - 1 if last is None else last
    blk, rep = strides(node)[1]
    return [(d, Const(0), binop("*", repeat, Const(per_rep // 8)), True),
            (s, Const(0), envelope(s.dtype, repeat, blk, rep, last), False)]


def _cmps_emit(ctx, n) -> str:
    a = n.args
    head = (f"AscendC::CompareScalar({ctx.ref(a[0])}, {ctx.ref(a[1])}, {ctx.scalar(a[2], a[1].dtype)}, "
            f"AscendC::CMPMODE::{a[3].name}, ")
    if not n.attr("mask_form"):
        return head + f"{ctx.cast(a[4], 'uint32_t')});"
    p = a[6]
    casts = ("uint16_t", "uint16_t", "uint8_t", "uint8_t")
    params = ", ".join(ctx.cast(getattr(p, f), c) for f, c in
                       zip(("dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride"), casts))
    return head + f"{ctx.mask(n, a[4])}, {ctx.cast(a[5], 'uint8_t')}, AscendC::UnaryRepeatParams({params}));"


_NO_CPP = NA("the cpp backend's C++ API model has no Copy / CompareScalar; sim, eager and cpu_debug run them")
_D = "include/basic_api/"
_C = "interface/"

register(
    OpDef("copy", "vec_copy", Pipe.V, "Copy", arity=1, ref=lambda x: x, dtypes=B16_B32,
          cost=VecCost(5.5, 1.0, "assumed as vadds (vcopy is not in the PTO-ISA cost model; one read, one write)"),
          emit="AscendC::Copy({dst}, {src0}, {mask}, {repeat}, {params});", emit_fields=_copy_fields,
          cpp_model=_NO_CPP, printer="dst", writes=(0,), accesses=mask_accesses,
          declared={"Copy/5": (f"{_D}kernel_operator_data_copy_intf.h:177", f"{_C}kernel_operator_data_copy_intf.h:142"),
                    "CopyRepeatParams/4": (f"{_D}kernel_struct_data_copy.h:417", f"{_C}kernel_struct_data_copy.h:223")}),
    OpDef("brcb", "vec_brcb", Pipe.V, "Brcb", arity=1, dtypes=B16_B32, cost=UNARY_LIKE, repeat_at=2,
          emit="AscendC::Brcb({dst}, {src0}, {repeat}, {params});", emit_fields=_brcb_fields,
          cpp_model=CppModel(header="Brcb (toolchain/include/asc_trace_gather.h: the simulator's semantics in C++)"), printer="dst", writes=(0,), accesses=_brcb_accesses,
          declared={"Brcb/4": (f"{_D}kernel_operator_vec_brcb_intf.h:51", f"{_C}kernel_operator_vec_brcb_intf.h:53"),
                    "BrcbRepeatParams/2": (f"{_D}kernel_struct_brcb.h:40", f"{_C}kernel_struct_brcb.h:29")}),
    OpDef("compare_scalar", "vec_compare_scalar", Pipe.V, "CompareScalar", arity=1,
          dtypes=frozenset({"float16", "float32", "int32"}), cost=BINARY_LIKE, emit=_cmps_emit,
          cpp_model=_NO_CPP, printer="dst", writes=(0,), accesses=_cmps_accesses, values=(2,), per_core=(),
          declared={"CompareScalar/5": (f"{_D}kernel_operator_vec_cmpsel_intf.h:160",
                                        f"{_C}kernel_operator_vec_cmpsel_intf.h:139"),
                    "CompareScalar/7": (f"{_D}kernel_operator_vec_cmpsel_intf.h:134",
                                        f"{_C}kernel_operator_vec_cmpsel_intf.h:120")}),
)
