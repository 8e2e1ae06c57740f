"""The vendor's compiler as a second judge of a kernel's synchronisation (issue 19).

For one launch of a kernel: its flag-free graph is lowered to HIVM IR (`lower/hivm.py`), verified by
`bishengir-opt`, and scheduled by the vendor's intra-core auto-sync; the vendor's syncs are placed back
into the graph (`lower/hivm_sync.py`) and the result runs on the simulator, whose race checker and
timing model judge it exactly as they judge our own schedule. Then each vendor sync (a group of the
flags of one event and id, or one barrier) is taken out in turn: a schedule the simulator still finds
race-free without it synchronises a dependence our model does not have, which is listed for
explanation.

Needs the `ascendnpu-ir` wheel (extra `vendor-ir`); `lower.bishengir.available()` says whether it is here.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .errors import AscTraceError
from .graph.kernel_graph import KernelGraph
from .graph.passes import run_passes
from .jit_function import JitFunction, compile as compile_kernel
from .lower import bishengir
from .lower.hivm import SYNC, lower_hivm, strip_sync
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
    vendor_only: list[str] = field(default_factory=list)   # vendor syncs our model finds unnecessary
    seconds: float = 0.0
    mlir: str = ""
    vendor_text: str = ""


def _profile(launch: Launch, graph: KernelGraph, options: dict) -> float:
    """Modeled cycles of `graph` (a scheduled graph) on this launch; raises the simulator's errors."""
    bound = bind_args(launch.name, launch.kernel.specs, launch.args, launch.kwargs, None)
    rt = get_runtime("sim")
    job = LaunchJob(launch.name, launch.kernel.fn, graph, bound, launch.core_num, None, None, options)
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
                m.attr("why") == "vendor" and m.op in ("set_flag", "wait_flag") and m.args[0] == ev
                and m.args[1].value == eid))
    return out


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
                verdict.vendor_only.append(label)
    verdict.seconds = time.perf_counter() - t0
    return verdict


__all__ = ["Launch", "capture_launches", "Schedule", "Verdict", "judge"]
