"""Kernel-side functions of the fused convert ops and the deq-scale register (graph/ops/vec_fused_cast.py), with
pyasc's names, argument order and keywords: add_relu_cast, sub_relu_cast, mul_cast, add_deq_relu, cast_deq,
set_deq_scale, and the VdeqInfo struct. They trace and emit; no backend runs them (the record says why)."""
from __future__ import annotations

from typing import Any, Callable

from ..dtypes import DataType
from ..errors import DTypeError, TraceError
from ..graph.node import Pipe, make_attrs
from ..graph.ops import REGISTRY, OpDef
from ..graph.ops.vec_fused_cast import PAIRS
from ..graph.params import BinaryRepeatParams, UnaryRepeatParams
from ..graph.params_deq import VDEQ_TENSOR_SIZE, VdeqInfo as _VdeqInfo
from ..graph.source_loc import SourceLoc
from .api_forms import BINARY_FORMS, UNARY_FORMS, bind_form, check_set_mask, given
from .api_vec_more import repeat_time_arg
from .context import current
from .operands import check_same_dtype, count_expr, mask_arg, scalar_for
from .scalar import to_expr
from .source_loc import user_loc
from .tensors import LocalTensor, vec_operand
from .api_families import api_for_families


def _check_pair(op: OpDef, src: DataType, dst: DataType, loc: SourceLoc) -> None:
    pairs = PAIRS[op.name]
    if (src.name, dst.name) not in pairs:
        allowed = ", ".join(f"{a} -> {b}" for a, b in sorted(pairs))
        hint = ("asc.cast(dst, src, asc.RoundMode.CAST_RINT, count) converts int32 to half (what the newer "
                "headers' CastDeq does; CANN 8.1.RC1's has no such form)"
                if op.name == "cast_deq" and (src.name, dst.name) == ("int32", "float16") else None)
        raise DTypeError(f"asc.{op.name} from {src} to {dst} is not supported on Atlas A2 (supported: {allowed})", loc,
                         hint=hint)


def _record(op: OpDef, head: tuple, which: str, bound: dict, params_type: type, src: DataType, dst: DataType,
            loc: SourceLoc, **attrs: Any) -> None:
    """Record the count form `(*head, count)` or the mask form `(*head, mask, repeat, params)` (`which`)."""
    ctx = current(f"asc.{op.name}")
    check_set_mask(op.name, which, bound["is_set_mask"], loc, op.family)
    if which == "count":
        attrs.pop("form", None)
        ctx.record(op.name, (*head, count_expr(bound["count"], loc)), loc, Pipe.V, make_attrs(dtype=dst, **attrs))
        return
    p = bound["repeat_params"]
    if not isinstance(p, params_type):
        raise TraceError(f"repeat_params of asc.{op.name} is an asc.{params_type.__name__}(...), got "
                         f"{type(p).__name__}", loc)
    # a repeat is 256 bytes of the source, so the mask's lanes are the source's elements
    ctx.record(op.name, (*head, mask_arg(bound["mask"], src, loc), repeat_time_arg(bound["repeat_times"], loc), p),
               loc, Pipe.V, make_attrs(dtype=dst, src_dtype=src, **attrs))


def _make_fused(op: OpDef) -> Callable[..., None]:
    def fn(dst: Any, src0: Any, src1: Any, *args: Any, count: Any = None, mask: Any = None, repeat_times: Any = None,
           repeat_params: Any = None, is_set_mask: bool = True) -> None:
        current(f"asc.{op.name}")
        loc = user_loc()
        d = vec_operand(dst, "dst", op.name, loc)
        refs = [vec_operand(t, n, op.name, loc) for t, n in ((src0, "src0"), (src1, "src1"))]
        src = check_same_dtype(op.name, refs, ["src0", "src1"], loc)
        _check_pair(op, src, d.dtype, loc)
        form, bound = bind_form(op.name, "dst, src0, src1", args,
                                given(count=count, mask=mask, repeat_times=repeat_times, repeat_params=repeat_params,
                                      is_set_mask=is_set_mask), BINARY_FORMS, loc)
        _record(op, (d, *refs), form, bound, BinaryRepeatParams, src, d.dtype, loc, form="mask")
    fn.__doc__ = (f"Ascend C {op.c_name}: count form `(dst, src0, src1, count)` or mask form `(dst, src0, src1, mask, "
                  "repeat_times, BinaryRepeatParams)`. Traced and emitted; not run on any backend (the conversion "
                  "inside the instruction is not defined by the vendor's headers).")
    return fn


def _make_cast_deq(op: OpDef) -> Callable[..., None]:
    def cast_deq(dst: Any, src: Any, *args: Any, count: Any = None, mask: Any = None, repeat_times: Any = None,
                 repeat_params: Any = None, is_set_mask: bool = True, is_vec_deq: bool = True,
                 half_block: bool = True) -> None:
        """Ascend C CastDeq<T, U, isVecDeq, halfBlock>: count form `(dst, src, count)` or mask form `(dst, src,
        mask, repeat_times, UnaryRepeatParams)`; int16 -> int8 / uint8 by the deq scale. Traced
        and emitted; not run on any backend."""
        current("asc.cast_deq")
        loc = user_loc()
        d = vec_operand(dst, "dst", "cast_deq", loc)
        s = vec_operand(src, "src", "cast_deq", loc)
        _check_pair(op, s.dtype, d.dtype, loc)
        for name, v in (("is_vec_deq", is_vec_deq), ("half_block", half_block)):
            if not isinstance(v, bool):
                raise TraceError(f"{name} of asc.cast_deq must be True or False (a template argument), got {v!r}", loc)
        form, bound = bind_form("cast_deq", "dst, src", args,
                                given(count=count, mask=mask, repeat_times=repeat_times, repeat_params=repeat_params,
                                      is_set_mask=is_set_mask), UNARY_FORMS, loc)
        _record(op, (d, s), form, bound, UnaryRepeatParams, s.dtype, d.dtype, loc, is_vec_deq=is_vec_deq or None,
                half_block=half_block or None, mask_form=(form == "mask") or None)
    return cast_deq


def VdeqInfo(scale: Any, offset: Any, sign_mode: Any) -> _VdeqInfo:
    """Ascend C VdeqInfo: 16 scales (float), offsets (int16) and sign modes (bool), Python values."""
    loc = user_loc()
    vals = []
    for name, v, kind in (("scale", scale, (int, float)), ("offset", offset, int), ("sign_mode", sign_mode, bool)):
        if not isinstance(v, (list, tuple)) or len(v) != VDEQ_TENSOR_SIZE or \
                not all(isinstance(x, kind) for x in v):
            raise TraceError(f"VdeqInfo's {name} is a list of {VDEQ_TENSOR_SIZE} Python "
                             f"{'numbers' if name == 'scale' else kind.__name__ + 's'} (values known while tracing)",
                             loc)
        vals.append(tuple(v))
    if not all(-32768 <= o < 32768 for o in vals[1]):
        raise TraceError("VdeqInfo's offsets are int16 values", loc)
    return _VdeqInfo(tuple(float(x) for x in vals[0]), vals[1], vals[2])


def set_deq_scale(*args: Any, **kwargs: Any) -> None:
    """Ascend C SetDeqScale: `(scale)` (half), `(scale, offset, sign_mode)` (float, int16, bool) or `(vdeq,
    vdeq_info)` (a uint64 LocalTensor of 16 and an asc.VdeqInfo). Traced and emitted; a kernel using it is not
    run on any backend (the dequantising ops it feeds are not)."""
    ctx = current("asc.set_deq_scale")
    loc = user_loc()
    tensor_form = "vdeq" in kwargs or bool(args) and isinstance(args[0], LocalTensor)
    names = ("vdeq", "vdeq_info") if tensor_form else ("scale", "offset", "sign_mode")
    if len(args) > len(names) or any(k not in names for k in kwargs):
        raise TraceError("asc.set_deq_scale takes (scale), (scale, offset, sign_mode) or (vdeq, vdeq_info)", loc)
    bound = {**dict(zip(names, args)), **kwargs}
    op = _SET_DEQ_SCALE
    if names[0] == "vdeq":
        if set(bound) != set(names):
            raise TraceError("asc.set_deq_scale(vdeq, vdeq_info) takes both", loc)
        v = vec_operand(bound["vdeq"], "vdeq", "set_deq_scale", loc)
        if v.dtype.name != "uint64":
            raise DTypeError(f"the vdeq tensor of asc.set_deq_scale holds uint64 configs; it is {v.dtype}", loc)
        if not isinstance(bound["vdeq_info"], _VdeqInfo):
            raise TraceError("vdeq_info of asc.set_deq_scale is an asc.VdeqInfo(scale, offset, sign_mode)", loc)
        ctx.record(op.name, (v, bound["vdeq_info"]), loc, Pipe.S, make_attrs(form="vdeq"))
        return
    if "scale" not in bound or len(bound) == 2:
        raise TraceError("asc.set_deq_scale takes (scale) or (scale, offset, sign_mode)", loc)
    from ..dtypes import float16, float32
    if len(bound) == 1:
        ctx.record(op.name, (scalar_for(float16, bound["scale"], "set_deq_scale", loc),), loc, Pipe.S,
                   make_attrs(form="half"))
        return
    sign = bound["sign_mode"]
    if not isinstance(sign, bool):
        raise TraceError(f"sign_mode of asc.set_deq_scale must be True or False, got {sign!r}", loc)
    off = to_expr(bound["offset"], "the offset of asc.set_deq_scale")
    if off.type != "int":
        raise TraceError(f"the offset of asc.set_deq_scale is an int16, got `{off}`", loc)
    ctx.record(op.name, (scalar_for(float32, bound["scale"], "set_deq_scale", loc), off, sign), loc, Pipe.S,
               make_attrs(form="float"))


_SET_DEQ_SCALE = next(op for op in REGISTRY.values() if op.family == "deq_scale")

FAMILY_BUILDERS: dict[str, Callable[[OpDef], Callable[..., Any]]] = {
    "vec_fused_cast": _make_fused,
    "vec_cast_deq": _make_cast_deq,
    "deq_scale": lambda op: set_deq_scale,
}


def build_fused_cast_api() -> dict[str, Callable[..., Any]]:
    """`asc.<name>` for every record of the families above, and asc.set_deq_scale / asc.VdeqInfo."""
    return {"VdeqInfo": VdeqInfo, **api_for_families(FAMILY_BUILDERS)}
