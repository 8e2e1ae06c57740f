"""Where a launch's GM traffic lives: the L2 and the HBM behind it, and what each can sustain.

Every GM byte a core moves passes through the L2 (the L2-level bandwidth bounds all of them). The
HBM sees only what the L2 cannot serve, and the measurements the model is calibrated on flush the L2
before each run (docs/facts.md#timing-facts), so:
- every distinct byte the launch reads comes from the HBM once (a cold miss);
- a byte read again hits the L2 while the working set fits it; of a working set larger than the L2,
  the share that does not fit misses again;
- written bytes stay in the (write-back) L2 while the working set fits; the part of the working set
  beyond the L2's capacity is written back to the HBM during the launch (at most what was written).

The launch then needs at least max(L2 traffic / L2 bandwidth, HBM traffic / HBM bandwidth): the
level with the larger time is the one that bounds it (`Levels.bound`), and traffic / that time is the
launch's sustained GM rate, which the cores streaming at once share (`Levels.core_share`). The
bandwidths are runtime/platform.py's, with their sources.
"""
from __future__ import annotations

from dataclasses import dataclass

from .platform import Platform


@dataclass(frozen=True, slots=True)
class Levels:
    moved: float             # GM bytes moved by all cores
    traffic: float           # the same, with copies off a gm_align_bytes boundary counted at what they cost
    working_set: float       # distinct GM bytes touched
    hbm_traffic: float       # of the traffic, bytes the HBM serves (cold reads, misses, write-backs)
    l2_cycles: float         # traffic over the L2-level bandwidth
    hbm_cycles: float        # HBM traffic over the HBM bandwidth

    @property
    def bound(self) -> str:
        """The level whose bandwidth bounds the launch's GM traffic: "HBM" or "L2"."""
        return "HBM" if self.hbm_cycles > self.l2_cycles else "L2"

    @property
    def cycles(self) -> float:
        """The least time the launch's GM traffic needs."""
        return max(self.l2_cycles, self.hbm_cycles)

    @property
    def rate(self) -> float:
        """The launch's sustained GM rate in bytes per cycle (traffic over the bounding level's time;
        inf for a launch without GM traffic)."""
        return self.traffic / self.cycles if self.cycles else float("inf")

    def core_share(self, streaming: int) -> float:
        """Bytes per cycle of the sustained rate for each of `streaming` cores copying at once."""
        return self.rate / max(1, streaming)


def levels(plat: Platform, reads: dict[int, float], writes: dict[int, float], arg_bytes: dict[int, int],
           unaligned_extra: float = 0.0) -> Levels:
    """The launch's traffic by level. reads / writes: bytes moved from / to each GM argument by all
    cores; arg_bytes: each argument's size; unaligned_extra: bandwidth lost to copies off a
    gm_align_bytes boundary (charged to both levels in proportion)."""
    read_total, write_total = sum(reads.values()), sum(writes.values())
    moved = read_total + write_total
    if not moved:
        return Levels(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    params = set(reads) | set(writes)
    size = {p: float(arg_bytes.get(p, 0)) or reads.get(p, 0.0) + writes.get(p, 0.0) for p in params}
    distinct_read = sum(min(size[p], b) for p, b in reads.items())
    distinct_written = sum(min(size[p], b) for p, b in writes.items())
    working_set = sum(min(size[p], reads.get(p, 0.0) + writes.get(p, 0.0)) for p in params)
    l2 = plat.l2_mib * (1 << 20)
    beyond = max(0.0, working_set - l2)
    miss = beyond / working_set if working_set else 0.0
    hbm = distinct_read + (read_total - distinct_read) * miss + min(distinct_written, beyond)
    scale = (moved + unaligned_extra) / moved
    traffic, hbm = moved * scale, hbm * scale
    per_cycle = 1e3 / plat.clock_mhz                     # GB/s over MHz = bytes per cycle x 1e-3
    return Levels(moved, traffic, working_set, hbm, traffic / (plat.l2_gbytes_per_s * per_cycle),
                  hbm / (plat.hbm_gbytes_per_s * per_cycle))
