"""asc.profile of a mixed cube + vector kernel: the timing of one cube core and two vector cores per AI core.

Each core's own pipes are timed by its own model: the cube's (runtime/cube_pipes.py, cube_timing.py's
published rates, 1.85 GHz) and the vector core's (runtime/core_timing.py on the platform's figures, each
core at its pipes' own GM rates). What couples them is the cross-core flags. A wait blocks all of its
core's pipes on Atlas A2 (ascend-cube-facts §6), so a core's work between two of its waits is timed on its
own (the wait is a barrier of every pipe in that core's timeline), and the core is then held at each wait
until the flag it takes arrives: its later work shifts by that hold. The mixed simulator's run gives the
order of events, sets before the waits that take them (runtime/mix_sim.py records them), so one pass in
that order shifts every core: a set's time is its place in its core's timeline plus the core's shift so
far; its flag arrives CROSS_CORE_LATENCY_CYCLES later (mode 2 from the vector cores: when the later of the
pair arrives, as the cube's counter rises); a wait holds its core until then.

Cross-core flag costs: the PTO-ISA A2/A3 cost model (zouzias/pto-isa-mirror,
include/pto/costmodel/a2a3/cce_costmodel/cce_costmodel_sync.hpp) charges ffts_cross_core_sync (the set) and
wait_flag_dev (the wait) one cycle each, as it does set_flag / wait_flag. How long a set takes to reach
the other core is published nowhere we know of; it is taken as the platform's flag_latency, the assumed
latency of an intra-core flag (runtime/platform.py), and the profile reports the cycles each core spent held
at its waits, so its weight can be seen. Not modelled: GM bandwidth shared between the cores (each moves at
its own pipes' rates), and waves (one AI core per launched block)."""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .base import LaunchJob
from .core_timing import time_core
from .cube_pipes import PIPES as CUBE_PIPES
from .cube_timing import CLOCK_HZ as CUBE_HZ
from .platform import platform

SET_CYCLES = 1.0      # PTO-ISA cce_costmodel_sync.hpp: ffts_cross_core_sync, EstimateConstCycles() = 1
VEC_PIPES = ("S", "MTE2", "V", "MTE3")


def cross_core_latency_us(plat: Any) -> float:
    """Set -> the other core's counter: not published; the platform's (assumed) intra-core flag latency."""
    return plat.cycles_to_us(plat.flag_latency)


@dataclass
class MixCoreTime:
    """One core's modelled run, in microseconds from the launch."""

    name: str                              # "AI core 0 cube", "AI core 0 vector 1"
    end_us: float
    busy_us: dict[str, float]              # pipe -> busy time
    held_us: float                         # time held at cross-core waits
    slices: list[tuple[str, float, float, str, str]]   # (row, start, end, what, where)


@dataclass
class MixProfile:
    """The modelled execution of a mixed kernel: every core of every AI core; the kernel's time is the
    slowest core's. `pipe_busy` is the slowest core's, in cycles of the cube clock."""

    kernel: str
    core_num: int
    cores: list[MixCoreTime]
    latency_us: float
    clock_hz: float = CUBE_HZ
    cycles: float = field(init=False)
    pipe_busy: dict[str, float] = field(init=False)
    slowest_core: str = field(init=False)

    def __post_init__(self) -> None:
        slow = max(self.cores, key=lambda c: c.end_us)
        self.slowest_core = slow.name
        self.cycles = slow.end_us * 1e-6 * self.clock_hz
        self.pipe_busy = {k: v * 1e-6 * self.clock_hz for k, v in slow.busy_us.items()}

    @property
    def time_us(self) -> float:
        return self.cycles / self.clock_hz * 1e6

    @property
    def held_us(self) -> dict[str, float]:
        """Core -> time it spent held at cross-core waits."""
        return {c.name: c.held_us for c in self.cores}

    @property
    def bound(self) -> str:
        slow = max(self.cores, key=lambda c: c.end_us)
        if slow.held_us >= 0.5 * slow.end_us:
            return "cross-core waits"
        if not slow.busy_us:
            return "nothing"
        pipe, busy = max(slow.busy_us.items(), key=lambda kv: kv[1])
        return f"{pipe} pipe" if busy >= 0.9 * slow.end_us else "pipe dependences"

    def summary(self) -> str:
        lines = [f"{self.kernel}: {self.core_num} AI core(s), each 1 cube + 2 vector cores (KERNEL_TYPE_MIX_AIC_1_2); "
                 f"cross-core flag latency {self.latency_us * 1e3:.1f} ns (assumed)"]
        for c in self.cores:
            pipes = ", ".join(f"{k} {v:.2f}" for k, v in c.busy_us.items() if v)
            lines.append(f"  {c.name:20s} ends {c.end_us:10.2f} us, held at cross-core waits {c.held_us:8.2f} us; "
                         f"busy us: {pipes}")
        lines.append(f"  total: {self.time_us:.2f} us (slowest: {self.slowest_core}); bound by {self.bound}")
        return "\n".join(lines)

    def save_chrome_trace(self, path: str | Path) -> Path:
        """Every core's pipes as a Chrome trace / Perfetto timeline (one process per core, one row per pipe, and
        a row `cross-core` with the time the core is held at each wait)."""
        events = []
        for pid, c in enumerate(self.cores):
            events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": c.name}})
            for row, start, end, what, where in c.slices:
                events.append({"name": what, "ph": "X", "pid": pid, "tid": row, "ts": start, "dur": end - start,
                               "args": {"at": where}})
        out = Path(path)
        out.write_text(json.dumps({"traceEvents": events, "displayTimeUnit": "ns"}))
        return out


def _cube_core(model: Any) -> tuple[float, dict[str, float], list]:
    us = 1e6 / CUBE_HZ
    busy = {p.value: b * us for p, b in zip(CUBE_PIPES, model.busy)}
    slices = [(CUBE_PIPES[p].value, s * us, e * us, node.op, node.loc.short) for p, s, e, node in (model.log or [])]
    return model.end * us, busy, slices


def _vector_core(model: Any, plat: Any) -> tuple[float, dict[str, float], list, dict[int, list[float]]]:
    """(end, busy, slices, node id -> [end of each of its instructions, in order]) of a vector core, in us."""
    t = time_core(tuple(model.log), plat, float("inf"), model.nodes)
    busy = {name: plat.cycles_to_us(b) for name, b in zip(VEC_PIPES, t.busy)}
    slices, at = [], {}
    for p, s, e, node in t.slices or []:
        what = getattr(node, "op", None) or "issue"
        where = node.loc.short if hasattr(node, "loc") and node.loc is not None else ""
        slices.append((VEC_PIPES[p], plat.cycles_to_us(s), plat.cycles_to_us(e), what, where))
        if hasattr(node, "id"):
            at.setdefault(node.id, []).append((plat.cycles_to_us(s), plat.cycles_to_us(e)))
    return plat.cycles_to_us(t.cycles), busy, slices, at


def _ai_core(c: int, cube: Any, vecs: list, events: list, plat: Any, lat: float) -> list[MixCoreTime]:
    ends, busys, slicess, ats = [], [], [], [None]
    e, b, s = _cube_core(cube)
    ends.append(e), busys.append(b), slicess.append(s)
    for v in vecs:
        e, b, s, at = _vector_core(v, plat)
        ends.append(e), busys.append(b), slicess.append(s), ats.append(at)
    seen: dict[tuple[int, int], int] = {}

    def own_time(local: int, ins: Any, start: bool) -> float:
        """The independent time of a set's end (start=False) or a wait's barrier start, on its core."""
        if local == 0:
            return (ins if isinstance(ins, float) else ins.end) * 1e6 / CUBE_HZ
        k = (local, ins.node.id)
        i = seen.get(k, 0)
        seen[k] = i + 1
        s0, e0 = ats[local][ins.node.id][i]
        return s0 if start else e0

    shift = [0.0, 0.0, 0.0]
    held = [0.0, 0.0, 0.0]
    queues: dict[tuple[int, int], deque] = {}
    half: dict[tuple[int, int], deque] = {}
    for local, kind, fid, mode, ins in events:
        if kind == "set":
            arrive = own_time(local, ins, False) + shift[local] + plat.cycles_to_us(SET_CYCLES) + lat
            if mode == 1:
                queues.setdefault((3 - local, fid), deque()).append(arrive)
            elif local == 0:
                for v in (1, 2):
                    queues.setdefault((v, fid), deque()).append(arrive)
            else:
                half.setdefault((local, fid), deque()).append(arrive)
                a, b2 = half.get((1, fid)), half.get((2, fid))
                if a and b2:
                    queues.setdefault((0, fid), deque()).append(max(a.popleft(), b2.popleft()))
            continue
        reach = own_time(local, ins, True) + shift[local]
        arrive = queues[(local, fid)].popleft()
        if arrive > reach:
            shift[local] += arrive - reach
            held[local] += arrive - reach
            slicess[local].append(("cross-core", reach, arrive, f"wait flag {fid}", ins_where(ins)))
    names = [f"AI core {c} cube"] + [f"AI core {c} vector {s}" for s in range(2)]
    out = []
    for i in range(3):
        # each slice moves by the shift of the segment it is in: replay the holds in time order
        moved = _shift_slices(slicess[i], held_marks(slicess[i]))
        out.append(MixCoreTime(names[i], ends[i] + shift[i], busys[i], held[i], moved))
    return out


def ins_where(ins: Any) -> str:
    return ins.node.loc.short if hasattr(ins, "node") and ins.node.loc is not None else ""


def held_marks(slices: list) -> list[tuple[float, float]]:
    """(independent time of the hold, its length) for each cross-core hold, from the `cross-core` rows (whose
    start is already on the shifted clock)."""
    marks, total = [], 0.0
    for row, s, e, _what, _where in sorted((x for x in slices if x[0] == "cross-core"), key=lambda x: x[1]):
        marks.append((s - total, e - s))
        total += e - s
    return marks


def _shift_slices(slices: list, marks: list[tuple[float, float]]) -> list:
    out = []
    for row, s, e, what, where in slices:
        if row == "cross-core":
            out.append((row, s, e, what, where))
            continue
        d = sum(length for at, length in marks if at <= s)
        out.append((row, s + d, e + d, what, where))
    return out


def profile_mix(art: Any, job: LaunchJob, execute: bool = True, plat: Any = None) -> MixProfile:
    """Run the mixed kernel on the simulator (on copies of the arrays when `execute` is False: the mixed
    simulator has no data-free mode) recording each core's pipe models and the cross-core events, then time it
    (`plat`: the vector cores' platform; the cube's figures are runtime/cube_timing.py's)."""
    plat = plat if plat is not None else platform(job.options.get("platform"))
    if not execute:
        arrays = [None if a is None else a.copy() for a in job.bound.arrays]
        job = dataclasses.replace(job, bound=dataclasses.replace(job.bound, arrays=arrays))
    record: list = []
    from .. import config
    quiet = contextlib.redirect_stdout(io.StringIO()) if not execute else contextlib.nullcontext()
    with quiet:
        art.launch(job, config.sanitize(), record=record)
    lat = cross_core_latency_us(plat)
    cores: list[MixCoreTime] = []
    for c, (cube, vecs, events) in enumerate(record):
        cores += _ai_core(c, cube, vecs, events, plat, lat)
    return MixProfile(job.name, job.core_num, cores, lat)


__all__ = ["MixProfile", "profile_mix"]
