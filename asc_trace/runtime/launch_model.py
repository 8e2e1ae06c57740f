"""The chip-level part of the timing model: what one launch costs beyond its cores' pipes.

A launch of `core_num` blocks on a chip with `aiv_cores` vector cores runs in waves of at most
`aiv_cores` blocks (block b in wave b // aiv_cores, as the hardware hands blocks to free cores in
order); each extra wave costs `wave_us` besides its own work. All blocks share the chip's GM
bandwidth, which depends on the launch's working set (L2-assisted while it fits the L2, the HBM
rate for the rest). The device-side floor `launch_us` comes on top. So

    cycles = launch floor + (waves - 1) x wave cost + max(sum over waves of the slowest block,
                                                          GM traffic / chip GM bandwidth)

Every figure comes from runtime/platform.py, with its source.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .platform import Platform

if TYPE_CHECKING:
    from .profile import CoreTimeline


@dataclass(frozen=True, slots=True)
class LaunchTiming:
    blocks: int
    waves: int
    wave_cycles: tuple[float, ...]      # the slowest block of each wave
    wave_starts: tuple[float, ...]      # when each wave starts (after the floor and the waves before it)
    floor_cycles: float                 # the device-side launch floor
    wave_overhead_cycles: float         # (waves - 1) x the cost of an extra wave
    gm_bytes: float                     # GM traffic of all blocks
    gm_effective_bytes: float           # the same, with the bandwidth copies not 512 B-aligned lose
    working_set: float                  # bytes of GM the launch touches (at most its traffic)
    gm_bytes_per_cycle: float           # the chip's GM bandwidth for that working set
    gm_bound_cycles: float              # effective traffic over that bandwidth

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


def model_launch(plat: Platform, cores: list["CoreTimeline"], arg_bytes: dict[int, int]) -> LaunchTiming:
    """The launch's timing from its blocks' timelines and the sizes of its GM arguments."""
    per_wave = max(1, int(plat.aiv_cores))
    waves = -(-len(cores) // per_wave)
    wave_cycles = [0.0] * waves
    for c in cores:
        w = c.core // per_wave
        wave_cycles[w] = max(wave_cycles[w], c.cycles)
    floor = plat.us_to_cycles(plat.launch_us)
    wave_cost = plat.us_to_cycles(plat.wave_us)
    starts, t = [], floor
    for w in range(waves):
        starts.append(t)
        t += wave_cycles[w] + wave_cost
    traffic = sum(sum(c.gm_bytes) for c in cores)
    effective = traffic + sum(sum(c.gm_extra) for c in cores)
    touched = set().union(*(c.gm_params for c in cores)) if cores else set()
    working_set = min(traffic, float(sum(arg_bytes.get(p, 0) for p in touched)))
    rate = plat.gm_bytes_per_cycle(working_set)
    return LaunchTiming(len(cores), waves, tuple(wave_cycles), tuple(starts), floor, (waves - 1) * wave_cost,
                        traffic, effective, working_set, rate, effective / rate)
