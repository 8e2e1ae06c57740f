"""The `sim` backend: the kernel's graph on a NumPy model of the vector cores.

Cores that follow the same control flow run as one group (one NumPy call per instruction for all of
them); each group's instructions go through the pipe model, which orders them as the hardware would,
checks races and events (unless ASC_TRACE_SANITIZE=0) and models time.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import config
from ..errors import AscTraceError
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node, TensorRef, exprs_in
from ..graph.operand_checks import can_fault
from ..graph.regions import depends_through
from ..graph.ops import REGISTRY
from .base import LaunchJob, Runtime
from .batch import BatchInterpreter
from .interpreter import CondStep, Interpreter, LoopStep, NodeStep, WhileStep, per_core_reason, steering
from .machine import GmJournal, Machine, NullJournal
from .pipes import PipeModel, RaceContext, check_cross_core
from .core_timing import ISSUE_COST, LOOP_COST
from .launch_model import GroupRecord, LaunchRecord
from .platform import Platform, platform
from .printf import emit_output
from .replay import Recorder, Replay
from .profile import Profile
from ..kernel_options import as_options

MAX_GROUP = 64   # cores simulated together at most (bounds the UB arrays' memory)
MAX_REPLAYS = 64  # replays kept per compiled kernel (each holds its loops' plans)
# Timing-only runs still do the scalar unit's UB reads and writes: later scalar operands are computed
# from them (as values only: data_dependent_node refuses kernels whose timing depends on them).
_SCALAR_ACCESS = frozenset(name for name, op in REGISTRY.items() if op.family == "scalar")   # GetValue / SetValue


class Simulator(Interpreter):
    """The interpreter with a pipe model underneath (torch.fx-style `run_node` override)."""

    def __init__(self, graph: KernelGraph) -> None:
        super().__init__(graph)
        self.ctx = RaceContext.of(graph)
        self.model: PipeModel | None = None
        self.execute = True      # False: time the instructions without their data effects
        self.timed = True

    def run_group(self, m: Machine, plat: Platform, sanitize: bool, execute: bool = True,
                  compiler_sync: bool = False, timing: bool = True) -> PipeModel:
        """Run one group of cores through the pipe model (`compiler_sync`: bisheng's own auto-sync is on
        in this kernel's build, as for auto_sync=False, so its V barriers are not the kernel's to place;
        `timing`: record the execution order for the timing model as well, for profiles)."""
        self.model = PipeModel(plat, self.ctx, m.cores, sanitize, compiler_sync, m.core_num, timing)
        m.data = execute
        self.timed = timing
        self.execute = execute
        self.run(m)
        self.model.finish()
        return self.model

    def run_program_order(self, m: Machine) -> None:
        """Without the pipe model (ASC_TRACE_SANITIZE=0): apply every instruction in program order."""
        self.model = None
        self.run(m)

    def run_node(self, st: NodeStep, m: Machine) -> None:
        model = self.model
        if model is None:
            return super().run_node(st, m)
        if self.timed:
            model.scalar(ISSUE_COST, st.node)
        ins = st.fn(m)
        if ins is not None:
            ins.where = self.where
            if not self.execute and ins.node.op not in _SCALAR_ACCESS:
                ins.apply = None
            model.issue(ins)

    def iteration(self, st: LoopStep | WhileStep) -> None:
        if self.model is not None and self.timed:
            self.model.scalar(LOOP_COST, st.node)

    def branch(self, st: CondStep) -> None:
        if self.model is not None and self.timed:      # the compare and the jump of the C `if`
            self.model.scalar(ISSUE_COST, st.node)


class SimArtifact:
    def __init__(self, graph: KernelGraph) -> None:
        self.graph = graph
        self.sim = Simulator(graph)
        self.per_core = per_core_reason(graph) is not None
        # Launches whose checks passed, by launch key (launch_key): the race checker's verdict (and
        # every other check's) depends only on the addresses, counts and control flow, which the key
        # fixes unless values read from the UB steer the kernel, or can fail to compute.
        self.data_dependent = data_steers(graph)
        self.checked: set[tuple] = set()       # passed with the race checker on
        self.unchecked: set[tuple] = set()     # passed with it off (ASC_TRACE_SANITIZE=0)
        self.reordered: set[tuple] = set()     # their pipes do not run in program order: simulate them
        self._fast: BatchInterpreter | None = None
        self.replays: dict[tuple, Replay | None] = {}   # by launch key: None when it cannot be replayed

    @property
    def fast(self) -> BatchInterpreter:
        if self._fast is None:
            self._fast = BatchInterpreter(self.graph)
        return self._fast


def _groups(core_num: int, per_core: bool) -> list[np.ndarray]:
    if per_core:
        return [np.array([c]) for c in range(core_num)]
    return [np.arange(s, min(s + MAX_GROUP, core_num)) for s in range(0, core_num, MAX_GROUP)]


def _run_cores(art: SimArtifact, job: LaunchJob, run_group: Callable[[Machine, np.ndarray], None],
               finish: Callable[[], None] | None = None, emit: bool = True, journaled: bool = True) -> None:
    """Run `run_group` on every group of cores with journalled GM: if anything fails (including
    `finish`, the cross-core checks), the outputs are restored. printf output is emitted either way
    (unless `emit` is False). `journaled=False` for a launch that cannot fail any more (its checks
    passed): the outputs are written without keeping what they overwrite."""
    journal = GmJournal() if journaled else NullJournal()
    out: list[tuple[int, list[str]]] = []
    try:
        for cores in _groups(job.core_num, art.per_core):
            _run_group(job, cores, run_group, journal, out)
        if finish is not None:
            finish()
    except BaseException:
        journal.rollback()
        raise
    finally:
        if emit:
            emit_output(sorted(out, key=lambda t: t[0]), job.core_num)
    journal.commit()


def _run_group(job: LaunchJob, cores: np.ndarray, run_group: Callable[[Machine, np.ndarray], None],
               journal: GmJournal, out: list) -> None:
    """One group of cores. When a group of several cores fails, its cores run again one by one, so
    that the error reported is the first error of the lowest-numbered failing core: what `eager` and
    `cpp`, which run core after core, report too."""
    mine = GmJournal() if isinstance(journal, GmJournal) else journal
    m = Machine(cores, job.core_num, job.bound.arrays, job.bound.scalars, mine)
    try:
        run_group(m, cores)
    except AscTraceError:
        m.release()
        if len(cores) == 1:
            out.extend((int(c), m.out[i]) for i, c in enumerate(cores))
            journal.entries.extend(mine.entries)
            raise
        mine.rollback()
        for c in cores:
            _run_group(job, np.array([int(c)]), run_group, journal, out)
        return      # no core fails alone: the group's error came from running them in lockstep
    m.release()
    out.extend((int(c), m.out[i]) for i, c in enumerate(cores))
    if mine is not journal:
        journal.entries.extend(mine.entries)


def simulate(art: SimArtifact, job: LaunchJob, plat: Platform, sanitize: bool, trace: bool,
             execute: bool = True, emit: bool = True, timing: bool = True,
             stats: dict | None = None, equal_writes: bool = False) -> list[GroupRecord]:
    """Run every core through the pipe model; with `timing`, returns what each group of cores recorded
    for the timing model (runtime/launch_model.py times it). With execute=False the instructions are
    checked and recorded but have no data effect (the caller's arrays are not touched); with
    emit=False printf output is dropped; timing=False records nothing (a launch's check); trace=False
    leaves the timeline's slices out.
    `stats["deferred"]` counts the instructions that ran out of program order (behind a wait).
    `equal_writes`: cores writing the same GM elements were found to write equal bytes (equal_writes.py):
    the cross-core check lets them pass."""
    records: list[GroupRecord] = []
    gm_records: list = []
    compiler_sync = not as_options(job.options).auto_sync

    def run_group(m: Machine, cores: np.ndarray) -> None:
        model = art.sim.run_group(m, plat, sanitize, execute, compiler_sync, timing)
        if stats is not None:
            stats["deferred"] = stats.get("deferred", 0) + model.clock.deferred
        if model.checker is not None:
            gm_records.extend(model.checker.records)
        if timing:
            records.append(GroupRecord(tuple(int(c) for c in cores), tuple(model.log), model.nodes if trace else {},
                                       model.gm_bytes, model.gm_unaligned, model.gm_reads, model.gm_writes))

    def finish() -> None:
        from .race_check import EqualWritesUnknown
        try:
            check_cross_core(gm_records, art.sim.ctx.names)
        except EqualWritesUnknown:
            if not equal_writes:
                raise

    _run_cores(art, job, run_group, finish if sanitize else None, emit)
    return records


def _run_verified(art: SimArtifact, job: LaunchJob, aliased: bool, key: tuple | None = None) -> None:
    """The data effects of a launch whose checks passed, in program order, loops batched unless two GM
    arguments share memory (a batch reorders accesses to different arguments). The first such run of
    launch key `key` is recorded: when it was only batched loops, the key's next launches replay them
    (runtime/replay.py)."""
    if aliased:
        art.sim.model = None
        _run_cores(art, job, lambda m, cores: art.sim.run(m), journaled=False)
        return
    interp = art.fast
    if key is None or key in art.replays:
        _run_cores(art, job, lambda m, cores: interp.run(m), journaled=False)
        return
    rec = Recorder()
    _run_cores(art, job, lambda m, cores: rec.run_group(interp, m), journaled=False)
    if len(art.replays) >= MAX_REPLAYS:
        art.replays.clear()
    art.replays[key] = rec.replay()


def launch_key(job: LaunchJob) -> tuple[tuple, bool]:
    """(what the addresses, counts and control flow of a launch depend on, whether two GM arguments
    share memory). Every launch computes it: plain loops, no generators."""
    arrays = job.bound.arrays
    # binding recorded every two arguments that share a byte in the signature (runtime/args.py
    # `_shared_memory`; bound arrays are C-contiguous storage views, whose extents tell exactly)
    aliased = job.bound.signature.shared
    # in the binders' order (by parameter); repr tells -0.0 from 0.0, which a replay's values depend on
    scalars = tuple([(k, repr(v)) for k, v in job.bound.scalars.items()])
    shapes = tuple([None if a is None else (a.shape, a.dtype.str, a.strides) for a in arrays])
    auto_sync = as_options(job.options).auto_sync
    return (job.core_num, scalars, shapes, aliased, bool(auto_sync)), aliased


def data_steers(graph: KernelGraph) -> bool:
    """Whether a launch's checks can depend on tensor data: values read from the UB steer an address,
    count, loop bound, branch or event id (`Steering.data`), or feed an expression that can fail (an
    integer // or % by zero, a bad shift: its error would come with some data and not other). A kernel
    whose read values only feed the values it computes (softmax's row max) is checked once per key."""
    if steering(graph).data is not None:
        return True
    if not any(n.op == "get_value" for n in graph):
        return False
    sources = graph.region_table().local_sources
    return any(can_fault(e) and depends_through(e, ("node",), sources) for n in graph for e in exprs_in(n.args))


def data_dependent_node(graph: KernelGraph) -> Node | None:
    """The first node whose addresses, counts, loop bounds, branch predicates or event ids can depend
    on tensor data (`Steering.data`, runtime/interpreter.py): such a kernel cannot be timed without
    computing it."""
    return steering(graph).data


class SimRuntime(Runtime):
    name = "sim"

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> Any:
        from ..graph.cube_graph import is_cube_graph
        from ..graph.mix_split import MixGraph
        if isinstance(graph, MixGraph):
            from .mix_sim import MixArtifact
            return MixArtifact(graph, Simulator)
        if is_cube_graph(graph):
            from .cube_sim import CubeArtifact
            return CubeArtifact(graph)
        from .block_sync_sim import BlockSyncArtifact, has_block_sync
        if has_block_sync(graph):       # sync_all / ib_set / ib_wait: the cores take turns at the barriers
            return BlockSyncArtifact(graph, Simulator)
        return SimArtifact(graph)

    def launch(self, art: SimArtifact, job: LaunchJob) -> None:
        """Check the launch, then run it. The check is the pipe model and race checker without data
        effects or time; a clean launch then runs in program order (the same bytes for a race-free
        kernel), with its loops batched (runtime/batch.py) and without a journal, since nothing can
        refuse it any more. Checks are remembered per launch key: a launch whose key passed runs at once.
        A kernel steered by values it reads from the UB is checked and run in one go, as before."""
        if not isinstance(art, SimArtifact):        # a cube kernel (runtime/cube_sim.py) or a mixed one (mix_sim.py)
            if getattr(art, "mixed", False) or getattr(art, "block_sync", False):
                return art.launch(job, config.sanitize())
            art.launch(job, config.sanitize(), launch_key(job)[0])
            return
        from .equal_writes import EqualWritesUnknown, judge
        try:
            self._launch_vector(art, job)
        except EqualWritesUnknown as err:
            # cores write the same GM elements, nothing else conflicts: defined when the bytes are equal
            # (runtime/equal_writes.py); the failed runs left the outputs as they were and showed printf's text
            judge(art.graph, job, err, Simulator)
            simulate(art, job, platform(job.options.get("platform")), True, False, emit=False, timing=False,
                     equal_writes=True)

    def _launch_vector(self, art: SimArtifact, job: LaunchJob) -> None:
        sanitize = config.sanitize()
        key, aliased = launch_key(job)
        if art.data_dependent:
            key = None
        if key is not None and (key in art.checked or (not sanitize and key in art.unchecked)):
            replay = art.replays.get(key)
            if replay is not None and replay.run(job.bound.arrays):
                return
            return _run_verified(art, job, aliased, key)
        plat = platform(job.options.get("platform"))
        if not sanitize:
            # program order with every check but the pipe model's (the same results when race-free)
            _run_cores(art, job, lambda m, cores: art.sim.run_program_order(m))
            if key is not None:
                art.unchecked.add(key)
            return
        if key is None or key in art.reordered:
            simulate(art, job, plat, True, False, timing=False)
            return
        stats: dict = {}
        try:
            simulate(art, job, plat, True, False, execute=False, emit=False, timing=False, stats=stats)
        except AscTraceError as first:
            # again with the data, so that printf output and the outputs' state are a refused launch's
            simulate(art, job, plat, True, False, timing=False)
            raise first
        if stats.get("deferred"):
            # a wait held instructions back while later ones ran: program order is not the pipes' order
            art.reordered.add(key)
            simulate(art, job, plat, True, False, timing=False)
            return
        art.checked.add(key)
        _run_verified(art, job, aliased, key)

    def profile(self, art: SimArtifact, job: LaunchJob, plat: Platform, execute: bool = True) -> Profile:
        if getattr(art, "mixed", False):            # a mixed kernel: its three cores per AI core (mix_timing.py)
            return art.profile(job, execute, plat)
        if not isinstance(art, SimArtifact):        # a cube kernel: the cube's own profile
            return art.profile(job, execute)
        groups = simulate(art, job, plat, config.sanitize(), True, execute)
        arg_bytes = {i: a.nbytes for i, a in enumerate(job.bound.arrays) if a is not None}
        return Profile(job.name, plat, job.core_num, LaunchRecord(groups, arg_bytes), executed=execute)
