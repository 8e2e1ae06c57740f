"""The chip-level part of the timing model: how the blocks of a launch share the chip, and what the
launch costs beyond its cores' pipes.

A launch of `core_num` blocks on a chip with `aiv_cores` vector cores runs in waves of at most
`aiv_cores` blocks (block b in wave b // aiv_cores, as the hardware hands blocks to free cores in
order); each extra wave costs `wave_us` besides its own work. The launch's GM traffic lives in the L2
and the HBM (runtime/memory_levels.py): the bounding level's time gives the launch's sustained GM
rate, and the blocks of a wave, streaming at once, share it evenly: each core's MTE2 and MTE3 copies
together move at most rate / (blocks in the wave) bytes per cycle (runtime/core_timing.py). Then

    cycles = launch floor + (waves - 1) x wave cost + max(sum over waves of the slowest block,
                                                          GM traffic / the bounding level's bandwidth)

The second term of the max is the level's bound as an invariant: the shares already keep the blocks
within it. Every figure comes from runtime/platform.py, with its source.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .core_timing import CoreTiming, time_core
from .memory_levels import Levels, levels
from .platform import Platform


@dataclass(slots=True)
class GroupRecord:
    """What the pipe model recorded for one group of cores that ran in lockstep (per core)."""

    cores: tuple[int, ...]
    log: tuple                                   # core_timing's log: the execution order
    nodes: dict[int, Any]                        # node id -> Node
    gm_bytes: list[float]                        # GM bytes per core, by pipe
    gm_unaligned: list[float]                    # of them, bytes of copies off a gm_align_bytes boundary
    reads: dict[int, float]                      # GM argument -> bytes read per core
    writes: dict[int, float]                     # GM argument -> bytes written per core


class LaunchRecord:
    """A profiled launch, ready to be timed on any platform's parameters: its groups' logs (each
    distinct log kept once), and its GM traffic by argument."""

    def __init__(self, groups: list[GroupRecord], arg_bytes: dict[int, int]) -> None:
        self.groups = groups
        self.arg_bytes = arg_bytes                    # GM argument -> its size in bytes
        ids: dict[tuple, int] = {}
        self.log_ids = [ids.setdefault(g.log, len(ids)) for g in groups]    # per group: its distinct log
        self.reads: dict[int, float] = {}             # GM argument -> bytes read by all blocks
        self.writes: dict[int, float] = {}
        self.unaligned = 0.0                          # bytes of copies off a gm_align_bytes boundary
        for g in groups:
            n = len(g.cores)
            for p, b in g.reads.items():
                self.reads[p] = self.reads.get(p, 0.0) + b * n
            for p, b in g.writes.items():
                self.writes[p] = self.writes.get(p, 0.0) + b * n
            self.unaligned += n * sum(g.gm_unaligned)
        self.blocks = sum(len(g.cores) for g in groups)
        self._timed: dict[tuple, CoreTiming] = {}     # (core figures, log id, share, slices) -> timing

    def levels(self, plat: Platform) -> Levels:
        lost = self.unaligned * (1 / plat.gm_unaligned_efficiency - 1)
        return levels(plat, self.reads, self.writes, self.arg_bytes, lost)

    def waves(self, plat: Platform) -> tuple[int, tuple[int, ...]]:
        """(waves, blocks streaming at once in each wave)."""
        per_wave = max(1, int(plat.aiv_cores))
        waves = max(1, -(-self.blocks // per_wave))
        return waves, tuple(min(per_wave, self.blocks - w * per_wave) for w in range(waves))

    def core(self, plat: Platform, group: int, share: float, slices: bool) -> CoreTiming:
        """One group's timing at `share` bytes per cycle (replayed once per distinct log and share)."""
        g = self.groups[group]
        keep = slices and bool(g.nodes)
        key = (plat.core_key(), self.log_ids[group], share, keep)
        t = self._timed.get(key)
        if t is None:
            t = self._timed[key] = time_core(g.log, plat, share, g.nodes if keep else None)
        return t

    def cycles(self, plat: Platform) -> float:
        """The launch's modeled cycles on `plat` (what time_launch gives, without the timelines)."""
        lv = self.levels(plat)
        per_wave = max(1, int(plat.aiv_cores))
        waves, streaming = self.waves(plat)
        slowest = [0.0] * waves
        seen: set[tuple[int, int]] = set()
        for i, g in enumerate(self.groups):
            for c in g.cores:
                w = c // per_wave
                if (self.log_ids[i], w) in seen:
                    continue
                seen.add((self.log_ids[i], w))
                slowest[w] = max(slowest[w], self.core(plat, i, lv.core_share(streaming[w]), False).cycles)
        return (plat.us_to_cycles(plat.launch_us) + (waves - 1) * plat.us_to_cycles(plat.wave_us)
                + max(sum(slowest), lv.cycles))


@dataclass(slots=True)
class CoreTimeline:
    core: int                                       # the block index
    cycles: float
    busy: list[float]                               # by pipe index (S, MTE2, V, MTE3)
    slices: list[tuple[int, float, float, Any]]     # (pipe, start, end, Node or IssueRun)
    gm_bytes: list[float]                           # GM bytes moved, by pipe index
    share: float                                    # bytes per cycle of the chip's GM rate this core had
    latency: float                                  # cycles its first copy waited (0: no copy)


@dataclass(frozen=True, slots=True)
class LaunchTiming:
    blocks: int
    waves: int
    wave_cycles: tuple[float, ...]      # the slowest block of each wave
    wave_starts: tuple[float, ...]      # when each wave starts (after the floor and the waves before it)
    floor_cycles: float                 # the device-side launch floor
    wave_overhead_cycles: float         # (waves - 1) x the cost of an extra wave
    levels: Levels                      # the GM traffic by memory level
    streaming: tuple[int, ...]          # blocks streaming at once, by wave

    @property
    def gm_bytes(self) -> float:
        """GM bytes all blocks moved."""
        return self.levels.moved

    @property
    def gm_bound_cycles(self) -> float:
        """The least time the launch's GM traffic needs at its bounding level."""
        return self.levels.cycles

    @property
    def core_cycles(self) -> float:
        """The cores' part: the slowest block of each wave, wave after wave."""
        return sum(self.wave_cycles)

    @property
    def overhead_cycles(self) -> float:
        return self.floor_cycles + self.wave_overhead_cycles

    @property
    def body_cycles(self) -> float:
        return max(self.core_cycles, self.gm_bound_cycles)

    @property
    def cycles(self) -> float:
        return self.overhead_cycles + self.body_cycles


def time_launch(plat: Platform, record: LaunchRecord, slices: bool = True) -> tuple[LaunchTiming, list[CoreTimeline]]:
    """Time a recorded launch on `plat`: its levels, each wave's per-core share, each block's timeline."""
    per_wave = max(1, int(plat.aiv_cores))
    waves, streaming = record.waves(plat)
    lv = record.levels(plat)
    timelines: list[CoreTimeline] = []
    for i, g in enumerate(record.groups):
        for c in g.cores:
            share = lv.core_share(streaming[c // per_wave])
            t = record.core(plat, i, share, slices)
            timelines.append(CoreTimeline(c, t.cycles, t.busy, t.slices or [], g.gm_bytes, share, t.latency))
    timelines.sort(key=lambda tl: tl.core)
    wave_cycles = [0.0] * waves
    for tl in timelines:
        w = tl.core // per_wave
        wave_cycles[w] = max(wave_cycles[w], tl.cycles)
    floor = plat.us_to_cycles(plat.launch_us)
    wave_cost = plat.us_to_cycles(plat.wave_us)
    starts, t = [], floor
    for w in range(waves):
        starts.append(t)
        t += wave_cycles[w] + wave_cost
    timing = LaunchTiming(record.blocks, waves, tuple(wave_cycles), tuple(starts), floor, (waves - 1) * wave_cost, lv,
                          streaming)
    return timing, timelines
