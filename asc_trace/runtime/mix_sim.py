"""The sim backend for mixed cube + vector kernels (KERNEL_TYPE_MIX_AIC_1_2): per AI core, its cube core
runs the kernel's cube side (graph/mix_split.py) on the cube simulator (runtime/cube_sim.py) and its two
vector cores run the vector side on the vector simulator (runtime/sim.py), each core with its own pipes,
memories and pipe model; the cross-core flags between them are runtime/mix_flags.py's counters. The
vector cores are numbered as `GetBlockIdx()` numbers them there: `2 * AI core + sub-block`.

Every GM access is checked against the other cores' (`GmOrder`): the workspace between the cube and its
vector cores, and any GM two AI cores share. GM is journalled: a refused launch leaves the outputs as
they were. Not modelled yet: timing (asc.profile), and mode-0 flags."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from ..errors import SyncError
from ..graph.expr import compile_expr
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node, Pipe
from ..graph.ops.cross_core import CROSS_CORE_OPS, FLAG_IDS
from ..graph.hb import Instr, PIDX as VEC_PIDX
from .base import LaunchJob
from .cube_exec import memories
from .cube_pipes import PIDX as CUBE_PIDX
from .cube_sim import CubeInterpreter
from .interpreter import NodeStep
from .machine import GmJournal, Machine
from .mix_flags import CoreRunner, FlagBoard, GmOrder, MixCore, merge
from .platform import platform
from .workspace_views import bind_workspace_views
from .printf import emit_output


class _Side:
    """What the cube and the vector interpreters share for a mixed kernel: the cross-core nodes and the
    GM access log. `core`, `board`, `runner` and `order` are set for each core before it runs."""

    core: MixCore
    board: FlagBoard
    runner: CoreRunner
    order: GmOrder | None
    pidx: dict
    timeline: list | None = None      # while profiling: the cross-core events in the order they happen (mix_timing.py)

    def bind_cross(self, node: Node) -> Any:
        fid = compile_expr(node.args[0])
        return lambda m: ("cross", int(fid(m.env)))

    def pipe_model(self) -> Any:
        raise NotImplementedError

    def drain(self) -> None:
        raise NotImplementedError

    def cross(self, node: Node, fid: int) -> Any:
        if fid not in FLAG_IDS:
            raise SyncError(f"cross-core flag id {fid} is outside 0..10: ids 11-14 belong to SyncAll "
                            "(ascend-cube-facts §6)", node=node)
        core, board = self.core, self.board
        if node.op == "cross_core_wait_flag":
            self.drain()                  # what was issued before runs before the core stops
            mark = self.wait_mark(node) if self.timeline is not None else None
            board_ready = lambda: board.ready(core, fid)     # noqa: E731

            def hang() -> None:
                raise SyncError(f"cross-core wait on flag {fid} by {core.name} is never satisfied: no core of this AI "
                                "core sets it any more, so on the NPU the kernel would hang here", node=node,
                                hint="set the flag (CrossCoreSetFlag) on the producing core once per wait")
            self.runner.block(core.local, board_ready, hang)
            core.knowledge = merge(core.knowledge, board.take(core, fid))
            if self.timeline is not None:
                self.timeline.append((core.local, "wait", fid, 0, mark))
            return None
        mode = node.args[1]
        p = self.pidx.get(node.pipe)
        if p is None:
            raise SyncError(f"a cross-core set on PIPE_{node.pipe.value} runs on {core.name}, which has no such pipe",
                            node=node)

        ins = Instr(node, node.pipe, "op")
        timeline = self.timeline

        def fire() -> None:               # when the pipe's earlier work is done
            board.set(core, fid, mode, merge(core.knowledge, {core.gid: list(core.vc_of(p))}), node)
            if timeline is not None:
                timeline.append((core.local, "set", fid, mode, ins))
        ins.apply = fire
        return ins

    def wait_mark(self, node: Node) -> Any:
        """While profiling: where this core stands at a cross-core wait (mix_timing.py reads it back)."""
        raise NotImplementedError

    def logged(self, ins: Instr, m: Machine) -> Instr:
        """The instruction, its GM accesses checked against the other cores' when it runs."""
        if self.order is None or not ins.gm or ins.apply is None:
            return ins
        inner, core, order, p = ins.apply, self.core, self.order, self.pidx.get(ins.pipe, 0)
        gm = _blocks(ins, m) or ins.gm

        def apply() -> None:
            after = order.access(core, p, ins.epoch, gm, ins.node)
            inner()
            if after is not None:       # writes of other cores to the same elements: judged by the bytes
                after()
        ins.apply = apply
        return ins


def _blocks(ins: Instr, m: Machine) -> tuple | None:
    """The exact GM blocks of a vector core's strided copy (its Instr carries the envelope from the first
    block to the end of the last): (param, block starts, block length, size, write), in elements."""
    from ..graph.params import DataCopyExtParams, DataCopyParams
    node = ins.node
    params = next((a for a in node.args if isinstance(a, (DataCopyParams, DataCopyExtParams))), None)
    if params is None or len(ins.gm) != 1:
        return None
    g = ins.gm[0]
    param, start, _count, size, write = g[:5]
    env = m.env
    ev = lambda e: int(np.asarray(compile_expr(e)(env)).flat[0])     # noqa: E731
    n, length = ev(params.block_count), ev(params.block_len)
    to_gm = write
    stride = ev(params.dst_stride if to_gm else params.src_stride)
    if isinstance(params, DataCopyParams):      # 32-byte blocks and gaps
        length, stride = length * 32, stride * 32
    if length % size or stride % size:
        return None
    s0 = int(np.asarray(start).flat[0])
    starts = s0 + np.arange(n, dtype=np.int64) * ((length + stride) // size)
    return ((param, starts, length // size, size, write),)


class MixCubeInterpreter(_Side, CubeInterpreter):
    pidx = CUBE_PIDX

    def bind_node(self, node, ranges, known):
        return self.bind_cross(node) if node.op in CROSS_CORE_OPS else super().bind_node(node, ranges, known)

    def drain(self) -> None:
        self.model.drain()

    def wait_mark(self, node: Node) -> float:
        # a cross-core wait blocks all of the core's pipes (ascend-cube-facts §6): what follows starts after it
        model = self.model
        model.t_issue = max(model.t_issue, *model.free)
        return model.t_issue

    def run_node(self, st: NodeStep, m: Machine) -> None:
        out = st.fn(m)
        if isinstance(out, tuple):
            out = self.cross(st.node, out[1])
            if out is None:
                return
        elif out is None:
            return
        out.where = self.where
        assert self.model is not None
        self.model.issue(self.logged(out, m))

    def run_core(self, m: Machine, check: bool, trace: bool = False):
        self.core.vc_of = lambda p: self.model.vc[p]
        return super().run_core(m, check, trace)


class _VecSide(_Side):
    """The vector simulator's side (mixed with runtime/sim.py's Simulator by `MixArtifact`, which sim.py
    hands it, so that this module does not import sim.py)."""

    pidx = VEC_PIDX

    def bind_node(self, node, ranges, known):
        return self.bind_cross(node) if node.op in CROSS_CORE_OPS else super().bind_node(node, ranges, known)

    def drain(self) -> None:
        self.model.clock.drain()

    def wait_mark(self, node: Node) -> Instr:
        # a barrier of every pipe in the timing log where the core waits (all its pipes are held there)
        ins = Instr(node, Pipe.S, "barrier_all")
        self.model.issue(ins)
        self.model.clock.drain()
        return ins

    def run_node(self, st: NodeStep, m: Machine) -> None:
        out = st.fn(m)
        if isinstance(out, tuple):
            out = self.cross(st.node, out[1])
            if out is None:
                return
        elif out is None:
            return
        out.where = self.where
        self.model.issue(self.logged(out, m))

    def run_group(self, m: Machine, *args: Any, **kw: Any):
        self.core.vc_of = lambda p: self.model.clock.vc[p]
        return super().run_group(m, *args, **kw)


class MixArtifact:
    """What the sim backend prepares for a mixed kernel: an interpreter per core of an AI core."""

    mixed = True

    def __init__(self, graph: KernelGraph, simulator: type) -> None:
        self.graph = graph
        self.aic = MixCubeInterpreter(graph.aic)
        vec = type("MixVecSimulator", (_VecSide, simulator), {})
        self.aiv = [vec(graph.aiv), vec(graph.aiv)]

    def launch(self, job: LaunchJob, check: bool = True, record: list | None = None) -> None:
        """Every AI core in turn, its three cores together (runtime/mix_flags.py). With `record` (profiling), each
        AI core's pipe models and cross-core events are appended to it: (cube model, [vector models], events)."""
        names = {p.index: p.name for p in self.graph.signature.runtime if p.kind == "gm"}
        journal = GmJournal()
        out: list[tuple[int, list[str]]] = []
        plat = platform(job.options.get("platform"))
        # pyasc's MIX Matmul mode (graph/matmul_clients.py): each Matmul client (a vector core) with a cube core
        # of its own, both with the client's block id; job.core_num counts the clients
        pairs = job.options.get("matmul_clients", 1) > 1
        nvec = 1 if pairs else 2
        bound = bind_workspace_views(self.graph, job.bound) if pairs else job.bound
        # the arrays let the check tell two cores' writes of identical bytes (defined) from different ones;
        # arguments that share memory are not compared (a write through one changes the other's bytes)
        order = GmOrder(names, None if bound.signature.shared else bound.arrays) if check else None
        try:
            for c in range(job.core_num):
                cores = [MixCore("aic", c, 0, c)] + [MixCore("aiv", c, 1 + s, job.core_num + nvec * c + s)
                                                     for s in range(nvec)]
                board = FlagBoard(cores)
                runner = CoreRunner(1 + nvec)
                interps: list[Any] = [self.aic, *self.aiv[:nvec]]
                timeline: list | None = [] if record is not None else None
                for it, core in zip(interps, cores):
                    it.core, it.board, it.runner, it.order = core, board, runner, order
                    it.timeline = timeline
                models: list[Any] = [None] * (1 + nvec)
                machines = [Machine(np.array([c]), job.core_num, bound.arrays, bound.scalars, journal)] + [
                    Machine(np.array([c if pairs else 2 * c + s]), job.core_num, bound.arrays, bound.scalars, journal)
                    for s in range(nvec)]
                machines[0].cube = memories()

                timed = record is not None

                def run_aic() -> None:
                    models[0] = self.aic.run_core(machines[0], check, timed)

                def run_aiv(s: int) -> None:
                    models[1 + s] = self.aiv[s].run_group(machines[1 + s], plat, check, True, False, timed)
                try:
                    runner.run([run_aic] + [lambda s=s: run_aiv(s) for s in range(nvec)])
                    board.finish(f"AI core {c}")
                    if record is not None:
                        record.append((models[0], models[1:], timeline))
                finally:
                    for i, m in enumerate(machines):
                        out.append((c if i == 0 else job.core_num + nvec * c + i - 1, m.out[0]))
                        m.release()
        except BaseException:
            journal.rollback()
            raise
        finally:
            emit_output(out, job.core_num)
        journal.commit()

    def profile(self, job: LaunchJob, execute: bool = True, plat: Any = None) -> Any:
        from .mix_timing import profile_mix
        return profile_mix(self, job, execute, plat)
