"""Profiles: modeled cycles per block and pipe, the launch's chip-level costs (runtime/launch_model.py),
a summary in the spirit of msprof op's pipe ratios, a Chrome trace-event export (Perfetto,
chrome://tracing) and a PNG timeline. Both exports show every pipe, the scalar unit's issue included,
and place each block on its physical core in its wave."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..errors import AscTraceError
from ..graph.node import Node
from .launch_model import LaunchTiming, model_launch
from .platform import Platform

PIPE_NAMES = ("S", "MTE2", "V", "MTE3")
# A pipe busy at least this share of its core's time is what bounds that core; below it, the time
# goes to the pipes waiting on each other (dependences, event latency, pipeline fill).
BOUND_SHARE = 0.8


class IssueRun:
    """A stretch of time in which the scalar unit issues instructions back to back (one trace slice)."""

    __slots__ = ("start", "end", "node", "count")

    def __init__(self, start: float, end: float, node: Node | None) -> None:
        self.start, self.end, self.node, self.count = start, end, node, 1


@dataclass
class CoreTimeline:
    core: int                                       # the block index
    cycles: float
    busy: list[float]                               # by pipe index (S, MTE2, V, MTE3)
    slices: list[tuple[int, float, float, Any]]     # (pipe, start, end, Node or IssueRun)
    gm_bytes: list[float]                           # GM bytes moved, by pipe index
    gm_extra: list[float] = field(default_factory=lambda: [0.0] * 4)   # bandwidth lost to unaligned copies
    gm_params: set[int] = field(default_factory=set)                   # GM arguments touched


@dataclass
class Profile:
    """The modeled execution of one launch.

    cycles: total modeled cycles: the launch floor, extra waves, and the larger of the blocks' time
        (wave after wave) and the chip-wide GM bound.
    core_cycles: the blocks' part (the slowest block of each wave, summed over waves).
    gm_bound_cycles: all blocks' GM traffic over the chip's GM bandwidth for the launch's working set.
    time_us: cycles at the platform clock.
    pipe_busy: pipe name -> busy cycles on the busiest block.
    utilization: pipe name -> busy / the slowest block's cycles.
    executed: False when profiled with timing_only=True (nothing was computed or written).
    """

    kernel: str
    platform: Platform
    core_num: int
    cores: list[CoreTimeline]
    arg_bytes: dict[int, int] = field(default_factory=dict)
    executed: bool = True
    launch: LaunchTiming = field(init=False)
    cycles: float = 0.0
    pipe_busy: dict[str, float] = field(default_factory=dict)
    utilization: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.launch = model_launch(self.platform, self.cores, self.arg_bytes)
        self.cycles = self.launch.cycles
        slowest = self.slowest_block_cycles
        self.pipe_busy = {name: max(c.busy[i] for c in self.cores) for i, name in enumerate(PIPE_NAMES)}
        self.utilization = {name: (busy / slowest if slowest else 0.0) for name, busy in self.pipe_busy.items()}

    @property
    def time_us(self) -> float:
        return self.platform.cycles_to_us(self.cycles)

    @property
    def core_cycles(self) -> float:
        return self.launch.core_cycles

    @property
    def slowest_block_cycles(self) -> float:
        return max(c.cycles for c in self.cores)

    @property
    def gm_bound_cycles(self) -> float:
        return self.launch.gm_bound_cycles

    @property
    def gm_bytes(self) -> float:
        return self.launch.gm_bytes

    @property
    def waves(self) -> int:
        return self.launch.waves

    @property
    def memory_roofline_cycles(self) -> float:
        """The model's memory roofline: each wave's largest per-core copy time at the MTE rates, or the
        chip-wide GM bound if that is higher. No kernel can beat it in the model."""
        plat = self.platform
        per_wave = [0.0] * self.launch.waves
        for c in self.cores:
            w = c.core // max(1, int(plat.aiv_cores))
            per_wave[w] = max(per_wave[w], c.gm_bytes[1] / plat.mte2_bytes_per_cycle,
                              c.gm_bytes[3] / plat.mte3_bytes_per_cycle)
        return max(sum(per_wave), self.gm_bound_cycles)

    @property
    def roofline_efficiency(self) -> float:
        """memory_roofline_cycles / the launch's work (without the fixed launch costs): 1.0 means the
        kernel moves data as fast as the model allows."""
        body = self.launch.body_cycles
        return self.memory_roofline_cycles / body if body else 0.0

    @property
    def bound(self) -> str:
        """What limits the modeled time: the launch's fixed costs when they outweigh the work, else
        what bounds the work (`work_bound`)."""
        lt = self.launch
        if lt.overhead_cycles >= lt.body_cycles:
            return "launch overhead"
        return self.work_bound

    @property
    def work_bound(self) -> str:
        """What limits the work beyond the fixed launch costs: the chip's GM bandwidth, a pipe busy at
        least BOUND_SHARE of its core's time, or else the pipes waiting on each other."""
        lt = self.launch
        if lt.gm_bound_cycles >= lt.core_cycles:
            return "chip GM bandwidth"
        name, share = self._busiest_pipe()
        if share >= BOUND_SHARE:
            return f"{name} pipe"
        return f"pipe dependences (busiest: {name} at {share:.0%})"

    def _busiest_pipe(self) -> tuple[str, float]:
        slowest = max(self.cores, key=lambda c: c.cycles)
        i = max(range(4), key=lambda k: slowest.busy[k])
        return PIPE_NAMES[i], (slowest.busy[i] / slowest.cycles if slowest.cycles else 0.0)

    def summary(self) -> str:
        lt, us = self.launch, self.platform.cycles_to_us
        l2 = self.platform.l2_mib * (1 << 20)
        fits = "fits the L2" if lt.working_set <= l2 else f"{l2 / lt.working_set:.0%} of it fits the L2"
        head = f"kernel {self.kernel} on {self.core_num} core(s)"
        if lt.waves > 1:
            head = f"kernel {self.kernel}: {self.core_num} blocks on {self.platform.aiv_cores} cores in {lt.waves} waves"
        lines = [f"{head}, {self.platform.name} model ({self.platform.clock_mhz:.0f} MHz)"
                 + ("" if self.executed else ", timing only"),
                 f"  total: {self.cycles:,.0f} cycles = {self.time_us:.2f} us; bound by {self.bound}"
                 + (f" (the work: by {self.work_bound})" if self.bound != self.work_bound else ""),
                 f"  launch floor {us(lt.floor_cycles):.2f} us"
                 + (f" + {lt.waves - 1} extra wave(s) {us(lt.wave_overhead_cycles):.2f} us" if lt.waves > 1 else "")
                 + f"; blocks {us(lt.core_cycles):.2f} us; chip GM bound {us(lt.gm_bound_cycles):.2f} us",
                 f"  GM traffic: {lt.gm_bytes / 1e6:,.2f} MB at {lt.gm_bytes_per_cycle * self.platform.clock_mhz / 1e6:.2f}"
                 f" TB/s (working set {lt.working_set / 1e6:,.1f} MB, {fits})"
                 + (f"; {lt.gm_effective_bytes / lt.gm_bytes - 1:.0%} lost to GM addresses not "
                    f"{self.platform.gm_align_bytes} B-aligned" if lt.gm_effective_bytes > lt.gm_bytes else ""),
                 f"  memory roofline {self.memory_roofline_cycles:,.0f} cycles ({self.roofline_efficiency:.1%} of it "
                 "reached)",
                 "  pipe    busy cycles   share of the slowest block",
                 ]
        for name in ("MTE2", "V", "MTE3", "S"):
            lines.append(f"  {name:<6} {self.pipe_busy[name]:>12,.0f}   {self.utilization[name]:6.1%}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    # -- exports ----------------------------------------------------------------------------------
    def placed_slices(self) -> Iterator[tuple[int, int, int, float, float, Any]]:
        """(physical core, block, pipe, start, end, Node or IssueRun), in cycles from the launch's start."""
        per_wave = max(1, int(self.platform.aiv_cores))
        for c in self.cores:
            t0 = self.launch.wave_starts[c.core // per_wave]
            for p, start, end, item in c.slices:
                yield c.core % per_wave, c.core, p, t0 + start, t0 + end, item

    def chrome_trace(self) -> dict[str, Any]:
        events: list[dict[str, Any]] = []
        us = self.platform.cycles_to_us
        used = sorted({c.core % max(1, int(self.platform.aiv_cores)) for c in self.cores})
        for core in used:
            events.append({"name": "process_name", "ph": "M", "pid": core, "args": {"name": f"core {core}"}})
            for i, name in enumerate(PIPE_NAMES):
                events.append({"name": "thread_name", "ph": "M", "pid": core, "tid": i, "args": {"name": name}})
        for core, block, p, start, end, item in self.placed_slices():
            events.append({"name": _slice_name(item), "cat": PIPE_NAMES[p], "ph": "X", "pid": core, "tid": p,
                           "ts": us(start), "dur": max(us(end - start), 1e-3),
                           "args": {**_slice_args(item), "block": block, "cycles": end - start}})
        events.extend(self._chip_events())
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"kernel": self.kernel, "platform": self.platform.name, "cycles": self.cycles,
                              "bound": self.bound, "waves": self.launch.waves, "executed": self.executed}}

    def _chip_events(self) -> list[dict[str, Any]]:
        """A 'chip' process: the launch floor, the extra waves' cost, and the GM bandwidth bound."""
        lt, us = self.launch, self.platform.cycles_to_us
        pid = int(self.platform.aiv_cores)
        ev: list[dict[str, Any]] = [
            {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": "chip"}},
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": "launch"}},
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": 1, "args": {"name": "GM bandwidth"}},
            {"name": "launch floor", "cat": "launch", "ph": "X", "pid": pid, "tid": 0, "ts": 0.0,
             "dur": us(lt.floor_cycles), "args": {"cycles": lt.floor_cycles}},
        ]
        wave_cost = lt.wave_overhead_cycles / (lt.waves - 1) if lt.waves > 1 else 0.0
        for w in range(1, lt.waves):
            end = lt.wave_starts[w]
            ev.append({"name": f"wave {w} start", "cat": "launch", "ph": "X", "pid": pid, "tid": 0,
                       "ts": us(end - wave_cost), "dur": us(wave_cost), "args": {"cycles": wave_cost}})
        ev.append({"name": "GM traffic at the chip's bandwidth", "cat": "GM", "ph": "X", "pid": pid, "tid": 1,
                   "ts": us(lt.floor_cycles), "dur": max(us(lt.gm_bound_cycles), 1e-3),
                   "args": {"bytes": lt.gm_bytes, "working_set": lt.working_set, "cycles": lt.gm_bound_cycles}})
        return ev

    def save_chrome_trace(self, path: str | Path) -> Path:
        """Write Chrome trace-event JSON: one track per core x pipe (the scalar unit's issue included),
        one slice per instruction, and a 'chip' process with the launch floor, waves and GM bound."""
        path = Path(path)
        path.write_text(json.dumps(self.chrome_trace()))
        return path

    def save_png(self, path: str | Path, max_cores: int = 8) -> Path:
        """A timeline picture of the first `max_cores` cores (needs matplotlib: pip install 'asc-trace[plot]')."""
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise AscTraceError("saving a PNG timeline needs matplotlib", None,
                                hint="pip install 'asc-trace[plot]' (or matplotlib)") from exc
        shown = sorted({c.core % max(1, int(self.platform.aiv_cores)) for c in self.cores})[:max_cores]
        row = {core: i for i, core in enumerate(shown)}
        colors = {"S": "#999999", "MTE2": "#4c72b0", "V": "#dd8452", "MTE3": "#55a868"}
        spans: dict[tuple[int, int], list[tuple[float, float]]] = {}
        for core, _block, p, start, end, _item in self.placed_slices():
            if core in row:
                spans.setdefault((row[core], p), []).append((start, end - start))
        fig, ax = plt.subplots(figsize=(12, 0.9 + 0.45 * 4 * len(shown)))
        yticks, ylabels = [], []
        for core, i in row.items():
            for p, name in enumerate(PIPE_NAMES):
                y = i * 5 + (3 - p)
                yticks.append(y)
                ylabels.append(f"core {core} {name}")
                if (i, p) in spans:
                    ax.broken_barh(spans[(i, p)], (y - 0.4, 0.8), color=colors[name])
        lt = self.launch
        ax.axvspan(0, lt.floor_cycles, color="#eeeeee", label="launch floor")
        ax.set_yticks(yticks, ylabels, fontsize=7)
        ax.set_xlabel("cycles")
        ax.set_title(f"{self.kernel}: {self.cycles:,.0f} cycles ({self.time_us:.2f} us, {self.platform.name} model); "
                     f"bound by {self.bound}", fontsize=9)
        ax.legend(loc="upper right", fontsize=7)
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path


def _slice_name(item: Any) -> str:
    return "scalar issue" if isinstance(item, IssueRun) else item.op


def _slice_args(item: Any) -> dict[str, Any]:
    if isinstance(item, IssueRun):
        node = item.node
        return {"instructions": item.count, "source": node.loc.short if node is not None else "",
                "first": f"%{node.id} {node.op}" if node is not None else ""}
    node: Node = item
    return {"node": f"%{node.id}", "source": node.loc.short, "code": node.loc.code.strip()}
