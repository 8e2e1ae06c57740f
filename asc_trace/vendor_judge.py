"""The vendor's compiler as a second judge of a kernel's synchronisation (issue 19).

For one launch of a kernel: its flag-free graph is lowered to HIVM IR (`lower/hivm.py`), verified by
`bishengir-opt`, and scheduled by the vendor's intra-core auto-sync; the vendor's syncs are placed back
into the graph (`lower/hivm_sync.py`) and the result runs on the simulator, whose race checker and
timing model judge it exactly as they judge our own schedule. Then each vendor sync (a group of the
flags of one event and id, or one barrier) is taken out in turn: a schedule the simulator still finds
race-free without it synchronises a dependence our model does not have, which is listed for
explanation.

Needs the `ascendnpu-ir` wheel (extra `vendor-ir`); `toolchain.bishengir.available()` says whether it is here.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .errors import AscTraceError
from .graph.kernel_graph import KernelGraph
from .graph.passes import run_passes
from .graph.ops.sync import FLAG_OPS
from .jit_function import JitFunction, compile as compile_kernel
from .toolchain import bishengir
from .lower.hivm import SYNC, is_two_steps, lower_hivm, strip_sync
from .lower.hivm_sync import apply_schedule
from .runtime import LaunchJob, get_runtime
from .runtime.args import bind_args
from .runtime.platform import platform as make_platform


@dataclass
class Launch:
    """A kernel and the arguments of one launch."""

    kernel: JitFunction
    args: tuple
    kwargs: dict
    core_num: int

    @property
    def name(self) -> str:
        return self.kernel.name


@contextlib.contextmanager
def capture_launches() -> Iterator[list[Launch]]:
    """Record `kernel[cores](...)` launches made inside the block instead of running them."""
    seen: list[Launch] = []
    original = JitFunction.launch

    def record(self: JitFunction, core_num: int, stream: Any, args: tuple, kwargs: dict, loc: Any) -> None:
        seen.append(Launch(self, args, dict(kwargs), core_num))
    JitFunction.launch = record       # type: ignore[method-assign]
    try:
        yield seen
    finally:
        JitFunction.launch = original  # type: ignore[method-assign]


def example_launch(module: Any) -> Launch:
    """The first launch an example module makes: its `run()` (launches captured, nothing computed), or
    the first entry of its `__asc_examples__`.

    Raises:
        LookupError: the module has neither.
    """
    run = getattr(module, "run", None)
    if run is not None:
        import inspect
        params = inspect.signature(run).parameters
        if all(p.default is not inspect.Parameter.empty for p in params.values()):
            with capture_launches() as seen:
                run()
            if seen:
                return seen[0]
    table = getattr(module, "__asc_examples__", None)
    if table is not None:
        table = table() if callable(table) else table
        name, spec = next(iter(table.items()))
        return Launch(getattr(module, name), tuple(spec["args"]), {}, spec.get("core_num", 1))
    raise LookupError(f"{module.__name__} has no run() without arguments and no __asc_examples__")


@dataclass
class Schedule:
    """One schedule of a kernel: static sync counts and the simulator's verdict on it."""

    pairs: int = 0            # set_flag operations in the kernel text
    barriers: int = 0         # pipe_barrier operations (PIPE_ALL included)
    cycles: float | None = None
    error: str = ""           # the simulator's race / sync report, if it refused the schedule

    @classmethod
    def of(cls, g: KernelGraph) -> "Schedule":
        return cls(sum(n.op == "set_flag" for n in g), sum(n.op == "pipe_barrier" for n in g))


@dataclass
class Verdict:
    name: str
    solver: str
    ours: Schedule                      # our scheduler, no multi-buffering (the vendor's form)
    ours_default: Schedule              # our scheduler as users get it (multi_buffer="auto")
    vendor: Schedule
    vendor_only: list[tuple[str, str]] = field(default_factory=list)   # (vendor sync group, why we need none)
    seconds: float = 0.0
    mlir: str = ""
    vendor_text: str = ""


def _profile(launch: Launch, graph: KernelGraph, options: dict) -> float:
    """Modeled cycles of `graph` (a scheduled graph) on this launch; raises the simulator's errors."""
    bound = bind_args(launch.name, launch.kernel.specs, launch.args, launch.kwargs, None)
    rt = get_runtime("sim")
    # auto_sync=True in the job: the simulator then checks V->V dependences too (with auto_sync=False it
    # assumes bisheng's own auto-sync adds those barriers, which no HIVM schedule gets)
    job = LaunchJob(launch.name, launch.kernel.fn, graph, bound, launch.core_num, None, None,
                    {**options, "auto_sync": True})
    plat = make_platform(options.get("platform"))
    return rt.profile(rt.prepare(graph, options), job, plat, execute=True).cycles   # type: ignore[attr-defined]


def _copy_args(launch: Launch) -> Launch:
    """The launch with its arrays copied, so that judging never writes the caller's outputs."""
    import numpy as np
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in launch.args)
    return Launch(launch.kernel, args, launch.kwargs, launch.core_num)


def _run(launch: Launch, graph: KernelGraph, options: dict, sched: Schedule) -> Schedule:
    try:
        sched.cycles = _profile(_copy_args(launch), graph, options)
    except AscTraceError as e:
        sched.error = f"{type(e).__name__}: {e.msg}"
    return sched


def _without(graph: KernelGraph, drop: Callable[[Any], bool]) -> KernelGraph:
    out = graph.copy()
    out.set_order([nid for nid in graph.order if not drop(graph.node(nid))])
    return out


def _groups(graph: KernelGraph) -> dict[str, Callable[[Any], bool]]:
    """Each vendor sync group: the flags of one (event, id), or one barrier."""
    out: dict[str, Callable[[Any], bool]] = {}
    for n in graph:
        if n.attr("why") != "vendor" or n.op not in SYNC:
            continue
        if n.op == "pipe_barrier":
            out[f"pipe_barrier {n.args[0].name} before %{_next_instr(graph, n.id)}"] = (lambda m, i=n.id: m.id == i)
        else:
            ev, eid = n.args[0], n.args[1].value
            out.setdefault(f"{ev.name} id {eid}", lambda m, ev=ev, eid=eid: (
                m.attr("why") == "vendor" and m.op in FLAG_OPS and m.args[0] == ev
                and m.args[1].value == eid))
    return out


def _instr(n: Any) -> bool:
    return n.pipe is not None and n.op not in SYNC


def _neighbour(graph: KernelGraph, nid: int, pipe: str, step: int) -> Any:
    """The nearest instruction of `pipe` before (step -1) or after (+1) node `nid` in program order."""
    order = graph.order
    i = order.index(nid) + step
    while 0 <= i < len(order):
        n = graph.node(order[i])
        if _instr(n) and n.pipe.value == pipe:
            return n
        i += step
    return None


def _buffers(graph: KernelGraph, n: Any) -> set[tuple[str, int]]:
    """(space, root) of the tensors an instruction touches: a UB LocalTensor's node, a GM parameter."""
    from .graph.ops import accesses
    out = set()
    for ref, *_ in accesses(n):
        root = graph.node(ref.root)
        out.add(("gm", root.args[0].index) if root.op == "global_tensor" else ("ub", ref.root))
    return out


def explain(graph: KernelGraph, label: str, drop: Callable[[Any], bool]) -> str:
    """Why our model needs no vendor sync group: the reason the simulator still finds the kernel
    race-free without it (see docs/figures.md, "The vendor's compiler as a second judge")."""
    group = [n for n in graph if drop(n)]
    if group and group[0].op == "pipe_barrier":
        b = group[0]
        if b.args[0].name == "PIPE_ALL":
            return ("the vendor ends every kernel with PipeBarrier<PIPE_ALL>; the end of a kernel drains every "
                    "pipe in our model")
        pipe = b.pipe.value
        prev, nxt = _neighbour(graph, b.id, pipe, -1), _neighbour(graph, b.id, pipe, 1)
        if any(n is not None and is_two_steps(n.op) for n in (prev, nxt)):
            return ("it orders the two vector steps of an axpy / leaky_relu through the lowering's scratch buffer, "
                    "which is one instruction in the graph")
        order = graph.order
        between = (order[order.index(prev.id) + 1:order.index(nxt.id)]
                   if prev is not None and nxt is not None else [])
        if any(graph.node(i).op in FLAG_OPS and graph.node(i).pipe is not None
               and graph.node(i).pipe.value == pipe for i in between):
            return (f"a set/wait on {pipe} already stands between the two {pipe} instructions: our model takes it "
                    "as a separator (graph/hazards.py, assumed), the vendor adds the barrier anyway")
        if prev is None or nxt is None or not (_buffers(graph, prev) & _buffers(graph, nxt)):
            return (f"the {pipe} instructions on either side touch different buffers (the vendor cannot prove views "
                    "at run-time offsets, or across loop iterations, disjoint)")
        return (f"the {pipe} instructions on either side share a buffer, and the vendor's other syncs already keep "
                "them apart")
    ev = group[0].args[0].name
    src, dst = ev.split("_")
    order = graph.order
    sets = [order.index(n.id) for n in group if n.op == "set_flag"]
    waits = [order.index(n.id) for n in group if n.op == "wait_flag"]
    # a set orders all earlier work of its pipe, a wait all later work of its own
    producers = [graph.node(i) for i in order[:max(sets, default=0)] if _instr(graph.node(i))
                 and graph.node(i).pipe.value == src]
    consumers = [graph.node(i) for i in order[min(waits, default=len(order)) + 1:] if _instr(graph.node(i))
                 and graph.node(i).pipe.value == dst]
    for p in reversed(producers):
        for c in consumers:
            common = _buffers(graph, p) & _buffers(graph, c)
            if common:
                return (f"%{p.id} {p.op} ({p.loc.short}) -> %{c.id} {c.op} ({c.loc.short}) share a buffer, and the "
                        "vendor's other syncs already order them (removing this group alone leaves the kernel "
                        "race-free)")
    gm_p = {b for p in producers for b in _buffers(graph, p) if b[0] == "gm"}
    gm_c = {b for c in consumers for b in _buffers(graph, c) if b[0] == "gm"}
    if gm_p and gm_c:
        return ("the instructions it orders touch different GM arguments: the vendor cannot tell that two memref "
                "arguments do not alias, the simulator sees separate arrays")
    return "the instructions it orders share no buffer in our model"


def _next_instr(graph: KernelGraph, nid: int) -> str:
    order = graph.order
    for later in order[order.index(nid) + 1:]:
        n = graph.node(later)
        if n.pipe is not None and n.op not in SYNC:
            return f"{n.id} {n.op} ({n.loc.short})"
    return "end"


def judge(launch: Launch, solver: str = "inject-sync", ablate: bool = True) -> Verdict:
    """Our schedule and the vendor's for one launch, each run by the simulator (see the module doc).

    Raises:
        TraceError: the kernel uses something the HIVM lowering does not cover.
        ToolchainError: the vendor's tool is missing or refused the module.
    """
    t0 = time.perf_counter()
    k = launch.kernel
    args = launch.args
    single = compile_kernel(k, args, multi_buffer=1, auto_sync=True)
    default = compile_kernel(k, args, auto_sync=True)
    free = strip_sync(single.traced)
    mlir = lower_hivm(free)
    bishengir.verify(mlir)
    text = bishengir.vendor_sync(mlir, solver)
    placed = apply_schedule(free, text)
    options = {**single.options, "auto_sync": False}
    ours = _run(launch, single.graph, single.options, Schedule.of(single.graph))
    ours_default = _run(launch, default.graph, default.options, Schedule.of(default.graph))
    vendor = _run(launch, run_passes(placed, options), options, Schedule.of(placed))
    verdict = Verdict(launch.name, solver, ours, ours_default, vendor, mlir=mlir, vendor_text=text)
    if ablate and not vendor.error:
        for label, drop in _groups(placed).items():
            trial = _run(launch, run_passes(_without(placed, drop), options), options, Schedule())
            if not trial.error:
                verdict.vendor_only.append((label, explain(placed, label, drop)))
    verdict.seconds = time.perf_counter() - t0
    return verdict


__all__ = ["Launch", "capture_launches", "example_launch", "explain", "Schedule", "Verdict", "judge"]
