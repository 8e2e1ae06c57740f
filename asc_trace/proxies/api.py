"""Kernel-side functions with pyasc's names and argument order. Each call records one node.

The vector ops are generated from the op registry by family, so a new op needs only its record.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from ..cube_enums import CUBE_SPACES
from ..dtypes import DataType
from ..graph.cube_params import Nd2NzParams
from ..enums import AIC_EVENTS, AIV_EVENTS, HardEvent, PipeID, member
from ..errors import DTypeError, SyncError, TraceError
from ..graph.expr import Const, Expr
from ..graph.node import Pipe, make_attrs
from ..graph.params import BinaryRepeatParams, DataCopyParams, UnaryRepeatParams
from ..graph.ops import OpDef
from ..graph.ops.data_copy import check_copy_length
from ..graph.ops.debug import FLOAT_CONV, INT_CONV, PRINTF_CONV, printf_conversions  # noqa: F401 (re-exported)
from ..graph.source_loc import SourceLoc
from .api_forms import BINARY_FORMS, DUPLICATE_FORMS, UNARY_FORMS, bind_form, check_set_mask, given
from .context import current
from .atomic import store_atomic
from .operands import check_same_dtype, check_supported, copy_pipe, count_expr, mask_arg, scalar_for  # noqa: F401 (re-exported)
from .mask_reg import register_mask
from .scalar import Scalar, to_expr
from .source_loc import user_loc
from .tensors import GlobalTensor, LocalTensor, tensor_ref, vec_operand  # noqa: F401 (vec_operand re-exported)
from .api_families import api_for_families


# -- vector families ----------------------------------------------------------------------------

def _repeat(rep: Any, loc: SourceLoc) -> Expr:
    e = count_expr(rep, loc, "repeat time")
    if isinstance(e, Const) and e.value > 255:
        raise TraceError(f"repeat_time is at most 255, got {e.value}", loc)
    return e


def _record_vector(op: OpDef, head: tuple, form: str, bound: dict[str, Any], params_type: type,
                   mask_dtype: DataType, loc: SourceLoc, **attrs: Any) -> None:
    """Record a vector op in its count form `(*head, count)` or its mask form
    `(*head, mask, repeat_times, params)` (`bound`: the form's arguments by name, api_forms.bind_form)."""
    ctx = current(f"asc.{op.name}")
    check_set_mask(op.name, form, bound["is_set_mask"], loc, op.family)
    if form == "count":
        ctx.record(op.name, (*head, count_expr(bound["count"], loc)), loc, Pipe.V, make_attrs(**attrs))
        return
    params = bound["repeat_params"]
    if not isinstance(params, params_type):
        raise TraceError(f"repeat_params of asc.{op.name} is an asc.{params_type.__name__}(...), got "
                         f"{type(params).__name__}", loc)
    if bound["is_set_mask"] is False:      # the mask the register holds here (the mask argument is not read)
        mask, attrs = register_mask(op.name, mask_dtype, loc), {**attrs, "set_mask": False}
    else:
        mask = mask_arg(bound["mask"], mask_dtype, loc)
    ctx.record(op.name, (*head, mask, _repeat(bound["repeat_times"], loc), params),
               loc, Pipe.V, make_attrs(form="mask", **attrs))


def _record_elementwise(op: OpDef, operands: dict[str, Any], args: tuple, kw: dict[str, Any],
                        params_type: type) -> None:
    """Record a same-dtype elementwise op (binary or unary)."""
    current(f"asc.{op.name}")
    loc = user_loc()
    refs = [vec_operand(t, n, op.name, loc) for n, t in operands.items()]
    dtype = check_same_dtype(op.name, refs, list(operands), loc)
    check_supported(op, dtype, loc)
    form, bound = bind_form(op.name, ", ".join(operands), args, kw, BINARY_FORMS, loc)
    _record_vector(op, tuple(refs), form, bound, params_type, dtype, loc, dtype=dtype)


def _make_binary(op: OpDef) -> Callable[..., None]:
    def fn(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, count: Any = None, mask: Any = None,
           repeat_times: Any = None, repeat_params: Any = None, is_set_mask: bool = True) -> None:
        _record_elementwise(op, {"dst": dst, "src0": src0, "src1": src1}, args,
                            given(count=count, mask=mask, repeat_times=repeat_times, repeat_params=repeat_params,
                                  is_set_mask=is_set_mask), BinaryRepeatParams)
    fn.__doc__ = (f"`dst[i] = {op.name}(src0[i], src1[i])` (Ascend C {op.c_name}): count form "
                  f"`(dst, src0, src1, count)` or mask form `(dst, src0, src1, mask, repeat_times, "
                  f"BinaryRepeatParams)`, positionally or by pyasc's keywords.")
    return fn


def _make_unary(op: OpDef) -> Callable[..., None]:
    def fn(dst: LocalTensor, src: LocalTensor, *args: Any, count: Any = None, mask: Any = None,
           repeat_times: Any = None, repeat_params: Any = None, is_set_mask: bool = True) -> None:
        _record_elementwise(op, {"dst": dst, "src": src}, args,
                            given(count=count, mask=mask, repeat_times=repeat_times, repeat_params=repeat_params,
                                  is_set_mask=is_set_mask), UnaryRepeatParams)
    fn.__doc__ = (f"`dst[i] = {op.name}(src[i])` (Ascend C {op.c_name}): count form `(dst, src, count)` or mask "
                  f"form `(dst, src, mask, repeat_times, UnaryRepeatParams)`, positionally or by pyasc's keywords.")
    return fn


def _make_scalar(op: OpDef) -> Callable[..., None]:
    def fn(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, count: Any = None, mask: Any = None,
           repeat_times: Any = None, repeat_params: Any = None, is_set_mask: bool = True) -> None:
        current(f"asc.{op.name}")
        loc = user_loc()
        refs = [vec_operand(t, n, op.name, loc) for t, n in ((dst, "dst"), (src, "src"))]
        if op.name == "axpy" and refs[0].dtype is not refs[1].dtype:
            if not (refs[0].dtype.name == "float32" and refs[1].dtype.name == "float16"):
                raise DTypeError(f"asc.axpy takes dst and src of one type, or a float32 dst with a float16 src; got "
                                 f"{refs[0].dtype} and {refs[1].dtype}", loc)
            dtype = refs[1].dtype
        else:
            dtype = check_same_dtype(op.name, refs, ["dst", "src"], loc)
        check_supported(op, refs[0].dtype, loc)
        s = scalar_for(dtype, scalar, op.name, loc)
        if op.shift_scalar:
            _check_shift(op.name, s, dtype, loc)
        form, bound = bind_form(op.name, "dst, src, scalar", args,
                                given(count=count, mask=mask, repeat_times=repeat_times, repeat_params=repeat_params,
                                      is_set_mask=is_set_mask), UNARY_FORMS, loc)
        _record_vector(op, (*refs, s), form, bound, UnaryRepeatParams, dtype, loc, dtype=refs[0].dtype,
                       src_dtype=dtype if dtype is not refs[0].dtype else None)
    fn.__doc__ = (f"Ascend C {op.c_name}: count form `(dst, src, scalar, count)` or mask form "
                  f"`(dst, src, scalar, mask, repeat_times, UnaryRepeatParams)`, positionally or by pyasc's keywords.")
    return fn


def _check_shift(opname: str, s: Expr, dtype: DataType, loc: SourceLoc) -> None:
    """A shift is in 0 .. bits-1 (vshl / vshr of a wider shift is not defined: the vendor's
    CheckValueRange refuses it in CPU-debug mode)."""
    bits = dtype.itemsize * 8
    if not isinstance(s, Const):
        return      # a runtime shift is checked when it runs (graph/operand_checks.py), as the API checks it
    if not 0 <= s.value < bits:
        raise TraceError(f"asc.{opname} on {dtype} shifts by 0..{bits - 1} bits, got {s.value}", loc)


def _make_duplicate(op: OpDef) -> Callable[..., None]:
    def fn(dst: LocalTensor, scalar: Any, *args: Any, count: Any = None, mask: Any = None, repeat_times: Any = None,
           dst_block_stride: Any = None, dst_repeat_stride: Any = None, is_set_mask: bool = True) -> None:
        ctx = current(f"asc.{op.name}")
        loc = user_loc()
        d = vec_operand(dst, "dst", op.name, loc)
        check_supported(op, d.dtype, loc)
        s = scalar_for(d.dtype, scalar, op.name, loc)
        form, bound = bind_form(op.name, "dst, scalar", args,
                                given(count=count, mask=mask, repeat_times=repeat_times,
                                      dst_block_stride=dst_block_stride, dst_repeat_stride=dst_repeat_stride,
                                      is_set_mask=is_set_mask), DUPLICATE_FORMS, loc)
        check_set_mask(op.name, form, bound["is_set_mask"], loc, op.family)
        if form == "count":
            ctx.record(op.name, (d, s, count_expr(bound["count"], loc)), loc, Pipe.V, make_attrs(dtype=d.dtype))
            return
        # Duplicate's mask form takes the dst strides as two numbers; they are a UnaryRepeatParams's dst half
        blk = count_expr(bound["dst_block_stride"], loc, "dst_block_stride")
        rep = count_expr(bound["dst_repeat_stride"], loc, "dst_repeat_stride")
        params = UnaryRepeatParams(blk, blk, rep, rep)
        ctx.record(op.name, (d, s, mask_arg(bound["mask"], d.dtype, loc), _repeat(bound["repeat_times"], loc), params),
                   loc, Pipe.V, make_attrs(dtype=d.dtype, form="mask"))
    fn.__doc__ = ("`dst[i] = scalar` (Ascend C Duplicate): count form `(dst, scalar, count)` or mask form "
                  "`(dst, scalar, mask, repeat_times, dst_block_stride, dst_repeat_stride)`.")
    return fn


FAMILY_BUILDERS: dict[str, Callable[[OpDef], Callable[..., Any]]] = {
    "vec_binary": _make_binary,
    "vec_unary": _make_unary,
    "vec_scalar": _make_scalar,
    "vec_duplicate": _make_duplicate,
}


def build_vector_api() -> dict[str, Callable[..., Any]]:
    from .api_ops import FAMILY_BUILDERS as more
    return api_for_families({**FAMILY_BUILDERS, **more})


# -- data movement ------------------------------------------------------------------------------

def data_copy(dst: Any, src: Any, count: Any = None, **kwargs: Any) -> None:
    """`asc.data_copy(dst, src, count)` or `asc.data_copy(dst, src, asc.DataCopyParams(...))`: copy GM->UB
    (MTE2), UB->GM (MTE3) or UB->UB (V).

    Raises:
        AlignmentError: `count * sizeof(T)` is not a multiple of 32 bytes (the hardware would silently
            round the copy down); use `asc.data_copy_pad` for such lengths.
        TraceError / DTypeError: operands of the wrong kind or of different dtypes.
    """
    ctx = current("asc.data_copy")
    loc = user_loc()
    if count is None:
        count = kwargs.pop("repeat_params", kwargs.pop("intri_params", None))
    if kwargs:
        raise TraceError(f"unexpected arguments to asc.data_copy: {', '.join(kwargs)}", loc)
    if count is None:
        raise TraceError("asc.data_copy(dst, src, count) needs the element count (or asc.DataCopyParams)", loc)
    d = tensor_ref(dst, "the destination of asc.data_copy")
    s = tensor_ref(src, "the source of asc.data_copy")
    if d.space in CUBE_SPACES or s.space in CUBE_SPACES or isinstance(count, Nd2NzParams):
        from .cube_api import data_copy_cube
        return data_copy_cube(dst, src, count, loc)
    pipe = copy_pipe(d, s, "asc.data_copy", loc)
    dtype = check_same_dtype("data_copy", [d, s], ["dst", "src"], loc)
    atomic = store_atomic(dtype, loc) if pipe is Pipe.MTE3 else None     # the store-atomic register's mode
    if isinstance(count, DataCopyParams):
        if atomic is not None:
            raise TraceError(f"an atomic {atomic[0]} store by asc.data_copy with DataCopyParams is not modelled", loc,
                             hint="store with the count form asc.data_copy(dst, src, count), or call "
                                  "asc.set_atomic_none() before this copy")
        ctx.record("data_copy", (d, s, count), loc, pipe, make_attrs(dtype=dtype, form="params"))
        return
    n = count_expr(count, loc)
    if isinstance(n, Const):
        check_copy_length(n.value, dtype, loc=loc)
    ctx.record("data_copy", (d, s, n), loc, pipe, make_attrs(dtype=dtype, atomic=atomic))


# -- synchronisation ----------------------------------------------------------------------------

def _event(event: Any, loc: SourceLoc, what: str) -> HardEvent:
    try:
        ev = member(HardEvent, event)
    except (ValueError, TypeError):
        raise TraceError(f"{what} takes an asc.HardEvent, got {event!r}", loc) from None
    if ev not in AIV_EVENTS and ev not in AIC_EVENTS:
        names = ", ".join(sorted(e.name for e in AIV_EVENTS | AIC_EVENTS))
        raise TraceError(f"HardEvent.{ev.name} has no meaning on a vector or a cube core", loc,
                         hint=f"use one of {names}")
    return ev


def _event_id(event_id: Any, loc: SourceLoc) -> Expr:
    e = to_expr(event_id, "the event id")
    if e.type != "int":
        raise TraceError(f"an event id must be an integer, got `{e}`", loc)
    if isinstance(e, Const) and not 0 <= e.value < 8:
        raise SyncError(f"event id {e.value} is outside 0..7 (Atlas A2 has 8 ids per HardEvent)", loc,
                         hint="use ids 0-5 in hand-synchronised code: TPipe reserves 6 and 7")
    return e


def set_flag(event: HardEvent, event_id: Any = 0) -> None:
    """`SetFlag<X_Y>(id)`: pipe X raises flag `id` once its earlier work is done."""
    ctx = current("asc.set_flag")
    loc = user_loc()
    ev = _event(event, loc, "asc.set_flag")
    ctx.record("set_flag", (ev, _event_id(event_id, loc)), loc, Pipe(ev.src))


def wait_flag(event: HardEvent, event_id: Any = 0) -> None:
    """`WaitFlag<X_Y>(id)`: pipe Y waits for flag `id`, then clears it."""
    ctx = current("asc.wait_flag")
    loc = user_loc()
    ev = _event(event, loc, "asc.wait_flag")
    ctx.record("wait_flag", (ev, _event_id(event_id, loc)), loc, Pipe(ev.dst))


_BARRIER_PIPES = {PipeID.PIPE_V: Pipe.V, PipeID.PIPE_MTE2: Pipe.MTE2, PipeID.PIPE_MTE3: Pipe.MTE3,
                  PipeID.PIPE_ALL: None, PipeID.PIPE_MTE1: Pipe.MTE1, PipeID.PIPE_M: Pipe.M, PipeID.PIPE_FIX: Pipe.FIX}


def pipe_barrier(pipe: PipeID) -> None:
    """`PipeBarrier<pipe>()`: later instructions of `pipe` wait for its earlier ones (PIPE_ALL: every pipe)."""
    ctx = current("asc.pipe_barrier")
    loc = user_loc()
    try:
        p = member(PipeID, pipe)
    except (ValueError, TypeError):
        raise TraceError(f"asc.pipe_barrier takes an asc.PipeID, got {pipe!r}", loc) from None
    if p == PipeID.PIPE_S:
        raise TraceError("PipeBarrier<PIPE_S> is not allowed in Ascend C", loc,
                         hint="scalar work is ordered by the S_V / V_S / S_MTE* events")
    if p not in _BARRIER_PIPES:
        raise TraceError(f"PipeID.{p.name} does not exist on a vector core", loc,
                         hint="use PIPE_V, PIPE_MTE2, PIPE_MTE3 or PIPE_ALL")
    ctx.record("pipe_barrier", (p,), loc, _BARRIER_PIPES[p])


# -- system values ------------------------------------------------------------------------------

def get_block_idx() -> Any:
    """The index of this core, in [0, core_num)."""
    return current("asc.get_block_idx").block_idx()


def get_block_num() -> Any:
    """The number of cores the kernel was launched on."""
    return current("asc.get_block_num").block_num()


# -- debug output -------------------------------------------------------------------------------

# the conversions are the printf record's (graph/ops/debug.py), which the emitter reads too
_CONV = PRINTF_CONV


def normalise_format(fmt: str) -> str:
    """Drop length modifiers (the arguments are passed as int32 / uint32 / float) and print %p as 0x%x,
    so that every backend prints the same text."""
    def fix(m: re.Match) -> str:
        text = m.group(0)
        if text == "%%":
            return text
        if m.group(2) == "p":
            return "0x%x"
        return text.replace(m.group(1), "", 1) if m.group(1) else text
    return _CONV.sub(fix, fmt)


def printf(fmt: str, *args: Any) -> None:
    """C printf from the kernel; each core's lines are tagged with its block index.

    Both a real newline and pyasc's escaped `"\\\\n"` end a line. Conversions: %d %i %u %x %f %s %p
    (plus widths and flags).

    Raises:
        TraceError: the conversions do not match the arguments.
    """
    ctx = current("asc.printf")
    loc = user_loc()
    if not isinstance(fmt, str):
        raise TraceError(f"asc.printf's first argument is the format string, got {type(fmt).__name__}", loc)
    fmt = normalise_format(fmt.replace("\\n", "\n"))   # pyasc makes users escape the newline; both mean one
    convs = printf_conversions(fmt)
    if len(convs) != len(args):
        raise TraceError(f"asc.printf format has {len(convs)} conversion(s) but {len(args)} argument(s) were given",
                         loc, hint="give one argument per %-conversion; write %% for a literal percent sign")
    vals: list[Any] = []
    for i, (c, a) in enumerate(zip(convs, args)):
        if c == "s":
            if not isinstance(a, str):
                raise TraceError(f"argument {i + 1} of asc.printf is for %s and must be a Python string", loc)
            vals.append(a)
            continue
        if isinstance(a, str):
            raise TraceError(f"argument {i + 1} of asc.printf is a string but its conversion is %{c}", loc)
        e = to_expr(a, f"argument {i + 1} of asc.printf")
        if c in INT_CONV and e.type == "float":
            raise TraceError(f"argument {i + 1} of asc.printf is a float but its conversion is %{c}", loc,
                             hint="use %f for floating-point values")
        vals.append(e)
    ctx.record("printf", (fmt, tuple(vals)), loc)


__all__ = ["data_copy", "set_flag", "wait_flag", "pipe_barrier", "get_block_idx", "get_block_num", "printf",
           "build_vector_api", "Scalar"]
