"""GM pointers and tensors as a kernel body sees them (pyasc names and argument order)."""
from __future__ import annotations

from typing import Any

from ..dtypes import DataType
from ..cube_enums import CUBE_MEMORY
from ..enums import UB_POSITIONS, CacheMode, CacheRwMode, TPosition, member
from ..errors import NotProvidedError, TraceError
from ..graph.expr import Const, Expr, binop
from ..graph.node import ParamRef, Pipe, TensorRef, make_attrs
from ..graph.params import ShapeInfo as GraphShapeInfo
from ..graph.source_loc import SourceLoc
from .context import current
from .operands import count_expr, scalar_for
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


class _ShapeInfoMixin:
    """pyasc's `set_shape_info` / `get_shape_info`: a ShapeInfo the tensor carries, known while tracing (Ascend C
    keeps it in the tensor object; a view `t[off:]` copies it, as operator[] copies the tensor)."""

    __slots__ = ()

    def set_shape_info(self, shape_info: Any) -> None:
        if not isinstance(shape_info, GraphShapeInfo):
            raise TraceError(f"set_shape_info takes an asc.ShapeInfo, got {type(shape_info).__name__}", user_loc())
        self._shape = shape_info

    def get_shape_info(self) -> Any:
        """The ShapeInfo set on this tensor, or an empty asc.ShapeInfo() (Ascend C's default)."""
        shape = getattr(self, "_shape", None)
        return shape if shape is not None else GraphShapeInfo(())

    SetShapeInfo = set_shape_info
    GetShapeInfo = get_shape_info


class GlobalTensor(_ShapeInfoMixin):
    """`asc.GlobalTensor()`; bind it with `.set_global_buffer(addr, length)`, then slice `g[off:]`."""

    __slots__ = ("_ref", "_shape")

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

    def __iter__(self) -> Any:
        # without this, __getitem__ makes Python iterate a tensor forever (one view per index)
        raise TraceError("a GlobalTensor is not iterable: copy a tile into the UB with asc.data_copy and compute on "
                         "it, or read one element with get_value", user_loc())

    def __getitem__(self, key: Any) -> "GlobalTensor":
        ref = self._bound()
        view = GlobalTensor(TensorRef(ref.root, "gm", ref.dtype, binop("+", ref.offset, _start_of(key, "GlobalTensor"))))
        view._shape = getattr(self, "_shape", None)
        return view

    def get_value(self, offset: Any) -> Any:
        """The element at `offset`, read by the scalar unit (Ascend C `GlobalTensor::GetValue`)."""
        return read_element(self._bound(), offset)

    def set_value(self, offset: Any, value: Any) -> None:
        """Write one element from the scalar unit (Ascend C `GlobalTensor::SetValue`)."""
        write_element(self._bound(), offset, value)

    __call__ = get_value       # pyasc's `g(i)`: Ascend C's operator() read as a value
    GetValue = get_value
    SetValue = set_value

    def get_size(self) -> Any:
        """The element count of the `set_global_buffer` window (`GetSize()`; a view `g[off:]` keeps it, as
        Ascend C's operator[] copies bufferSize unchanged).

        Raises:
            TraceError: the GlobalTensor was bound without a size (its window is the whole argument,
                which is only known at launch).
        """
        ref = self._bound()
        size = current("GlobalTensor.get_size").recorded()[ref.root].args[2]
        if size is None:
            raise TraceError("get_size() needs the window size: bind with set_global_buffer(addr, length)", user_loc())
        return wrap(size)      # Ascend C's operator[] keeps bufferSize: a view reports the whole window

    def get_phy_addr(self, offset: Any = 0) -> GlobalAddress:
        """The address of element `offset` of this tensor (`GetPhyAddr(offset)`), as a GlobalAddress that
        `set_global_buffer` and `+` take: the argument it points into, and where, are known while tracing."""
        ref = self._bound()
        node = current("GlobalTensor.get_phy_addr").recorded()[ref.root]
        param, start = node.args[0], node.args[1]
        return GlobalAddress(param, binop("+", binop("+", start, ref.offset), _int_expr(offset, "the element offset")),
                             ref.dtype)

    def set_l2_cache_hint(self, mode: Any = CacheMode.CACHE_MODE_NORMAL, rw_mode: Any = CacheRwMode.RW) -> None:
        """`SetL2CacheHint<rw_mode>(mode)`: the L2 cache policy of this tensor's later accesses (their data is the
        same whatever the policy; the model has no L2 cache).

        Raises:
            TraceError: a view `g[off:]` (Ascend C sets the hint on the object, and a view is a temporary), or
                an enum that is not CacheMode / CacheRwMode.
        """
        ctx = current("GlobalTensor.set_l2_cache_hint")
        loc = user_loc()
        ref = self._bound()
        if not (isinstance(ref.offset, Const) and ref.offset.value == 0):
            raise TraceError("set_l2_cache_hint is set on the GlobalTensor that set_global_buffer bound, not on a "
                             "view g[off:]", loc, hint="bind a GlobalTensor at that offset and set the hint on it")
        try:
            m, rw = CacheMode(mode), CacheRwMode(rw_mode)
        except (ValueError, TypeError):
            raise TraceError(f"set_l2_cache_hint takes an asc.CacheMode and an asc.CacheRwMode, got {mode!r}, "
                             f"{rw_mode!r}", loc) from None
        ctx.record("set_l2_cache_hint", (ref, m, rw), loc)

    GetPhyAddr = get_phy_addr
    SetL2CacheHint = set_l2_cache_hint

    def __repr__(self) -> str:
        return f"GlobalTensor({self._ref})" if self._ref else "GlobalTensor(<unbound>)"


class LocalTensor(_ShapeInfoMixin):
    """A typed view of the Unified Buffer.

    `asc.LocalTensor(dtype, asc.TPosition.VECIN, byte_addr, length)` places one at a fixed byte
    address (static-tensor programming); TQue / TBuf hand them out too. `t[off:]` moves the start by
    `off` elements. Tensors that overlap in the UB alias, as on hardware.
    """

    __slots__ = ("_ref", "_shape")

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

    def __iter__(self) -> Any:
        # without this, __getitem__ makes Python iterate a tensor forever (one view per index)
        raise TraceError("a LocalTensor is not iterable: use the vector ops on it, or get_value(i) in a loop over "
                         "range(...) for one element at a time", user_loc())

    def __getitem__(self, key: Any) -> "LocalTensor":
        ref = self._ref
        view = LocalTensor(_ref=TensorRef(ref.root, ref.space, ref.dtype,
                                          binop("+", ref.offset, _start_of(key, "LocalTensor"))))
        view._shape = getattr(self, "_shape", None)
        return view

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
        return read_element(self._ref, index)

    def set_value(self, index: Any, value: Any) -> None:
        """Write one element from the scalar unit."""
        write_element(self._ref, index, value)

    GetValue = get_value
    SetValue = set_value
    __call__ = get_value       # pyasc's `t(i)`: Ascend C's operator() read as a value

    def get_position(self) -> TPosition:
        """The tensor's logical position (`GetPosition()`), known while tracing."""
        nodes = current("LocalTensor.get_position").recorded()
        n = nodes[self._ref.root]
        if n.op == "local_tensor":
            return n.args[0]
        return nodes[n.args[0].root].args[0]         # the TQue / TBuf that handed it out

    def get_size(self) -> Any:
        """The element count from this view's start to the end of its buffer (`GetSize()`)."""
        nodes = current("LocalTensor.get_size").recorded()
        n = nodes[self._ref.root]
        if n.op == "local_tensor":
            total: Expr = n.args[2]
        elif n.op == "tbuf_get" and n.args[1] is not None:
            total = n.args[1]
        else:
            init = next((m for m in nodes.values() if m.op == "init_buffer" and m.args[0].root == n.args[0].root), None)
            if init is None:
                raise TraceError("get_size() of a queue / TBuf tensor needs pipe.init_buffer for it first", user_loc())
            total = binop("//", init.args[2], Const(self._ref.dtype.itemsize))
        return wrap(binop("-", total, self._ref.offset))

    def get_length(self) -> Any:
        """The length in bytes from this view's start to the end of its buffer (`GetLength()`)."""
        return wrap(binop("*", to_expr(self.get_size()), Const(self._ref.dtype.itemsize)))

    def get_phy_addr(self, offset: Any = 0) -> Any:
        """The UB byte address of element `offset` of this view (`GetPhyAddr(offset)` on the vector core).

        Raises:
            TraceError: the tensor comes from a TQue / TBuf, whose address the TPipe gives out at run time.
        """
        n = current("LocalTensor.get_phy_addr").recorded()[self._ref.root]
        if n.op != "local_tensor" or n.attr("auto"):
            raise TraceError("get_phy_addr() is known for a static LocalTensor(dtype, pos, addr, length) only; a "
                             "queue, TBuf or LocalTensorAuto tensor is placed later", user_loc())
        elems = binop("+", self._ref.offset, _int_expr(offset, "the get_phy_addr offset"))
        return wrap(binop("+", n.args[1], binop("*", elems, Const(self._ref.dtype.itemsize))))

    def set_size(self, size: Any) -> None:
        """Make this static LocalTensor `size` elements long (`SetSize`); later accesses are checked against it."""
        self._resize(_int_expr(size, "the size"), "set_size")

    def set_buffer_len(self, length: Any) -> None:
        """Make this static LocalTensor `length` bytes long (`SetBufferLen`)."""
        self._resize(binop("//", _int_expr(length, "the buffer length"), Const(self._ref.dtype.itemsize)),
                     "set_buffer_len")

    def _resize(self, elems: Expr, what: str) -> None:
        ctx = current(f"LocalTensor.{what}")
        loc = user_loc()
        n = ctx.recorded()[self._ref.root]
        if n.op != "local_tensor" or n.attr("auto"):
            raise TraceError(f"{what} is provided for a static LocalTensor(dtype, pos, addr, length); a queue or TBuf "
                             "tensor's size is its buffer's", loc, hint="size the buffer in pipe.init_buffer instead")
        addr = binop("+", n.args[1], binop("*", self._ref.offset, Const(self._ref.dtype.itemsize)))
        nid = ctx.record("local_tensor", (n.args[0], addr, elems), loc, attrs=make_attrs(dtype=self._ref.dtype))
        self._ref = TensorRef(nid, "ub", self._ref.dtype, ZERO)

    def set_user_tag(self, tag: Any) -> None:
        """Refused: see get_user_tag."""
        self._user_tag("set_user_tag")

    def get_user_tag(self) -> Any:
        """Refused: Ascend C keeps the tag in the TPipe buffer handle (`SetUserTag` / `GetUserTag` in
        kernel_tensor_impl.h), which a static tensor has none of (the header asserts it is not null) and
        which, for a queue tensor, is whichever buffer the queue hands out at run time."""
        self._user_tag("get_user_tag")

    def _user_tag(self, what: str) -> None:
        n = current(f"LocalTensor.{what}").recorded()[self._ref.root]
        if n.op == "local_tensor":
            raise TraceError(f"{what} needs a tensor from a TQue: a static LocalTensor has no TPipe buffer to hold "
                             "the tag (Ascend C asserts on it)", user_loc())
        raise NotProvidedError(f"LocalTensor.{what} is not provided: the tag belongs to the queue buffer the tensor "
                               "occupies at run time", user_loc(), hint="keep the tag in a variable next to the tensor")

    def set_addr_with_offset(self, src: "LocalTensor", offset: Any) -> None:
        """View `src`'s buffer from its element `offset` (`SetAddrWithOffset(src, offset)`), as this tensor's type."""
        if not isinstance(src, LocalTensor):
            raise TraceError(f"set_addr_with_offset takes a LocalTensor, got {type(src).__name__}", user_loc())
        self._ref = src[offset:].reinterpret_cast(self._ref.dtype)._ref

    def numpy(self, count: Any = None) -> Any:
        """A copy of the tensor's current contents (eager backend only; for print / pdb debugging)."""
        return current("LocalTensor.numpy").read_tensor(self._ref, count, user_loc())

    def __repr__(self) -> str:
        return f"LocalTensor({self._ref}: {self._ref.dtype})"


class LocalTensorAuto(LocalTensor):
    """pyasc's compiler-managed tensor: `asc.LocalTensorAuto(dtype, length)` (or a shape whose product is the
    length). It has no address here: graph/auto_place.py gives it one by liveness after tracing, and the
    scheduler derives the synchronisation (pyasc's insert_sync)."""

    __slots__ = ()

    def __init__(self, dtype: Any = None, shape: Any = None, *, _ref: TensorRef | None = None) -> None:
        if _ref is not None:
            self._ref = _ref
            return
        ctx = current("asc.LocalTensorAuto")
        loc = user_loc()
        addr: Expr = ZERO          # graph/auto_place.py places it after tracing
        if ctx.eager:
            # eager runs each call as it is made, before the tensor's last use is known: it takes the address
            # the traced and scheduled kernel planned for this call site
            placed = ctx.auto_address(loc)
            if placed is None:
                raise NotProvidedError("asc.LocalTensorAuto on the eager backend needs one address per call site; "
                                       "this line makes tensors at different addresses (a sub-kernel called twice?)",
                                       loc, hint="run it on sim, cpp or cpu_debug (backend='sim')")
            addr = Const(placed)
        if not isinstance(dtype, DataType):
            raise TraceError(f"LocalTensorAuto's first argument is the element type (e.g. asc.float32), got {dtype!r}",
                             loc, hint="asc.LocalTensorAuto(asc.float32, length)")
        dims = list(shape) if isinstance(shape, (list, tuple)) else [shape]
        length = 1
        for d in dims:
            e = to_expr(d, "a LocalTensorAuto dimension")
            if not (isinstance(e, Const) and e.type == "int" and e.value > 0):
                raise TraceError(f"a LocalTensorAuto's size must be a positive integer known while tracing, got `{e}`",
                                 loc, hint="pass the tile length as an asc.ConstExpr[int] kernel parameter")
            length *= e.value
        nid = ctx.record("local_tensor", (TPosition.VECCALC, addr, Const(length)), loc,
                         attrs=make_attrs(dtype=dtype, auto=True))
        self._ref = TensorRef(nid, "ub", dtype, ZERO)


def _position(pos: Any, loc) -> TPosition:
    try:
        p = member(TPosition, pos)
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


def vec_operand(t: Any, what: str, opname: str, loc: SourceLoc) -> TensorRef:
    """The TensorRef of a vector op's operand, which must be a LocalTensor (a UB tensor)."""
    if isinstance(t, GlobalTensor):
        raise TraceError(f"asc.{opname} works on LocalTensors in the Unified Buffer, but {what} is a GlobalTensor",
                         loc, hint="copy the data into the UB with asc.data_copy(local, global, count) first")
    if not isinstance(t, LocalTensor):
        raise TraceError(f"{what} of asc.{opname} must be a LocalTensor, got {type(t).__name__}", loc)
    return t._ref


def read_element(ref: TensorRef, index: Any) -> Any:
    """One element read by the scalar unit (GetValue of a Local or GlobalTensor): a runtime scalar."""
    ctx = current("LocalTensor.get_value")
    loc = user_loc()
    i = count_expr(index, loc, "index")
    nid = ctx.record("get_value", (ref, i), loc, Pipe.S, make_attrs(dtype=ref.dtype))
    return ctx.node_value(nid, "float" if ref.dtype.is_float else "int")


def write_element(ref: TensorRef, index: Any, value: Any) -> None:
    """One element written by the scalar unit (SetValue of a Local or GlobalTensor)."""
    ctx = current("LocalTensor.set_value")
    loc = user_loc()
    i = count_expr(index, loc, "index")
    v = scalar_for(ref.dtype, value, "set_value", loc)
    ctx.record("set_value", (ref, i, v), loc, Pipe.S, make_attrs(dtype=ref.dtype))


__all__ = ["GlobalAddress", "GlobalTensor", "LocalTensor", "LocalTensorAuto", "Scalar", "tensor_ref", "wrap"]
