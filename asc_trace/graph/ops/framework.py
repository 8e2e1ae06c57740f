"""Tensors and the TPipe / TQue / TBuf framework (docs/facts.md#facts-6).

These nodes define storage (a GlobalTensor window, a static LocalTensor, a queue or TBuf tensor) or
move queue buffers between states; TQue operations also carry the events of the table in docs/facts.md#facts-6,
which the simulator and the scheduler take into account. None is an instruction of a compute pipe, and the
cpp backend's C++ model has each as a class or member of toolchain/include/kernel_operator.h.
"""
from __future__ import annotations

from ...errors import ToolchainError, TraceError
from ..expr import Const, to_str
from .opdef import CppModel, OpDef, family, register


def _global_tensor(ctx, n) -> str:
    param, off, size = n.args
    ct = n.attr("dtype").c_name
    ptr = f"reinterpret_cast<__gm__ {ct}*>({ctx.param(param.index)})"
    if not (isinstance(off, Const) and off.value == 0):
        ptr = f"{ptr} + {ctx.e(off)}"
    bind = (f"asct_t{n.id}.SetGlobalBuffer({ptr});" if size is None else
            f"asct_t{n.id}.SetGlobalBuffer({ptr}, {ctx.cast(size, 'uint64_t')});")
    return f"AscendC::GlobalTensor<{ct}> asct_t{n.id};\n{bind}"


def _local_tensor(ctx, n) -> str:
    pos, addr, size = n.args
    dt = n.attr("dtype")
    ct = dt.c_name
    if isinstance(size, Const) and size.value == 0:
        # pyasc's `asc.LocalTensor(dtype)`: a tensor with no memory yet (a depth-0 queue binds it); the API's
        # checks refuse a constructed tensor of 0 elements, so it is the default-constructed one
        return f"AscendC::LocalTensor<{ct}> asct_t{n.id};"
    # A constant length is made in whole 32-byte blocks: the API's CPU-debug build refuses any other
    # (CreateTensor's check). SetSize then gives the tensor its real length (no such check there), so that
    # the API's checks (cpu_debug) and the C++ model (cpp) bound its operands by it, as the simulator does.
    per = 32 // dt.itemsize
    real = None
    if isinstance(size, Const) and size.value % per:
        real, size = size, Const(-(-size.value // per) * per)
    if ctx.pipe.placement:     # both CANN generations (lower/ascendc_pipe.py)
        decl = (f"AscendC::LocalTensor<{ct}> asct_t{n.id} = {ctx.placement}.GetWithOffset<{ct}>("
                f"{ctx.cast(size, 'uint32_t')}, {ctx.cast(addr, 'uint32_t')});")
    else:
        decl = (f"AscendC::LocalTensor<{ct}> asct_t{n.id}(AscendC::TPosition::{pos.name}, "
                f"{ctx.cast(addr, 'uint32_t')}, {ctx.cast(size, 'uint32_t')});")
    return decl if real is None else f"{decl}\n    asct_t{n.id}.SetSize({ctx.cast(real, 'uint32_t')});"


def _tpipe(ctx, n) -> str:
    # a hoisted TPipe is declared at the kernel's top (lower/ascendc_pipe.py)
    return "" if ctx.pipe.hoist else "\n".join(ctx.pipe.declaration())


def _init_buffer(ctx, n) -> str:
    if ctx.pipe_var is None:
        raise TraceError("init_buffer without a TPipe", n.loc, hint="pipe = asc.TPipe() first")
    obj, num, length = n.args
    owner = ctx.pipe_var if n.attr("pool") is None else f"asct_t{n.attr('pool')}"     # a TBufPool's (buf_pool.py)
    if obj.kind == "tbuf":
        return f"{owner}.InitBuffer(asct_t{obj.root}, {ctx.cast(length, 'uint32_t')});"
    return f"{owner}.InitBuffer(asct_t{obj.root}, {ctx.cast(num, 'uint8_t')}, {ctx.cast(length, 'uint32_t')});"


def _take(method: str):
    """AllocTensor / DeQue: a LocalTensor local from the queue. A depth-0 queue's in-place forms bind a local
    (`AllocTensor(t)`, `DeQue(t)` on a copy of the tensor deque names), declared by CANN 8.5+ only."""
    def emit(ctx, n) -> str:
        ct = n.attr("dtype").c_name
        inplace = n.attr("inplace")
        if inplace is None:
            return f"AscendC::LocalTensor<{ct}> asct_t{n.id} = asct_t{n.args[0].root}.{method}<{ct}>();"
        if ctx.generation == 8:
            raise ToolchainError(f"TQue of depth 0 ({method}(LocalTensor&), the in-place queue) is declared by CANN 8.5 "
                                 "and later (asc-devkit kernel_tpipe.h), not by CANN 8.x's Ascend C", n.loc,
                                 hint="build with CANN 8.5 or later, or give the TQue depth 1 or more")
        init = "" if inplace is True else f" = asct_t{inplace}"
        return f"AscendC::LocalTensor<{ct}> asct_t{n.id}{init};\nasct_t{n.args[0].root}.{method}<{ct}>(asct_t{n.id});"
    return emit


def _tbuf_get(ctx, n) -> str:
    length = n.args[1]
    ct = n.attr("dtype").c_name
    inner = "" if length is None else ctx.cast(length, "uint32_t")
    return f"AscendC::LocalTensor<{ct}> asct_t{n.id} = asct_t{n.args[0].root}.Get<{ct}>({inner});"


def _print_global(n) -> str:
    param, off, size = n.args
    base = str(param) if to_str(off) == "0" else f"{param} + {to_str(off, 5)}"
    return base + ("" if size is None else f", len={to_str(size)}")


def _print_local(n) -> str:
    pos, addr, size = n.args
    return f"{pos.name} @{to_str(addr)}, len={to_str(size)}"


# the depth-0 queue's in-place forms: asc-devkit only (CANN 8.1.RC1's interface/kernel_tpipe.h has neither)
_IN_PLACE_ALLOC = {".AllocTensor<>/1": ("include/basic_api/kernel_tpipe.h:62", "-")}
_IN_PLACE_DEQUE = {".DeQue<>/1": ("include/basic_api/kernel_tpipe.h:77", "-")}


def _model(name: str) -> CppModel:
    return CppModel(header=name)


register(
    # the GM window may differ from core to core (block_idx * n): each core gets its own
    OpDef("global_tensor", "framework", None, "SetGlobalBuffer", doc="GlobalTensor.set_global_buffer",
          emit=_global_tensor, cpp_model=_model("GlobalTensor"), printer=_print_global, per_core=(0, 1, 2), role="storage", defines="tensor",
          hivm="root:gm"),
    OpDef("local_tensor", "framework", None, "LocalTensor", doc="static LocalTensor(pos, addr, length)",
          emit=_local_tensor, cpp_model=_model("LocalTensor"), printer=_print_local, role="storage", defines="tensor",
          hivm="root:ub"),
    OpDef("tpipe", "framework", None, "TPipe", emit=_tpipe, cpp_model=_model("TPipe"), defines="pipe"),
    OpDef("tque", "framework", None, "TQue", cpp_model=_model("TQue"), role="storage", defines="que",
          emit=lambda ctx, n: f"AscendC::TQue<AscendC::TPosition::{n.args[0].name}, {n.args[1].value}> asct_t{n.id};"),
    OpDef("tbuf", "framework", None, "TBuf", cpp_model=_model("TBuf"), role="storage", defines="tbuf",
          emit=lambda ctx, n: f"AscendC::TBuf<AscendC::TPosition::{n.args[0].name}> asct_t{n.id};"),
    OpDef("init_buffer", "framework", None, "InitBuffer", emit=_init_buffer, cpp_model=_model("TPipe::InitBuffer"), role="storage"),
    OpDef("alloc_tensor", "framework", None, "AllocTensor", emit=_take("AllocTensor"), declared=_IN_PLACE_ALLOC,
          cpp_model=_model("TQue::AllocTensor"), role="queue", defines="tensor"),
    OpDef("enque", "framework", None, "EnQue", reads=(), cpp_model=_model("TQue::EnQue"), role="queue",
          emit=lambda ctx, n: f"asct_t{n.args[0].root}.EnQue(asct_t{n.args[1].root});"),
    OpDef("deque", "framework", None, "DeQue", emit=_take("DeQue"), declared=_IN_PLACE_DEQUE, cpp_model=_model("TQue::DeQue"),
          role="queue", defines="tensor"),
    OpDef("free_tensor", "framework", None, "FreeTensor", reads=(), cpp_model=_model("TQue::FreeTensor"), role="queue",
          emit=lambda ctx, n: f"asct_t{n.args[0].root}.FreeTensor(asct_t{n.args[1].root});"),
    OpDef("tbuf_get", "framework", None, "Get", emit=_tbuf_get, cpp_model=_model("TBuf::Get"), role="storage",
          defines="tensor"),
)

# The TQue operations, as the scheduler's queue model steps them (a queue op moves a buffer between
# the queue's states; the proof and the pruner read this set instead of naming the ops themselves).
QUEUE_OPS = frozenset(op.name for op in family("framework") if op.role == "queue")

# The event each TQue operation issues on its buffer (graph/queue_model.py): the side of the queue's pipe
# pair (0 producer, 1 consumer), "set" or "wait", and which of the buffer's two events.
QUEUE_EVENTS = {"alloc_tensor": (0, "wait", "free"), "enque": (0, "set", "enq"),
                "deque": (1, "wait", "enq"), "free_tensor": (1, "set", "free")}

# How each TQue operation moves its buffer (graph/queue_model.py QueSlots): "out" hands out the head of
# a list, "back" appends the held buffer to one; the list is the free list or the queue. (An operation
# that waits on a list's event is the one that takes from it: the event says the buffer is in the list.)
QUEUE_MOVES = {"alloc_tensor": ("out", "free"), "enque": ("back", "inq"),
               "deque": ("out", "inq"), "free_tensor": ("back", "free")}
