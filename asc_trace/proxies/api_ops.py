"""Kernel-side functions of the op families beyond plain element-wise math: Cast, reductions,
Compare / Select, DataCopyPad, scalar access to the UB and DumpTensor (pyasc names and order)."""
from __future__ import annotations

from typing import Any, Callable

from ..enums import ReduceOrder, RoundMode, member
from ..errors import AlignmentError, DTypeError, TraceError
from ..graph.expr import Const
from ..graph.node import Pipe, make_attrs
from ..graph.ops import OpDef
from ..graph.ops.vec_cast import CAST_PAIRS
from ..graph.params import DataCopyExtParams, DataCopyPadExtParams, ShapeInfo
from ..graph.source_loc import SourceLoc
from ..graph.params import UnaryRepeatParams
from .api_cmpsel import make_compare, make_select
from .api_forms import UNARY_FORMS, Form, bind_form, check_set_mask, given
from .api_vec_more import repeat_time_arg, strict_mask
from .atomic import store_atomic
from .context import current
from .operands import enum_arg, check_same_dtype, check_supported, copy_pipe, count_expr, mask_arg, scalar_for
from .scalar import to_expr
from .source_loc import user_loc
from .tensors import tensor_ref, vec_operand


_enum = enum_arg   # proxies/operands.py


def _make_cast(op: OpDef) -> Callable[..., None]:
    def cast(dst: Any, src: Any, round_mode: Any, *args: Any, count: Any = None, mask: Any = None,
             repeat_times: Any = None, repeat_params: Any = None, is_set_mask: bool = True) -> None:
        """`Cast(dst, src, RoundMode, count)`: convert `count` elements to dst's type, rounding as `round_mode`;
        or the mask form `(dst, src, RoundMode, mask, repeat_times, UnaryRepeatParams)`, a repeat being 256 bytes
        of the wider type."""
        ctx = current("asc.cast")
        loc = user_loc()
        d = vec_operand(dst, "dst", "cast", loc)
        s = vec_operand(src, "src", "cast", loc)
        mode = _enum(RoundMode, round_mode, "the rounding mode", loc)
        key = (s.dtype.name, d.dtype.name)
        allowed = CAST_PAIRS.get(key)
        if allowed is None:
            pairs = ", ".join(f"{a}->{b}" for a, b in sorted(CAST_PAIRS))
            raise DTypeError(f"asc.cast from {s.dtype} to {d.dtype} is not supported on Atlas A2", loc,
                             hint=f"supported: {pairs}")
        name = mode.name[5:].lower()
        if name not in allowed:
            modes = ", ".join(f"CAST_{m.upper()}" for m in sorted(allowed))
            raise DTypeError(f"asc.cast {s.dtype} -> {d.dtype} does not take RoundMode.{mode.name}", loc,
                             hint=f"use one of {modes}")
        form, bound = bind_form("cast", "dst, src, round_mode", args,
                                given(count=count, mask=mask, repeat_times=repeat_times, repeat_params=repeat_params,
                                      is_set_mask=is_set_mask), UNARY_FORMS, loc)
        check_set_mask("cast", form, bound["is_set_mask"], loc)
        if form == "count":
            ctx.record("cast", (d, s, mode, count_expr(bound["count"], loc)), loc, Pipe.V, make_attrs(dtype=d.dtype))
            return
        p = bound["repeat_params"]
        if not isinstance(p, UnaryRepeatParams):
            raise TraceError("the repeat_params of asc.cast's mask form are an asc.UnaryRepeatParams", loc)
        wider = s.dtype if s.dtype.itemsize >= d.dtype.itemsize else d.dtype
        rep = count_expr(bound["repeat_times"], loc, "repeat time")
        if isinstance(rep, Const) and rep.value > 255:
            raise TraceError(f"repeat_time is at most 255, got {rep.value}", loc)
        ctx.record("cast", (d, s, mode, mask_arg(bound["mask"], wider, loc), rep, p), loc, Pipe.V,
                   make_attrs(dtype=d.dtype, mask_form=True))
    return cast


def _make_reduce(op: OpDef) -> Callable[..., None]:
    def reduce(dst: Any, src: Any, shared_tmp_buffer: Any, *args: Any, count: Any = None, mask: Any = None,
               repeat_time: Any = None, src_rep_stride: Any = None, cal_index: Any = None) -> None:
        ctx = current(f"asc.{op.name}")
        loc = user_loc()
        refs = [vec_operand(t, n, op.name, loc) for t, n in ((dst, "dst"), (src, "src"),
                                                             (shared_tmp_buffer, "shared_tmp_buffer"))]
        dtype = check_same_dtype(op.name, refs, ["dst", "src", "shared_tmp_buffer"], loc)
        check_supported(op, dtype, loc)
        forms = _REDUCE_FORMS[op.name == "reduce_sum"]
        form, bound = bind_form(op.name, "dst, src, shared_tmp_buffer", args,
                                {k: v for k, v in (("count", count), ("mask", mask), ("repeat_time", repeat_time),
                                                   ("src_rep_stride", src_rep_stride), ("cal_index", cal_index))
                                 if v is not None}, forms, loc)
        index = bound.get("cal_index", False)
        if not isinstance(index, bool):
            raise TraceError("cal_index must be True or False", loc)
        if form == "count":
            ctx.record(op.name, (*refs, count_expr(bound["count"], loc)), loc, Pipe.V,
                       make_attrs(dtype=dtype, cal_index=index or None))
            return
        # the mask form (ReduceRepeatParams): repeat_time repeats srcRepStride blocks apart, the mask's lanes of each
        args_ = (*refs, strict_mask(bound["mask"], dtype, op.name, loc), repeat_time_arg(bound["repeat_time"], loc),
                 count_expr(bound["src_rep_stride"], loc, "src_rep_stride"))
        ctx.record(op.name, args_, loc, Pipe.V, make_attrs(dtype=dtype, cal_index=index or None, mask_form=True))
    reduce.__doc__ = (f"Ascend C {op.c_name}(dst, src, sharedTmpBuffer, count) or its mask form (..., mask, "
                      "repeat_time, src_rep_stride): the result in dst[0]"
                      + ("" if op.name == "reduce_sum" else "; with cal_index=True its index in dst[1] (T's bits)"))
    return reduce


# pyasc's overloads of reduce_sum / reduce_max / reduce_min (asc.language.basic.vec_reduce); reduce_sum has no
# cal_index, so passing one is "no such form" as in pyasc
_REDUCE_FORMS = {
    False: (Form("count", ("count", "cal_index"), (("cal_index", False),)),
            Form("mask", ("mask", "repeat_time", "src_rep_stride", "cal_index"), (("cal_index", False),))),
    True: (Form("count", ("count",)), Form("mask", ("mask", "repeat_time", "src_rep_stride"))),
}


def _make_whole_reduce(op: OpDef) -> Callable[..., None]:
    def whole_reduce(dst: Any, src: Any, mask: Any, repeat_time: Any, dst_rep_stride: Any, src_blk_stride: Any,
                     src_rep_stride: Any, order: Any = ReduceOrder.ORDER_VALUE_INDEX, is_set_mask: bool = True) -> None:
        ctx = current(f"asc.{op.name}")
        loc = user_loc()
        refs = [vec_operand(t, n, op.name, loc) for t, n in ((dst, "dst"), (src, "src"))]
        dtype = check_same_dtype(op.name, refs, ["dst", "src"], loc)
        check_supported(op, dtype, loc)
        order_e = _enum(ReduceOrder, order, "order", loc)
        args = (*refs, mask_arg(mask, dtype, loc), count_expr(repeat_time, loc, "repeat time"),
                count_expr(dst_rep_stride, loc, "dst_rep_stride"), count_expr(src_blk_stride, loc, "src_blk_stride"),
                count_expr(src_rep_stride, loc, "src_rep_stride"))
        ctx.record(op.name, args, loc, Pipe.V,
                   make_attrs(dtype=dtype, order=None if op.name == "whole_reduce_sum" else int(order_e)))
    whole_reduce.__doc__ = f"Ascend C {op.c_name}: one result per 256-byte repeat."
    return whole_reduce


FAMILY_BUILDERS: dict[str, Callable[[OpDef], Callable[..., Any]]] = {
    "vec_cast": _make_cast,
    "vec_reduce": _make_reduce,
    "vec_whole_reduce": _make_whole_reduce,
    "vec_cmpsel": lambda op: make_compare(op) if op.name == "compare" else make_select(op),   # api_cmpsel.py
}


# -- DataCopyPad --------------------------------------------------------------------------------

def data_copy_pad(dst: Any, src: Any, data_copy_params: Any, pad_params: Any = None) -> None:
    """`asc.data_copy_pad(dst, src, asc.DataCopyExtParams(...)[, asc.DataCopyPadExtParams(...)])`: copy
    `block_count` blocks of `block_len` bytes (any multiple of the element size). GM -> UB: each block
    starts a 32-byte aligned UB row, padded on the left / right by `pad_params`. UB -> GM: exactly
    `block_len` bytes per block are written.

    Raises:
        TraceError: wrong parameter structs, or padding on a UB -> GM copy.
    """
    ctx = current("asc.data_copy_pad")
    loc = user_loc()
    d = tensor_ref(dst, "the destination of asc.data_copy_pad")
    s = tensor_ref(src, "the source of asc.data_copy_pad")
    pipe = copy_pipe(d, s, "asc.data_copy_pad", loc)
    if pipe is Pipe.V:
        raise TraceError("asc.data_copy_pad copies between GM and the UB; for UB -> UB use asc.data_copy", loc)
    dtype = check_same_dtype("data_copy_pad", [d, s], ["dst", "src"], loc)
    if not isinstance(data_copy_params, DataCopyExtParams):
        raise TraceError("asc.data_copy_pad takes asc.DataCopyExtParams(block_count, block_len_bytes, src_stride, "
                         "dst_stride, rsv)", loc)
    if pad_params is not None and not isinstance(pad_params, DataCopyPadExtParams):
        raise TraceError("the padding of asc.data_copy_pad is asc.DataCopyPadExtParams(is_pad, left, right, value)",
                         loc)
    if pad_params is not None and d.space == "gm":
        raise TraceError("padding applies to GM -> UB copies only", loc)
    p = data_copy_params
    if isinstance(p.block_len, Const) and p.block_len.value % dtype.itemsize:
        raise AlignmentError(f"block_len of asc.data_copy_pad is {p.block_len.value} bytes, not a multiple of "
                             f"sizeof({dtype}) = {dtype.itemsize}", loc)
    if pad_params is not None:
        pv = scalar_for(dtype, pad_params.padding_value, "data_copy_pad", loc)
        pad_params = DataCopyPadExtParams(pad_params.is_pad, pad_params.left_padding, pad_params.right_padding, pv)
    if pipe is Pipe.MTE3 and store_atomic(dtype, loc) is not None:
        raise TraceError("an atomic store by asc.data_copy_pad is not modelled", loc,
                         hint="store with asc.data_copy(dst, src, count), or call asc.set_atomic_none() before this copy")
    ctx.record("data_copy_pad", (d, s, p, pad_params), loc, pipe, make_attrs(dtype=dtype))


# -- scalar access to the UB ----------------------------------------------------------------------

# -- DumpTensor ---------------------------------------------------------------------------------

def dump_tensor(tensor: Any, desc: Any, dump_size: Any, shape_info: Any = None) -> None:
    """`DumpTensor(tensor, desc, dump_size[, ShapeInfo])`: print `dump_size` elements, tagged with the core;
    with a ShapeInfo, as a matrix of that shape with `-` where the data runs out."""
    ctx = current("asc.dump_tensor")
    loc = user_loc()
    ref = tensor_ref(tensor, "the tensor of asc.dump_tensor")
    d = to_expr(desc, "desc")
    if not isinstance(d, Const) or not isinstance(d.value, int):
        raise TraceError("dump_tensor's desc is a Python int known while tracing", loc)
    if shape_info is not None and not isinstance(shape_info, ShapeInfo):
        raise TraceError("dump_tensor's shape_info is an asc.ShapeInfo", loc)
    ctx.record("dump_tensor", (ref, d, count_expr(dump_size, loc, "dump size"), shape_info), loc, Pipe.S,
               make_attrs(dtype=ref.dtype))


__all__ = ["data_copy_pad", "dump_tensor"]
