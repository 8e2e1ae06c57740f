"""Profiles: modeled cycles per block and pipe, the launch's chip-level costs (runtime/launch_model.py),
a summary in the spirit of msprof op's pipe ratios that names what bounds the time, a Chrome
trace-event export (Perfetto, chrome://tracing) and a PNG timeline. Both exports show every pipe, the
scalar unit's issue included, and place each block on its physical core in its wave."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ..errors import AscTraceError, OptionError, PathError
from ..graph.expr import Const
from ..graph.node import Node
from ..graph.ops.adv_common import ADV, instruction_costs, operands
from ..proxies.source_loc import user_loc
from .core_timing import IssueRun
from .launch_model import CoreTimeline, LaunchRecord, LaunchTiming, time_launch
from .platform import Platform, check_overrides, platform as make_platform

PIPE_NAMES = ("S", "MTE2", "V", "MTE3")
# A bound that accounts for at least this share of the time is what limits it; below it, the time goes
# to the pipes waiting on each other (dependences, event latency, pipeline fill).
BOUND_SHARE = 0.8

__all__ = ["Profile", "CoreTimeline", "IssueRun", "PIPE_NAMES"]


@dataclass
class Profile:
    """The modeled execution of one launch.

    cycles: total modeled cycles: the launch floor, extra waves, and the larger of the blocks' time
        (wave after wave) and the GM traffic's bound at its memory level.
    core_cycles: the blocks' part (the slowest block of each wave, summed over waves).
    gm_bound_cycles: the launch's GM traffic over the bandwidth of the level that bounds it.
    time_us: cycles at the platform clock.
    pipe_busy: pipe name -> busy cycles on the busiest block.
    utilization: pipe name -> busy / the slowest block's cycles.
    bound: what limits the time: "launch floor", "HBM bandwidth", "L2 bandwidth", "<pipe> pipe" or
        "pipe dependences (...)".
    executed: False when profiled with timing_only=True (nothing was computed or written).
    """

    kernel: str
    platform: Platform
    core_num: int
    record: LaunchRecord
    executed: bool = True
    launch: LaunchTiming = field(init=False)
    cores: list[CoreTimeline] = field(init=False)
    cycles: float = field(init=False)
    pipe_busy: dict[str, float] = field(init=False)
    utilization: dict[str, float] = field(init=False)

    def __post_init__(self) -> None:
        self.launch, self.cores = time_launch(self.platform, self.record)
        self.cycles = self.launch.cycles
        slowest = self.slowest_block_cycles
        self.pipe_busy = {name: max(c.busy[i] for c in self.cores) for i, name in enumerate(PIPE_NAMES)}
        self.utilization = {name: (busy / slowest if slowest else 0.0) for name, busy in self.pipe_busy.items()}

    def retimed(self, platform: Platform | str | None = None, **overrides: float) -> "Profile":
        """The same launch timed on other parameters (a preset name or a Platform, and overrides such as
        hbm_gbytes_per_s=1400), without simulating it again: what runs after what does not depend on time.
        Which copies were gm_align_bytes-aligned, and the vector instructions' costs (op records), are
        as recorded."""
        loc = user_loc()
        plat = (platform if isinstance(platform, Platform)
                else self.platform if platform is None else make_platform(platform))
        if overrides:
            plat = replace(plat, **check_overrides(overrides, loc))
        return Profile(self.kernel, plat, self.core_num, self.record, self.executed)

    @property
    def time_us(self) -> float:
        return self.platform.cycles_to_us(self.cycles)

    @property
    def core_cycles(self) -> float:
        return self.launch.core_cycles

    @property
    def slowest_block_cycles(self) -> float:
        return max((c.cycles for c in self.cores), default=0.0)

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
        """The model's memory roofline: each wave's largest per-core copy time (at the MTE pipes' peak
        rates, and at the core's share of the chip's GM rate for both together), or the GM traffic's
        bound at its level if that is higher. No kernel can beat it in the model."""
        plat = self.platform
        per_wave = [0.0] * self.launch.waves
        for c in self.cores:
            w = c.core // max(1, int(plat.aiv_cores))
            read, written = c.gm_bytes[1], c.gm_bytes[3]
            per_wave[w] = max(per_wave[w], read / plat.mte2_bytes_per_cycle, written / plat.mte3_bytes_per_cycle,
                              (read + written) / c.share)
        return max(sum(per_wave), self.gm_bound_cycles)

    @property
    def roofline_efficiency(self) -> float:
        """memory_roofline_cycles / the launch's work (without the fixed launch costs): 1.0 means the
        kernel moves data as fast as the model allows."""
        body = self.launch.body_cycles
        return self.memory_roofline_cycles / body if body else 0.0

    @property
    def bound(self) -> str:
        """What limits the modeled time: the launch floor when the fixed costs outweigh the work, else
        what bounds the work (`work_bound`)."""
        lt = self.launch
        if lt.overhead_cycles >= lt.body_cycles:
            return "launch floor"
        return self.work_bound

    @property
    def work_bound(self) -> str:
        """What limits the work beyond the fixed launch costs: the bandwidth of the memory level the GM
        traffic lives in (HBM or L2) when its bound accounts for at least BOUND_SHARE of the work, else a
        pipe busy at least BOUND_SHARE of its core's time, else the pipes waiting on each other."""
        lt = self.launch
        if lt.levels.traffic and lt.gm_bound_cycles >= BOUND_SHARE * lt.body_cycles:
            return f"{lt.levels.bound} bandwidth"
        name, share = self._busiest_pipe()
        if share >= BOUND_SHARE:
            return f"{name} pipe"
        return f"pipe dependences (busiest: {name} at {share:.0%})"

    def _busiest_pipe(self) -> tuple[str, float]:
        """The busiest pipe of the slowest block, and its share of that block's time once its first copy's
        latency is over (a fixed wait no pipe can use)."""
        slowest = max(self.cores, key=lambda c: c.cycles)
        i = max(range(4), key=lambda k: slowest.busy[k])
        span = slowest.cycles - slowest.latency
        return PIPE_NAMES[i], (slowest.busy[i] / span if span > 0 else 0.0)

    def summary(self) -> str:
        lt, plat = self.launch, self.platform
        us, lv = plat.cycles_to_us, lt.levels
        head = f"kernel {self.kernel} on {self.core_num} core(s)"
        if lt.waves > 1:
            head = f"kernel {self.kernel}: {self.core_num} blocks on {plat.aiv_cores} cores in {lt.waves} waves"
        latency = max((c.latency for c in self.cores), default=0.0)
        lines = [f"{head}, {plat.name} model ({plat.clock_mhz:.0f} MHz)" + ("" if self.executed else ", timing only"),
                 f"  total: {self.cycles:,.0f} cycles = {self.time_us:.2f} us; bound by {self.bound}"
                 + (f" (the work: by {self.work_bound})" if self.bound != self.work_bound else ""),
                 f"  launch floor {us(lt.floor_cycles):.2f} us"
                 + (f" + {lt.waves - 1} extra wave(s) {us(lt.wave_overhead_cycles):.2f} us" if lt.waves > 1 else "")
                 + f"; blocks {us(lt.core_cycles):.2f} us"
                 + (f" (from the first copy's latency {plat.first_copy_latency_us:.2f} us on)" if latency else "")
                 + f"; GM bound {us(lt.gm_bound_cycles):.2f} us"]
        if lv.traffic:
            lines += self._gm_lines()
        lines += [f"  memory roofline {self.memory_roofline_cycles:,.0f} cycles ({self.roofline_efficiency:.1%} of "
                  "it reached)",
                  "  pipe    busy cycles   share of the slowest block"]
        for name in ("MTE2", "V", "MTE3", "S"):
            lines.append(f"  {name:<6} {self.pipe_busy[name]:>12,.0f}   {self.utilization[name]:6.1%}")
        return "\n".join(lines)

    def _gm_lines(self) -> list[str]:
        lt, plat = self.launch, self.platform
        us, lv = plat.cycles_to_us, lt.levels
        l2 = plat.l2_mib * (1 << 20)
        fits = "fits the L2" if lv.working_set <= l2 else f"{l2 / lv.working_set:.0%} of it fits the L2"
        lost = lv.traffic / lv.moved - 1
        streaming = max(lt.streaming)
        share = lv.core_share(streaming)
        peaks = plat.mte2_bytes_per_cycle + plat.mte3_bytes_per_cycle
        return [
            f"  GM traffic {lv.moved / 1e6:,.2f} MB (working set {lv.working_set / 1e6:,.1f} MB, {fits})"
            + (f"; {lost:.0%} more lost to GM addresses not {plat.gm_align_bytes} B-aligned" if lost > 1e-9 else ""),
            f"    L2 level : {lv.traffic / 1e6:,.2f} MB at {plat.l2_gbytes_per_s / 1e3:.2f} TB/s = {us(lv.l2_cycles):.2f} us",
            f"    HBM level: {lv.hbm_traffic / 1e6:,.2f} MB (cold reads, misses, write-backs) at "
            f"{plat.hbm_gbytes_per_s / 1e3:.2f} TB/s = {us(lv.hbm_cycles):.2f} us -> the {lv.bound} bounds it, "
            f"{lv.rate * plat.clock_mhz / 1e6:.2f} TB/s sustained",
            f"    per core: 1/{streaming} of it = {share:,.1f} B/cycle for MTE2 + MTE3 together "
            f"(pipe peaks {plat.mte2_bytes_per_cycle:.1f} + {plat.mte3_bytes_per_cycle:.1f}"
            + ("; the share binds)" if share < peaks else "; the peaks bind)"),
        ]

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
            for name, s0, s1, extra in _instruction_slices(item, start, end):
                events.append({"name": name, "cat": PIPE_NAMES[p], "ph": "X", "pid": core, "tid": p,
                               "ts": us(s0), "dur": max(us(s1 - s0), 1e-3),
                               "args": {**_slice_args(item), **extra, "block": block, "cycles": s1 - s0}})
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
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": 1, "args": {"name": "GM bound"}},
            {"name": "launch floor", "cat": "launch", "ph": "X", "pid": pid, "tid": 0, "ts": 0.0,
             "dur": us(lt.floor_cycles), "args": {"cycles": lt.floor_cycles}},
        ]
        wave_cost = lt.wave_overhead_cycles / (lt.waves - 1) if lt.waves > 1 else 0.0
        for w in range(1, lt.waves):
            end = lt.wave_starts[w]
            ev.append({"name": f"wave {w} start", "cat": "launch", "ph": "X", "pid": pid, "tid": 0,
                       "ts": us(end - wave_cost), "dur": us(wave_cost), "args": {"cycles": wave_cost}})
        lv = lt.levels
        ev.append({"name": f"GM traffic at the {lv.bound}'s bandwidth", "cat": "GM", "ph": "X", "pid": pid, "tid": 1,
                   "ts": us(lt.floor_cycles), "dur": max(us(lt.gm_bound_cycles), 1e-3),
                   "args": {"bytes": lv.moved, "working_set": lv.working_set, "hbm_bytes": lv.hbm_traffic,
                            "cycles": lt.gm_bound_cycles}})
        return ev

    def save_chrome_trace(self, path: str | Path) -> Path:
        """Write Chrome trace-event JSON: one track per core x pipe (the scalar unit's issue included),
        one slice per instruction, and a 'chip' process with the launch floor, waves and GM bound."""
        path = writable_file(path, "save_chrome_trace")
        text = json.dumps(self.chrome_trace())
        try:
            path.write_text(text)
        except OSError as e:        # what the check cannot see: a full disk, a race
            raise PathError(f"save_chrome_trace: cannot write {path}: {e.strerror or e}", user_loc()) from None
        return path

    def save_png(self, path: str | Path, max_cores: int = 8) -> Path:
        """A timeline picture of the first `max_cores` cores (needs matplotlib: pip install 'asc-trace[plot]')."""
        path = writable_file(path, "save_png")
        if isinstance(max_cores, bool) or not isinstance(max_cores, (int, np.integer)) or max_cores < 1:
            raise OptionError(f"save_png: max_cores must be an int of at least 1, got {max_cores!r}", user_loc())
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
        try:
            fig.savefig(path, dpi=110, format="png")
        except OSError as e:        # what the check cannot see: a full disk, a race
            raise PathError(f"save_png: cannot write {path}: {e.strerror or e}", user_loc()) from None
        finally:
            plt.close(fig)
        return path


def writable_file(path: Any, what: str) -> Path:
    """`path` as a Path to a file that can be written, checked before the work of making its contents (the
    CLI's --chrome-trace check, for the API)."""
    loc = user_loc()
    if not isinstance(path, (str, os.PathLike)) or not str(os.fspath(path)).strip():
        raise PathError(f"{what}: give a file path (a str or a pathlib.Path), got {path!r}", loc)
    if "\0" in str(os.fspath(path)):      # the checks below pass it (is_dir() is False); open() would not
        raise PathError(f"{what}: {path!r} holds a NUL byte; no file can have that name", loc)
    try:        # a NUL byte in the path (ValueError) or a name too long (OSError) fails in the checks themselves
        target = Path(path).expanduser()
        parent = target.parent
        if target.is_dir():
            raise PathError(f"{what}: {target} is a folder; give a file path in it", loc)
        if not parent.is_dir():
            raise PathError(f"{what}: no such folder {parent} (for {target})", loc)
        if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
            raise PathError(f"{what}: {target} is not writable", loc)
    except (ValueError, OSError) as e:
        raise PathError(f"{what}: cannot write {path!r}: {getattr(e, 'strerror', None) or e}", loc) from None
    return target


def _slice_name(item: Any) -> str:
    return "scalar issue" if isinstance(item, IssueRun) else item.op


def _instruction_slices(item: Any, start: float, end: float) -> list[tuple[str, float, float, dict[str, Any]]]:
    """One slice, or for a high-level (asc.adv) call one per vector instruction its algorithm issues, each as
    long as its share of the call's modeled cost (graph/ops/adv_common.py instruction_costs)."""
    if isinstance(item, IssueRun) or item.op not in ADV:
        return [(_slice_name(item), start, end, {})]
    count = operands(item)[3]
    elems = count.value if isinstance(count, Const) else 1024     # a runtime count: the shares of 1024 elements
    costs = instruction_costs(item.op, item.attrs, int(elems))
    total = sum(c for _n, c in costs)
    if not costs or total <= 0:
        return [(_slice_name(item), start, end, {})]
    out, t = [], start
    for i, (name, c) in enumerate(costs):
        t1 = end if i == len(costs) - 1 else t + (end - start) * c / total
        out.append((f"{item.op}: {name}", t, t1, {"call": item.op, "instruction": i}))
        t = t1
    return out


def _slice_args(item: Any) -> dict[str, Any]:
    if isinstance(item, IssueRun):
        node = item.node
        return {"instructions": item.count, "source": node.loc.short if node is not None else "",
                "first": f"%{node.id} {node.op}" if node is not None else ""}
    node: Node = item
    return {"node": f"%{node.id}", "source": node.loc.short, "code": node.loc.code.strip()}
