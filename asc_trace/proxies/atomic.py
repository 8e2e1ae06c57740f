"""pyasc's GM atomics (set_atomic_add / max / min / type / none, set_store_atomic_config,
get_store_atomic_config) and the operation a UB -> GM copy applies (graph/ops/atomic.py).

The store-atomic register is followed while tracing: each write records a node and sets the state
(operation, element type, the region it was set in). A UB -> GM copy takes the state in force as its
`atomic` attribute. The state is known at a copy when it was set in the copy's region or one enclosing
it; a copy in a loop whose state a later write of the same loop changes would see another operation
on the next iteration, so that write is refused; so is a copy after a loop or branch that changed it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..dtypes import DataType
from ..enums import AtomicDtype, AtomicOp
from ..errors import DTypeError, TraceError
from ..graph.node import make_attrs
from ..graph.ops.atomic import ATOMIC_DTYPES, TYPE_CODE
from ..graph.source_loc import SourceLoc
from .context import current
from .source_loc import user_loc

_OF_CODE = {code: name for name, code in TYPE_CODE.items()}


@dataclass
class _State:
    op: str | None = None            # "add" / "max" / "min", None: plain stores
    dtype: str | None = None         # the element type the register holds
    scope: tuple[int, ...] = ()      # the regions open where it was set
    loc: SourceLoc | None = None
    uses: list[tuple[tuple[int, ...], tuple[int, ...], SourceLoc]] = field(default_factory=list)


def _state(ctx: Any) -> _State:
    st = getattr(ctx, "_asc_atomic", None)
    if st is None:
        st = _State()
        ctx._asc_atomic = st
    return st


def _scope(ctx: Any) -> tuple[int, ...]:
    return tuple(r.id for r in getattr(ctx, "regions", ()))


def _write(what: str, op: str | None, dtype: str | None, args: tuple = (), dt: DataType | None = None,
           keep_op: bool = False) -> None:
    ctx = current(f"asc.{what}")
    loc = user_loc()
    st = _state(ctx)
    scope = _scope(ctx)
    for region in scope:    # a copy earlier in this loop / branch that read a state from outside it
        for use_scope, state_scope, use_loc in st.uses:
            if region in use_scope and region not in state_scope:
                raise TraceError(f"asc.{what} changes the atomic mode inside a loop or branch whose copy at "
                                 f"{use_loc.short} used the mode set outside it: on the next iteration that copy "
                                 "would store with another mode", loc,
                                 hint="set the mode in the loop before that copy, and reset it at the loop's end")
    ctx.record(what, args, loc, attrs=make_attrs(dtype=dt) if dt is not None else ())
    st.op = st.op if keep_op else op
    st.dtype = dtype
    st.scope, st.loc = scope, loc


def _dtype(what: str, dtype: Any) -> DataType:
    loc = user_loc()
    if not isinstance(dtype, DataType):
        raise TraceError(f"asc.{what} takes the element type (e.g. asc.float32), got {dtype!r}", loc)
    if dtype.name not in ATOMIC_DTYPES:
        raise DTypeError(f"asc.{what} does not support {dtype}: the atomic store takes "
                         f"{', '.join(ATOMIC_DTYPES)}", loc)
    return dtype


def set_atomic_add(dtype: Any = None) -> None:
    """`SetAtomicAdd<dtype>()`: later UB -> GM copies add into GM.

    Raises:
        DTypeError: a type the atomic store does not take.
    """
    dt = _dtype("set_atomic_add", dtype)
    _write("set_atomic_add", "add", dt.name, dt=dt)


def set_atomic_max(dtype: Any = None) -> None:
    """`SetAtomicMax<dtype>()`: later UB -> GM copies keep the larger of GM and the stored value."""
    dt = _dtype("set_atomic_max", dtype)
    _write("set_atomic_max", "max", dt.name, dt=dt)


def set_atomic_min(dtype: Any = None) -> None:
    """`SetAtomicMin<dtype>()`: later UB -> GM copies keep the smaller of GM and the stored value."""
    dt = _dtype("set_atomic_min", dtype)
    _write("set_atomic_min", "min", dt.name, dt=dt)


def set_atomic_type(dtype: Any = None) -> None:
    """`SetAtomicType<dtype>()`: the element type of the atomic operation in force."""
    dt = _dtype("set_atomic_type", dtype)
    _write("set_atomic_type", None, dt.name, dt=dt, keep_op=True)


def set_atomic_none() -> None:
    """`SetAtomicNone()`: later UB -> GM copies overwrite GM again."""
    _write("set_atomic_none", None, None)


def set_store_atomic_config(atomic_type: Any, atomic_op: Any) -> None:
    """`SetStoreAtomicConfig<atomic_type, atomic_op>()`: the register's type and operation at once (ATOMIC_NONE:
    plain stores)."""
    loc = user_loc()
    try:
        t, o = AtomicDtype(atomic_type), AtomicOp(atomic_op)
    except (ValueError, TypeError):
        raise TraceError(f"set_store_atomic_config takes an asc.AtomicDtype and an asc.AtomicOp, got "
                         f"{atomic_type!r}, {atomic_op!r}", loc) from None
    name = _OF_CODE.get(int(t))
    _write("set_store_atomic_config", None if name is None else "add", name, args=(t, o))


def get_store_atomic_config() -> tuple[int, int]:
    """`GetStoreAtomicConfig(type, op)`: the register's (AtomicDtype, AtomicOp) codes, known while tracing.

    Raises:
        TraceError: the mode here is not known while tracing, or is max / min (whose op codes are not public).
    """
    ctx = current("asc.get_store_atomic_config")
    loc = user_loc()
    op, dtype = in_force(ctx, loc, "asc.get_store_atomic_config")
    if op is not None and op != "add":
        raise TraceError(f"get_store_atomic_config under SetAtomic{op.capitalize()}: the register's code for "
                         f"{op} is not documented (AtomicOp has only ATOMIC_SUM)", loc)
    codes = (0 if dtype is None or op is None else TYPE_CODE[dtype], 0)
    ctx.record("get_store_atomic_config", codes, loc)
    return codes


def in_force(ctx: Any, loc: SourceLoc, what: str) -> tuple[str | None, str | None]:
    """(operation, element type) of the store-atomic register here."""
    st = _state(ctx)
    scope = _scope(ctx)
    if st.scope != scope[:len(st.scope)]:
        raise TraceError(f"{what} follows a loop or branch that changed the atomic mode (at {st.loc.short}): "
                         "which mode is in force here depends on how often it ran", loc,
                         hint="set the atomic mode again after the loop or branch")
    st.uses.append((scope, st.scope, loc))
    return st.op, st.dtype


def store_atomic(dtype: DataType, loc: SourceLoc) -> tuple[str, str] | None:
    """The `atomic` attribute of a UB -> GM copy of `dtype` elements: (op, dtype name), or None.

    Raises:
        DTypeError: the register's element type is not the copy's.
    """
    ctx = current("asc.data_copy")
    op, adt = in_force(ctx, loc, "this copy to GM")
    if op is None:
        return None
    if adt != dtype.name:
        raise DTypeError(f"this copy stores {dtype} elements while the atomic {op} is set for {adt}: the store "
                         "would combine them as the wrong type", loc,
                         hint=f"asc.set_atomic_{op}({'asc.' + dtype.name}) before the copy, or a copy of {adt}")
    return op, adt
