"""The sim backend for a kernel that synchronises its vector cores (asc.sync_all, asc.ib_set, asc.ib_wait;
graph/ops/block_sync.py).

Each core of the launch runs on its own simulator (its UB, pipes and pipe model), as a thread of which
exactly one runs at a time (runtime/mix_flags.py CoreRunner, deterministic): a core gives the turn away
only when it waits at one of these calls, or ends. A call first drains the core's pipes (each begins
with PipeBarrier<PIPE_ALL>), then waits as the vendor's code does:
- `SyncAll<true>()` until every core of the launch has reached its k-th hardware barrier;
- the software `SyncAll` until the counters in the GM workspace add up (the counters are the caller's
  array: a workspace that was not zeroed hangs, as on the NPU);
- `IBSet` until its GM flag word reads 0 (then writes 1), `IBWait` until it reads 1 (then writes 0).
If no core can run while one waits, the wait is never satisfied: a SyncError at that call (cores that
disagree on the number of sync_all calls, an ib_wait nothing sets).

Ordering across cores is tracked as in the mixed simulator: each core knows, per other core, how far
that core's pipes had run when it last synchronised with it (vector clocks passed through the barrier,
or through the GM word a flag was read from), and every GM access is checked against the other cores'
earlier accesses to the same elements (`GmOrder`): one that neither writes, or that the knowledge
orders, is fine; any other is a RaceError naming both lines. Not modelled yet: timing (asc.profile)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotProvidedError, SyncError
from ..graph.hb import PIDX, Instr
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node, Pipe
from ..graph.ops.block_sync import BLOCK_SYNC_OPS
from .base import LaunchJob
from .executors_block_sync import BlockStep
from .interpreter import NodeStep
from .machine import GmJournal, Machine
from .mix_flags import CoreRunner, GmOrder, Knowledge, MixCore, _Access, merge
from .platform import platform
from .printf import emit_output


def has_block_sync(graph: KernelGraph) -> bool:
    return any(n.op in BLOCK_SYNC_OPS for n in graph)


# why the other backends do not run these calls (each refuses the kernel at the first call's line)
WHY_NOT = {
    "eager": "eager runs the kernel function core after core, each to its end, so a core can never wait for a "
             "later one",
    "cpu_debug": "cpu_debug runs each core to its end in its own forked process, one after another, and the "
                 "vendor's SyncAll / IBSet / IBWait wait on the FFTS hardware and the __sync_all_stub / "
                 "__ib_set_stub intrinsics of tikicpulib, which asc_trace's stub layer does not model",
}


def refuse_block_sync(graph: KernelGraph, backend: str) -> None:
    """NotProvidedError at the first sync_all / ib_set / ib_wait when `backend` cannot run it."""
    node = next((n for n in graph if n.op in BLOCK_SYNC_OPS), None)
    if node is not None:
        raise NotProvidedError(f"asc.{node.op} is not run by the {backend} backend: {WHY_NOT[backend]}", node.loc,
                               hint="run this kernel with backend='sim', which runs the cores in turns at the "
                                    "barriers and checks the ordering across cores")


class BlockCore(MixCore):
    """A vector core of the launch (`local` = `gid` = its block index)."""

    @property
    def name(self) -> str:
        return f"core {self.gid}"


class BlockOrder(GmOrder):
    """GmOrder for the vector cores of one launch: atomic stores of one operation commute (graph/ops/atomic.py),
    so two cores' atomic adds to the same elements need no order between them."""

    def access(self, core: MixCore, pipe: int, epoch: int, gm: tuple, node: Node) -> None:
        atomic = (node.attr("atomic") or ("",))[0]
        for g in gm:
            param, starts, length, _size, write = g[:5]
            lo = np.atleast_1d(np.asarray(starts, dtype=np.int64))
            hi = lo + int(length)
            hist = self.log.setdefault(param, [])
            k = core.knowledge
            for a in hist:
                if a.core is core or not (write or a.write):
                    continue
                known = k.get(a.core.gid)
                if known is not None and known[a.pipe] >= a.epoch:
                    continue
                if atomic and write and a.write and (a.node.attr("atomic") or ("",))[0] == atomic:
                    continue
                hit = (a.lo[:, None] < hi[None, :]) & (lo[None, :] < a.hi[:, None])
                if hit.any():
                    i, j = np.argwhere(hit)[0]
                    self._race(a, core, node, write, param, max(a.lo[i], lo[j]), min(a.hi[i], hi[j]))
            hist.append(_Access(lo, hi, bool(write), core, pipe, epoch, node))

    def _race(self, a: _Access, core: MixCore, node: Node, write: bool, param: int, lo: int, hi: int) -> None:
        from ..errors import RaceError
        what = lambda w: "writes" if w else "reads"     # noqa: E731
        raise RaceError(f"race on GM argument '{self.names.get(param, param)}' elements [{int(lo)}, {int(hi)}): "
                        f"{core.name} {what(write)} them here, {a.core.name} {what(a.write)} them at "
                        f"{a.node.loc.short}, and no sync_all / ib_set + ib_wait between the two cores orders them",
                        node=node, related=[(f"the other access ({a.core.name})", a.node.loc)],
                        hint="put an asc.sync_all between the write and the other core's access (every core calls "
                             "it), or let the writer ib_set a flag the other core ib_waits for")


class Board:
    """What the cores of one launch share: their hardware-barrier counts and the knowledge each barrier
    and each GM flag word passes on."""

    def __init__(self, cores: list[MixCore], runner: CoreRunner) -> None:
        self.cores = cores
        self.runner = runner
        self.hard = [0] * len(cores)                   # hardware barriers each core has reached
        self.hard_know: list[Knowledge] = []           # per barrier: what the cores knew on reaching it
        self.hard_node: dict[int, Node] = {}           # a core's last hardware barrier (for reports)
        self.words: dict[tuple[int, int], Knowledge] = {}   # (param, element) -> knowledge of its last write
        self.flag_nodes: dict[tuple[int, int], Node] = {}


class _BlockSide:
    """Mixed into runtime/sim.py's Simulator (by `BlockSyncArtifact`, which sim.py hands it, so that this
    module does not import sim.py); `core`, `board` and `order` are set for each core before it runs."""

    core: MixCore
    board: Board
    order: GmOrder | None

    def run_node(self, st: NodeStep, m: Machine) -> None:
        model = self.model
        out = st.fn(m)
        if isinstance(out, BlockStep):
            self.block(out, m)
            return
        if out is None:
            return
        if model is None:          # ASC_TRACE_SANITIZE=0: program order
            if out.apply is not None:
                out.apply()
            return
        out.where = self.where
        model.issue(self._logged(out, m))

    def _logged(self, ins: Instr, m: Machine) -> Instr:
        """The instruction, its GM accesses checked against the other cores' when it runs."""
        if self.order is None or not ins.gm or ins.apply is None:
            return ins
        from .mix_sim import _blocks      # a strided copy's exact blocks, not its envelope
        inner, core, order, p = ins.apply, self.core, self.order, PIDX[ins.pipe]
        gm = _blocks(ins, m) or ins.gm

        def apply() -> None:
            order.access(core, p, ins.epoch, gm, ins.node)
            inner()
        ins.apply = apply
        return ins

    # -- the calls ------------------------------------------------------------------------------------
    def _drain(self, node: Node) -> Knowledge:
        """PipeBarrier<PIPE_ALL>: everything issued before has run; what this core now knows of itself."""
        core = self.core
        if self.model is not None:
            clock = self.model.clock
            # the scalar unit's barrier executes at once; the pipes' queued instructions must run first
            clock.drain()
            if clock.backlog:
                ins = Instr(node, Pipe.S, "barrier_all")
                clock._hang(next(q[0] for q in clock.queues if q), barrier=ins)
            self.model.issue(Instr(node, Pipe.S, "barrier_all"))
            me = [max(v) for v in zip(*clock.vc)]
        else:
            me = [0, 0, 0, 0]
        core.knowledge = merge(core.knowledge, {core.gid: me})
        return core.knowledge

    def block(self, st: BlockStep, m: Machine) -> None:
        self._drain(st.node)
        if st.kind == "hard":
            self._hard(st)
        elif st.kind == "soft":
            self._soft(st, m)
        else:
            self._flag(st, m)

    def _hard(self, st: BlockStep) -> None:
        core, board = self.core, self.board
        k = board.hard[core.local]
        board.hard[core.local] = k + 1
        board.hard_node[core.local] = st.node
        if len(board.hard_know) <= k:
            board.hard_know.append({})
        board.hard_know[k] = merge(board.hard_know[k], core.knowledge)
        counts = board.hard

        def hang() -> None:
            behind = [c for c in range(len(counts)) if counts[c] <= k]
            c = behind[0]
            ended = board.runner.done[c]
            raise SyncError(f"core {core.local} waits at its sync_all number {k + 1}, but core {c} "
                            + (f"ended the kernel after {counts[c]} sync_all call(s)" if ended else
                               "waits elsewhere and never reaches it")
                            + ": every core of the launch must make the same sequence of sync_all calls, so on "
                              "the NPU the kernel would hang here", node=st.node,
                            hint="call asc.sync_all on every core the same number of times (not inside a branch "
                                 "that only some cores take)")
        board.runner.block(core.local, lambda: all(x > k for x in counts), hang)
        core.knowledge = merge(core.knowledge, board.hard_know[k])

    def _gm(self, m: Machine, st: BlockStep, word: int, count: int = 1) -> tuple[np.ndarray, int]:
        arr, start = m.gm_span(st.gm, st.gm_off + word, count, st.node, "the gm_workspace")
        return arr, int(np.asarray(start).flat[0])

    def _write(self, m: Machine, st: BlockStep, word: int, value: int) -> None:
        arr, at = self._gm(m, st, word)
        m.journal.save(arr[at:at + 1])
        arr[at] = value
        param = m.roots[st.gm.root].param
        self.board.words[(param, at)] = self.core.knowledge

    def _learn(self, m: Machine, st: BlockStep, words: tuple[int, ...]) -> None:
        param = m.roots[st.gm.root].param
        know = self.core.knowledge
        for w in words:
            _, at = self._gm(m, st, w)
            k = self.board.words.get((param, at))
            if k is not None:
                know = merge(know, k)
        self.core.knowledge = know

    def _soft(self, st: BlockStep, m: Machine) -> None:
        core = self.core
        arr, own = self._gm(m, st, st.own)
        cur = int(arr[own]) + 1
        self._write(m, st, st.own, cur)
        starts = [self._gm(m, st, w)[1] for w in st.words]
        need = st.total * cur

        def ready() -> bool:
            return int(sum(int(arr[s]) for s in starts)) >= need

        def hang() -> None:
            have = [int(arr[s]) for s in starts]
            raise SyncError(f"core {core.local} waits at a software sync_all for the workspace counters of cores "
                            f"0..{st.total - 1} to add up to {need}, and they stop at {sum(have)} ({have}): some core "
                            "does not reach this barrier (or the workspace was not zeroed before the launch), so on "
                            "the NPU the kernel would hang here", node=st.node,
                            hint="call sync_all on every counted core the same number of times, over a workspace "
                                 "zeroed by the host")
        self.board.runner.block(core.local, ready, hang)
        self._learn(m, st, st.words)
        if m.data:     # the last poll's copy of the counters, as the vendor's loop leaves it in the UB
            _, view = m.ub_access(st.ub, st.ub_off, len(starts) * 8, st.node, "the ub_workspace")
            view[0, :] = arr[starts[0]:starts[0] + len(starts) * 8] if starts else view[0, :]

    def _flag(self, st: BlockStep, m: Machine) -> None:
        core = self.core
        arr, at = self._gm(m, st, st.own)
        want, then = (0, 1) if st.kind == "ib_set" else (1, 0)

        def hang() -> None:
            what = ("is never cleared: no ib_wait takes the previous ib_set of this flag" if want == 0 else
                    "is never set: no core makes the matching ib_set")
            raise SyncError(f"core {core.local}'s {st.kind} on the flag of core {(st.own // 8) % m.core_num} "
                            f"(gm_workspace element {st.own}, which holds {int(arr[at])}) {what}, so on the NPU the "
                            "kernel would hang here", node=st.node,
                            hint="pair every ib_set with one ib_wait on the same block_idx and event_id, over a "
                                 "workspace zeroed by the host")
        self.board.runner.block(core.local, lambda: int(arr[at]) == want, hang)
        self._learn(m, st, (st.own,))
        self._write(m, st, st.own, then)
        self.board.flag_nodes[(m.roots[st.gm.root].param, at)] = st.node
        if m.data:
            _, view = m.ub_access(st.ub, st.ub_off, 8, st.node, "the ub_workspace")
            view[0, :] = arr[at:at + 8]
            view[0, 0] = then


class BlockSyncArtifact:
    """What the sim backend prepares for a block-synchronised kernel: one simulator per core."""

    block_sync = True

    def __init__(self, graph: KernelGraph, simulator: type) -> None:
        self.graph = graph
        self.cls = type("BlockSyncSimulator", (_BlockSide, simulator), {})
        self.sims: list[Any] = []

    def launch(self, job: LaunchJob, check: bool = True) -> None:
        from ..kernel_options import as_options
        n = job.core_num
        while len(self.sims) < n:
            self.sims.append(self.cls(self.graph))
        names = {p.index: p.name for p in self.graph.signature.runtime if p.kind == "gm"}
        order = BlockOrder(names) if check else None
        journal = GmJournal()
        plat = platform(job.options.get("platform"))
        compiler_sync = not as_options(job.options).auto_sync
        runner = CoreRunner(n)
        cores: list[MixCore] = [BlockCore("aiv", c, c, c) for c in range(n)]
        board = Board(cores, runner)
        machines = [Machine(np.array([c]), n, job.bound.arrays, job.bound.scalars, journal) for c in range(n)]
        fns = []
        for c in range(n):
            sim = self.sims[c]
            sim.core, sim.board, sim.order = cores[c], board, order

            def run(sim: Any = sim, m: Machine = machines[c]) -> None:
                if check:
                    sim.run_group(m, plat, True, True, compiler_sync, False)
                else:
                    sim.run_program_order(m)
            fns.append(run)
        try:
            runner.run(fns)
            self._finish(board, job)
        except BaseException:
            journal.rollback()
            raise
        finally:
            emit_output([(c, machines[c].out[0]) for c in range(n)], n)
            for m in machines:
                m.release()
        journal.commit()

    def _finish(self, board: Board, job: LaunchJob) -> None:
        """A flag left raised: the next launch's IBSet on it would wait for ever."""
        for (param, at), node in sorted(board.flag_nodes.items()):
            arr = job.bound.arrays[param]
            if node.op == "ib_set" and int(arr[at]) == 1:
                raise SyncError("the kernel ends with this ib_set's flag raised: no ib_wait took it, and the next "
                                "launch's ib_set on the same flag would wait for ever", node=node,
                                hint="pair every ib_set with one ib_wait on the same block_idx and event_id")

    def profile(self, job: LaunchJob, execute: bool = True) -> Any:
        raise NotProvidedError("asc.profile of a kernel with sync_all / ib_set / ib_wait is not provided yet: the "
                               "simulator runs it (its cores taking turns at the barriers, races across cores "
                               "checked) but does not time it", job.loc)


def block_launcher(g: KernelGraph, args: str) -> str:
    """The cpp backend's launcher of a block-synchronised kernel: every core of the launch a thread, taking
    turns at SyncAll / IBSet / IBWait (toolchain/include/asc_trace_block_sync.h)."""
    from ..lower.cexpr import c_ident
    call = f"{c_ident(g.name)}({args});"
    return f"""
// ---- asc_trace cpp backend: the cores of the launch as threads taking turns at the barriers ----
#include <memory>
#include <string>
#include <vector>
static std::string asc_trace_kind, asc_trace_msg;
static int asc_trace_node = -1, asc_trace_core = -1;
static std::vector<std::string> asc_trace_out;

extern "C" int asc_trace_launch(void** args, int32_t core_num, const int64_t* gm_lo, const int64_t* gm_hi, int32_t ngm)
{{
    auto& ranges = AscendC::detail::gm_ranges();
    ranges.clear();
    for (int32_t i = 0; i < ngm; ++i)
        ranges.push_back({{reinterpret_cast<const uint8_t*>(gm_lo[i]), reinterpret_cast<const uint8_t*>(gm_hi[i])}});
    asc_trace_out.assign(static_cast<size_t>(core_num), std::string());
    static std::vector<std::unique_ptr<AscendC::detail::Core>> owned;
    while (owned.size() < static_cast<size_t>(core_num)) owned.emplace_back(new AscendC::detail::Core());
    std::vector<AscendC::detail::Core*> cores;
    for (int32_t c = 0; c < core_num; ++c) {{
        auto& st = *owned[static_cast<size_t>(c)];
        st.core_idx = c;
        st.core_count = core_num;
        std::memset(st.ub, 0xFF, sizeof st.ub);
        std::memset(&st.cube, 0xFF, sizeof st.cube);
        st.out.clear();
        st.node = -1;
        st.pipe_made = false;
        st.atomic_op = 0;
        st.pipe_next = 0;
        std::memset(st.event_mask, 0, sizeof st.event_mask);
        std::memset(st.que_buffers, 0, sizeof st.que_buffers);
        cores.push_back(&st);
    }}
    int rc = 0;
    try {{
        AscendC::detail::run_block_launch(cores, [&] {{ {call} }});
    }} catch (const AscendC::detail::BlockFailure& f) {{
        asc_trace_kind = f.failure.kind;
        asc_trace_msg = f.failure.message;
        asc_trace_node = cores[static_cast<size_t>(f.core)]->node;
        asc_trace_core = f.core;
        rc = 1;
    }}
    for (int32_t c = 0; c < core_num; ++c) asc_trace_out[static_cast<size_t>(c)] = cores[static_cast<size_t>(c)]->out;
    return rc;
}}
extern "C" const char* asc_trace_error_kind() {{ return asc_trace_kind.c_str(); }}
extern "C" const char* asc_trace_error_message() {{ return asc_trace_msg.c_str(); }}
extern "C" int asc_trace_error_node() {{ return asc_trace_node; }}
extern "C" int asc_trace_error_core() {{ return asc_trace_core; }}
extern "C" const char* asc_trace_output(int32_t core) {{ return asc_trace_out[static_cast<size_t>(core)].c_str(); }}
"""
