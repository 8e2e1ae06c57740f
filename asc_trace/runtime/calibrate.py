"""Fitting the timing model's two chip-level bandwidths to measured whole-kernel times, and checking
the fit on what it was not fitted to.

Only the L2-level and the HBM bandwidths are fitted (platform.py: l2_gbytes_per_s, hbm_gbytes_per_s);
every other figure comes from its own source. The fit minimises the squared log-ratios of modeled to
measured times (so every case counts by its relative error), on a grid, coarse then fine, within
what physics allows: the HBM's sustained rate at most its spec peak, the L2 at least as fast as the
HBM behind it. A profile is recorded once and re-timed for each candidate (`Profile.retimed`), so a
fit costs replays of the recorded cores, not simulations.

`leave_one_out` is the validation: each case predicted by the parameters fitted on the others.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .platform import Platform, with_overrides
from .profile import Profile


@dataclass(frozen=True)
class Case:
    name: str
    profile: Profile             # recorded on any preset; re-timed on the candidates
    measured_us: float


@dataclass(frozen=True)
class Prediction:
    case: Case
    platform: Platform           # fitted on the other cases
    modeled_us: float

    @property
    def error(self) -> float:
        return self.modeled_us / self.case.measured_us - 1


def modeled_us(case: Case, plat: Platform) -> float:
    return plat.cycles_to_us(case.profile.record.cycles(plat))


def _cost(cases: Sequence[Case], plat: Platform) -> float:
    return sum(math.log(modeled_us(c, plat) / c.measured_us) ** 2 for c in cases)


def _grid(lo: float, hi: float, step: float) -> list[float]:
    n = int(round((hi - lo) / step))
    return [lo + i * step for i in range(n + 1)]


def fit(cases: Sequence[Case], base: Platform) -> Platform:
    """`base` with l2_gbytes_per_s and hbm_gbytes_per_s fitted to `cases` (GB/s, to 4 GB/s)."""
    if not cases:
        raise ValueError("nothing to fit to")
    peak = base.hbm_peak_gbytes_per_s
    best: tuple[float, float, float] | None = None
    l2s, hbms = _grid(500.0, 6000.0, 100.0), _grid(200.0, peak, 50.0)
    for step in (100.0, 20.0, 5.0):
        for l2 in l2s:
            for hbm in hbms:
                if hbm > peak or l2 < hbm:
                    continue
                cost = _cost(cases, with_overrides(base, l2_gbytes_per_s=l2, hbm_gbytes_per_s=hbm))
                if best is None or cost < best[0] - 1e-12:
                    best = (cost, l2, hbm)
        _, l2, hbm = best
        fine = step / 5
        l2s = _grid(max(100.0, l2 - step), l2 + step, fine)
        hbms = _grid(max(50.0, hbm - step), min(peak, hbm + step), fine)
    assert best is not None
    return with_overrides(base, l2_gbytes_per_s=best[1], hbm_gbytes_per_s=best[2])


def leave_one_out(cases: Sequence[Case], base: Platform) -> list[Prediction]:
    """Each case predicted on the parameters fitted to all the others."""
    out = []
    for i, case in enumerate(cases):
        plat = fit([c for j, c in enumerate(cases) if j != i], base)
        out.append(Prediction(case, plat, modeled_us(case, plat)))
    return out
