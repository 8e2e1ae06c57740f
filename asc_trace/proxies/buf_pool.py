"""`asc.TBufPool` and `TPipe.init_buf_pool` (graph/ops/buf_pool.py says what each call does to the memory)."""
from __future__ import annotations

from typing import Any

from ..enums import TPosition
from ..errors import TraceError
from ..graph.expr import Const
from ..graph.node import ObjRef, make_attrs
from .context import current
from .source_loc import user_loc
from .tensors import _int_expr, _position


def _const(value: Any, what: str, loc) -> Const:
    e = _int_expr(value, what)
    if not isinstance(e, Const):
        # the scheduler places a pool's buffers while tracing to see which of them share bytes
        raise TraceError(f"{what} of a TBufPool must be known while tracing (a Python int or asc.ConstExpr)", loc)
    return e


def _straight_line(ctx: Any, what: str, loc) -> None:
    if getattr(ctx, "regions", None):
        raise TraceError(f"{what} inside a runtime loop or branch: a TBufPool's memory is laid out once, while "
                         "tracing", loc, hint="initialise and reset pools outside runtime loops and branches")


class TBufPool:
    """`asc.TBufPool(pos, buf_id_size=4)`: a block of the TPipe's memory to initialise queues and TBufs from.
    `reset()` hands the block out again; `init_buf_pool(sub, len, share_buf)` divides it further."""

    __slots__ = ("_obj", "pos", "buf_id_size", "_ready", "_len")

    def __init__(self, pos: Any = TPosition.VECCALC, buf_id_size: Any = 4) -> None:
        loc = user_loc()
        ctx = current("asc.TBufPool")
        self.pos = _position(pos, loc)
        if not isinstance(buf_id_size, int) or isinstance(buf_id_size, bool) or buf_id_size < 1:
            raise TraceError(f"TBufPool's buf_id_size must be a positive Python int, got {buf_id_size!r}", loc)
        self.buf_id_size = buf_id_size
        self._obj = ObjRef(ctx.record("tbufpool", (self.pos, Const(buf_id_size)), loc), "pool")
        self._ready = False     # given memory by an init_buf_pool
        self._len = 0           # its block's bytes

    def init_buf_pool(self, buf_pool: Any, len: Any = 0, share_buf: Any = None) -> None:  # noqa: A002
        """Carve `len` bytes of this pool for `buf_pool` (or give it `share_buf`'s memory)."""
        init_pool(self._obj, self, buf_pool, len, share_buf, "TBufPool.init_buf_pool")

    def init_buffer(self, que: Any = None, num: Any = 0, len: Any = 0, buf: Any = None) -> None:  # noqa: A002
        """`init_buffer(que, num, len_bytes)` or `init_buffer(tbuf, len_bytes)` (`buf=` as pyasc) from this pool.

        Raises:
            TraceError: not a TQue / TBuf, a size unknown while tracing, or a pool with no memory yet.
        """
        ctx = current("TBufPool.init_buffer")
        loc = user_loc()
        _straight_line(ctx, "TBufPool.init_buffer", loc)
        target = buf if buf is not None else que
        if not self._ready:
            raise TraceError("TBufPool.init_buffer on a pool with no memory (never given any, or reset: Ascend C's "
                             "Reset leaves the pool a length of 0)", loc,
                             hint="give it memory first: pipe.init_buf_pool(pool, len_bytes); to reuse a stage's "
                                  "memory, init_buf_pool(next_pool, len, share_buf=pool)")
        # a TQue's / TBuf's object kind (framework.py imports this module, so no import back)
        kind = getattr(getattr(target, "_obj", None), "kind", None)
        if kind == "tbuf":
            # pyasc's TBuf form is init_buffer(buf, len); positionally the length lands in `num`
            length = len if not (isinstance(len, int) and len == 0) else num
            args = (target._obj, Const(1), _const(length, "the buffer length", loc))
        elif kind == "que":
            args = (target._obj, _const(num, "the buffer count", loc), _const(len, "the buffer length", loc))
            target._num = args[1].value
        else:
            raise TraceError(f"TBufPool.init_buffer takes a TQue or a TBuf, got {type(target).__name__}", loc)
        if args[1].value < 1 or args[2].value < 1:
            raise TraceError(f"TBufPool.init_buffer needs at least one buffer of at least one byte (got "
                             f"{args[1].value} x {args[2].value})", loc)
        ctx.record("init_buffer", args, loc, attrs=make_attrs(pool=self._obj.root))

    def reset(self) -> None:
        """Ascend C's Reset: wait the free events of the pool's buffers, then leave the pool without memory (a
        pool sharing its block, `share_buf`, hands the bytes out again)."""
        ctx = current("TBufPool.reset")
        loc = user_loc()
        _straight_line(ctx, "TBufPool.reset", loc)
        ctx.record("pool_reset", (self._obj,), loc)
        self._ready = False     # Ascend C's Reset zeroes the pool's start and length (ResetPool)

    InitBufPool = init_buf_pool
    InitBuffer = init_buffer
    Reset = reset


def init_pool(parent: ObjRef, parent_pool: TBufPool | None, buf_pool: Any, length: Any, share_buf: Any,
              what: str) -> None:
    """`parent.init_buf_pool(buf_pool, len[, share_buf])`, parent a TPipe (`parent_pool` None) or a TBufPool."""
    ctx = current(what)
    loc = user_loc()
    _straight_line(ctx, what, loc)
    if not isinstance(buf_pool, TBufPool):
        raise TraceError(f"{what} takes a TBufPool, got {type(buf_pool).__name__}", loc)
    if parent_pool is not None and not parent_pool._ready:
        raise TraceError(f"{what} on a pool with no memory yet", loc,
                         hint="give it memory first: pipe.init_buf_pool(pool, len_bytes)")
    size = _const(length, "the pool length", loc)
    if size.value < 1:
        raise TraceError(f"{what} needs a length of at least one byte, got {size.value}", loc)
    share = None
    if share_buf is not None:
        if not isinstance(share_buf, TBufPool):
            raise TraceError(f"{what}'s share_buf is a TBufPool, got {type(share_buf).__name__}", loc)
        if not share_buf._ready:
            raise TraceError(f"{what} shares the memory of a pool that has none yet", loc,
                             hint="give share_buf its memory first: pipe.init_buf_pool(share_buf, len_bytes)")
        if size.value > share_buf._len:
            raise TraceError(f"{what}: {size.value} bytes do not fit in share_buf's {share_buf._len} (Ascend C's "
                             "InitBufPool asserts len <= shareBuf's length)", loc)
        share = share_buf._obj
    ctx.record("init_buf_pool", (parent, buf_pool._obj, size, share), loc)
    buf_pool._ready = True
    buf_pool._len = share_buf._len if share is not None else -(-size.value // 32) * 32
