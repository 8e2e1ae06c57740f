"""Kernel-side MrgSort and Sort (graph/ops/vec_mrg_sort.py) with pyasc's names: `asc.MrgSortSrcList(dtype, src1,
src2, src3=None, src4=None)`, `asc.MrgSort4Info(element_lengths, if_exhausted_suspension=False, valid_bit=15,
repeat_times=1)`, `asc.mrg_sort(dst, sort_list, element_count_list, sorted_num, valid_bit, repeat_time,
is_exhausted_suspension=False)` or `asc.mrg_sort(dst, sort_list, MrgSort4Info)`, and `asc.sort(dst, concat, index,
tmp, repeat_time, is_full_sort=False)`. The counts, valid bits and repeat times are Python ints known while tracing
(they decide which bytes the instruction touches)."""
from __future__ import annotations

from typing import Any

from ..dtypes import DataType
from ..errors import DTypeError, TraceError
from ..graph.node import Pipe, make_attrs
from ..graph.ops.vec_mrg_sort import VALID_BITS
from ..graph.source_loc import SourceLoc
from .api_vec_more import repeat_time_arg
from .context import current
from .operands import check_same_dtype
from .source_loc import user_loc
from .tensors import vec_operand


def _static_int(v: Any, what: str, lo: int, hi: int, loc: SourceLoc) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise TraceError(f"{what} is a Python int in {lo}..{hi} known while tracing, got {v!r}", loc)
    return v


def _lengths(v: Any, what: str, loc: SourceLoc) -> tuple[int, ...]:
    if not isinstance(v, (list, tuple)) or not 2 <= len(v) <= 4:
        raise TraceError(f"{what} is a list of 2 to 4 structure counts (Python ints), got {v!r}", loc)
    vals = tuple(_static_int(x, f"each of {what}", 0, 4095, loc) for x in v)
    return vals + (0,) * (4 - len(vals))


class MrgSortSrcList:
    """Ascend C MrgSortSrcList<T>: the (up to) four sorted lists of 8-byte structures asc.mrg_sort merges."""

    def __init__(self, dtype: Any, src1: Any, src2: Any, src3: Any = None, src4: Any = None) -> None:
        loc = user_loc()
        if not isinstance(dtype, DataType):
            raise TraceError(f"MrgSortSrcList's first argument is the element type (asc.float16 / asc.float32), got "
                             f"{dtype!r}", loc)
        self.dtype = dtype
        self.srcs = tuple(None if s is None else vec_operand(s, f"src{i + 1}", "MrgSortSrcList", loc)
                          for i, s in enumerate((src1, src2, src3, src4)))
        for i, s in enumerate(self.srcs):
            if s is not None and s.dtype is not dtype:
                raise DTypeError(f"MrgSortSrcList's src{i + 1} holds {s.dtype}, not {dtype}", loc)


class MrgSort4Info:
    """Ascend C MrgSort4Info(elementLengths[4], ifExhaustedSuspension, validBit, repeatTimes)."""

    def __init__(self, element_lengths: Any, if_exhausted_suspension: bool = False, valid_bit: int = 15,
                 repeat_times: int = 1) -> None:
        loc = user_loc()
        self.lengths = _lengths(element_lengths, "MrgSort4Info's element_lengths", loc)
        if not isinstance(if_exhausted_suspension, bool):
            raise TraceError("if_exhausted_suspension is True or False", loc)
        self.exhausted = if_exhausted_suspension
        self.valid_bit = _static_int(valid_bit, "MrgSort4Info's valid_bit", 0, 15, loc)
        self.repeat = _static_int(repeat_times, "MrgSort4Info's repeat_times", 1, 255, loc)


def mrg_sort(dst: Any, sort_list: Any, *args: Any, **kw: Any) -> None:
    """Ascend C MrgSort: merge the sorted lists of `sort_list` into dst (largest score first; of equal scores the
    earlier list's first), `(element_count_list, sorted_num, valid_bit, repeat_time, is_exhausted_suspension=False)`
    or `(MrgSort4Info)`.

    Raises:
        TraceError: counts, valid_bit or repeat_time not Python ints in range, or a list missing for valid_bit.
        DTypeError: dst and the lists of different types, or not half / float.
    """
    ctx = current("asc.mrg_sort")
    loc = user_loc()
    d = vec_operand(dst, "dst", "mrg_sort", loc)
    if not isinstance(sort_list, MrgSortSrcList):
        raise TraceError("asc.mrg_sort's sort_list is an asc.MrgSortSrcList(dtype, src1, src2, src3, src4)", loc)
    if len(args) + len(kw) == 1 and isinstance((args or tuple(kw.values()))[0], MrgSort4Info):
        info: MrgSort4Info = (args or tuple(kw.values()))[0]
        lengths, exhausted, valid, repeat, form = info.lengths, info.exhausted, info.valid_bit, info.repeat, "info"
    else:
        names = ("element_count_list", "sorted_num", "valid_bit", "repeat_time", "is_exhausted_suspension")
        bound = dict(zip(names, args))
        for k, v in kw.items():
            if k not in names or k in bound:
                raise TraceError(f"asc.mrg_sort got an unexpected or repeated argument {k!r}", loc)
            bound[k] = v
        missing = [k for k in names[:4] if k not in bound]
        if missing:
            raise TraceError(f"asc.mrg_sort takes (dst, sort_list, element_count_list, sorted_num, valid_bit, "
                             f"repeat_time[, is_exhausted_suspension]) or (dst, sort_list, MrgSort4Info); "
                             f"{', '.join(missing)} missing", loc)
        lengths = _lengths(bound["element_count_list"], "element_count_list", loc)
        if not isinstance(bound["sorted_num"], (list, tuple)) or len(bound["sorted_num"]) != 4:
            raise TraceError("sorted_num is a list of 4 ints (the API writes the counts of an exhausted merge there; "
                             "read them with asc.get_mrg_sort_result)", loc)
        exhausted = bound.get("is_exhausted_suspension", False)
        if not isinstance(exhausted, bool):
            raise TraceError("is_exhausted_suspension is True or False", loc)
        valid = _static_int(bound["valid_bit"], "valid_bit", 0, 15, loc)
        rep = repeat_time_arg(bound["repeat_time"], loc)
        repeat = _static_int(getattr(rep, "value", None), "repeat_time", 1, 255, loc)
        form = "list"
    if valid not in VALID_BITS:
        raise TraceError(f"valid_bit of asc.mrg_sort is 3, 7 or 15 (lists 1-2, 1-3, 1-4), got {valid}", loc)
    used = VALID_BITS[valid]
    srcs = sort_list.srcs
    if any(s is None for s in srcs[:used]):
        raise TraceError(f"valid_bit {valid} merges {used} lists, but the MrgSortSrcList has fewer", loc)
    dtype = check_same_dtype("mrg_sort", [d, *srcs[:used]], ["dst"] + [f"src{i + 1}" for i in range(used)], loc)
    if dtype.name not in ("float16", "float32"):
        raise DTypeError(f"asc.mrg_sort merges half or float structures, got {dtype}", loc)
    if exhausted and 0 in lengths[:used]:
        # the merge stops when a list runs out: whether an empty list stops it before the first structure is not
        # documented
        raise TraceError(f"asc.mrg_sort with exhausted suspension got an empty list (lengths {list(lengths[:used])})",
                         loc)
    if repeat > 1 and (valid != 15 or len(set(lengths)) != 1 or exhausted):
        # the API documentation: a repeat time above 1 takes effect only with four lists of one length, stored
        # back to back, and no exhausted suspension; what the instruction does otherwise is not documented
        raise TraceError(f"asc.mrg_sort with repeat_time {repeat} needs four lists (valid_bit 15) of one length "
                         f"stored back to back and no exhausted suspension; got valid_bit {valid}, lengths "
                         f"{list(lengths)}, exhausted suspension {exhausted}", loc)
    ctx.record("mrg_sort", (d, *srcs[:used]), loc, Pipe.V,
               make_attrs(dtype=dtype, lengths=lengths, valid_bit=valid, repeat=repeat, exhausted=exhausted,
                          form=form))


def sort(dst: Any, concat: Any, index: Any, tmp: Any, repeat_time: Any, is_full_sort: bool = False) -> None:
    """Ascend C Sort<T, isFullSort>(dst, concat, index, tmp, repeatTime): Sort32 of each repeat's 32 scores (concat)
    with their uint32 indices (index) into dst; with is_full_sort=True all repeat_time * 32 structures sorted
    (largest first, ties in input order), tmp receiving a copy.

    Raises:
        TraceError: is_full_sort not True / False, or repeat_time past 255.
        DTypeError: dst, concat, tmp of different types or not half / float; index not uint32.
    """
    ctx = current("asc.sort")
    loc = user_loc()
    if not isinstance(is_full_sort, bool):
        raise TraceError("is_full_sort of asc.sort is True or False (a constant)", loc)
    refs = [vec_operand(t, n, "sort", loc) for t, n in ((dst, "dst"), (concat, "concat"), (index, "index"),
                                                         (tmp, "tmp"))]
    dtype = check_same_dtype("sort", [refs[0], refs[1], refs[3]], ["dst", "concat", "tmp"], loc)
    if dtype.name not in ("float16", "float32"):
        raise DTypeError(f"asc.sort sorts half or float scores, got {dtype}", loc)
    if refs[2].dtype.name != "uint32":
        raise DTypeError(f"index of asc.sort holds the uint32 indices; it is {refs[2].dtype}", loc)
    ctx.record("sort", (*refs, repeat_time_arg(repeat_time, loc)), loc, Pipe.V,
               make_attrs(dtype=dtype, full=is_full_sort))
