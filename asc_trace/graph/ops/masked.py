"""The mask / repeat form of vector ops (`Add(dst, src0, src1, mask, repeatTime, BinaryRepeatParams)`):
`repeat` iterations over 8 data blocks of 32 bytes each, blocks and repeats placed by strides (in
blocks), elements selected by the mask (docs/facts.md#facts-5). Shared by the families that have this form."""
from __future__ import annotations

from typing import Any

from ..expr import Const, Expr, binop
from ..params import BinaryRepeatParams, UnaryRepeatParams

BLOCKS = 8


def strides(node: Any) -> list[tuple[Expr, Expr]]:
    """(block stride, repeat stride) per tensor operand, in the operand order dst, src0[, src1]."""
    p = node.args[-1]
    if isinstance(p, BinaryRepeatParams):
        return [(p.dst_blk_stride, p.dst_rep_stride), (p.src0_blk_stride, p.src0_rep_stride),
                (p.src1_blk_stride, p.src1_rep_stride)]
    return [(p.dst_blk_stride, p.dst_rep_stride), (p.src_blk_stride, p.src_rep_stride)]


def envelope(dtype: Any, repeat: Expr, blk: Expr, rep: Expr) -> Expr:
    """Elements from the first to past the last one a masked operand can touch."""
    per_block = 32 // dtype.itemsize
    last = binop("+", binop("*", binop("-", repeat, Const(1)), rep), binop("*", Const(BLOCKS - 1), blk))
    return binop("max", Const(0), binop("*", binop("+", last, Const(1)), Const(per_block)))


def mask_accesses(node: Any) -> list:
    """Conservative accesses of a masked op: each operand's whole strided envelope."""
    from ..node import TensorRef
    tensors = [a for a in node.args if isinstance(a, TensorRef)]
    repeat = node.args[-2]
    out = []
    for i, (ref, (blk, rep)) in enumerate(zip(tensors, strides(node))):
        out.append((ref, Const(0), envelope(ref.dtype, repeat, blk, rep), i == 0))
    if node.op == "axpy" or node.attr("reads_dst"):
        out.append((tensors[0], Const(0), envelope(tensors[0].dtype, repeat, *strides(node)[0]), False))
    return out


def is_binary_params(p: Any) -> bool:
    return isinstance(p, BinaryRepeatParams)


def is_unary_params(p: Any) -> bool:
    return isinstance(p, UnaryRepeatParams)
