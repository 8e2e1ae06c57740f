"""pyasc's mask-register calls (set_mask_count, set_mask_norm, set_vector_mask, reset_mask) and the value the
register holds where a vector op in its mask form is called with is_set_mask=False (graph/ops/mask_reg.py).

The register's value at a point of the trace is found by walking back over the nodes recorded before it
in the same straight-line stretch: the last write of the lane bits, and the last write of the mode. What
changes them, as the vendor's dav-c220 implementation does: SetVectorMask / ResetMask (bits), SetMaskCount
/ SetMaskNorm (mode), a mask-form op with isSetMask=true (bits: its own mask), InitSocState (NORMAL and
every lane). A count-form op leaves NORMAL mode and every lane (it ends with set_mask_norm and
set_vector_mask(-1, -1)); any other vector call's effect on the register is not followed, so reading the
register past one is refused, as is reading it across the start or end of a loop or branch.
"""
from __future__ import annotations

from typing import Any

from ..dtypes import DataType
from ..enums import MaskMode, member
from ..errors import TraceError
from ..graph.expr import Const
from ..graph.node import Pipe, make_attrs
from ..graph.ops.control import REGION_OPS
from ..graph.ops.opdef import REGISTRY
from ..graph.params import Mask
from ..graph.source_loc import SourceLoc
from .scalar import to_expr
from .context import current
from .source_loc import user_loc

FULL = (1 << 64) - 1
_ELEMENTWISE = ("vec_binary", "vec_unary", "vec_scalar", "vec_duplicate")


def set_mask_count() -> None:
    """`SetMaskCount()`: vector instructions read the mask register as an element count (COUNTER mode)."""
    ctx = current("asc.set_mask_count")
    ctx.record("set_mask_count", (), user_loc())


def set_mask_norm() -> None:
    """`SetMaskNorm()`: vector instructions read the mask register as lane bits per repeat (NORMAL mode)."""
    ctx = current("asc.set_mask_norm")
    ctx.record("set_mask_norm", (), user_loc())


def reset_mask() -> None:
    """`ResetMask()`: every lane selected."""
    ctx = current("asc.reset_mask")
    ctx.record("reset_mask", (), user_loc())


def set_vector_mask(*args: Any, dtype: Any = None, mode: Any = MaskMode.NORMAL) -> None:
    """`SetVectorMask<dtype, mode>(length)` or `SetVectorMask<dtype, mode>(mask_high, mask_low)`.

    Raises:
        TraceError: not one or two integers, a dtype that is not an asc dtype, or a mode that is not
            asc.MaskMode.
    """
    ctx = current("asc.set_vector_mask")
    loc = user_loc()
    if not isinstance(dtype, DataType):
        raise TraceError(f"set_vector_mask needs dtype= (the T of SetVectorMask<T, mode>), got {dtype!r}", loc)
    try:
        m = member(MaskMode, mode)
    except (ValueError, TypeError):
        raise TraceError(f"set_vector_mask's mode is an asc.MaskMode, got {mode!r}", loc) from None
    if len(args) == 1:
        high, low = None, to_expr(args[0], "the mask length")
        if low.type != "int" or (isinstance(low, Const) and low.value < 1):
            raise TraceError(f"set_vector_mask's length is a positive integer, got `{low}`", loc)
    elif len(args) == 2:
        high, low = (_word(a, loc, w) for a, w in zip(args, ("mask_high", "mask_low")))
    else:
        raise TraceError(f"set_vector_mask takes (length) or (mask_high, mask_low), got {len(args)} arguments", loc)
    ctx.record("set_vector_mask", (m, high, low), loc, attrs=make_attrs(dtype=dtype))


def _word(v: Any, loc: SourceLoc, what: str) -> Const:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= FULL:
        raise TraceError(f"set_vector_mask's {what} is a 64-bit Python int known while tracing, got {v!r}", loc)
    return Const(v)


def _lanes(count: int, dtype: DataType) -> tuple[int, int]:
    """The bits of SetMask<T>(len): the first min(len, lanes per repeat) lanes, as (mask0, mask1)."""
    n = min(count, 256 // dtype.itemsize)
    word = (1 << n) - 1
    return word & FULL, word >> 64


def register_mask(opname: str, dtype: DataType, loc: SourceLoc) -> Mask:
    """The lane bits the mask register holds here, for `asc.<opname>(..., is_set_mask=False)`.

    In COUNTER mode the register's words unchanged: the instruction reads the low word as an element count.

    Raises:
        TraceError: the register's value here is not known while tracing.
    """
    ctx = current(f"asc.{opname}")
    bits: tuple[int, int] | None = None
    mode: MaskMode | None = None
    # the eager backend runs loops as Python loops: its history is the calls in the order they ran
    history = getattr(ctx, "history", None)
    for n in reversed(history if history is not None else list(ctx.graph)):
        if n.op in REGION_OPS:
            raise TraceError(f"asc.{opname}(..., is_set_mask=False) reads the mask register across the start or end "
                             f"of a loop or branch ({n.loc.short}), where its value is not known while tracing", loc,
                             hint="set it with asc.set_vector_mask in the same block, right before the call")
        op = REGISTRY[n.op]
        if n.op == "set_mask_count" or n.op == "set_mask_norm":
            mode = mode or (MaskMode.COUNTER if n.op == "set_mask_count" else MaskMode.NORMAL)
        elif n.op == "reset_mask" or n.op == "init_soc_state":
            bits = bits or (FULL, FULL)
            if n.op == "init_soc_state":
                mode = mode or MaskMode.NORMAL
        elif n.op == "set_vector_mask":
            if bits is None:
                bits = _set_bits(n, opname, loc)
        elif op.family in ("vec_cmpsel", "vec_cmpmask"):
            eff = _cmpsel_effect(n)         # what Compare / Select leave in the register (A2 implementation)
            if eff == "full":
                bits, mode = bits or (FULL, FULL), mode or MaskMode.NORMAL
            elif eff == "mask" and bits is None:
                bits = _op_bits(n, opname, loc)
        elif n.pipe is Pipe.V:
            if op.family in _ELEMENTWISE and n.attr("form") != "mask":       # count form: NORMAL, every lane
                bits, mode = bits or (FULL, FULL), mode or MaskMode.NORMAL
            elif op.family in _ELEMENTWISE:             # mask form: writes the bits unless is_set_mask=False
                if n.attr("set_mask") is not False and bits is None:
                    bits = _op_bits(n, opname, loc)
            else:
                raise TraceError(f"asc.{opname}(..., is_set_mask=False) reads the mask register after asc.{n.op} "
                                 f"({n.loc.short}), whose effect on it asc_trace does not follow", loc,
                                 hint="set it with asc.set_vector_mask after that call, right before this one")
        if bits is not None and mode is not None:
            break
    else:
        if bits is None:
            raise TraceError(f"asc.{opname}(..., is_set_mask=False) reads the mask register, which nothing in this "
                             "kernel has set before", loc,
                             hint="set it first: asc.set_vector_mask(mask_high, mask_low, dtype=..., mode=asc.MaskMode.NORMAL)")
        mode = mode or MaskMode.NORMAL      # a kernel starts in NORMAL mode (InitSocState's state)
    if mode is MaskMode.COUNTER:
        # the instruction reads the low word as an element count across repeats (runtime/mask_counter.py)
        return Mask(bits=bits)
    lanes = 256 // dtype.itemsize            # a b32 op reads the low word only (64 lanes per repeat)
    word = (bits[0] | (bits[1] << 64)) & ((1 << lanes) - 1)
    bits = (word & FULL, word >> 64)
    if bits == (0, 0):
        raise TraceError("the mask register selects no lane (the vendor refuses an all-zero mask)", loc)
    return Mask(bits=bits)


def _cmpsel_effect(n: Any) -> str:
    """How a Compare / Select / Get- / SetCmpMask call leaves the mask register (asc-devkit dav_c220
    kernel_operator_vec_cmp_impl.h, kernel_operator_vec_cmpsel_impl.h): "mask" its own mask (the mask forms of
    Select and Compare without dst set it, whatever is_set_mask says for Select), "full" every lane in NORMAL
    mode (Select's count form ends with ResetMask and SetMaskNorm), "none" untouched (Compare with dst issues
    vcmpv without setting it; the register forms of Select read it)."""
    form = n.attr("form")
    if form in ("sel_mask", "cmp_reg"):
        return "mask"
    if n.op == "select" and form is None:
        return "full"
    return "none"


def _set_bits(n: Any, opname: str, loc: SourceLoc) -> tuple[int, int]:
    """The register's words (mask0, mask1) after `SetVectorMask`: as given, or for a length the lane bits in
    NORMAL mode and (length, 0) in COUNTER mode (kernel_reg.h SetVectorMaskImpl: the count in the low word)."""
    mode, high, low = n.args
    if high is not None:
        return int(low.value), int(high.value)
    if not isinstance(low, Const):
        raise TraceError(f"the mask length set at {n.loc.short} is not known while tracing", loc)
    if mode is MaskMode.COUNTER:
        return int(low.value), 0
    return _lanes(int(low.value), n.attr("dtype"))


def _op_bits(n: Any, opname: str, loc: SourceLoc) -> tuple[int, int]:
    m = n.args[-3]
    if m.bits is not None:
        return m.bits
    if not isinstance(m.count, Const):
        raise TraceError(f"the mask that asc.{n.op} ({n.loc.short}) left in the register is not known while tracing",
                         loc, hint="set it with asc.set_vector_mask right before this call")
    return _lanes(int(m.count.value), n.attr("src_dtype") or n.attr("dtype"))
