"""TPipe / TQue / TBuf: the Ascend C framework that hands out UB buffers and synchronises the
producer and consumer pipes of each queue (docs/facts.md#facts-6)."""
from __future__ import annotations

from typing import Any

from ..dtypes import DataType
from ..enums import HardEvent, Hardware, TPosition, member
from ..errors import NotProvidedError, QueueError, TraceError
from ..graph.expr import Const, binop
from ..graph.node import ObjRef, TensorRef, make_attrs
from .context import current
from .event_pool import EventPool
from .source_loc import user_loc
from .scalar import wrap
from .tensors import LocalTensor, _int_expr, _position


class TPipe:
    """`asc.TPipe()`: owns the UB memory given to queues and TBufs with `init_buffer`."""

    __slots__ = ("_obj", "_events")

    def __init__(self) -> None:
        ctx = current("asc.TPipe")
        loc = user_loc()
        # one TPipe per kernel: one made in a runtime loop would be a second one from the second trip on,
        # found only by the runs that take it (refused here, on every backend, whatever the trip count)
        loops = [r for r in getattr(ctx, "regions", ()) if ctx.graph.node(r.id).op in ("for", "while")]
        if loops:
            raise TraceError("asc.TPipe() inside a runtime loop: a kernel creates exactly one TPipe, and this one "
                             "would be created again on every iteration", loc,
                             hint="create the TPipe once, before the loop")
        # a second TPipe is refused here, before any backend: C++ would not compile two (a redeclaration)
        first = next((n for n in ctx.graph if n.op == "tpipe"), None)
        if first is not None:
            raise QueueError("a kernel creates exactly one TPipe; this is the second", loc,
                             related=[("first TPipe", first.loc)], hint="pass the first TPipe where it is needed")
        self._obj = ObjRef(ctx.record("tpipe", (), loc), "pipe")
        self._events = EventPool()
        if getattr(ctx, "asc_tpipe", None) is None:
            ctx.asc_tpipe = self        # what asc.get_tpipe_ptr() returns (proxies/event_pool.py)

    def alloc_event_id(self, event: Any = HardEvent.V_S) -> int:
        """Reserve the first free id of `event` from the TPipe's pool (`AllocEventID<E>()`): the scheduler's own
        flags avoid it until `release_event_id`. Known while tracing, so it is a plain int."""
        return self._events.alloc(event)

    def release_event_id(self, id: Any, event: Any = HardEvent.V_S) -> None:  # noqa: A002 - pyasc name
        """Give back an id `alloc_event_id` returned (`ReleaseEventID<E>(id)`)."""
        self._events.release(id, event)

    def fetch_event_id(self, event: Any = HardEvent.V_S) -> int:
        """The first id of `event` not reserved with alloc_event_id (`FetchEventID(E)`), without reserving it."""
        return self._events.fetch(event)

    AllocEventID = alloc_event_id
    ReleaseEventID = release_event_id
    FetchEventID = fetch_event_id

    def init_buffer(self, que: Any = None, num: Any = None, len: Any = None,  # noqa: A002 - pyasc name
                    buf: Any = None) -> None:
        """`init_buffer(que, num, len_bytes)` for a TQue, `init_buffer(tbuf, len_bytes)` for a TBuf (pyasc's
        keyword form: `init_buffer(buf=tbuf, num=len_bytes)`).

        Raises:
            TraceError: `que` is neither a TQue nor a TBuf, or a size is missing.
        """
        ctx = current("TPipe.init_buffer")
        loc = user_loc()
        if buf is not None:
            if que is not None:
                raise TraceError("init_buffer takes either que= or buf=, not both", loc)
            if not isinstance(buf, TBuf):
                raise TraceError(f"init_buffer(buf=...) takes a TBuf, got {type(buf).__name__}", loc)
            que = buf
        if isinstance(que, TBuf):
            length = num if len is None else len
            if length is None:
                raise TraceError("init_buffer(tbuf, len_bytes) needs the length in bytes", loc)
            ctx.record("init_buffer", (que._obj, Const(1), _int_expr(length, "the buffer length")), loc)
            return
        if not isinstance(que, TQue):
            raise TraceError(f"init_buffer takes a TQue or a TBuf, got {type(que).__name__}", loc)
        if num is None or len is None:
            raise TraceError("init_buffer(que, num, len_bytes) needs the buffer count and the length in bytes", loc)
        num_e = _int_expr(num, "the buffer count")
        ctx.record("init_buffer", (que._obj, num_e, _int_expr(len, "the buffer length")), loc)
        que._num = num_e.value if isinstance(num_e, Const) and not ctx.regions else None

    initBuffer = init_buffer
    InitBuffer = init_buffer

    def init_buf_pool(self, buf_pool: Any, len: Any = 0, share_buf: Any = None) -> None:  # noqa: A002 - pyasc
        """Carve `len` bytes of the TPipe's memory for a TBufPool (proxies/buf_pool.py)."""
        from .buf_pool import init_pool
        init_pool(self._obj, None, buf_pool, len, share_buf, "TPipe.init_buf_pool")

    InitBufPool = init_buf_pool

    def init(self) -> None:
        """Refused: `TPipe()` already runs Ascend C's `TPipe::Init()`, which asserts (in debug builds) that no
        TPipe is constructed yet (kernel_tpipe_impl.h), so a second call is a bug there."""
        raise TraceError("TPipe.init(): the TPipe() constructor has already initialised the pipe (Ascend C's "
                         "constructor calls Init, and Init refuses a pipe that exists)", user_loc(),
                         hint="drop the call")

    def destroy(self) -> None:
        """Not provided: the TPipe is destroyed when the kernel ends (Ascend C's destructor calls Destroy)."""
        raise NotProvidedError("TPipe.destroy() is not provided: asc_trace's TPipe lives for the whole kernel and is "
                               "destroyed at its end, as Ascend C's destructor does", user_loc(),
                               hint="drop the call; one TPipe per kernel")

    def reset(self) -> None:
        """Not provided: re-dividing the UB between queues in one kernel."""
        raise NotProvidedError("TPipe.reset() is not provided: a kernel's queues and TBufs keep the UB that "
                               "init_buffer gave them", user_loc(),
                               hint="size every queue and TBuf for the whole kernel, or reuse one TBuf's memory")

    Init = init
    Destroy = destroy
    Reset = reset


class TQue:
    """`asc.TQue(asc.TPosition.VECIN, depth)`: a queue of UB tensors between two pipes. At VECCALC it hands
    out scratch buffers (alloc_tensor / free_tensor) with no queue events.

    alloc_tensor -> fill -> enque  ...  deque -> use -> free_tensor, with the events of docs/facts.md#facts-6
    inserted by the framework. The seed's spellings (allocTensor, enQue, deQue, freeTensor) also work.
    """

    # _queued / _taken / _num: the queue's usedCount / bufUsedCount / bufNum as Ascend C keeps them, known
    # while tracing straight-line code (None once a loop or branch has used the queue, or for a runtime num)
    __slots__ = ("_obj", "pos", "depth", "_dtype", "_queued", "_taken", "_num", "_fifo")

    def __init__(self, pos: Any = TPosition.VECIN, depth: Any = 1, mask: Any = 0) -> None:
        loc = user_loc()
        ctx = current("asc.TQue")
        self.pos = _position(pos, loc)
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
            raise TraceError(f"TQue depth must be a Python int >= 0, got {depth!r}", loc)
        if depth == 0 and self.pos == TPosition.VECCALC:
            raise TraceError("a VECCALC TQue of depth 0: depth 0 is the in-place form of a queue that hands tensors "
                             "over (enque / deque), which a VECCALC queue does not do", loc, hint="give it depth 1")
        self._obj = ObjRef(ctx.record("tque", (self.pos, Const(depth)), loc), "que")
        self._dtype: DataType | None = None
        self.depth = depth
        self._queued: int | None = 0
        self._taken: int | None = 0
        self._num: int | None = 0
        self._fifo: list[int] = []      # depth 0: the enqueued tensors' roots in trace order (deque(t) checks it)

    def _count(self, ctx: Any, queued: int = 0, taken: int = 0) -> None:
        if self._queued is None or ctx.regions:
            self._queued = self._taken = None
            return
        self._queued += queued
        self._taken += taken

    def _state(self, what: str) -> tuple[int, int]:
        ctx = current(f"TQue.{what}")
        if ctx.regions or self._queued is None:
            raise TraceError(f"TQue.{what}() is known here only in straight-line code: inside (or after) a runtime loop "
                             "or branch that uses the queue its value can differ from iteration to iteration", user_loc(),
                             hint="keep the count in a variable of your own, or restructure the loop")
        return self._queued, self._taken

    def vacant_in_que(self) -> bool:
        """Whether another tensor can be enqueued (Ascend C `VacantInQue`: usedCount < depth)."""
        return self._state("vacant_in_que")[0] < self.depth

    def has_tensor_in_que(self) -> bool:
        """Whether a tensor is waiting to be dequeued (`HasTensorInQue`: usedCount > 0)."""
        return self._state("has_tensor_in_que")[0] > 0

    def get_tensor_count_in_que(self) -> int:
        """How many tensors are waiting to be dequeued (`GetTensorCountInQue`: usedCount)."""
        return self._state("get_tensor_count_in_que")[0]

    def has_idle_buffer(self) -> bool:
        """Whether alloc_tensor finds a free buffer (`HasIdleBuffer`: bufUsedCount < bufNum)."""
        taken = self._state("has_idle_buffer")[1]
        if self._num is None:
            raise TraceError("TQue.has_idle_buffer() needs the buffer count of init_buffer known while tracing",
                             user_loc())
        return taken < self._num

    VacantInQue = vacant_in_que
    HasTensorInQue = has_tensor_in_que
    GetTensorCountInQue = get_tensor_count_in_que
    HasIdleBuffer = has_idle_buffer

    def _in_place(self, arg: Any, what: str, loc) -> LocalTensor | None:
        """Depth 0 (CANN 8.5+'s in-place queue) takes the LocalTensor to bind, every other depth an element type:
        Ascend C static_asserts each way (kernel_tquebind_impl.h)."""
        inplace = isinstance(arg, LocalTensor)
        if inplace and self.depth != 0:
            raise TraceError(f"TQue.{what}(tensor) is the in-place form of a depth-0 queue; this queue has depth "
                             f"{self.depth} (Ascend C: \"can not {what} in place while tque's depth is non zero\")", loc,
                             hint=f"t = que.{what}(asc.float32)")
        if not inplace and self.depth == 0:
            raise TraceError(f"a depth-0 TQue takes the tensor to bind: que.{what}(tensor) (Ascend C: \"must use "
                             f"{what}<LocalTensor&> api while tque's depth is zero\")", loc,
                             hint=f"t = asc.LocalTensor(asc.float32); que.{what}(t)")
        return arg if inplace else None

    def alloc_tensor(self, dtype: Any = None, tensor: Any = None) -> LocalTensor | None:
        """Take a free buffer of the queue as a LocalTensor of `dtype`; a depth-0 queue binds the LocalTensor
        passed instead (`alloc_tensor(tensor)` or `alloc_tensor(tensor=t)`, returns None)."""
        ctx = current("TQue.alloc_tensor")
        loc = user_loc()
        if tensor is not None:
            if dtype is not None:
                raise TraceError("alloc_tensor takes an element type or tensor=, not both", loc)
            dtype = tensor
        target = self._in_place(dtype, "alloc_tensor", loc)
        dtype = target.dtype if target is not None else self._dtype_or(dtype, loc, "alloc_tensor")
        nid = ctx.record("alloc_tensor", (self._obj,), loc,
                         attrs=make_attrs(dtype=dtype, inplace=True if target is not None else None))
        self._count(ctx, taken=1)
        self._dtype = dtype
        ref = TensorRef(nid, "ub", dtype, Const(0))
        if target is not None:
            target._ref = ref           # the C++ binds the same variable (AllocTensor(LocalTensor&))
            return None
        return LocalTensor(_ref=ref)

    def _no_events(self, what: str, loc) -> None:
        # Ascend C's TQue<VECCALC> has no producer and consumer pipe (GetBufferLogicPos asserts pos != VECCALC,
        # kernel_event.h), so it has no queue events to hand a tensor over with: it is scratch memory
        if self.pos == TPosition.VECCALC:
            raise TraceError(f"TQue.{what} on a VECCALC queue: a VECCALC queue has no producer and consumer pipe, so "
                             "nothing to hand a tensor over with (Ascend C derives no queue event for VECCALC)", loc,
                             hint="use the VECCALC queue's tensors as scratch: alloc_tensor, compute, free_tensor")

    def _user_positions(self, what: str, src: Any, dst: Any, loc) -> None:
        """pyasc's `enque(t, src_user_pos, dst_user_pos)` / `deque(dtype, src_user_pos, dst_user_pos)`: Ascend C's
        EnQue<srcUserPos, dstUserPos> sets the event GetQueEvt(src, dst) instead of the queue's own. The queue's own
        pair (GM -> VECIN for VECIN, VECOUT -> GM for VECOUT) is the plain call; any other is refused."""
        if src is None and dst is None:
            return
        try:
            pair = (member(TPosition, src), member(TPosition, dst))
        except (ValueError, TypeError):
            raise TraceError(f"TQue.{what}'s user positions must both be asc.TPosition values, got {src!r}, {dst!r}",
                             loc) from None
        own = _OWN_PAIR.get(self.pos)
        if pair != own:
            names = f"({pair[0].name}, {pair[1].name})"
            raise NotProvidedError(
                f"TQue.{what} with the user positions {names} is not provided: they change which pipes the queue's "
                "event joins (Ascend C's EnQue<src, dst> / DeQue<src, dst> set and wait GetQueEvt(src, dst)), and "
                f"asc_trace's TQue({self.pos.name}) carries only its own pair's event"
                + (f" ({own[0].name} -> {own[1].name})" if own else ""), loc,
                hint=f"drop the positions (que.{what}(...) uses the queue's own pair), or order the other pipes with "
                     "asc.set_flag / asc.wait_flag, or leave it to auto_sync")

    def enque(self, tensor: LocalTensor, src_user_pos: Any = None, dst_user_pos: Any = None) -> None:
        """Hand a filled tensor to the consumer pipe (the user positions, if given, must be the queue's own)."""
        ctx = current("TQue.enque")
        loc = user_loc()
        self._no_events("enque", loc)
        self._user_positions("enque", src_user_pos, dst_user_pos, loc)
        ref = _whole(tensor, loc, "enque")
        ctx.record("enque", (self._obj, ref), loc)
        self._count(ctx, queued=1)
        self._fifo.append(ref.root)

    def deque(self, dtype: Any = None, src_user_pos: Any = None, dst_user_pos: Any = None,
              tensor: Any = None) -> LocalTensor | None:
        """Take the oldest enqueued tensor (waits for its producer; user positions as for enque); a depth-0 queue
        takes the tensor to bind (`deque(tensor)` or `deque(tensor=t)`, returns None)."""
        ctx = current("TQue.deque")
        loc = user_loc()
        if tensor is not None:
            if dtype is not None:
                raise TraceError("deque takes an element type or tensor=, not both", loc)
            dtype = tensor
        self._no_events("deque", loc)
        self._user_positions("deque", src_user_pos, dst_user_pos, loc)
        target = self._in_place(dtype, "deque", loc)
        if target is None:
            dtype = self._dtype_or(dtype, loc, "deque")
            nid = ctx.record("deque", (self._obj,), loc, attrs=make_attrs(dtype=dtype))
            self._count(ctx, queued=-1)
            return LocalTensor(_ref=TensorRef(nid, "ub", dtype, Const(0)))
        # Ascend C's DeQue(tensor) waits for that tensor's own buffer; asc_trace's queue hands out the oldest
        # enqueued one: the same buffer exactly when the tensor is the oldest enqueued, checked here
        root = _whole(target, loc, "deque").root
        if not self._fifo or self._fifo[0] != root:
            raise TraceError("deque(tensor) of a depth-0 queue must take the oldest tensor enqueued before it (asc_trace "
                             "hands a queue's tensors out in the order they were enqueued)", loc,
                             hint="deque the tensors in the order you enqueued them")
        self._fifo.pop(0)
        nid = ctx.record("deque", (self._obj,), loc, attrs=make_attrs(dtype=target.dtype, inplace=root))
        self._count(ctx, queued=-1)
        target._ref = TensorRef(nid, "ub", target.dtype, Const(0))
        return None

    def free_tensor(self, tensor: LocalTensor) -> None:
        """Give a dequeued tensor's buffer back to the producer side."""
        ctx = current("TQue.free_tensor")
        loc = user_loc()
        ctx.record("free_tensor", (self._obj, _whole(tensor, loc, "free_tensor")), loc)
        self._count(ctx, taken=-1)

    def _dtype_or(self, dtype: Any, loc, what: str) -> DataType:
        if dtype is None:
            if self._dtype is None:
                raise TraceError(f"{what} needs the element type the first time, e.g. que.{what}(asc.float32)", loc)
            return self._dtype
        if not isinstance(dtype, DataType):
            raise TraceError(f"{what} takes an element type such as asc.float32, got {dtype!r}", loc)
        return dtype

    # the seed article's spellings
    allocTensor = alloc_tensor
    enQue = enque
    deQue = deque
    freeTensor = free_tensor
    AllocTensor = alloc_tensor
    EnQue = enque
    DeQue = deque
    FreeTensor = free_tensor


def TQueBind(src: Any = TPosition.VECIN, dst: Any = TPosition.VECIN, depth: Any = 0,  # noqa: N802 - pyasc's class
             mask: Any = 0) -> TQue:
    """pyasc's `TQueBind(src, dst, depth)`. Ascend C's `TQue<pos, depth>` is `TQueBind<src, dst, depth>` with
    the pair its position implies (GM->VECIN for VECIN, VECOUT->GM for VECOUT; kernel_tpipe.h), so
    `TQueBind(VECIN, VECIN, d)` and `TQueBind(VECOUT, VECOUT, d)` are asc_trace's TQue of that position.

    Raises:
        NotProvidedError: any other pair (a queue between two UB positions synchronises MTE2 with MTE3 in
            Ascend C, which asc_trace does not model).
        TraceError: depth 0 (pyasc's in-place queue) or a position outside the UB.
    """
    loc = user_loc()
    s_pos, d_pos = _position(src, loc), _position(dst, loc)
    if s_pos != d_pos or s_pos == TPosition.VECCALC:
        raise NotProvidedError(f"TQueBind({s_pos.name}, {d_pos.name}) is not provided: asc_trace's queues are "
                               "TQueBind(VECIN, VECIN) and TQueBind(VECOUT, VECOUT), i.e. TQue(VECIN) and TQue(VECOUT)",
                               loc, hint="use asc.TQue(asc.TPosition.VECIN, depth) or asc.TQue(asc.TPosition.VECOUT, depth)")
    return TQue(s_pos, depth, mask)


class TBuf:
    """`asc.TBuf(asc.TPosition.VECCALC)`: scratch UB memory with no queue and no synchronisation."""

    __slots__ = ("_obj", "pos")

    def __init__(self, pos: Any = TPosition.VECCALC) -> None:
        loc = user_loc()
        self.pos = _position(pos, loc)
        self._obj = ObjRef(current("asc.TBuf").record("tbuf", (self.pos,), loc), "tbuf")

    def get(self, dtype: DataType, len: Any = None) -> LocalTensor:  # noqa: A002 - pyasc name
        """The whole buffer (or its first `len` elements) as a LocalTensor of `dtype`; every call
        returns the same base address, as in Ascend C."""
        ctx = current("TBuf.get")
        loc = user_loc()
        if not isinstance(dtype, DataType):
            raise TraceError(f"TBuf.get takes an element type such as asc.float32, got {dtype!r}", loc)
        length = None if len is None else _int_expr(len, "the element count")
        nid = ctx.record("tbuf_get", (self._obj, length), loc, attrs=make_attrs(dtype=dtype))
        return LocalTensor(_ref=TensorRef(nid, "ub", dtype, Const(0)))

    Get = get

    def get_with_offset(self, size: Any, buf_offset: Any, dtype: DataType) -> LocalTensor:
        """`size` elements of `dtype` starting `buf_offset` bytes into the buffer (`GetWithOffset<T>(size,
        buf_offset)`), emitted as `Get<T>(end)[buf_offset / sizeof(T)]`: the same bytes, checked to the same end."""
        loc = user_loc()
        if not isinstance(dtype, DataType):
            raise TraceError(f"get_with_offset takes an element type such as asc.float32, got {dtype!r}", loc)
        off = _int_expr(buf_offset, "the byte offset")
        if isinstance(off, Const) and off.value % dtype.itemsize:
            raise TraceError(f"get_with_offset's byte offset {off.value} is not a whole number of {dtype.name} "
                             "elements", loc)
        first = binop("//", off, Const(dtype.itemsize))
        whole = self.get(dtype, binop("+", first, _int_expr(size, "the element count")))
        return whole[wrap(first)]

    GetWithOffset = get_with_offset

    def alloc_tensor(self, dtype: DataType) -> LocalTensor:
        """The whole buffer as a LocalTensor: Ascend C's `TBuf::AllocTensor<T>()` is `Get<T>()` (kernel_tbuf_impl.h)."""
        return self.get(dtype)

    def free_tensor(self, tensor: LocalTensor) -> None:
        """Nothing to give back: Ascend C's `TBuf::FreeTensor` does nothing (kernel_tbuf_impl.h)."""
        if not isinstance(tensor, LocalTensor):
            raise TraceError(f"free_tensor takes a LocalTensor, got {type(tensor).__name__}", user_loc())

    AllocTensor = alloc_tensor
    FreeTensor = free_tensor


class LocalMemAllocator:
    """`asc.LocalMemAllocator(hard=asc.Hardware.UB)`: static-tensor programming's bump allocator. Each
    `alloc(pos, dtype, tile_size)` is a static `LocalTensor(pos, head, tile_size)` and moves the head by the
    tensor's bytes, with no rounding, as Ascend C's `LocalMemAllocator<Hardware::UB>::Alloc` does (it starts
    at byte 0 on the vector core); the address checks of a static LocalTensor then apply."""

    __slots__ = ("_head",)

    def __init__(self, hard: Any = Hardware.UB) -> None:
        loc = user_loc()
        current("asc.LocalMemAllocator")
        try:
            h = Hardware(hard)
        except (ValueError, TypeError):
            raise TraceError(f"not an asc.Hardware: {hard!r}", loc) from None
        if h != Hardware.UB:
            raise NotProvidedError(f"LocalMemAllocator(Hardware.{h.name}) is not provided: the vector core's "
                                   "allocator is Hardware.UB (L1 / L0 memories are the cube's)", loc)
        self._head: Any = Const(0)

    def get_cur_addr(self) -> Any:
        """The byte address the next `alloc` returns."""
        current("LocalMemAllocator.get_cur_addr")
        return wrap(self._head)

    def alloc(self, pos: Any, data_type: DataType, tile_size: Any) -> LocalTensor:
        """A LocalTensor of `tile_size` elements at the current head; the head moves past it."""
        current("LocalMemAllocator.alloc")
        if not isinstance(data_type, DataType):
            raise TraceError(f"alloc takes an element type such as asc.float32, got {data_type!r}", user_loc())
        size = _int_expr(tile_size, "the tile size")
        t = LocalTensor(data_type, pos, wrap(self._head), wrap(size))
        self._head = binop("+", self._head, binop("*", size, Const(data_type.itemsize)))
        return t

    GetCurAddr = get_cur_addr
    Alloc = alloc


# the (src, dst) user positions of a queue's own event (Ascend C's TQue<pos> is TQueBind<GetBufferLogicPos(pos)>)
_OWN_PAIR = {TPosition.VECIN: (TPosition.GM, TPosition.VECIN), TPosition.VECOUT: (TPosition.VECOUT, TPosition.GM)}


def _whole(tensor: Any, loc, what: str) -> TensorRef:
    if not isinstance(tensor, LocalTensor):
        raise TraceError(f"{what} takes the LocalTensor the queue handed out, got {type(tensor).__name__}", loc)
    ref = tensor._ref
    if not (isinstance(ref.offset, Const) and ref.offset.value == 0):
        raise TraceError(f"{what} takes the whole queue tensor, not a slice of it", loc)
    return ref
