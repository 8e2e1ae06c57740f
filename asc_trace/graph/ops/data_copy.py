"""Data movement (docs/facts.md#facts-4): `DataCopy` by count or with `DataCopyParams` (blocks of 32 bytes and gaps
between them), and `DataCopyPad` with `DataCopyExtParams` / `DataCopyPadExtParams` for lengths that
are not 32-byte multiples. The pipe follows the direction: GM->UB runs on MTE2, UB->GM on MTE3,
UB->UB on V."""
from __future__ import annotations

from typing import Any

from ...errors import AlignmentError
from ..expr import Const, Expr, binop
from ..params import DataCopyExtParams, DataCopyParams
from .opdef import UNARY_SIMPLE, CppModel, OpDef, VecCost, register


def check_copy_length(count: int, dtype: Any, **where: Any) -> None:
    """DataCopy by count moves whole 32-byte blocks: the hardware silently drops a partial one, so a
    count whose bytes are not a multiple of 32 is refused (`where`: the error's loc= or node=)."""
    nbytes = count * dtype.itemsize
    if nbytes % 32:
        raise AlignmentError(f"asc.data_copy of {count} x {dtype} = {nbytes} bytes is not a multiple of 32 bytes; "
                             f"the hardware would silently copy only {nbytes // 32 * 32} bytes",
                             hint="pad the length to a 32-byte multiple, or copy the tail with asc.data_copy_pad",
                             **where)


def _elems(nbytes: Expr, itemsize: int) -> Expr:
    return binop("//", binop("+", nbytes, Const(itemsize - 1)), Const(itemsize))


def _span(count: Expr, length: Expr, stride: Expr) -> Expr:
    """Bytes from the first block's start to the last block's end."""
    return binop("max", Const(0), binop("+", binop("*", binop("-", count, Const(1)), binop("+", length, stride)),
                                        length))


def roundup32(x: Expr) -> Expr:
    return binop("*", binop("//", binop("+", x, Const(31)), Const(32)), Const(32))


def copy_accesses(node) -> list:
    dst, src, p = node.args[:3]
    if not isinstance(p, DataCopyParams):
        return [(dst, Const(0), p, True), (src, Const(0), p, False)]
    blk = binop("*", p.block_len, Const(32))
    d = _span(p.block_count, blk, binop("*", p.dst_stride, Const(32)))
    s = _span(p.block_count, blk, binop("*", p.src_stride, Const(32)))
    return [(dst, Const(0), _elems(d, dst.dtype.itemsize), True), (src, Const(0), _elems(s, src.dtype.itemsize), False)]


def pad_row_bytes(node) -> Expr:
    """UB bytes of one row of a GM -> UB DataCopyPad: padding + data, rounded up to 32 bytes."""
    dst, src, p, pad = node.args
    size = dst.dtype.itemsize
    left = pad.left_padding if pad is not None else Const(0)
    right = pad.right_padding if pad is not None else Const(0)
    return roundup32(binop("+", p.block_len, binop("*", binop("+", left, right), Const(size))))


def pad_accesses(node) -> list:
    dst, src, p, pad = node.args
    assert isinstance(p, DataCopyExtParams)
    if dst.space == "ub":       # GM -> UB: GM stride in bytes, UB stride in blocks
        d = _span(p.block_count, pad_row_bytes(node), binop("*", p.dst_stride, Const(32)))
        s = _span(p.block_count, p.block_len, p.src_stride)
    else:                       # UB -> GM: UB stride in blocks, GM stride in bytes
        d = _span(p.block_count, p.block_len, p.dst_stride)
        s = _span(p.block_count, roundup32(p.block_len), binop("*", p.src_stride, Const(32)))
    return [(dst, Const(0), _elems(d, dst.dtype.itemsize), True), (src, Const(0), _elems(s, src.dtype.itemsize), False)]


def _copy_fields(ctx, n) -> dict[str, str]:
    a = n.args
    if n.attr("form") == "params":
        p = a[2]
        fields = ", ".join(ctx.cast(getattr(p, f), "uint16_t")
                           for f in ("block_count", "block_len", "src_stride", "dst_stride"))
        return {"dst": ctx.ref(a[0]), "src": ctx.ref(a[1]), "count": f"AscendC::DataCopyParams({fields})"}
    return {"dst": ctx.ref(a[0]), "src": ctx.ref(a[1]), "count": ctx.cast(a[2], "uint32_t")}


_EXT_FIELDS = (("block_count", "uint16_t"), ("block_len", "uint32_t"), ("src_stride", "uint32_t"),
               ("dst_stride", "uint32_t"), ("rsv", "uint32_t"))


def _pad_fields(ctx, n) -> dict[str, str]:
    a = n.args
    dt = n.attr("dtype")
    p, pad = a[2], a[3]
    params = "AscendC::DataCopyExtParams(" + ", ".join(ctx.cast(getattr(p, f), c) for f, c in _EXT_FIELDS) + ")"
    padding = ""
    if a[0].space == "ub":
        if pad is None:
            padding = f", AscendC::DataCopyPadExtParams<{dt.c_name}>()"
        else:
            padding = (f", AscendC::DataCopyPadExtParams<{dt.c_name}>({ctx.cast(pad.is_pad, 'bool')}, "
                       f"{ctx.cast(pad.left_padding, 'uint8_t')}, {ctx.cast(pad.right_padding, 'uint8_t')}, "
                       f"{ctx.scalar(pad.padding_value, dt)})")
    return {"dst": ctx.ref(a[0]), "src": ctx.ref(a[1]), "params": params, "pad": padding}


# A UB -> UB copy runs on the vector pipe; copies to and from GM are costed by the platform (MTE2 / MTE3 rates).
# 1,024 GiB/s per core at 1.85 GHz = 594 B/cycle, so one 256-byte repeat takes 256 / 594 cycles.
UB_COPY = VecCost(UNARY_SIMPLE.startup, 256 / 594.3, "fitted: PTO-ISA cost model for A2: UB -> UB 1,024 GiB/s per "
                  "core at 1.85 GHz (startup assumed as vadds)")

register(
    OpDef("data_copy", "data_copy", None, "DataCopy", emit="AscendC::DataCopy({dst}, {src}, {count});",
          emit_fields=_copy_fields, cpp_model=CppModel(header="DataCopy"), printer="dst", writes=(0,),
          accesses=copy_accesses, cost=UB_COPY, hivm="copy", doc="count form: count * sizeof(T) must be a multiple of 32 bytes"),
    OpDef("data_copy_pad", "data_copy_pad", None, "DataCopyPad", writes=(0,), accesses=pad_accesses, cost=UB_COPY,
          emit="AscendC::DataCopyPad({dst}, {src}, {params}{pad});", emit_fields=_pad_fields,
          cpp_model=CppModel(header="DataCopyPad"), printer="dst", hivm="copy",
          doc="any length; GM->UB rows are padded to 32 bytes in the UB"),
)
