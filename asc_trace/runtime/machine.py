"""The state of the vector cores a kernel runs on: a real Unified Buffer of bytes per core, the
caller's arrays as global memory, the framework objects, and the scalar environment.

Cores that follow the same control flow run together: the UB is an array of shape (cores, bytes)
and every operation touches all of them in one NumPy call. Per-core values (the block index, GM
offsets, values read from the UB) are arrays with one entry per core; UB addresses and counts are
the same on every core in this mode (see `interpreter.needs_per_core`), else cores run one by one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import config
from ..errors import AlignmentError, OutOfBoundsError, QueueError, UBOverflowError
from ..graph.node import Node, TensorRef
from ..graph.queue_model import QueSlots


@dataclass(slots=True)
class UbRoot:
    """Storage of a LocalTensor: a byte range of the UB (same on every core)."""

    addr: int
    nbytes: int
    slot: int = -1          # queue buffer index for queue tensors
    que: int = -1           # node id of the owning TQue


@dataclass(slots=True)
class GmRoot:
    """A GlobalTensor binding: element `start` of parameter `param`, optionally a window length.

    For a group of cores, `start` has one entry per core; when the entries form an arithmetic
    progression (the usual `base + block_idx * block_length`), `s0`/`step` describe it and accesses
    are checked with integer arithmetic and read through one strided view.
    """

    param: int
    start: Any              # int, or one int per core
    window: Any             # None, int, or one per core
    s0: int = 0
    step: int = 0
    ap: bool = False
    name: str = ""          # the parameter's name, for messages

    @classmethod
    def make(cls, param: int, start: Any, window: Any, name: str = "") -> "GmRoot":
        if isinstance(start, np.ndarray):
            st = start.astype(np.int64, copy=False)
            lst = st.tolist()         # a few cores: plain integers are faster than NumPy here
            step = lst[1] - lst[0] if len(lst) > 1 else 0
            ap = all(lst[i + 1] - lst[i] == step for i in range(len(lst) - 1))
            if isinstance(window, np.ndarray):
                w = window.tolist()
                if all(v == w[0] for v in w):
                    window = int(w[0])
            return cls(param, st, window, lst[0], step, ap, name)
        return cls(param, int(start), window, int(start), 0, True, name)


@dataclass
class QueState:
    """A TQue's buffers (UB addresses) and where each one is (graph/queue_model.py QueSlots), with the
    checks the NPU would not make: a call that would wait forever, a tensor handed back twice."""

    pos: Any
    depth: int
    node: Node
    bufs: list[int] = field(default_factory=list)
    blen: int = 0
    slots: QueSlots = QueSlots(())

    def _err(self, msg: str, node: Node, hint: str | None = None) -> QueueError:
        return QueueError(msg, node=node, hint=hint, related=[("queue created", self.node.loc)])

    def alloc(self, node: Node) -> tuple[int, bool]:
        """(the buffer alloc_tensor hands out, whether an alloc_tensor had it before)."""
        got = self.slots.hand_out("alloc_tensor")
        if got is None:
            if not self.bufs:
                raise self._err("alloc_tensor on a queue that has no buffers", node,
                                "give it memory first: pipe.init_buffer(que, num, len_bytes)")
            raise self._err(f"alloc_tensor found all {len(self.bufs)} buffer(s) of the queue in use; on the NPU it "
                            "would wait forever", node, "free_tensor a buffer before allocating the next one, or "
                            "give the queue more buffers in init_buffer")
        slot, reused, self.slots = got
        return slot, reused

    def enque(self, slot: int, node: Node) -> None:
        if not self.slots.held(slot):
            raise self._err("enque of a tensor this queue did not hand out (or one already enqueued)", node)
        inq = len(self.slots.inq)
        if self.depth and inq >= self.depth:      # depth 0: no count, the buffers bound it
            raise self._err(f"enque would put {inq + 1} tensors in a queue of depth {self.depth}", node,
                            "deque before enqueueing again, or create the TQue with a larger depth")
        self.slots = self.slots.take_back("enque", slot)

    def deque(self, node: Node) -> int:
        got = self.slots.hand_out("deque")
        if got is None:
            raise self._err("deque of an empty queue; on the NPU it would wait forever", node,
                            "enque a tensor first (each deque needs one enque)")
        slot, _reused, self.slots = got
        return slot

    def free_slot(self, slot: int, node: Node) -> None:
        if not self.slots.held(slot):
            raise self._err("free_tensor of a tensor that is not held (freed twice, or still enqueued)", node)
        self.slots = self.slots.take_back("free_tensor", slot)


class Machine:
    """State of a group of cores that execute in lockstep."""

    def __init__(self, cores: np.ndarray, core_num: int, gm: list[np.ndarray | None], env: dict[str, Any],
                 journal: "GmJournal | None" = None, ub_bytes: int | None = None) -> None:
        self.cores = cores
        self.journal = journal if journal is not None else GmJournal()
        self.C = len(cores)
        self.core_num = core_num
        # `ub_bytes`: only the UB below it (a loop's iterations as cores, runtime/tape_vector.py), not pooled
        self.ub = UB_POOL.take(self.C) if ub_bytes is None else np.full((self.C, ub_bytes), config.UB_POISON_BYTE,
                                                                         dtype=np.uint8)
        self.ub_hi = 0           # end of the highest UB root defined: the bytes to poison again on release
        self.keep = False        # a replay's tape holds views of this UB: release() leaves it alone
        self.data = True         # False: instructions are checked without their data effects (no GM views)
        self.mask_counter = False  # the mask register's mode (set_mask_count / set_mask_norm): bounds a mask count
        self.gm = gm
        self.env = dict(env)
        self.env["blk"] = cores.copy() if self.C > 1 else int(cores[0])
        self.env["nblk"] = core_num
        self.roots: dict[int, Any] = {}
        self.queues: dict[int, QueState] = {}
        self.tbufs: dict[int, Any] = {}
        self.pipe_node: Node | None = None
        self.pipe_next = 0
        self.pools: dict[int, list[int] | None] = {}     # TBufPool root -> [start, end, cursor] (executors_fwk.py)
        self.pipe_buffers: dict[Any, int] = {}
        self.out: list[list[str]] = [[] for _ in range(self.C)]
        # the CMPMASK register (graph/ops/cmpmask.py), undefined until written: the UB's poison
        self.cmpmask = np.full((self.C, 16), config.UB_POISON_BYTE, dtype=np.uint8)

    # -- scalars --------------------------------------------------------------------------------
    def uniform_int(self, v: Any, node: Node, what: str) -> int:
        """A value that must be the same on every core of the group (UB addresses, counts, bounds)."""
        if v.__class__ is int:
            return v
        if isinstance(v, np.ndarray):
            if v.size == 0 or not np.all(v == v.flat[0]):
                raise OutOfBoundsError(f"{what} differs between cores ({v.tolist()})", node=node)
            v = v.flat[0]
        if isinstance(v, (float, np.floating)) and not float(v).is_integer():
            raise OutOfBoundsError(f"{what} is not an integer ({v})", node=node)
        return int(v)

    def count(self, v: Any, node: Node) -> int:
        n = self.uniform_int(v, node, "the element count")
        if n < 0:
            raise OutOfBoundsError(f"the element count is negative ({n})", node=node)
        return n

    # -- unified buffer ---------------------------------------------------------------------------
    def ub_span(self, ref: TensorRef, off: Any, count: int, node: Node, what: str, aligned: bool = True) -> int:
        """Byte address of `count` elements at `ref` (+ evaluated offset `off`), after every check
        (`aligned=False` for the scalar unit, which reads single elements anywhere)."""
        root: UbRoot = self.roots[ref.root]
        off = self.uniform_int(off, node, f"the offset of {what}")
        size = ref.dtype.itemsize
        addr = root.addr + off * size
        if off < 0:
            raise OutOfBoundsError(f"{what} starts {-off} element(s) before its tensor (offset {off})", node=node)
        # the bounds before the alignment: the vendor API checks a tensor's size when it is called (its
        # DataCopy's "Failed to check dstLocal size"), the instruction its address after (cpu_debug's order)
        end = addr + count * size
        if end > root.addr + root.nbytes:
            have = max(0, (root.addr + root.nbytes - addr) // size)
            raise OutOfBoundsError(f"{what} needs {count} x {ref.dtype} elements but its tensor has only {have} "
                                   f"from offset {off}", node=node,
                                   hint="lower the count, or make the tensor larger")
        if aligned and addr % config.UB_ALIGN:
            raise AlignmentError(f"{what} starts at UB byte address {addr}, which is not 32-byte aligned "
                                 f"(tensor at {root.addr} + {off} x {size} bytes)", node=node,
                                 hint="slice LocalTensors at multiples of 32 bytes "
                                      f"({config.UB_ALIGN // size} x {ref.dtype} elements)")
        return addr

    def ub_view(self, ref: TensorRef, off: Any, count: int, node: Node, what: str) -> np.ndarray:
        return self.ub_access(ref, off, count, node, what)[1]

    def ub_access(self, ref: TensorRef, off: Any, count: int, node: Node, what: str,
                  aligned: bool = True) -> tuple[int, np.ndarray]:
        """(byte address, live (cores, count) view) of `count` elements at `ref`, after the checks."""
        addr = self.ub_span(ref, off, count, node, what, aligned)
        dt = ref.dtype
        return addr, self.ub[:, addr:addr + count * dt.itemsize].view(dt.np)

    def define_ub_root(self, node: Node, addr: int, nbytes: int, slot: int = -1, que: int = -1) -> None:
        if addr < 0 or addr % config.UB_ALIGN:
            raise AlignmentError(f"UB address {addr} is not a non-negative multiple of 32 bytes", node=node,
                                 hint="place LocalTensors at 32-byte aligned byte addresses")
        if addr + nbytes > config.UB_USABLE:
            raise UBOverflowError(f"this tensor spans UB bytes [{addr}, {addr + nbytes}) but only "
                                  f"{config.UB_USABLE} bytes of the 192 KB Unified Buffer are usable", node=node,
                                  hint="use smaller tiles (more loop iterations) or fewer buffers")
        self.roots[node.id] = UbRoot(addr, nbytes, slot, que)
        if addr + nbytes > self.ub_hi:
            self.ub_hi = addr + nbytes

    def release(self) -> None:
        """Give the UB back to the pool (poisoned again); the machine must not run after this."""
        if self.keep or self.ub is None or self.ub.shape[1] != config.UB_BYTES:
            return
        ub, self.ub = self.ub, None
        if ub is not None:
            UB_POOL.give(ub, self.ub_hi)

    # -- global memory ----------------------------------------------------------------------------
    def gm_span(self, ref: TensorRef, off: Any, count: int, node: Node, what: str) -> tuple[np.ndarray, Any]:
        """(array, element start per core) after the window and array-bound checks."""
        root: GmRoot = self.roots[ref.root]
        arr = self.gm[root.param]
        if not isinstance(off, np.ndarray) and root.ap and not isinstance(root.window, np.ndarray):
            off = int(off)                                   # the fast path: plain integer checks
            span = root.step * (self.C - 1) if isinstance(root.start, np.ndarray) else 0
            lo = root.s0 + off + min(0, span)
            hi = root.s0 + off + max(0, span) + count
            if off >= 0 and (root.window is None or off + count <= root.window) and lo >= 0 and hi <= arr.shape[0]:
                return arr, root.start + off
        self._check_gm(root, arr, off, count, node, what)
        if isinstance(off, np.ndarray) or isinstance(root.start, np.ndarray):
            off = np.broadcast_to(np.asarray(off, dtype=np.int64), (self.C,))
        return arr, root.start + off

    def _check_gm(self, root: GmRoot, arr: np.ndarray, off: Any, count: int, node: Node, what: str) -> None:
        """Raise for the first core whose access leaves its GlobalTensor window or the argument's array,
        naming that core, the argument and the element range."""
        C = self.C
        offs = np.broadcast_to(np.asarray(off, dtype=np.int64), (C,))
        starts = np.broadcast_to(np.asarray(root.start, dtype=np.int64), (C,)) + offs
        windows = None if root.window is None else np.broadcast_to(np.asarray(root.window, dtype=np.int64), (C,))
        n = arr.shape[0]
        checks = [
            (offs < 0, lambda c: f"starts before its GlobalTensor (offset {offs[c]})",
             "the offset is computed from the loop index and the launch arguments; keep it non-negative"),
            (None if windows is None else offs + count > windows,
             lambda c: f"reads/writes elements [{offs[c]}, {offs[c] + count}) of its GlobalTensor, but the window "
                       f"set by set_global_buffer has {windows[c]}",
             "keep accesses inside the window, or widen it"),
            ((starts < 0) | (starts + count > n),
             lambda c: f"touches elements [{starts[c]}, {starts[c] + count}) of argument '{root.name}', which has {n} elements",
             "check the offsets and the lengths computed from the launch arguments (and the core count: each "
             "core's part must lie inside the arrays)"),
        ]
        for bad, describe, hint in checks:
            if bad is None or not bad.any():
                continue
            idx = np.flatnonzero(bad)
            c = int(idx[0])
            where = f" on core {int(self.cores[c])}" if self.core_num > 1 else ""
            more = " (and on other cores)" if len(idx) > 1 else ""
            raise OutOfBoundsError(f"{what}{where} {describe(c)}{more}", node=node, hint=hint)

    def gm_access(self, ref: TensorRef, off: Any, count: int, node: Node, what: str,
                  write: bool) -> tuple[tuple, Any]:
        """((param, element starts, count, itemsize, write, s0, step), a live (cores, count) view to read
        from, or a function that writes a (cores, count) array) after the window and bound checks. When
        the starts are `s0 + step * core`, s0 and step say so (the race checker's fast path), else s0 is
        None."""
        arr, start = self.gm_span(ref, off, count, node, what)
        root = self.roots[ref.root]
        if not isinstance(start, np.ndarray):
            s0, step = start, 0
        elif root.ap and not isinstance(off, np.ndarray):
            s0, step = root.s0 + off, root.step
        else:
            s0, step = _progression(start)
        info = (root.param, start, count, ref.dtype.itemsize, write, s0, step)
        if not self.data:
            return info, None        # a check without data effects: nothing reads or writes the data
        if not write:
            return info, gm_rows(arr, start, count, self.C)
        C = self.C
        journal = self.journal

        def store(data: np.ndarray, idx: np.ndarray | None = None) -> None:
            """Write (cores, count) data, or (cores, len(idx)) data at element offsets `idx` of the range."""
            if idx is not None:
                starts = np.broadcast_to(np.asarray(start, dtype=np.int64), (C,))
                for c in range(C):
                    where = int(starts[c]) + idx
                    journal.save_at(arr, where)
                    arr[where] = data[c] if C > 1 or data.ndim > 1 else data
                return
            if not isinstance(start, np.ndarray):
                target = arr[start:start + count]
                journal.save(target)
                target[...] = data[-1]      # every core writes the same range: the last one lands
                return
            step = int(start[1] - start[0]) if C > 1 else 0
            if C == 1 or (step >= count and np.all(np.diff(start) == step)):
                target = gm_rows(arr, start, count, C, writable=True)
                journal.save(target)
                target[...] = data
            else:
                for c in range(C):
                    s0 = int(start[c])
                    journal.save(arr[s0:s0 + count])
                    arr[s0:s0 + count] = data[c]
        return info, store


def _progression(start: np.ndarray) -> tuple[int | None, int]:
    """(first, step) when the per-core starts form an arithmetic progression, else (None, 0)."""
    st = np.asarray(start, dtype=np.int64)
    if st.size == 1:
        return int(st[0]), 0
    step = int(st[1] - st[0])
    return (int(st[0]), step) if np.all(np.diff(st) == step) else (None, 0)


class UbPool:
    """Poisoned Unified Buffers kept between launches: filling 8 x 192 KB with the poison byte costs more
    than an empty launch, while poisoning again only the bytes a launch's tensors covered costs little."""

    KEEP = 2      # arrays kept per core count

    def __init__(self) -> None:
        self.free: dict[int, list[np.ndarray]] = {}

    def take(self, C: int) -> np.ndarray:
        lst = self.free.get(C)
        if lst:
            try:
                return lst.pop()
            except IndexError:      # another thread took it
                pass
        return np.full((C, config.UB_BYTES), config.UB_POISON_BYTE, dtype=np.uint8)

    def give(self, ub: np.ndarray, hi: int) -> None:
        """`hi`: every byte the launch may have written lies below it (its tensors' extent)."""
        ub[:, :hi] = config.UB_POISON_BYTE
        lst = self.free.setdefault(ub.shape[0], [])
        if len(lst) < self.KEEP:
            lst.append(ub)


UB_POOL = UbPool()


class NullJournal:
    """The journal of a launch that cannot be refused any more (its checks passed on the same addresses):
    outputs are written directly, nothing is kept."""

    entries: list = []

    def save(self, target: np.ndarray) -> None:
        pass

    def save_at(self, arr: np.ndarray, where: np.ndarray) -> None:
        pass

    def rollback(self) -> None:
        pass

    def commit(self) -> None:
        pass


class GmJournal:
    """GM writes go straight into the caller's arrays (so aliased arguments behave as on the NPU);
    the journal keeps what each write overwrote, so a refused launch can put it all back."""

    def __init__(self) -> None:
        self.entries: list[tuple[np.ndarray, np.ndarray | None, np.ndarray]] = []

    def save(self, target: np.ndarray) -> None:
        self.entries.append((target, None, target.copy()))

    def save_at(self, arr: np.ndarray, where: np.ndarray) -> None:
        self.entries.append((arr, where, arr[where].copy()))

    def rollback(self) -> None:
        for target, where, old in reversed(self.entries):
            if where is None:
                target[...] = old
            else:
                target[where] = old
        self.entries.clear()

    def commit(self) -> None:
        self.entries.clear()


def gm_rows(arr: np.ndarray, start: Any, count: int, C: int, writable: bool = False) -> np.ndarray:
    """`count` elements per core from `start` (an int, or one start per core) as a (C, count) array."""
    if not isinstance(start, np.ndarray):
        row = arr[start:start + count]
        return np.broadcast_to(row, (C, count))
    s0 = int(start[0])
    step = int(start[1] - start[0]) if C > 1 else 0
    if C == 1 or np.all(np.diff(start) == step):
        if step < 0:
            return arr[start[:, None] + np.arange(count)]
        base = arr[s0:]
        return as_strided(base, shape=(C, count), strides=(step * arr.itemsize, arr.itemsize), writeable=writable)
    return arr[start[:, None] + np.arange(count)]
