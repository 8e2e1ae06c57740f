"""Profiles: modeled cycles per core and pipe, a per-pipe summary in the spirit of msprof op's pipe
ratios, a Chrome trace-event export (Perfetto, chrome://tracing) and a PNG timeline."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AscTraceError
from ..graph.node import Node
from .platform import Platform

PIPE_NAMES = ("S", "MTE2", "V", "MTE3")


@dataclass
class CoreTimeline:
    core: int
    cycles: float
    busy: list[float]                               # by pipe index (S, MTE2, V, MTE3)
    slices: list[tuple[int, float, float, Node]]    # (pipe, start, end, node)
    gm_bytes: list[float]                           # GM bytes moved, by pipe index


@dataclass
class Profile:
    """The modeled execution of one launch.

    cycles: total modeled cycles (the slowest core, or the chip-wide GM bandwidth bound if higher).
    gm_bound_cycles: all cores' GM traffic over the chip's GM bandwidth.
    time_us: cycles at the platform clock.
    pipe_busy: pipe name -> busy cycles on the busiest core.
    utilization: pipe name -> busy / total cycles on the busiest core.
    """

    kernel: str
    platform: Platform
    core_num: int
    cores: list[CoreTimeline]
    gm_bound_cycles: float = 0.0
    cycles: float = 0.0
    pipe_busy: dict[str, float] = field(default_factory=dict)
    utilization: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.gm_bound_cycles = self.gm_bytes / self.platform.gm_bytes_per_cycle
        slowest = max(self.cores, key=lambda c: c.cycles)
        self.cycles = max(slowest.cycles, self.gm_bound_cycles)
        self.pipe_busy = {name: max(c.busy[i] for c in self.cores) for i, name in enumerate(PIPE_NAMES)}
        self.utilization = {name: (busy / self.cycles if self.cycles else 0.0) for name, busy in self.pipe_busy.items()}

    @property
    def time_us(self) -> float:
        return self.platform.cycles_to_us(self.cycles)

    @property
    def gm_bytes(self) -> float:
        return sum(sum(c.gm_bytes) for c in self.cores)

    @property
    def memory_roofline_cycles(self) -> float:
        """The model's memory roofline: bytes moved over MTE bandwidth on the busiest core, or the
        chip-wide GM bound if that is higher. No kernel can beat it in the model."""
        per_core = max(max(c.gm_bytes[1] / self.platform.mte2_bytes_per_cycle,
                           c.gm_bytes[3] / self.platform.mte3_bytes_per_cycle) for c in self.cores)
        return max(per_core, self.gm_bound_cycles)

    @property
    def roofline_efficiency(self) -> float:
        """memory_roofline_cycles / cycles: 1.0 means the kernel moves data as fast as the model allows."""
        return self.memory_roofline_cycles / self.cycles if self.cycles else 0.0

    @property
    def bound(self) -> str:
        """What limits the modeled time: a pipe of the slowest core, or the chip's GM bandwidth."""
        if self.gm_bound_cycles >= max(c.cycles for c in self.cores):
            return "GM bandwidth"
        name = max(("MTE2", "V", "MTE3", "S"), key=lambda n: self.pipe_busy[n])
        return f"{name} pipe"

    def summary(self) -> str:
        lines = [f"kernel {self.kernel} on {self.core_num} core(s), {self.platform.name} model "
                 f"({self.platform.clock_mhz:.0f} MHz)",
                 f"  total: {self.cycles:,.0f} cycles = {self.time_us:.2f} us; bound by {self.bound}",
                 f"  GM traffic: {self.gm_bytes / 1024:,.1f} KiB; memory roofline {self.memory_roofline_cycles:,.0f} "
                 f"cycles ({self.roofline_efficiency:.1%} of it reached)",
                 "  pipe    busy cycles   ratio",
                 ]
        for name in ("MTE2", "V", "MTE3", "S"):
            lines.append(f"  {name:<6} {self.pipe_busy[name]:>12,.0f}   {self.utilization[name]:6.1%}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    # -- exports ----------------------------------------------------------------------------------
    def chrome_trace(self) -> dict[str, Any]:
        events: list[dict[str, Any]] = []
        us = self.platform.cycles_to_us
        for c in self.cores:
            events.append({"name": "process_name", "ph": "M", "pid": c.core, "args": {"name": f"core {c.core}"}})
            for i, name in enumerate(PIPE_NAMES):
                events.append({"name": "thread_name", "ph": "M", "pid": c.core, "tid": i, "args": {"name": name}})
            for p, start, end, node in c.slices:
                events.append({
                    "name": node.op, "cat": PIPE_NAMES[p], "ph": "X", "pid": c.core, "tid": p,
                    "ts": us(start), "dur": max(us(end - start), 1e-3),
                    "args": {"node": f"%{node.id}", "source": node.loc.short, "code": node.loc.code.strip(),
                             "cycles": end - start},
                })
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"kernel": self.kernel, "platform": self.platform.name, "cycles": self.cycles}}

    def save_chrome_trace(self, path: str | Path) -> Path:
        """Write Chrome trace-event JSON: one track per core x pipe, one slice per instruction."""
        path = Path(path)
        path.write_text(json.dumps(self.chrome_trace()))
        return path

    def save_png(self, path: str | Path, max_cores: int = 8) -> Path:
        """A timeline picture (needs matplotlib: pip install 'asc-trace[plot]')."""
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise AscTraceError("saving a PNG timeline needs matplotlib", None,
                                hint="pip install 'asc-trace[plot]' (or matplotlib)") from exc
        cores = self.cores[:max_cores]
        colors = {"S": "#999999", "MTE2": "#4c72b0", "V": "#dd8452", "MTE3": "#55a868"}
        fig, ax = plt.subplots(figsize=(12, 0.5 + 0.45 * 4 * len(cores)))
        yticks, ylabels = [], []
        for ci, c in enumerate(cores):
            for p, name in enumerate(PIPE_NAMES):
                y = ci * 5 + (3 - p)
                yticks.append(y)
                ylabels.append(f"core {c.core} {name}")
                spans = [(s, e - s) for pp, s, e, _ in c.slices if pp == p]
                if spans:
                    ax.broken_barh(spans, (y - 0.4, 0.8), color=colors[name])
        ax.set_yticks(yticks, ylabels, fontsize=7)
        ax.set_xlabel("cycles")
        ax.set_title(f"{self.kernel}: {self.cycles:,.0f} cycles ({self.time_us:.2f} us, {self.platform.name} model)")
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path
