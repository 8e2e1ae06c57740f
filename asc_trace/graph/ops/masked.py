"""The mask / repeat form of vector ops (`Add(dst, src0, src1, mask, repeatTime, BinaryRepeatParams)`):
`repeat` iterations over 8 data blocks of 32 bytes each, blocks and repeats placed by strides (in
blocks), elements selected by the mask (docs/facts.md#facts-5). Shared by the families that have this form."""
from __future__ import annotations

from typing import Any

from ..expr import Const, Expr, binop
from ..params import BinaryRepeatParams

BLOCKS = 8


def strides(node: Any) -> list[tuple[Expr, Expr]]:
    """(block stride, repeat stride) per tensor operand, in the operand order dst, src0[, src1]."""
    p = node.args[-1]
    if isinstance(p, BinaryRepeatParams):
        return [(p.dst_blk_stride, p.dst_rep_stride), (p.src0_blk_stride, p.src0_rep_stride),
                (p.src1_blk_stride, p.src1_rep_stride)]
    return [(p.dst_blk_stride, p.dst_rep_stride), (p.src_blk_stride, p.src_rep_stride)]


def last_lane(mask: Any, per_rep: int) -> int | None:
    """The highest lane a mask selects in a repeat (None: not known while tracing). A count past the repeat
    selects the whole repeat, as the vendor's SetMask(len) does."""
    if mask is None:
        return None
    if getattr(mask, "bits", None) is not None:
        word = (mask.bits[0] | (mask.bits[1] << 64)) & ((1 << per_rep) - 1)
        return word.bit_length() - 1 if word else None
    count = getattr(mask, "count", None)
    if isinstance(count, Const) and isinstance(count.value, int) and count.value >= 1:
        return min(count.value, per_rep) - 1
    return None


def envelope(dtype: Any, repeat: Expr, blk: Expr, rep: Expr, last: int) -> Expr:
    """Elements from the first to past the last one a masked operand can touch: lane `last` (the highest
    selected) is in the operand's block `last // (32 / sizeof)`, and the blocks after it are not touched."""
    own = 32 // dtype.itemsize
    end = binop("+", binop("*", binop("-", repeat, Const(1)), rep), binop("*", Const(last // own), blk))
    return binop("max", Const(0), binop("*", binop("+", end, Const(1)), Const(own)))


def mask_accesses(node: Any, reads_dst: bool = False) -> list:
    """Accesses of a masked op: each operand's strided envelope up to the block of the last selected lane."""
    from ..node import TensorRef
    tensors = [a for a in node.args if isinstance(a, TensorRef)]
    repeat = node.args[-2]
    sdt = node.attr("src_dtype") or tensors[0].dtype
    per_block = 32 // sdt.itemsize
    per_rep = BLOCKS * per_block
    last = last_lane(node.args[-3], per_rep)
    last = per_rep - 1 if last is None else last
    out = []
    for i, (ref, (blk, rep)) in enumerate(zip(tensors, strides(node))):
        out.append((ref, Const(0), envelope(ref.dtype, repeat, blk, rep, last), i == 0))
    if node.attr("reads_dst") or reads_dst:
        out.append((tensors[0], Const(0), envelope(tensors[0].dtype, repeat, *strides(node)[0], last), False))
    return out


# The mask / repeat form's Ascend C call per family ({c}: the op's C name; masked ops of every family read
# their fields from `mask_fields`).
BINARY_MASK_EMIT = "AscendC::{c}({dst}, {src0}, {src1}, {mask}, {repeat}, {params});"
UNARY_MASK_EMIT = "AscendC::{c}({dst}, {src0}, {mask}, {repeat}, {params});"
SCALAR_MASK_EMIT = "AscendC::{c}({dst}, {src0}, {scalar}, {mask}, {repeat}, {params});"
# Duplicate's mask form takes the dst strides as two numbers (kept as a UnaryRepeatParams's dst half)
DUPLICATE_MASK_EMIT = "AscendC::Duplicate({dst}, {scalar}, {mask}, {repeat}, {dst_blk}, {dst_rep});"


def mask_fields(ctx: Any, n: Any) -> dict[str, str]:
    """The fields of a mask-form template: dst, sources, the mask (a count or a uint64_t[2] array the
    emitter declares first), the repeat time and the repeat-params struct with each field cast to its
    C type."""
    from ..node import TensorRef
    a = n.args
    p = a[-1]
    if isinstance(p, BinaryRepeatParams):
        names = ["dst_blk_stride", "src0_blk_stride", "src1_blk_stride", "dst_rep_stride", "src0_rep_stride",
                 "src1_rep_stride"]
        casts = ["uint8_t"] * 6
    else:
        names = ["dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride"]
        casts = ["uint16_t", "uint16_t", "uint8_t", "uint8_t"]
    params = f"AscendC::{type(p).__name__}(" + ", ".join(
        ctx.cast(getattr(p, f), c) for f, c in zip(names, casts)) + ")"
    out = {"dst": ctx.ref(a[0]), "mask": ctx.mask(n, a[-3]), "repeat": ctx.cast(a[-2], "uint8_t"), "params": params}
    if not isinstance(a[1], TensorRef):     # Duplicate: dst, scalar, mask, repeat, params
        out.update(scalar=ctx.scalar(a[1], n.attr("dtype")), dst_blk=ctx.cast(p.dst_blk_stride, "uint16_t"),
                   dst_rep=ctx.cast(p.dst_rep_stride, "uint8_t"))
        return out
    out["src0"] = ctx.ref(a[1])
    if len(a) == 5:     # unary: dst, src, mask, repeat, params
        return out
    if isinstance(a[2], TensorRef):
        out["src1"] = ctx.ref(a[2])
    else:               # a scalar-family op: the scalar has the element type of its source
        out["scalar"] = ctx.scalar(a[2], n.attr("src_dtype") or n.attr("dtype"))
    return out
