"""Kernel-side Compare / Select in pyasc's every form (asc.language.basic.vec_cmpsel), and get_cmp_mask /
set_cmp_mask: the count forms, the mask / repeat forms (mask=, repeat_times=, repeat_params=), Compare without a
dst (into the CMPMASK register) and Select from CMPMASK. graph/ops/cmpmask.py says what each form does."""
from __future__ import annotations

from typing import Any

from ..dtypes import DataType
from ..enums import CMPMODE, SELMODE
from ..errors import DTypeError, TraceError
from ..graph.expr import Const
from ..graph.node import Pipe, make_attrs
from ..graph.ops import OpDef
from ..graph.ops.vec_cmpsel import check_count_256
from ..graph.params import BinaryRepeatParams
from ..graph.source_loc import SourceLoc
from .api_forms import Form, bind_form, check_set_mask
from .api_vec_more import repeat_time_arg
from .context import current
from .mask_reg import register_mask
from .operands import enum_arg, check_same_dtype, check_supported, count_expr, mask_arg, scalar_for
from .source_loc import user_loc
from .tensors import LocalTensor, vec_operand


_enum = enum_arg   # proxies/operands.py


def _params(p: Any, opname: str, loc: SourceLoc) -> BinaryRepeatParams:
    if not isinstance(p, BinaryRepeatParams):
        raise TraceError(f"the repeat_params of asc.{opname}'s mask form are an asc.BinaryRepeatParams, got "
                         f"{type(p).__name__}", loc)
    return p


_CMP_FORMS = (Form("count", ("count",)),
              Form("mask", ("mask", "repeat_times", "repeat_params", "is_set_mask"), (("is_set_mask", True),)))
_CMP_REG_FORM = (Form("reg", ("mask", "repeat_params", "is_set_mask"), (("is_set_mask", True),)),)


def _compare_sources(op: OpDef, src0: Any, src1: Any, mode_v: Any, loc: SourceLoc) -> tuple[list, DataType, CMPMODE]:
    refs = [vec_operand(t, n, "compare", loc) for t, n in ((src0, "src0"), (src1, "src1"))]
    dtype = check_same_dtype("compare", refs, ["src0", "src1"], loc)
    check_supported(op, dtype, loc)
    mode = _enum(CMPMODE, mode_v, "cmp_mode", loc)
    if dtype.name == "int32" and mode != CMPMODE.EQ:
        raise DTypeError("asc.compare on int32 supports only CMPMODE.EQ on Atlas A2", loc)
    return refs, dtype, mode


def make_compare(op: OpDef):
    def compare(*args: Any, **kw: Any) -> None:
        """Ascend C Compare: `(dst, src0, src1, cmp_mode, count)` (bit i of the uint8 dst = src0[i] OP src1[i]),
        the mask form `(dst, src0, src1, cmp_mode, mask, repeat_times, repeat_params)`, or without dst
        `(src0, src1, cmp_mode, mask, repeat_params)`: one repeat's bits into the CMPMASK register."""
        ctx = current("asc.compare")
        loc = user_loc()
        # pyasc's overloads: without dst when the third operand is not a tensor (it is the cmp_mode)
        if len(args) < 3 and "cmp_mode" in kw or len(args) >= 3 and not isinstance(args[2], LocalTensor):
            heads = ("src0", "src1", "cmp_mode")
            bound_head = dict(zip(heads, args))
            rest = args[len(heads):]
            for h in heads:
                if h not in bound_head and h in kw:
                    bound_head[h] = kw.pop(h)
            if len(bound_head) < 3:
                raise TraceError("asc.compare without dst takes (src0, src1, cmp_mode, mask, repeat_params)", loc)
            refs, dtype, mode = _compare_sources(op, bound_head["src0"], bound_head["src1"], bound_head["cmp_mode"],
                                                 loc)
            if dtype.name == "int32":
                raise DTypeError("asc.compare without dst (vcmp, into CMPMASK) takes half or float on Atlas A2", loc)
            _f, bound = bind_form("compare", "src0, src1, cmp_mode", rest, kw, _CMP_REG_FORM, loc)
            check_set_mask("compare", "count", bound["is_set_mask"], loc)
            if bound["is_set_mask"] is False:
                raise TraceError("asc.compare(..., is_set_mask=False) would use the mask register, which asc_trace "
                                 "follows only for the element-wise ops", loc,
                                 hint="pass the mask to the call itself and leave is_set_mask=True")
            ctx.record("compare", (None, *refs, mask_arg(bound["mask"], dtype, loc), Const(1),
                                   _params(bound["repeat_params"], "compare", loc)), loc, Pipe.V,
                       make_attrs(dtype=dtype, form="cmp_reg", cmp_mode=int(mode)))
            return
        heads = ("dst", "src0", "src1", "cmp_mode")
        bound_head = dict(zip(heads, args))
        for h in heads:
            if h not in bound_head and h in kw:
                bound_head[h] = kw.pop(h)
        if len(bound_head) < 4:
            raise TraceError("asc.compare takes (dst, src0, src1, cmp_mode, count) or its mask form", loc)
        d = vec_operand(bound_head["dst"], "dst", "compare", loc)
        refs, dtype, mode = _compare_sources(op, bound_head["src0"], bound_head["src1"], bound_head["cmp_mode"], loc)
        if d.dtype.name not in ("uint8", "int8"):
            raise DTypeError(f"asc.compare writes a uint8 bit mask; dst is {d.dtype}", loc)
        form, bound = bind_form("compare", "dst, src0, src1, cmp_mode", args[len(heads):], kw, _CMP_FORMS, loc)
        if form == "count":
            n = count_expr(bound["count"], loc)
            if isinstance(n, Const):
                check_count_256("compare", n.value, dtype, loc=loc)
            ctx.record("compare", (d, *refs, mode, n), loc, Pipe.V, make_attrs(dtype=dtype))
            return
        check_set_mask("compare", "count", bound["is_set_mask"], loc)
        # vcmpv writes every lane of each repeat whatever the mask (the A2 implementation does not set it)
        ctx.record("compare", (d, *refs, mask_arg(bound["mask"], dtype, loc),
                               repeat_time_arg(bound["repeat_times"], loc),
                               _params(bound["repeat_params"], "compare", loc)), loc, Pipe.V,
                   make_attrs(dtype=dtype, form="cmp_mask", cmp_mode=int(mode)))
    return compare


_SEL_FORMS = (Form("count", ("sel_mode", "count")),
              Form("mask", ("sel_mode", "mask", "repeat_times", "repeat_params", "is_set_mask"),
                   (("is_set_mask", True),)))


def _sel_mask(m: Any, loc: SourceLoc) -> Any:
    # Select's selMask is LocalTensor<U>, U one of uint8 .. uint64 (asc-devkit dav_c220
    # kernel_operator_vec_cmpsel_impl.h SupportType<U, ...>): its bits in memory order, whatever the word
    ref = vec_operand(m, "sel_mask", "select", loc)
    if ref.dtype.name not in ("uint8", "int8", "uint16", "uint32", "uint64"):
        raise DTypeError(f"asc.select's sel_mask is a bit mask of uint8, uint16, uint32 or uint64 words; got "
                         f"{ref.dtype}", loc)
    return ref


def make_select(op: OpDef):
    def select(dst: Any, *args: Any, **kw: Any) -> None:
        """Ascend C Select: `(dst, sel_mask, src0, src1 | scalar, sel_mode, count)`, the mask form `(dst, sel_mask,
        src0, src1 | scalar, sel_mode, mask, repeat_times, repeat_params)`, and the register forms `(dst, src0,
        src1, repeat_times=, repeat_params=, sel_mode=VSEL_CMPMASK_SPR)` (lanes by CMPMASK) and `(dst, sel_mask,
        src0, repeat_times, repeat_params)` (the scalar from CMPMASK); dst[i] = src0[i] where the bit is 1."""
        ctx = current("asc.select")
        loc = user_loc()
        d = vec_operand(dst, "dst", "select", loc)
        # pyasc's register forms: two operands and repeat_times / repeat_params
        reg = len(args) == 2 and "repeat_times" in kw and "repeat_params" in kw
        if reg or (len(args) == 4 and not kw and isinstance(args[3], BinaryRepeatParams)):
            a0, a1 = args[:2]
            rest = dict(kw) if reg else {"repeat_times": args[2], "repeat_params": args[3]}
            mode_v = rest.pop("sel_mode", None)
            rep = repeat_time_arg(rest.pop("repeat_times"), loc)
            p = _params(rest.pop("repeat_params"), "select", loc)
            if rest:
                raise TraceError(f"unexpected arguments to asc.select's register form: {', '.join(rest)}", loc)
            if mode_v is not None:       # Select<T, selMode>(dst, src0, src1, repeat, params)
                mode = _enum(SELMODE, mode_v, "sel_mode", loc)
                if mode != SELMODE.VSEL_CMPMASK_SPR:
                    raise TraceError("asc.select(dst, src0, src1, repeat_times=, repeat_params=, sel_mode=) selects by "
                                     f"CMPMASK: sel_mode is SELMODE.VSEL_CMPMASK_SPR, got {mode.name}", loc,
                                     hint="pass a sel_mask tensor for the other modes")
                refs = [vec_operand(t, n, "select", loc) for t, n in ((a0, "src0"), (a1, "src1"))]
                dtype = check_same_dtype("select", [d, *refs], ["dst", "src0", "src1"], loc)
                check_supported(op, dtype, loc)
                args_ = (d, None, refs[0], refs[1], register_mask("select", dtype, loc), rep, p)
                ctx.record("select", args_, loc, Pipe.V, make_attrs(dtype=dtype, form="sel_reg",
                                                                    sel_mode=int(SELMODE.VSEL_CMPMASK_SPR)))
                return
            m = _sel_mask(a0, loc)       # Select<T, U>(dst, selMask, src0, repeat, params): scalar from CMPMASK
            s0 = vec_operand(a1, "src0", "select", loc)
            dtype = check_same_dtype("select", [d, s0], ["dst", "src0"], loc)
            check_supported(op, dtype, loc)
            args_ = (d, m, s0, None, register_mask("select", dtype, loc), rep, p)
            ctx.record("select", args_, loc, Pipe.V, make_attrs(dtype=dtype, form="sel_reg_scalar",
                                                                sel_mode=int(SELMODE.VSEL_TENSOR_SCALAR_MODE)))
            return
        if len(args) < 3:
            raise TraceError("asc.select takes (dst, sel_mask, src0, src1, sel_mode, count), its mask form, or the "
                             "register forms (dst, src0, src1, repeat_times=, repeat_params=, sel_mode=) and "
                             "(dst, sel_mask, src0, repeat_times=, repeat_params=)", loc)
        m = _sel_mask(args[0], loc)
        a = vec_operand(args[1], "src0", "select", loc)
        src1 = args[2]
        form, bound = bind_form("select", "dst, sel_mask, src0, src1", args[3:], kw, _SEL_FORMS, loc)
        mode = _enum(SELMODE, bound["sel_mode"], "sel_mode", loc)
        if mode == SELMODE.VSEL_TENSOR_SCALAR_MODE:
            dtype = check_same_dtype("select", [d, a], ["dst", "src0"], loc)
            b: Any = scalar_for(dtype, src1, "select", loc)
        else:
            b = vec_operand(src1, "src1", "select", loc)
            dtype = check_same_dtype("select", [d, a, b], ["dst", "src0", "src1"], loc)
        check_supported(op, dtype, loc)
        if form == "count":
            # no 256-byte rule: the API runs the count form in counter mode (SetMaskCount), exactly `count` elements
            ctx.record("select", (d, m, a, b, mode, count_expr(bound["count"], loc)), loc, Pipe.V,
                       make_attrs(dtype=dtype))
            return
        check_set_mask("select", "count", bound["is_set_mask"], loc)   # the A2 Select sets the mask either way
        args_ = (d, m, a, b, mask_arg(bound["mask"], dtype, loc), repeat_time_arg(bound["repeat_times"], loc),
                 _params(bound["repeat_params"], "select", loc))
        ctx.record("select", args_, loc, Pipe.V, make_attrs(dtype=dtype, form="sel_mask", sel_mode=int(mode)))
    return select


def get_cmp_mask(dst: Any) -> None:
    """Ascend C GetCmpMask(dst): the 128-bit CMPMASK register into dst's first 16 bytes.

    Raises:
        TraceError: dst is not a LocalTensor, or holds fewer than 16 bytes.
    """
    ctx = current("asc.get_cmp_mask")
    loc = user_loc()
    ref = vec_operand(dst, "dst", "get_cmp_mask", loc)
    ctx.record("get_cmp_mask", (ref,), loc, Pipe.V, make_attrs(dtype=ref.dtype))


def set_cmp_mask(src: Any) -> None:
    """Ascend C SetCmpMask(src): src's first 16 bytes into the 128-bit CMPMASK register (which a Select in
    VSEL_CMPMASK_SPR mode reads).

    Raises:
        TraceError: src is not a LocalTensor.
    """
    ctx = current("asc.set_cmp_mask")
    loc = user_loc()
    ref = vec_operand(src, "src", "set_cmp_mask", loc)
    ctx.record("set_cmp_mask", (ref,), loc, Pipe.V, make_attrs(dtype=ref.dtype))

