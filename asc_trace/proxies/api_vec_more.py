"""Kernel-side functions of pyasc's vector op families beyond the element-wise ones: the block, pair and
repeat reductions (pyasc names, argument order and keywords)."""
from __future__ import annotations

import inspect
from typing import Any, Callable

from ..enums import CMPMODE, member
from ..errors import DTypeError, TraceError
from ..dtypes import float16, float32
from ..graph.expr import Const, Expr, binop
from ..graph.node import Pipe, make_attrs
from ..graph.ops import OpDef
from ..graph.ops.vec_cmpsel import check_count_256
from ..graph.params import Mask, UnaryRepeatParams
from ..graph.params_vec import (BrcbRepeatParams, CopyRepeatParams, GatherMaskMode, GatherMaskParams,
                                GatherRepeatParams)
from ..graph.source_loc import SourceLoc
from .operands import check_same_dtype, check_supported, count_expr, mask_arg, scalar_for
from .tensors import vec_operand
from .api_forms import UNARY_FORMS, Form, bind_form, check_set_mask, given
from .api_record import make_record_call
from .context import current
from .scalar import Scalar
from .source_loc import user_loc
from .api_families import api_for_families


def repeat_time_arg(value: Any, loc: SourceLoc) -> Expr:
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
        ctx.record(op.name, (*refs, m, repeat_time_arg(bound[repeat_kw], loc), *strides, *extra), loc, Pipe.V,
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


def _make_copy(op: OpDef) -> Callable[..., None]:
    def copy(dst: Any, src: Any, mask: Any, repeat_time: Any, repeat_params: Any, is_set_mask: bool = True) -> None:
        """`Copy(dst, src, mask, repeatTime, CopyRepeatParams)`: a UB -> UB copy in the mask / repeat form, on
        the vector pipe; strides in 32-byte blocks."""
        ctx = current("asc.copy")
        loc = user_loc()
        refs = [vec_operand(t, n, "copy", loc) for t, n in ((dst, "dst"), (src, "src"))]
        dtype = check_same_dtype("copy", refs, ["dst", "src"], loc)
        check_supported(op, dtype, loc)
        check_set_mask("copy", "mask", is_set_mask, loc)
        if not isinstance(repeat_params, CopyRepeatParams):
            raise TraceError("the repeat_params of asc.copy are an asc.CopyRepeatParams(dst_stride, src_stride, "
                             "dst_repeat_size, src_repeat_size)", loc)
        p = repeat_params
        strides = UnaryRepeatParams(p.dst_stride, p.src_stride, p.dst_repeat_size, p.src_repeat_size)
        ctx.record("copy", (*refs, mask_arg(mask, dtype, loc), repeat_time_arg(repeat_time, loc), strides), loc,
                   Pipe.V, make_attrs(dtype=dtype))
    return copy


def _make_brcb(op: OpDef) -> Callable[..., None]:
    def brcb(dst: Any, src0: Any, repeat_times: Any, repeat_params: Any) -> None:
        """`Brcb(dst, src0, repeatTime, BrcbRepeatParams)`: per repeat, 8 consecutive src0 elements, each
        broadcast into one 32-byte block of dst (block and repeat strides in blocks)."""
        ctx = current("asc.brcb")
        loc = user_loc()
        refs = [vec_operand(t, n, "brcb", loc) for t, n in ((dst, "dst"), (src0, "src0"))]
        dtype = check_same_dtype("brcb", refs, ["dst", "src0"], loc)
        check_supported(op, dtype, loc)
        if not isinstance(repeat_params, BrcbRepeatParams):
            raise TraceError("the repeat_params of asc.brcb are an asc.BrcbRepeatParams(dst_blk_stride, "
                             "dst_rep_stride)", loc)
        ctx.record("brcb", (*refs, repeat_time_arg(repeat_times, loc), repeat_params), loc, Pipe.V,
                   make_attrs(dtype=dtype))
    return brcb


def _make_compare_scalar(op: OpDef) -> Callable[..., None]:
    def compare_scalar(dst: Any, src0: Any, src1_scalar: Any, cmp_mode: Any, *args: Any, count: Any = None,
                       mask: Any = None, repeat_times: Any = None, repeat_params: Any = None,
                       is_set_mask: bool = True) -> None:
        """`CompareScalar(dst, src0, scalar, CMPMODE, count)` or its mask form `(..., mask, repeat_times,
        UnaryRepeatParams)`: bit i of the uint8 dst = (src0[i] OP scalar)."""
        ctx = current("asc.compare_scalar")
        loc = user_loc()
        d = vec_operand(dst, "dst", "compare_scalar", loc)
        s = vec_operand(src0, "src0", "compare_scalar", loc)
        check_supported(op, s.dtype, loc)
        try:
            mode = member(CMPMODE, cmp_mode)
        except (ValueError, TypeError):
            raise TraceError(f"cmp_mode must be an asc.CMPMODE, got {cmp_mode!r}", loc) from None
        if s.dtype.name == "int32" and mode != CMPMODE.EQ:
            raise DTypeError("asc.compare_scalar on int32 supports only CMPMODE.EQ on Atlas A2", loc)
        if d.dtype.name != "uint8":
            raise DTypeError(f"asc.compare_scalar writes a uint8 bit mask; dst is {d.dtype}", loc)
        sc = scalar_for(s.dtype, src1_scalar, "compare_scalar", loc)
        form, bound = bind_form("compare_scalar", "dst, src0, src1_scalar, cmp_mode", args,
                                given(count=count, mask=mask, repeat_times=repeat_times, repeat_params=repeat_params,
                                      is_set_mask=is_set_mask), UNARY_FORMS, loc)
        check_set_mask("compare_scalar", form, bound["is_set_mask"], loc)
        if form == "count":
            n = count_expr(bound["count"], loc)
            if isinstance(n, Const):
                check_count_256("compare_scalar", n.value, s.dtype, loc=loc)
            ctx.record("compare_scalar", (d, s, sc, mode, n), loc, Pipe.V, make_attrs(dtype=s.dtype))
            return
        p = bound["repeat_params"]
        if not isinstance(p, UnaryRepeatParams):
            raise TraceError("the repeat_params of asc.compare_scalar are an asc.UnaryRepeatParams", loc)
        m = mask_arg(bound["mask"], s.dtype, loc)
        per_rep = 256 // s.dtype.itemsize
        partial = (m.bits is not None and (m.bits[0] | (m.bits[1] << 64)) & ((1 << per_rep) - 1) != (1 << per_rep) - 1
                   or isinstance(m.count, Const) and m.count.value < per_rep)
        if partial:
            raise TraceError(f"asc.compare_scalar's mask form compares every lane of a repeat on Atlas A2: the "
                             f"vendor's CompareScalar does not apply the mask it is given (asc-devkit dav_c220 "
                             f"VcmpvsImpl), so a mask selecting fewer than the {per_rep} {s.dtype} lanes would be "
                             "silently ignored", loc,
                             hint=f"pass mask={per_rep} (or all bits set) and read only the bits you need")
        ctx.record("compare_scalar", (d, s, sc, mode, m,
                                      repeat_time_arg(bound["repeat_times"], loc), p), loc, Pipe.V,
                   make_attrs(dtype=s.dtype, mask_form=True))
    return compare_scalar


_GATHER_FORMS = (Form("count", ("count",)), Form("mask", ("mask", "repeat_times", "dst_rep_stride")))


def _src_len(src: Any) -> Expr:
    """The elements from the source view's start to the end of its buffer: a gather may read any of them."""
    from .scalar import to_expr
    return to_expr(src.get_size(), "the source's size")


def _offsets(t: Any, what: str, opname: str, loc: SourceLoc) -> Any:
    r = vec_operand(t, what, opname, loc)
    if r.dtype.name != "uint32":
        raise DTypeError(f"the {what} of asc.{opname} holds uint32 byte offsets; it is {r.dtype}", loc)
    return r


def _make_gather(op: OpDef) -> Callable[..., None]:
    if op.name == "gatherb":
        def gatherb(dst: Any, src0: Any, offset: Any, repeat_times: Any, repeat_params: Any) -> None:
            """`Gatherb(dst, src0, offset, repeatTime, GatherRepeatParams)`: per repeat, 8 uint32 byte offsets
            (multiples of 32) each pick a 32-byte block of src0 for one dst block."""
            ctx = current("asc.gatherb")
            loc = user_loc()
            refs = [vec_operand(t, n, "gatherb", loc) for t, n in ((dst, "dst"), (src0, "src0"))]
            dtype = check_same_dtype("gatherb", refs, ["dst", "src0"], loc)
            check_supported(op, dtype, loc)
            if not isinstance(repeat_params, GatherRepeatParams):
                raise TraceError("the repeat_params of asc.gatherb are an asc.GatherRepeatParams(dst_blk_stride, "
                                 "dst_rep_stride)", loc)
            ctx.record("gatherb", (*refs, _offsets(offset, "offset", "gatherb", loc), _src_len(src0),
                                   repeat_time_arg(repeat_times, loc), repeat_params), loc, Pipe.V,
                       make_attrs(dtype=dtype))
        return gatherb

    def gather(dst: Any, src: Any, src_offset: Any, src_base: Any, *args: Any, count: Any = None, mask: Any = None,
               repeat_times: Any = None, dst_rep_stride: Any = None) -> None:
        """`Gather(dst, src, srcOffset, srcBaseOffset, count)`: dst[i] = the element at byte src_base +
        src_offset[i] of src; or the mask form `(..., mask, repeat_times, dst_rep_stride)`."""
        ctx = current("asc.gather")
        loc = user_loc()
        refs = [vec_operand(t, n, "gather", loc) for t, n in ((dst, "dst"), (src, "src"))]
        dtype = check_same_dtype("gather", refs, ["dst", "src"], loc)
        check_supported(op, dtype, loc)
        offs = _offsets(src_offset, "src_offset", "gather", loc)
        base = count_expr(src_base, loc, "src_base")
        if isinstance(base, Const) and base.value % dtype.itemsize:
            raise TraceError(f"src_base of asc.gather is {base.value} bytes, not a multiple of sizeof({dtype})", loc)
        kw = {k: v for k, v in (("count", count), ("mask", mask), ("repeat_times", repeat_times),
                                ("dst_rep_stride", dst_rep_stride)) if v is not None}
        form, bound = bind_form("gather", "dst, src, src_offset, src_base", args, kw, _GATHER_FORMS, loc)
        head = (*refs, offs, base, _src_len(src))
        if form == "count":
            ctx.record("gather", (*head, count_expr(bound["count"], loc)), loc, Pipe.V, make_attrs(dtype=dtype))
            return
        ctx.record("gather", (*head, mask_arg(bound["mask"], dtype, loc), repeat_time_arg(bound["repeat_times"], loc),
                              count_expr(bound["dst_rep_stride"], loc, "dst_rep_stride")), loc, Pipe.V,
                   make_attrs(dtype=dtype, mask_form=True))
    return gather


class _CountNotReadBack(Scalar):
    """What asc.gather_mask returns for a tensor pattern: how many elements it selected is data in a register
    the scalar unit would read back (RSVD_CNT), which asc_trace does not model; any use of it is refused."""

    __slots__ = ()

    def __init__(self) -> None:
        pass

    @property  # type: ignore[override]
    def expr(self) -> Expr:
        raise TraceError("the count asc.gather_mask returns for a tensor pattern is data (the RSVD_CNT register "
                         "the scalar unit reads back), which asc_trace does not model", user_loc(),
                         hint="use a built-in pattern (1-7), whose count is known, or count the pattern's bits "
                              "another way")


def _make_gather_mask(op: OpDef) -> Callable[..., Any]:
    def gather_mask(dst: Any, src0: Any, src1_pattern: Any, reduce_mode: Any, mask: Any, params: Any,
                    gather_mask_mode: Any = GatherMaskMode.DEFAULT) -> Any:
        """`GatherMask(dst, src0, src1Pattern, reduceMode, mask, GatherMaskParams, rsvdCnt)` in normal mode: the
        elements of each repeat of src0 whose pattern bit is 1, packed into dst; returns how many (for a built-in
        pattern 1-7; a tensor pattern's count is data asc_trace does not read back)."""
        ctx = current("asc.gather_mask")
        loc = user_loc()
        refs = [vec_operand(t, n, "gather_mask", loc) for t, n in ((dst, "dst"), (src0, "src0"))]
        dtype = check_same_dtype("gather_mask", refs, ["dst", "src0"], loc)
        check_supported(op, dtype, loc)
        if reduce_mode is not False:
            raise TraceError("asc.gather_mask with reduce_mode=True (counter mode) is not provided: its mask counts "
                             "the elements of all repeats together", loc, hint="use reduce_mode=False (normal mode)")
        if GatherMaskMode(gather_mask_mode) != GatherMaskMode.DEFAULT:
            raise TraceError("gather_mask_mode is GatherMaskMode.DEFAULT", loc)
        if not isinstance(params, GatherMaskParams):
            raise TraceError("the params of asc.gather_mask are an asc.GatherMaskParams(src0_block_stride, "
                             "repeat_times, src0_repeat_stride, src1_repeat_stride)", loc)
        count_expr(mask, loc, "mask")          # not used in normal mode, but still an integer
        if isinstance(src1_pattern, int):
            if not 1 <= src1_pattern <= 7:
                raise TraceError(f"a built-in src1_pattern is 1..7, got {src1_pattern}", loc)
            pattern: Any = src1_pattern
        else:
            pattern = vec_operand(src1_pattern, "src1_pattern", "gather_mask", loc)
            want = "uint16" if dtype.itemsize == 2 else "uint32"
            if pattern.dtype.name != want:
                raise DTypeError(f"the src1_pattern of asc.gather_mask on {dtype} is a {want} tensor of bits, got "
                                 f"{pattern.dtype}", loc)
        ctx.record("gather_mask", (*refs, pattern, params), loc, Pipe.V, make_attrs(dtype=dtype))
        if isinstance(pattern, int):
            from ..graph.ops.vec_gather import builtin_pattern_lanes
            return Scalar(binop("*", params.repeat_times,
                                Const(len(builtin_pattern_lanes(pattern, 256 // dtype.itemsize)))))
        return _CountNotReadBack()
    return gather_mask


FAMILY_BUILDERS: dict[str, Callable[[OpDef], Callable[..., Any]]] = {
    "vec_gather_mask": _make_gather_mask,
    "vec_gather": _make_gather,
    "vec_block_reduce": _make_block_reduce,
    "vec_copy": _make_copy,
    "vec_brcb": _make_brcb,
    "vec_compare_scalar": _make_compare_scalar,
    "vec_record": make_record_call,      # ops whose record states the whole call (graph/ops/record_family.py)
}


# -- sort helpers -----------------------------------------------------------------------------------

def _sorted_units(value: Any, dtype: Any, what: str) -> Any:
    """`value` sort structures in elements of `dtype`: Sort32 / MrgSort write 8 bytes per element (a float32 or
    float16 score and its uint32 index; asc-devkit kernel_operator_proposal_intf_impl.h halfSortedDataSize 4,
    floatSortedDataSize 2)."""
    loc = user_loc()
    if dtype not in (float16, float32):
        raise DTypeError(f"asc.{what} takes dtype asc.float16 or asc.float32 (the score's type), got {dtype!r}", loc)
    e = count_expr(value, loc, "element count" if what == "get_sort_len" else "element offset")
    return Scalar(binop("*", e, Const(8 // dtype.itemsize)))


def get_sort_len(elem_count: Any, dtype: Any = float32) -> Any:
    """Ascend C GetSortLen<T>(elemCount): the length, in elements of T, of `elem_count` sorted (score, index)
    structures (8 bytes each). pyasc calls it with T = float; `dtype=asc.float16` gives the half form."""
    return _sorted_units(elem_count, dtype, "get_sort_len")


def get_sort_offset(elem_offset: Any, dtype: Any = float32) -> Any:
    """Ascend C GetSortOffset<T>(elemOffset): the offset, in elements of T, of the `elem_offset`-th sorted
    structure (8 bytes each). pyasc calls it with T = float; `dtype=asc.float16` gives the half form."""
    return _sorted_units(elem_offset, dtype, "get_sort_offset")


def build_further_api() -> dict[str, Callable[..., Any]]:
    """`asc.<name>` for every record of the families above (as api.build_vector_api does for the others)."""
    return api_for_families(FAMILY_BUILDERS)
