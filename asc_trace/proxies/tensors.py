"""GM pointers and tensors as a kernel body sees them (pyasc names and argument order)."""
from __future__ import annotations

from typing import Any

from ..dtypes import DataType
from ..cube_enums import CUBE_MEMORY
from ..enums import UB_POSITIONS, TPosition
from ..errors import TraceError
from ..graph.expr import Const, Expr, binop
from ..graph.node import ParamRef, TensorRef, make_attrs
from .context import current
from .scalar import Scalar, to_expr, wrap
from .source_loc import user_loc

ZERO = Const(0)


class GlobalAddress:
    """A typed pointer into global memory: a kernel parameter annotated `asc.GlobalAddress`.

    `addr + offset` moves it by `offset` elements; `.dtype` is the element type of the argument.
    """

    __slots__ = ("param", "offset", "dtype")

    def __init__(self, param: ParamRef, offset: Expr, dtype: DataType) -> None:
        self.param = param
        self.offset = offset
        self.dtype = dtype

    def __add__(self, other: Any) -> "GlobalAddress":
        return GlobalAddress(self.param, binop("+", self.offset, _int_expr(other, "a pointer offset")), self.dtype)

    __radd__ = __add__

    def __sub__(self, other: Any) -> "GlobalAddress":
        return GlobalAddress(self.param, binop("-", self.offset, _int_expr(other, "a pointer offset")), self.dtype)

    def __repr__(self) -> str:
        return f"GlobalAddress({self.param.name} + {self.offset}: {self.dtype})"


def _int_expr(v: Any, what: str) -> Expr:
    e = to_expr(v, what)
    if e.type not in ("int", "bool"):
        raise TraceError(f"{what} must be an integer, got `{e}`", user_loc())
    return e


def _start_of(key: Any, kind: str) -> Expr:
    """The element offset of `t[start:]` or `t[index]` (pyasc's operator[] moves the start)."""
    if isinstance(key, slice):
        if key.stop is not None or key.step is not None:
            raise TraceError(f"{kind} slices take only a start (`t[off:]`), as Ascend C's operator[] does",
                             user_loc(), hint="pass the element count to the operation instead of a slice stop")
        key = 0 if key.start is None else key.start
    e = to_expr(key, f"a {kind} offset")
    if e.type != "int":
        raise TraceError(f"a {kind} offset must be an integer, got `{e}`", user_loc())
    return e


class GlobalTensor:
    """`asc.GlobalTensor()`; bind it with `.set_global_buffer(addr, length)`, then slice `g[off:]`."""

    __slots__ = ("_ref",)

    def __init__(self, _ref: TensorRef | None = None) -> None:
        self._ref = _ref

    def set_global_buffer(self, buffer: Any = None, buffer_size: Any = None) -> None:
        """Bind to `buffer` (a GlobalAddress); with `buffer_size`, accesses are checked against that window.

        Raises:
            TraceError: `buffer` is not a GlobalAddress kernel parameter (plus an offset).
        """
        ctx = current("GlobalTensor.set_global_buffer")
        loc = user_loc()
        if not isinstance(buffer, GlobalAddress):
            raise TraceError(f"set_global_buffer needs a GlobalAddress parameter (plus an offset), got "
                             f"{type(buffer).__name__}", loc,
                             hint="annotate the kernel parameter as `x: asc.GlobalAddress` and pass it, e.g. "
                                  "g.set_global_buffer(x + offset, length)")
        size = None if buffer_size is None else _int_expr(buffer_size, "the buffer size")
        nid = ctx.record("global_tensor", (buffer.param, buffer.offset, size), loc,
                         attrs=make_attrs(dtype=buffer.dtype))
        self._ref = TensorRef(nid, "gm", buffer.dtype, ZERO)

    def _bound(self) -> TensorRef:
        if self._ref is None:
            raise TraceError("this GlobalTensor is not bound to memory yet", user_loc(),
                             hint="call g.set_global_buffer(addr, length) first")
        return self._ref

    @property
    def dtype(self) -> DataType:
        return self._bound().dtype

    def __getitem__(self, key: Any) -> "GlobalTensor":
        ref = self._bound()
        return GlobalTensor(TensorRef(ref.root, "gm", ref.dtype, binop("+", ref.offset, _start_of(key, "GlobalTensor"))))

    def __repr__(self) -> str:
        return f"GlobalTensor({self._ref})" if self._ref else "GlobalTensor(<unbound>)"


class LocalTensor:
    """A typed view of the Unified Buffer.

    `asc.LocalTensor(dtype, asc.TPosition.VECIN, byte_addr, length)` places one at a fixed byte
    address (static-tensor programming); TQue / TBuf hand them out too. `t[off:]` moves the start by
    `off` elements. Tensors that overlap in the UB alias, as on hardware.
    """

    __slots__ = ("_ref",)

    def __init__(self, dtype: Any = None, pos: Any = TPosition.VECIN, addr: Any = 0, tile_size: Any = 0,
                 *, _ref: TensorRef | None = None) -> None:
        if _ref is not None:
            self._ref = _ref
            return
        ctx = current("asc.LocalTensor")
        loc = user_loc()
        if not isinstance(dtype, DataType):
            raise TraceError(f"LocalTensor's first argument is the element type (e.g. asc.float32), got {dtype!r}",
                             loc, hint="asc.LocalTensor(asc.float32, asc.TPosition.VECIN, byte_addr, length)")
        pos = _position(pos, loc)
        space = _space(pos)
        addr_e = to_expr(addr, "the LocalTensor byte address")
        size_e = to_expr(tile_size, "the LocalTensor length")
        if addr_e.type != "int" or size_e.type != "int":
            raise TraceError("a LocalTensor's address and length must be integers", loc)
        nid = ctx.record("local_tensor", (pos, addr_e, size_e), loc, attrs=make_attrs(dtype=dtype))
        self._ref = TensorRef(nid, space, dtype, ZERO)

    @property
    def dtype(self) -> DataType:
        return self._ref.dtype

    def __getitem__(self, key: Any) -> "LocalTensor":
        ref = self._ref
        return LocalTensor(_ref=TensorRef(ref.root, ref.space, ref.dtype,
                                          binop("+", ref.offset, _start_of(key, "LocalTensor"))))

    def reinterpret_cast(self, dtype: DataType) -> "LocalTensor":
        """The same bytes seen as another element type (Ascend C `ReinterpretCast<U>()`)."""
        ref = self._ref
        if not isinstance(dtype, DataType):
            raise TraceError(f"reinterpret_cast needs an element type, got {dtype!r}", user_loc())
        byte_off = binop("*", ref.offset, Const(ref.dtype.itemsize))
        if byte_off.type == "int" and isinstance(byte_off, Const) and byte_off.value % dtype.itemsize:
            raise TraceError("the view's start is not a whole number of the new elements", user_loc())
        return LocalTensor(_ref=TensorRef(ref.root, ref.space, dtype, binop("//", byte_off, Const(dtype.itemsize))))

    def get_value(self, index: Any) -> Any:
        """The element at `index`, read by the scalar unit (a runtime scalar)."""
        from .api_ops import get_value
        return get_value(self._ref, index)

    def set_value(self, index: Any, value: Any) -> None:
        """Write one element from the scalar unit."""
        from .api_ops import set_value
        set_value(self._ref, index, value)

    GetValue = get_value
    SetValue = set_value

    def numpy(self, count: Any = None) -> Any:
        """A copy of the tensor's current contents (eager backend only; for print / pdb debugging)."""
        return current("LocalTensor.numpy").read_tensor(self._ref, count, user_loc())

    def __repr__(self) -> str:
        return f"LocalTensor({self._ref}: {self._ref.dtype})"


def _position(pos: Any, loc) -> TPosition:
    try:
        p = TPosition(pos)
    except (ValueError, TypeError):
        raise TraceError(f"not a TPosition: {pos!r}", loc) from None
    if p not in UB_POSITIONS and p not in CUBE_MEMORY:
        raise TraceError(f"TPosition.{p.name} is not local memory: a vector core's local tensors live in VECIN, "
                         "VECOUT or VECCALC (the Unified Buffer), a cube core's in A1 / B1 / C1 (L1), A2 (L0A), "
                         "B2 (L0B), CO1 (L0C) or C2 (the bias table)", loc)
    return p


def _space(p: TPosition) -> str:
    """The memory a position names: "ub" for the vector core's, the cube memory's name otherwise."""
    mem = CUBE_MEMORY.get(p)
    return "ub" if mem is None else mem.space


def tensor_ref(t: Any, what: str) -> TensorRef:
    """The TensorRef of a Local/GlobalTensor operand, or a TraceError naming the operand."""
    if isinstance(t, LocalTensor):
        return t._ref
    if isinstance(t, GlobalTensor):
        return t._bound()
    if isinstance(t, GlobalAddress):
        raise TraceError(f"{what} is a GlobalAddress; wrap it in a GlobalTensor first", user_loc(),
                         hint="g = asc.GlobalTensor(); g.set_global_buffer(addr, length)")
    raise TraceError(f"{what} must be a LocalTensor or GlobalTensor, got {type(t).__name__}", user_loc())


__all__ = ["GlobalAddress", "GlobalTensor", "LocalTensor", "Scalar", "tensor_ref", "wrap"]
