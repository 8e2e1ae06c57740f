"""How each op runs on a Machine. `bind(node)` turns a node into a closure over its compiled
operand expressions. Called with the machine, the closure does the scalar unit's part at once
(evaluate addresses, check them, move queue buffers) and returns the `Instr` a pipe executes:
what it touches and, in `apply`, its data effect. The interpreter applies instructions in program
order; the simulator hands them to the pipe model first.

Executors take the NumPy semantics from the op's record (`OpDef.ref`); only the memory side lives here.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from ..enums import TPosition
from ..errors import OutOfBoundsError, QueueError, SyncError, UBOverflowError
from ..graph.hb import Instr
from ..graph.queue_model import QueSlots, que_event
from ..graph.node import Node, Pipe, TensorRef
from ..graph.ops import REGISTRY, OpDef
from ..graph.ops.data_copy import check_copy_length
from ..graph.operand_checks import Ranges
from .checks import with_checks
from .executor_base import BINDERS, Step, bind_elementwise, binder, efn
from .executors_system import atomic_store
from .machine import GmRoot, Machine, QueState


def bind(node: Node, ranges: Ranges | None = None, known: set | None = None, checks: bool = True) -> Step:
    """The node's executor, preceded by its operand checks (runtime/checks.py); `ranges` bounds the
    loop indices in scope and `known` holds the checks made before in this scope, so that checks that
    cannot fail are left out. `checks=False` leaves them all out (a launch whose checks passed)."""
    op = REGISTRY[node.op]
    b = BINDERS.get(node.op) or BINDERS.get(op.family)
    if b is None:
        raise NotImplementedError(f"no executor for op {node.op!r}")
    step = b(node, op)
    if ends_in_normal_mode(node, op):
        step = _then_normal_mode(step)
    return with_checks(node, step, ranges, known) if checks else step


_COUNT_FORM_FAMILIES = ("vec_binary", "vec_unary", "vec_scalar", "vec_duplicate", "vec_cast")


def ends_in_normal_mode(node: Node, op: OpDef) -> bool:
    """The vendor's count forms of the element-wise ops, Cast and Select switch to COUNTER mode themselves and
    end with SetMaskNorm (asc-devkit impl/basic_api/dav_c220: AddImpl(..., count), CastImpl, VselImpl), whatever
    mode asc.set_mask_count set before them."""
    if op.family in _COUNT_FORM_FAMILIES:
        return node.attr("form") != "mask" and not node.attr("mask_form")
    return node.op == "select" and node.attr("form") is None


def _then_normal_mode(step: Step) -> Step:
    def run(m: Machine) -> Any:
        out = step(m)
        m.mask_counter = False
        return out
    return run


@binder("vec_binary")
def _bind_binary(node: Node, op: OpDef) -> Step:
    if node.attr("form") == "mask":
        return executors_ops.bind_masked(node, op)
    d, a, b, n = node.args
    ref = op.ref
    if op.reads is not None and 0 in op.reads:     # FusedMulAdd, MulAddDst: the old dst is an input too
        return bind_elementwise(node, d, [a, b, d], n, lambda ins, sc, cnt, C: ref(ins[0], ins[1], ins[2]))
    return bind_elementwise(node, d, [a, b], n, lambda ins, sc, cnt, C: ref(ins[0], ins[1]))


@binder("vec_unary")
def _bind_unary(node: Node, op: OpDef) -> Step:
    if node.attr("form") == "mask":
        return executors_ops.bind_masked(node, op)
    d, a, n = node.args
    ref = op.ref
    return bind_elementwise(node, d, [a], n, lambda ins, sc, cnt, C: ref(ins[0]))


@binder("vec_scalar")
def _bind_scalar(node: Node, op: OpDef) -> Step:
    if node.attr("form") == "mask":
        return executors_ops.bind_masked(node, op)
    d, a, s, n = node.args
    ref = op.ref
    if op.reads_dst():     # Axpy: dst = dst + src * scalar, the destination is a source too
        return bind_elementwise(node, d, [d, a], n, lambda ins, sc, cnt, C: ref(ins[0], ins[1], sc), scalar=s)
    return bind_elementwise(node, d, [a], n, lambda ins, sc, cnt, C: ref(ins[0], sc), scalar=s)


@binder("vec_duplicate")
def _bind_duplicate(node: Node, op: OpDef) -> Step:
    if node.attr("form") == "mask":
        return executors_ops.bind_masked(node, op)
    d, s, n = node.args
    return bind_elementwise(node, d, [], n, lambda ins, sc, cnt, C: np.broadcast_to(sc, (C, cnt)), scalar=s)


# -- data movement ------------------------------------------------------------------------------

@binder("data_copy")
def _bind_data_copy(node: Node, op: OpDef) -> Step:
    if node.attr("form") == "params":
        return executors_ops.bind_copy_params(node)
    d, s, n = node.args
    fd, fs, fn = efn(d.offset), efn(s.offset), efn(n)
    dt = d.dtype
    atomic = node.attr("atomic")

    if d.space == "ub" and s.space == "gm":
        def run(m: Machine) -> Instr | None:
            env = m.env
            count = m.count(fn(env), node)
            if not count:
                return None
            # the LocalTensor's size first, then the length and the global side: the vendor API's order
            ad, vd = m.ub_access(d, fd(env), count, node, "the copy destination")
            check_copy_length(count, dt, node=node)
            gs, src = m.gm_access(s, fs(env), count, node, "the copy source", write=False)

            def apply() -> None:
                vd[...] = src
            nb = count * dt.itemsize
            return Instr(node, Pipe.MTE2, "op", apply=apply, ub=((ad, nb, True),), gm=(gs,), work=nb)
    elif d.space == "gm" and s.space == "ub":
        def run(m: Machine) -> Instr | None:
            env = m.env
            count = m.count(fn(env), node)
            if not count:
                return None
            aa, vs = m.ub_access(s, fs(env), count, node, "the copy source")
            check_copy_length(count, dt, node=node)
            gd, write = m.gm_access(d, fd(env), count, node, "the copy destination", write=True)
            if atomic is not None:       # the store-atomic register's operation (graph/ops/atomic.py)
                write = atomic_store(m, d, fd(env), count, node, atomic[0]) if write is not None else None

            def apply() -> None:
                write(vs)
            nb = count * dt.itemsize
            return Instr(node, Pipe.MTE3, "op", apply=apply, ub=((aa, nb, False),), gm=(gd,), work=nb)
    else:
        def run(m: Machine) -> Instr | None:
            env = m.env
            count = m.count(fn(env), node)
            if not count:
                return None
            aa, vs = m.ub_access(s, fs(env), count, node, "the copy source")
            ad, vd = m.ub_access(d, fd(env), count, node, "the copy destination")
            check_copy_length(count, dt, node=node)

            def apply() -> None:
                vd[...] = vs.copy()
            nb = count * dt.itemsize
            return Instr(node, Pipe.V, "op", apply=apply, ub=((aa, nb, False), (ad, nb, True)), work=nb)
    return run


# -- tensors and the framework --------------------------------------------------------------------

@binder("global_tensor")
def _bind_global_tensor(node: Node, op: OpDef) -> Step:
    param, offset, size = node.args
    fo, fz = efn(offset), efn(size)

    def run(m: Machine) -> None:
        start = fo(m.env)
        window = fz(m.env)
        if _negative(start):
            raise OutOfBoundsError(f"set_global_buffer starts before the argument {param.name} (offset {start})",
                                   node=node)
        if window is not None and _negative(window):
            raise OutOfBoundsError(f"set_global_buffer window length is negative ({window})", node=node)
        m.roots[node.id] = GmRoot.make(param.index, start, window, param.name)
    return run


def _negative(v: Any) -> bool:
    """Whether a value (one per core, or one for all) is negative somewhere."""
    if isinstance(v, np.ndarray):
        return v.size > 0 and v.min() < 0
    return v < 0


@binder("local_tensor")
def _bind_local_tensor(node: Node, op: OpDef) -> Step:
    pos, addr, length = node.args
    fa, fl = efn(addr), efn(length)
    size = node.attr("dtype").itemsize

    def run(m: Machine) -> None:
        a = m.uniform_int(fa(m.env), node, "the LocalTensor address")
        n = m.uniform_int(fl(m.env), node, "the LocalTensor length")
        if n < 0:
            raise OutOfBoundsError(f"LocalTensor length is negative ({n})", node=node)
        m.define_ub_root(node, a, n * size)
    return run


@binder("tpipe")
def _bind_tpipe(node: Node, op: OpDef) -> Step:
    def run(m: Machine) -> None:
        if m.pipe_node is not None:
            raise QueueError("a kernel creates exactly one TPipe; this is the second", node=node,
                             related=[("first TPipe", m.pipe_node.loc)])
        m.pipe_node = node
    return run


@binder("tque")
def _bind_tque(node: Node, op: OpDef) -> Step:
    pos, depth = node.args

    def run(m: Machine) -> None:
        m.queues[node.id] = QueState(pos, depth.value, node)
    return run


@binder("tbuf")
def _bind_tbuf(node: Node, op: OpDef) -> Step:
    def run(m: Machine) -> None:
        m.tbufs[node.id] = None
    return run


@binder("init_buffer")
def _bind_init_buffer(node: Node, op: OpDef) -> Step:
    obj, num, length = node.args
    pool = node.attr("pool")
    fnum, flen = efn(num), efn(length)

    def run(m: Machine) -> None:
        if m.pipe_node is None:
            raise QueueError("init_buffer before any TPipe was created", node=node, hint="pipe = asc.TPipe() first")
        k = m.uniform_int(fnum(m.env), node, "the buffer count")
        nbytes = m.uniform_int(flen(m.env), node, "the buffer length")
        if k < 1 or nbytes < 1:
            raise QueueError(f"init_buffer needs at least one buffer of at least one byte (got {k} x {nbytes})",
                             node=node)
        nbytes = -(-nbytes // config.UB_ALIGN) * config.UB_ALIGN    # InitBuffer rounds len up to 32 B
        if pool is not None:            # from a TBufPool's block (executors_fwk.py), not the TPipe's
            start, end = pool_take(m, pool, k * nbytes, node)
        else:
            start = m.pipe_next
            end = start + k * nbytes
        if pool is None and end > config.UB_USABLE:
            raise UBOverflowError(f"init_buffer asks for {k} x {nbytes} bytes at UB byte {start}, ending at {end}; "
                                  f"only {config.UB_USABLE} bytes of the 192 KB Unified Buffer are usable",
                                  node=node, hint="use smaller tiles or fewer buffers")
        if obj.kind == "que":
            q = m.queues[obj.root]
            if q.bufs:
                raise QueueError("init_buffer called twice for the same queue", node=node)
            used = m.pipe_buffers.get(q.pos, 0) + k
            if used > config.MAX_QUE_BUFFERS_PER_POSITION:
                raise QueueError(f"{used} queue buffers in TPosition.{TPosition(q.pos).name}; each holds an event "
                                 f"id, so at most {config.MAX_QUE_BUFFERS_PER_POSITION} fit", node=node)
            m.pipe_buffers[q.pos] = used
            q.bufs = [start + i * nbytes for i in range(k)]
            q.blen = nbytes
            q.slots = QueSlots.fresh(k)
        else:
            if m.tbufs.get(obj.root) is not None:
                raise QueueError("init_buffer called twice for the same TBuf", node=node)
            m.tbufs[obj.root] = (start, nbytes)
        if pool is None:
            m.pipe_next = end
    return run


@binder("alloc_tensor")
def _bind_alloc(node: Node, op: OpDef) -> Step:
    (obj,) = node.args

    def run(m: Machine) -> Instr | None:
        q = m.queues[obj.root]
        slot, reused = q.alloc(node)       # the first use of a buffer does not wait (graph/queue_model.py)
        m.define_ub_root(node, q.bufs[slot], q.blen, slot, obj.root)
        return _que_instr(node, q, "alloc_tensor", obj.root, slot, reused)
    return run


def _que_instr(node: Node, q: QueState, op: str, que: int, slot: int, reused: bool = True) -> Instr | None:
    """The set or wait the queue operation issues (graph/queue_model.py), as an instruction."""
    ev = que_event(q.pos, op, que, slot, reused)
    return None if ev is None else Instr(node, ev[0], ev[1], key=ev[2])


def _slot_of(m: Machine, q: QueState, ref: TensorRef, que_id: int, node: Node) -> int:
    root = m.roots.get(ref.root)
    if root is None or getattr(root, "que", -1) != que_id:
        raise QueueError("this tensor was not handed out by this queue", node=node,
                         hint="enque / free_tensor take the tensor returned by the same queue's alloc_tensor / deque")
    return root.slot


@binder("enque")
def _bind_enque(node: Node, op: OpDef) -> Step:
    obj, ref = node.args

    def run(m: Machine) -> Instr | None:
        q = m.queues[obj.root]
        slot = _slot_of(m, q, ref, obj.root, node)
        q.enque(slot, node)
        return _que_instr(node, q, "enque", obj.root, slot)
    return run


@binder("deque")
def _bind_deque(node: Node, op: OpDef) -> Step:
    (obj,) = node.args

    def run(m: Machine) -> Instr | None:
        q = m.queues[obj.root]
        slot = q.deque(node)
        m.define_ub_root(node, q.bufs[slot], q.blen, slot, obj.root)
        return _que_instr(node, q, "deque", obj.root, slot)
    return run


@binder("free_tensor")
def _bind_free(node: Node, op: OpDef) -> Step:
    obj, ref = node.args

    def run(m: Machine) -> Instr | None:
        q = m.queues[obj.root]
        slot = _slot_of(m, q, ref, obj.root, node)
        q.free_slot(slot, node)
        return _que_instr(node, q, "free_tensor", obj.root, slot)
    return run


@binder("tbuf_get")
def _bind_tbuf_get(node: Node, op: OpDef) -> Step:
    obj, length = node.args
    fl = efn(length)
    size = node.attr("dtype").itemsize

    def run(m: Machine) -> None:
        tb = m.tbufs.get(obj.root)
        if tb is None:
            raise QueueError("TBuf.get before pipe.init_buffer(tbuf, len_bytes)", node=node)
        addr, nbytes = tb
        want = fl(m.env)
        if want is not None:
            n = m.count(want, node)
            if n * size > nbytes:
                raise OutOfBoundsError(f"TBuf.get asks for {n} x {node.attr('dtype')} = {n * size} bytes from a "
                                       f"TBuf of {nbytes} bytes", node=node)
            nbytes = n * size
        m.define_ub_root(node, addr, nbytes)
    return run


# -- synchronisation (the pipe model is in sim.py; here only what program order can check) --------

@binder("set_flag", "wait_flag")
def _bind_flag(node: Node, op: OpDef) -> Step:
    ev, eid = node.args
    fe = efn(eid)

    kind = op.sync_side       # "set" / "wait", from the record

    def run(m: Machine) -> Instr:
        i = m.uniform_int(fe(m.env), node, "the event id")
        if not 0 <= i < config.EVENT_IDS:
            raise SyncError(f"event id {i} is outside 0..7 (Atlas A2 has 8 ids per HardEvent)", node=node)
        return Instr(node, node.pipe, kind, key=(ev, i))
    return run


@binder("pipe_barrier")
def _bind_barrier(node: Node, op: OpDef) -> Step:
    if node.pipe is None:
        return lambda m: Instr(node, Pipe.S, "barrier_all")
    return lambda m: Instr(node, node.pipe, "barrier")


# -- debug --------------------------------------------------------------------------------------

@binder("printf")
def _bind_printf(node: Node, op: OpDef) -> Step:
    from .printf import bind_printf
    return bind_printf(node)


# Last: executors_ops imports this module's helpers, and registers the other families' binders.
from . import executors_ops  # noqa: E402
from . import executors_adv  # noqa: E402,F401 - the high-level API's calls
from . import executors_reduce_mask  # noqa: E402,F401 - the reductions' mask form (after executors_ops)
from . import executors_not_run  # noqa: E402,F401 - traced and emitted, run nowhere
from . import executors_sort  # noqa: E402,F401 - Sort32
from . import executors_mrg_sort  # noqa: E402,F401 - MrgSort, Sort
from . import executors_vec_more  # noqa: E402,F401 - pyasc's further vector families
from . import executors_record  # noqa: E402,F401 - ops whose record states the whole call
from . import executors_system  # noqa: E402,F401 - cache and system calls
from . import executors_fwk  # noqa: E402,F401 - the TPipe event-id pool, TBufPool
from . import executors_cmpmask  # noqa: E402,F401 - the CMPMASK register: get / set_cmp_mask, compare / select forms
from .executors_fwk import pool_take  # noqa: E402
from . import executors_block_sync  # noqa: E402,F401 - sync_all / ib_set / ib_wait (run by runtime/block_sync_sim.py)
