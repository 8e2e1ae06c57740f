"""The eager backend for mixed cube + vector kernels (KERNEL_TYPE_MIX_AIC_1_2).

Eager runs the kernel function itself and executes each call the moment it is made. A mixed kernel's
three cores per AI core (one cube core, two vector cores) each run the function on a thread of their own,
one thread at a time (runtime/mix_flags.py's CoreRunner, the mixed simulator's turn-taking): each core
executes the calls of its side (graph/mix_split.py `sides`: cube calls on the cube core, vector calls on
the vector cores, scalars / loops / GM bindings / printf on all three) and passes over the others.

A flag-free kernel's cross-core flags are not calls the function makes: auto_sync placed them in the
scheduled kernel (graph/cross_core_sync.py). So each core follows the scheduled graph while it runs: its
calls get the trace's node ids (a runtime loop takes the `for` node's id, each iteration restarts at the
body's first id, the loop ends past its `end_for`), and the flags the scheduled graph holds before a node
run just before that call - before a `for` once ahead of the loop, before an `end_for` at the end of each
iteration, after the last node when the function returns. A call that is not the scheduled graph's next
node is refused (NotProvidedError) rather than guessed. The counters are the simulator's (FlagBoard), so
a wait that hangs, a set never waited and saturation are the same errors; the pipes' order inside a core
and the GM between cores are checked first by the mixed simulator on copies (runtime/mix_hazards.py), as
the cpp backend does. Not provided: asc.cond / asc.while_loop in a mixed kernel (eager runs one branch,
the trace recorded both, so the ids could not follow)."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from ..errors import AscTraceError, NotProvidedError, ScalarError, SyncError, TraceError
from ..graph.expr import compile_expr
from ..graph.kernel_graph import KernelGraph
from ..graph.mix_split import sides
from ..graph.mix_vars import AIV_PER_AIC, SUB_BLOCK_IDX, SUB_BLOCK_NUM, TASK_RATIO
from ..graph.node import Node, Pipe
from ..graph.ops.cross_core import CROSS_CORE_OPS, FLAG_IDS
from ..graph.regions import REGION_CLOSE, REGION_OPEN
from ..graph.source_loc import SourceLoc
from ..proxies.context import use
from ..proxies.scalar import Scalar
from ..proxies.runtime_if import kernel_callable
from ..proxies.tracer import param_proxy, user_loc_of_traceback
from .args import BoundArgs
from .base import LaunchJob
from .cube_exec import memories
from .eager_context import EagerContext
from .machine import GmJournal, Machine
from .mix_flags import CoreRunner, FlagBoard, MixCore
from .printf import emit_output
from .workspace_views import bind_workspace_views


class MixPlan:
    """What the eager cores read off the scheduled mixed graph, once per kernel: each node's side, each loop's
    end, and the auto_sync flags to run before each node (or at the end: key None)."""

    def __init__(self, graph: KernelGraph) -> None:
        self.graph = graph
        self.where = sides(graph)
        self.ends: dict[int, int] = {}
        self.before: dict[int | None, list[Node]] = {}
        stack: list[int] = []
        pending: list[Node] = []
        for nid in graph.order:
            n = graph.node(nid)
            if n.op in CROSS_CORE_OPS and n.attr("side") is not None:      # placed by auto_sync
                pending.append(n)
                continue
            if pending:
                self.before[nid], pending = pending, []
            if n.op in REGION_OPEN:
                stack.append(nid)
            elif n.op in REGION_CLOSE:
                self.ends[stack.pop()] = nid
        self.before[None] = pending
        # asc.cond / asc.while_loop: eager runs one branch / the trips it takes, the trace holds both branches /
        # one body, so the ids could not follow; refused before anything runs
        self.control = next((graph.node(i) for i in graph.order if graph.node(i).op in REGION_OPEN
                             and graph.node(i).op != "for"), None)
        self.auto_places: dict[Any, int | None] = {}
        for n in graph.aiv:      # type: ignore[attr-defined]
            if n.op == "local_tensor" and n.attr("auto"):
                key = (n.loc.file, n.loc.line, n.loc.col)
                addr = n.args[1].value
                self.auto_places[key] = addr if self.auto_places.get(key, addr) == addr else None


class MixEagerContext(EagerContext):
    """One core of a mixed kernel, run eagerly: the calls of its side executed, the scheduled flags taken."""

    core_type = "both"          # the mixed kernel was traced with every ascend_is_aic / aiv block kept

    def __init__(self, graph: KernelGraph, m: Machine, plan: MixPlan, core: MixCore, board: FlagBoard,
                 runner: CoreRunner) -> None:
        super().__init__(graph, m)
        self.plan, self.core, self.board, self.runner = plan, core, board, runner
        self.side = core.kind
        self.cube = core.kind == "aic"

    # -- following the scheduled graph ------------------------------------------------------------
    def _expect(self, nid: int, op: str, loc: SourceLoc) -> Node:
        g = self.plan.graph
        node = g.node(nid) if nid in g else None
        if node is None or node.op != op:
            raise NotProvidedError(f"eager cannot follow this mixed kernel here: the call asc.{op} is not the scheduled "
                                   f"kernel's next node ({'asc.' + node.op if node else 'none'}), so the cross-core "
                                   "flags around it could not be placed", loc,
                                   hint="run it with backend='sim' or 'cpp' (a kernel whose calls differ between the "
                                        "trace and the run: asc.cond / asc.while_loop, data-dependent Python)")
        return node

    def _flags(self, key: int | None) -> None:
        for n in self.plan.before.get(key, ()):
            if self.plan.where.get(n.id) == self.side:
                self._cross(n)

    def _cross(self, node: Node) -> None:
        try:
            fid = int(np.asarray(compile_expr(node.args[0])(self.m.env)).flat[0])
        except Exception as exc:  # noqa: BLE001 - a scalar fault in the id
            raise ScalarError(str(exc), node=node) from None
        if fid not in FLAG_IDS:
            raise SyncError(f"cross-core flag id {fid} is outside 0..10: ids 11-14 belong to SyncAll "
                            "(ascend-cube-facts §6)", node=node)
        core, board = self.core, self.board
        if node.op == "cross_core_wait_flag":
            def hang() -> None:
                raise SyncError(f"cross-core wait on flag {fid} by {core.name} is never satisfied: no core of this AI "
                                "core sets it any more, so on the NPU the kernel would hang here", node=node,
                                hint="set the flag (CrossCoreSetFlag) on the producing core once per wait")
            self.runner.block(core.local, lambda: board.ready(core, fid), hang)
            board.take(core, fid)
            return
        board.set(core, fid, node.args[1], {}, node)     # eager: every earlier call of this core has run

    # -- the calls --------------------------------------------------------------------------------
    def record(self, op: str, args: tuple[Any, ...], loc: SourceLoc, pipe: Pipe | None = None,
               attrs: tuple[tuple[str, Any], ...] = ()) -> int:
        nid = self._next
        planned = self._expect(nid, op, loc)
        self._flags(nid)
        side = self.plan.where.get(nid)
        if op in CROSS_CORE_OPS:                  # a flag the kernel writes itself
            self._next += 1
            if side == self.side:
                self._cross(planned)
            return nid
        if side is not None and side != self.side:
            self._next += 1                       # the other core type's call: its id, nothing run
            return nid
        return super().record(op, args, loc, pipe, attrs)

    def loop_range(self, start: Any, stop: Any, step: Any, loc: SourceLoc) -> Iterator[Scalar]:
        head = self._next
        self._expect(head, "for", loc)
        self._next += 1
        self._flags(head)
        values = super().loop_range(start, stop, step, loc)       # evaluates the bounds, checks the step
        return self._follow(values, head, self.plan.ends[head])

    def _follow(self, values: Iterator[Scalar], head: int, end: int) -> Iterator[Scalar]:
        for v in values:
            self._next = head + 1
            yield v
            if self._next != end:
                raise NotProvidedError("eager cannot follow this mixed kernel: an iteration of this loop made other "
                                       "calls than the traced body", self.plan.graph.node(head).loc)
            self._flags(end)                      # the flags at the end of the body, every iteration
        self._next = end + 1

    def cond(self, pred: Any, true_fn: Any, false_fn: Any, operands: tuple, loc: SourceLoc) -> Any:
        raise NotProvidedError("asc.cond in a mixed kernel on the eager backend is not provided: eager runs one branch "
                               "while the scheduled kernel (and its cross-core flags) holds both", loc,
                               hint="run it with backend='sim' or 'cpp'")

    def while_loop(self, cond_fn: Any, body_fn: Any, init: Any, loc: SourceLoc) -> Any:
        raise NotProvidedError("asc.while_loop in a mixed kernel on the eager backend is not provided: its trip count "
                               "is known only as it runs, the scheduled kernel's flags were placed on its traced body",
                               loc, hint="run it with backend='sim' or 'cpp'")

    def finish(self) -> None:
        """The flags after the kernel's last call."""
        self._flags(None)


def _machine(job: LaunchJob, bound: BoundArgs, blk: int, journal: GmJournal, kind: str, clients: int) -> Machine:
    # eager runs the kernel function itself, not the client graph whose GetBlockNum() was halved
    # (graph/matmul_clients.py): in pyasc's MIX Matmul mode it reads the launched count here
    m = Machine(np.array([blk]), job.core_num // clients, bound.arrays, bound.scalars, journal)
    # the mixed-kernel variables (graph/mix_vars.py), as the split gives each side; a Matmul client's cube core
    # works on the client's behalf, so both sides of a client pair see the client's (vector core's) values
    aiv = kind == "aiv" or clients > 1
    m.env[SUB_BLOCK_IDX.env_key] = blk % AIV_PER_AIC if aiv else 0
    m.env[SUB_BLOCK_NUM.env_key] = AIV_PER_AIC if aiv else 1
    m.env[TASK_RATIO.env_key] = AIV_PER_AIC if aiv else 1
    if kind == "aic":
        m.cube = memories()
    return m


def refuse_control(plan: MixPlan) -> None:
    n = plan.control
    if n is not None:
        what = "asc.while_loop" if n.op == "while" else "asc.cond"
        raise NotProvidedError(f"{what} in a mixed kernel on the eager backend is not provided: eager runs the branch "
                               "or the trips taken, while the scheduled kernel, whose cross-core flags eager follows, "
                               "holds the traced regions", n.loc, hint="run it with backend='sim' or 'cpp'")


def launch_mixed(plan: MixPlan, job: LaunchJob) -> None:
    """Every AI core in turn, its cube core and two vector cores as turn-taking threads."""
    sig = job.bound.signature
    journal = GmJournal()
    out: list[tuple[int, list[str]]] = []
    # pyasc's MIX Matmul mode (graph/matmul_clients.py): job.core_num counts the Matmul clients, each a vector
    # core paired with a cube core of its own, both with the client's block id (as runtime/mix_sim.py runs them)
    clients = job.options.get("matmul_clients", 1)
    nvec = 1 if clients > 1 else AIV_PER_AIC
    bound = bind_workspace_views(plan.graph, job.bound) if clients > 1 else job.bound
    try:
        for c in range(job.core_num):
            cores = [MixCore("aic", c, 0, c)] + [MixCore("aiv", c, 1 + s, job.core_num + nvec * c + s)
                                                 for s in range(nvec)]
            board, runner = FlagBoard(cores), CoreRunner(1 + nvec)
            machines = [_machine(job, bound, c, journal, "aic", clients)] + [
                _machine(job, bound, c if clients > 1 else 2 * c + s, journal, "aiv", clients) for s in range(nvec)]
            ctxs = [MixEagerContext(KernelGraph(job.name, sig, dict(job.options)), m, plan, core, board, runner)
                    for m, core in zip(machines, cores)]
            for ctx in ctxs:
                ctx.auto_places = plan.auto_places
            try:
                runner.run([_core_main(ctx, job) for ctx in ctxs])
                board.finish(f"AI core {c}")
            finally:
                for ctx in ctxs:
                    ctx.restore()
                for i, m in enumerate(machines):
                    out.append((c if i == 0 else job.core_num + nvec * c + i - 1, m.out[0]))
                    m.release()
    except BaseException:
        journal.rollback()
        raise
    finally:
        emit_output(out, job.core_num)
    journal.commit()


def _core_main(ctx: MixEagerContext, job: LaunchJob) -> Callable[[], None]:
    def main() -> None:
        # a worker thread: the launching thread holds TRACE_LOCK for the whole launch; the context is per thread
        proxies = [param_proxy(p) for p in job.bound.signature.params]
        with use(ctx):
            run = kernel_callable(job.fn)
            ctx.enter_function(run)
            try:
                run(*proxies)
                ctx.finish()
            except AscTraceError:
                raise
            except Exception as exc:  # noqa: BLE001 - a Python error in the kernel body
                raise TraceError(f"{type(exc).__name__} while running {job.name} eagerly: {exc}",
                                 user_loc_of_traceback(exc.__traceback__)) from exc
    return main


__all__ = ["MixPlan", "launch_mixed"]
