"""Kernel-side functions of pyasc's vector op families beyond the element-wise ones: the block, pair and
repeat reductions (pyasc names, argument order and keywords)."""
from __future__ import annotations

import inspect
from typing import Any, Callable

from ..errors import TraceError
from ..graph.expr import Const, Expr
from ..graph.node import Pipe, make_attrs
from ..graph.ops import REGISTRY, OpDef
from ..graph.params import Mask
from ..graph.source_loc import SourceLoc
from .api import check_same_dtype, check_supported, count_expr, mask_arg, vec_operand
from .api_forms import check_set_mask
from .context import current
from .source_loc import user_loc


def repeat_time(value: Any, loc: SourceLoc) -> Expr:
    """A repeat time: 0..255 (the vector instructions' 8-bit field)."""
    e = count_expr(value, loc, "repeat time")
    if isinstance(e, Const) and e.value > 255:
        raise TraceError(f"repeat_time is at most 255, got {e.value}", loc)
    return e


def strict_mask(mask: Any, dtype: Any, opname: str, loc: SourceLoc) -> Mask:
    """A mask-form mask whose count is at most one repeat's elements: these APIs check it (asc-devkit
    CheckMaskValue, in CPU-debug mode) rather than saturating as SetMask(len) does."""
    m = mask_arg(mask, dtype, loc)
    per_rep = 256 // dtype.itemsize
    if isinstance(m.count, Const) and m.count.value > per_rep:
        raise TraceError(f"the mask count of asc.{opname} on {dtype} is 1..{per_rep} (the elements of one repeat), "
                         f"got {m.count.value}", loc)
    return m


def _check_pairs(m: Mask, per_rep: int, loc: SourceLoc) -> None:
    """PairReduceSum adds whole pairs: a mask that selects one lane of a pair has no documented result."""
    if m.bits is not None:
        word = (m.bits[0] | (m.bits[1] << 64)) & ((1 << per_rep) - 1)
        split = [i for i in range(0, per_rep, 2) if ((word >> i) & 1) != ((word >> (i + 1)) & 1)]
        lanes = f"({split[0]}, {split[0] + 1})" if split else ""
    elif isinstance(m.count, Const) and m.count.value < per_rep and m.count.value % 2:
        lanes = f"({m.count.value - 1}, {m.count.value})"
    else:
        return
    if lanes:
        raise TraceError(f"the mask of asc.pair_reduce_sum selects one lane of the pair {lanes}; PairReduceSum adds "
                         "whole pairs", loc, hint="select both lanes of each pair (an even mask count)")


def pyasc_signature(fn: Callable[..., Any], heads: list[str], names: list[str], defaults: dict[str, Any]) -> None:
    """Show pyasc's parameters (the tensors, then `names`) as the function's signature in help() and the API
    reference: the function itself takes them as *args / **kw to give pyasc's own errors."""
    P = inspect.Parameter
    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [P(h, P.POSITIONAL_OR_KEYWORD) for h in heads]
        + [P(n, P.POSITIONAL_OR_KEYWORD, default=defaults.get(n, P.empty)) for n in names], return_annotation=None)


def _make_block_reduce(op: OpDef) -> Callable[..., None]:
    repeat_kw = "repeat" if op.name.startswith("block_") else "repeat_time"
    names = [repeat_kw, "mask"] + (["dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride"]
                                   if op.name == "repeat_reduce_sum" else
                                   ["dst_rep_stride", "src_blk_stride", "src_rep_stride"]) + ["is_set_mask"]

    def fn(dst: Any, src: Any, *args: Any, **kw: Any) -> None:
        ctx = current(f"asc.{op.name}")
        loc = user_loc()
        bound = _bind(op.name, names, args, kw, loc)
        refs = [vec_operand(t, n, op.name, loc) for t, n in ((dst, "dst"), (src, "src"))]
        dtype = check_same_dtype(op.name, refs, ["dst", "src"], loc)
        check_supported(op, dtype, loc)
        check_set_mask(op.name, "mask", bound.get("is_set_mask", True), loc)
        if op.name == "repeat_reduce_sum" and isinstance(bound["mask"], (list, tuple)):
            raise TraceError("asc.repeat_reduce_sum takes the mask as a count of elements per repeat (no bit mask)",
                             loc, hint="use asc.whole_reduce_sum for a bit mask")
        m = strict_mask(bound["mask"], dtype, op.name, loc)
        if op.name == "pair_reduce_sum":
            _check_pairs(m, 256 // dtype.itemsize, loc)
        strides = tuple(count_expr(bound[k], loc, k) for k in ("dst_rep_stride", "src_blk_stride", "src_rep_stride"))
        extra = (count_expr(bound["dst_blk_stride"], loc, "dst_blk_stride"),) if op.name == "repeat_reduce_sum" else ()
        ctx.record(op.name, (*refs, m, repeat_time(bound[repeat_kw], loc), *strides, *extra), loc, Pipe.V,
                   make_attrs(dtype=dtype))
    fn.__doc__ = (f"Ascend C {op.c_name}(dst, src, {repeat_kw}, mask, "
                  + ("dst_blk_stride, src_blk_stride, dst_rep_stride, src_rep_stride" if op.name == "repeat_reduce_sum"
                     else "dst_rep_stride, src_blk_stride, src_rep_stride") + "), positionally or by pyasc's keywords.")
    pyasc_signature(fn, ["dst", "src"], names, {"is_set_mask": True})
    return fn


def _bind(opname: str, names: list[str], args: tuple, kw: dict[str, Any], loc: SourceLoc) -> dict[str, Any]:
    """pyasc's arguments after the tensors, by position then keyword; all but is_set_mask are required."""
    if len(args) > len(names):
        raise TraceError(f"asc.{opname} takes {len(names)} arguments after the tensors ({', '.join(names)}), "
                         f"got {len(args)}", loc)
    bound = dict(zip(names, args))
    for k, v in kw.items():
        if k not in names:
            raise TraceError(f"asc.{opname} got an unexpected keyword argument {k!r}", loc,
                             hint=f"its arguments after the tensors are {', '.join(names)}")
        if k in bound:
            raise TraceError(f"asc.{opname} got {k!r} both by position and by keyword", loc)
        bound[k] = v
    missing = [n for n in names if n not in bound and n != "is_set_mask"]
    if missing:
        raise TraceError(f"asc.{opname} is missing {', '.join(missing)}", loc)
    return bound


FAMILY_BUILDERS: dict[str, Callable[[OpDef], Callable[..., Any]]] = {
    "vec_block_reduce": _make_block_reduce,
}


def build_further_api() -> dict[str, Callable[..., Any]]:
    """`asc.<name>` for every record of the families above (as api.build_vector_api does for the others)."""
    out: dict[str, Callable[..., Any]] = {}
    for op in REGISTRY.values():
        builder = FAMILY_BUILDERS.get(op.family)
        if builder is not None:
            fn = builder(op)
            fn.__name__ = fn.__qualname__ = op.name
            out[op.name] = fn
    return out
