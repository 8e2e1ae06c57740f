"""The pipe model's ordering rules, shared by the simulator's race checker (concrete addresses) and
the scheduler's analysis (symbolic addresses): in-order pipes, hardware flags, TQue events, barriers.

Happens-before is tracked with vector clocks, one per pipe (S, MTE2, V, MTE3):
- instructions of one pipe are ordered (each pipe is an in-order stream);
- `set_flag(X_Y, id)` on X publishes X's clock; the `wait_flag` on Y that consumes it joins it;
- TQue operations are the same flags, keyed by queue buffer (docs/facts.md#facts-6);
- the scalar unit issues every instruction in program order, so whatever the scalar unit has done
  (its own UB reads/writes, the waits it blocked on) happens before everything issued after it;
- `pipe_barrier(PIPE_ALL)` orders everything before it before everything after it;
- an API call that sets and waits events inside (its op record's `api_sync`: ReduceSum/Max/Min) is
  followed by those sets and waits, on the ids the API takes (`API_EVENT_ID`, see PipeClock), so that
  they order what they order on the device and clash with the kernel's own flags as they would there.

A wait whose flag is not set yet blocks its pipe: later instructions of that pipe queue up behind it
while the other pipes go on (so a wait may precede its set in program order, as on hardware).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

from ..enums import HardEvent, TPosition
from ..errors import SyncError
from .node import Node, Pipe

PIPES = (Pipe.S, Pipe.MTE2, Pipe.V, Pipe.MTE3)
PIDX = {p: i for i, p in enumerate(PIPES)}
S, MTE2, V, MTE3 = range(4)

# TQue events (docs/facts.md#facts-6), as (producer pipe, consumer pipe) by queue position: enque sets the
# producer->consumer event (MTE2_V / V_MTE3) that deque waits on; free_tensor sets the way back
# (V_MTE2 / MTE3_V) that a later alloc_tensor of the same buffer waits on.
QUE_PIPES = {TPosition.VECIN: (Pipe.MTE2, Pipe.V), TPosition.VECOUT: (Pipe.V, Pipe.MTE3)}

# The id an API call's own synchronisation takes: `GetTPipePtr()->FetchEventID(evt)` returns the first id
# of the event its TPipe has not reserved with AllocEventID (asc-devkit impl/basic_api/kernel_tpipe_impl.h
# FetchEventID; CANN 8.1.RC1 impl/kernel_tpipe_impl.h), which is 0 for a TPipe that reserved nothing: the
# one the lowering adds when the kernel has none (lower/ascendc_pipe.py). A kernel with its own TPipe
# reserves every id its flags use from it, so there the API's id is one no flag has (key ("api", event)).
API_EVENT_ID = 0
ApiStep = tuple[Pipe, str, HardEvent]        # (pipe, "set" | "wait", event), in program order


def api_events(node: Node) -> tuple[HardEvent, ...]:
    """The events whose ids an API call takes for its own synchronisation (op record `api_events`)."""
    from .ops import REGISTRY
    op = REGISTRY.get(node.op)
    return op.api_events if op is not None else ()


def api_steps(node: Node, value: Callable[[Any], int | None]) -> tuple[ApiStep, ...] | None:
    """The sets and waits an API call makes after its work; None when that depends on an operand
    `value` cannot evaluate (the op record's `api_sync`)."""
    from .ops import REGISTRY
    op = REGISTRY.get(node.op)
    return () if op is None or op.api_sync is None else op.api_sync(node, value)


class Instr:
    """One instruction as the pipes see it.

    kind: "op" (touches memory), "set", "wait", "barrier" (one pipe), "barrier_all".
    key: the flag of a set/wait: (HardEvent, id) or ("que", que, slot, "enq" | "free").
    ub / gm: what an "op" touches; their form is up to the user of the model (concrete byte ranges
    in the simulator, symbolic ranges in the scheduler).
    """

    __slots__ = ("node", "pipe", "kind", "key", "apply", "ub", "gm", "work", "issue_vc", "epoch", "t_issue",
                 "start", "end", "tag", "where", "order", "seq", "api", "inside", "prompt", "gm_blocks")

    def __init__(self, node: Node, pipe: Pipe, kind: str = "op", key: Any = None, apply: Callable | None = None,
                 ub: tuple = (), gm: tuple = (), work: float = 0.0, tag: Any = None,
                 api: tuple[ApiStep, ...] = ()) -> None:
        self.node = node
        self.pipe = pipe
        self.kind = kind
        self.key = key
        self.apply = apply
        self.ub = ub
        self.gm = gm
        self.work = work
        self.issue_vc: list[int] | None = None
        self.epoch = 0
        self.t_issue = 0.0
        self.start = 0.0
        self.end = 0.0
        self.tag = tag
        self.where: tuple = ()      # the simulator's (loop node, index value) pairs, for error messages
        self.order = 0              # position in program (issue) order, set by the simulator
        self.seq = 0                # position in execution order among memory accesses (race checker)
        self.api = api              # the sets and waits the API call makes itself, after this instruction
        self.inside = False         # a set or wait made inside an API call (one of another's `api`)
        self.prompt = False         # a wait that runs as soon as its flag is set (see PipeClock.issue)
        # per entry of `gm`, None or (blocks, block bytes, bytes from one block's start to the next's) when a
        # strided copy touches only those blocks of its entry's envelope (the cross-core race check)
        self.gm_blocks: tuple = ()


@dataclass(slots=True)
class FlagState:
    vc: list[int]
    node: Node
    time: float = 0.0
    ins: Any = None           # the set_flag instruction (for race reports)


@dataclass(slots=True)
class WaitMark:
    epoch: int
    pipe: int
    node: Node
    inside: bool = False


def describe_key(key: Any) -> str:
    if isinstance(key, tuple) and key and key[0] == "que":
        return f"the TQue %{key[1]} buffer {key[2]} ({key[3]} event)"
    if isinstance(key, tuple) and key and key[0] == "api":
        return f"HardEvent.{key[1].name} (the id the TPipe has left free)"
    ev, i = key
    return f"HardEvent.{ev.name} id {i}"


def _inside(ins: Any, always: bool = False) -> str:
    """How a set or wait came about, when an API call made it."""
    if not (always or getattr(ins, "inside", False)):
        return ""
    from .ops import REGISTRY
    name = REGISTRY[ins.node.op].c_name if ins.node.op in REGISTRY else ins.node.op
    return (f" (made inside {name}, which synchronises the scalar unit with V itself and takes the first id "
            f"of the event its TPipe has not reserved)")


class PipeClock:
    """Vector clocks, flags and per-pipe queues of one core (or of cores that behave identically).

    `on_exec(ins, vc)` is called for every instruction when it executes, with the clock of its pipe
    (after counting the instruction); callers check races, model time or apply the data effect there.
    """

    def __init__(self, on_exec: Callable[[Instr, list[int]], None], strict: bool = True,
                 scalar_flags: bool = False, own_pipe: bool = False,
                 full: frozenset[HardEvent] = frozenset()) -> None:
        self.vc = [[0] * 4 for _ in range(4)]
        # The scalar unit's own UB reads and writes reach the other pipes only through S_X / X_S flags
        # when bisheng's auto-sync (which inserts those, docs/facts.md#facts-3) is off, as in the build of a kernel
        # asc_trace synchronises; with it on, issuing after them is enough.
        self.scalar_flags = scalar_flags
        self.flags: dict[Any, FlagState] = {}
        self.last_wait: dict[Any, WaitMark] = {}
        self.queues: list[deque] = [deque() for _ in range(4)]
        self.backlog = 0
        self.deferred = 0             # instructions that waited in a queue: execution left program order
        self.on_exec = on_exec
        self.strict = strict          # raise on double sets (the simulator) or only note them (the scheduler)
        self.problems: list[SyncError] = []
        self.problem_pairs: list[tuple[Node, Node]] = []   # (this set, the set / wait it clashes with)
        # the key of an API call's id (see API_EVENT_ID): with the kernel's own TPipe, an id no flag has
        self.own_pipe = own_pipe
        self.full = full        # events whose 8 ids the kernel's own flags all take (its TPipe reserves them)
        self.on_step: Callable[[Instr], None] | None = None   # sees each API step before it issues

    # -- issue ------------------------------------------------------------------------------------
    def issue(self, ins: Instr) -> None:
        self._issue(ins)
        for pipe, kind, ev in ins.api:
            if self.own_pipe and ev in self.full and self.strict:
                raise SyncError(f"{_inside(ins, True).strip(' ()')}: but the kernel's own flags take all 8 ids of "
                                f"HardEvent.{ev.name}, which its TPipe reserves for them, so the call finds none",
                                node=ins.node, hint=f"leave one HardEvent.{ev.name} id unused")
            step = Instr(ins.node, pipe, kind, ("api", ev) if self.own_pipe else (ev, API_EVENT_ID))
            step.inside = True
            # The call's V_S handshake has drained V, so its wait on V is alone in V's queue with its flag
            # set: it runs at once, and whatever the scalar unit issues next comes after it. (A wait on
            # MTE3 may queue behind copies still running: there the model keeps the order unproven.)
            step.prompt = kind == "wait" and pipe is Pipe.V
            step.where = ins.where
            step.order = ins.order
            if self.on_step is not None:
                self.on_step(step)
            self._issue(step)

    def _issue(self, ins: Instr) -> None:
        p = PIDX[ins.pipe]
        if p == S:
            if ins.kind == "wait" and ins.key not in self.flags:
                self.drain()
                if ins.key not in self.flags:
                    if self.strict:
                        self._hang(ins)
                    ins.kind = "nop"
            self._execute(ins, S)
            if self.backlog:
                self.drain()
            return
        if ins.kind == "barrier_all":
            self.drain()
            if self.backlog:
                if not self.strict:
                    self.force_drain()
                else:
                    blocked = next(q[0] for q in self.queues if q)
                    self._hang(blocked, barrier=ins)
            self._execute(ins, p)
            return
        if (self.backlog and self.queues[p]) or (ins.kind == "wait" and ins.key not in self.flags):
            # behind a blocked instruction of its pipe, or itself a wait whose flag is not set yet
            ins.issue_vc = self.vc[S][:]
            self.queues[p].append(ins)
            self.backlog += 1
            self.deferred += 1
            return
        self._execute(ins, p)
        if self.backlog and ins.kind == "set":
            self.drain()

    def drain(self) -> None:
        progress = True
        while progress and self.backlog:
            progress = False
            for p in (MTE2, V, MTE3):
                q = self.queues[p]
                while q:
                    head = q[0]
                    if head.kind == "wait" and head.key not in self.flags:
                        break
                    q.popleft()
                    self.backlog -= 1
                    self._execute(head, p)
                    progress = True

    # -- execution --------------------------------------------------------------------------------
    def _execute(self, ins: Instr, p: int) -> None:
        vc = self.vc[p]
        if p != S:
            src = ins.issue_vc if ins.issue_vc is not None else self.vc[S]
            # join the issuing scalar unit's clock (unrolled: this runs for every instruction)
            a, b, c, d = src
            if a > vc[0] and not self.scalar_flags:
                vc[0] = a
            if b > vc[1]:
                vc[1] = b
            if c > vc[2]:
                vc[2] = c
            if d > vc[3]:
                vc[3] = d
        vc[p] += 1
        ins.epoch = vc[p]
        kind = ins.kind
        if kind == "wait":
            flag = self.flags.pop(ins.key)
            fvc = flag.vc
            for i in range(4):
                if fvc[i] > vc[i]:
                    vc[i] = fvc[i]
            if ins.prompt:
                self.last_wait.pop(ins.key, None)
            else:
                self.last_wait[ins.key] = WaitMark(vc[p], p, ins.node, ins.inside)
            ins.tag = flag
        elif kind == "set":
            self._check_set(ins, vc)
        elif kind == "barrier_all":
            for q in range(4):
                for i in range(4):
                    if self.vc[q][i] > vc[i]:
                        vc[i] = self.vc[q][i]
            for q in range(4):
                self.vc[q][:] = vc
        self.on_exec(ins, vc)
        if kind == "set":
            self.flags[ins.key] = FlagState(vc[:], ins.node, ins.end, ins)

    def _check_set(self, ins: Instr, vc: list[int]) -> None:
        key = ins.key
        prev = self.flags.get(key)
        if prev is not None:
            err = SyncError(f"set_flag of {describe_key(key)}{_inside(ins)} while the flag is still set: nothing "
                            "waited for the previous set (two sets without a wait are undefined behaviour on the NPU)",
                            node=ins.node, related=[(f"the previous set{_inside(prev.ins)}", prev.node.loc)],
                            hint="each set_flag needs exactly one wait_flag before the same event id is set again"
                            + ("; the kernel's own flags must not hold that id across the call: use another id"
                               if ins.inside or getattr(prev.ins, "inside", False) else ""))
            if self.strict:
                raise err
            self.problems.append(err)
            self.problem_pairs.append((ins.node, prev.node))
            return
        mark = self.last_wait.get(key)
        # An API call's own set-then-wait pairs may follow each other faster than a busy pipe runs its wait
        # (the vendor's code does so in every loop); between them the model only checks the double set.
        if mark is not None and vc[mark.pipe] < mark.epoch and not (ins.inside and mark.inside):
            err = (_requeued(ins, mark, key) if ins.node.op == "enque" and mark.node.op == "deque" else
                   SyncError(f"set_flag of {describe_key(key)} can run before the wait_flag that consumes the "
                             "previous set: nothing orders that wait before this set, so on the NPU the flag may be "
                             "set twice", node=ins.node, related=[("the previous wait", mark.node.loc)],
                             hint="order the waiting pipe before the setting pipe (e.g. a handshake event back), or "
                                  "alternate event ids between iterations"))
            if self.strict:
                raise err
            self.problems.append(err)
            self.problem_pairs.append((ins.node, mark.node))

    def _hang(self, ins: Instr, barrier: Instr | None = None) -> None:
        what = f"wait_flag of {describe_key(ins.key)}"
        extra = [("the PIPE_ALL barrier that cannot pass it", barrier.node.loc)] if barrier is not None else []
        raise SyncError(f"{what} is never satisfied: no set_flag of that event and id can run before it, so on the "
                        "NPU the kernel would hang here", node=ins.node, related=extra,
                        hint="add the matching set_flag on the source pipe, or remove this wait")

    def force_drain(self) -> None:
        """Run blocked instructions as if their waits were satisfied (the scheduler's analysis only)."""
        while self.backlog:
            self.drain()
            for p in range(4):
                q = self.queues[p]
                if q and q[0].kind == "wait" and q[0].key not in self.flags:
                    head = q.popleft()
                    self.backlog -= 1
                    head.kind = "nop"
                    self._execute(head, p)
                    break

    # -- end of the kernel ------------------------------------------------------------------------
    def finish(self) -> None:
        self.drain()
        for q in self.queues:
            if q:
                self._hang(q[0])
        for key, flag in self.flags.items():
            if isinstance(key, tuple) and key and key[0] == "que":
                continue   # TQue buffers may end the kernel freed; the framework resets its own events
            raise SyncError(f"the kernel ends with {describe_key(key)} still set: its set_flag has no wait_flag, "
                            "which leaves the flag set for the next kernel on this core", node=flag.node,
                            hint="add the matching wait_flag, or remove this set_flag")



def _requeued(ins: Instr, mark: WaitMark, key: object) -> SyncError:
    """A queue buffer enqueued again after its deque, without free_tensor / alloc_tensor between: the
    enque sets the queue's event on the producing pipe and the deque waits it on the consuming pipe
    (a VECOUT queue: V sets V_MTE3, MTE3 waits it), so nothing keeps the second set behind the first
    wait. The vendor's TQue takes a fresh id from the pool at each enque and releases it at the deque,
    so the same id comes back; a queue's events are the framework's, which auto_sync does not move."""
    return SyncError(f"this enque puts a buffer of the TQue back after its deque without free_tensor / alloc_tensor "
                     f"between ({describe_key(key)}): the enque's set runs on the producing pipe and nothing "
                     "orders the deque's wait, on the consuming pipe, before it, so on the NPU the queue's flag "
                     "may be set twice; a queue's own events are the framework's and auto_sync does not reorder them",
                     node=ins.node, related=[("the deque of the previous enque", mark.node.loc)],
                     hint="enqueue a tensor once per alloc_tensor, after the instruction that writes it for the queue's "
                          "consumer: for a VECOUT tensor that a copy fills before the vector op, keep the LocalTensor "
                          "from alloc_tensor and drop the first enque / deque pair (auto_sync orders the copy before "
                          "the vector op), or copy the input into a VECIN queue's tensor and alloc the VECOUT "
                          "tensor in the compute stage")
