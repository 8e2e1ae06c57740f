"""The timing model's parameters: one table, each value with its source.

Sources are the timing facts and the A2 facts (docs/facts.md#timing-facts, #facts-1), marked
"spec" (a configuration value), "measured" (timed on hardware), "fitted" (a vendor cost model fitted
to hardware, or our fit to the measured whole kernels), or "assumed" where nothing is published.
Vector instruction costs live with their op records (`OpDef.cost`, graph/ops/); everything else is
here. Platform presets override the chip-level figures.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

_PTO = "fitted: PTO-ISA cost model for A2/A3 (timing facts, include/pto/costmodel/arch_config.hpp)"

_FIT = ("fitted: least squares of this model over the six whole-kernel times of the timing facts "
        "(benchmarks/calibration.py, which also predicts each one left out from the other five): ")

# name -> (value, source)
PARAMETERS: dict[str, tuple[float, str]] = {
    "aiv_cores": (48, "spec: 910B2 has 24 AI Cube + 48 AI Vector cores (CANN platform ini, timing facts)"),
    "clock_mhz": (1800, "measured: msprof op reports the AI Core clock at 1,800 MHz on A2 "
                        "(tilelang-ascend PR #1699, timing facts)"),
    "mte2_bytes_per_cycle": (58.6, f"{_PTO}: GM -> UB 100.9 GiB/s per core at 1.85 GHz"),
    "mte3_bytes_per_cycle": (109.4, f"{_PTO}: UB -> GM 188.46 GiB/s per core at 1.85 GHz"),
    "copy_best_bytes": (16384, "measured: bandwidth is best with at least 16 KB per DataCopy (official Ascend C "
                               "best practices, A2, single core)"),
    "copy_best_efficiency": (0.95, "assumed: a copy of copy_best_bytes reaches 95 % of the pipe's rate (the "
                                  "published curve is an image); sets the per-copy start cost"),
    "gm_align_bytes": (512, "measured: GM addresses aligned to 512 B reach the best bandwidth (official best "
                            "practices); arguments are assumed to start 512 B-aligned"),
    "gm_unaligned_efficiency": (0.7, "measured: a GM address aligned to 32 B only can reach as little as 70 % of "
                                     "the bandwidth of a 512 B-aligned one (official best practices)"),
    "l2_mib": (192, "spec: 910B2 L2 192 MiB (CANN platform ini, timing facts)"),
    "l2_gbytes_per_s": (2300, _FIT + "the bandwidth at which the L2 serves all GM traffic"),
    "hbm_gbytes_per_s": (1488, _FIT + "what the HBM sustains for the launches' mix of reads and write-backs, at most "
                               "the spec's 1.6 TB/s"),
    "hbm_peak_gbytes_per_s": (1600, "spec: HBM 1.6 TB/s on 910B2/B3 (third-party simulator configuration, timing "
                                    "facts); the sustained rate above never exceeds it"),
    "launch_us": (2.75, "derived: 'a tiny kernel has a device-side floor of about 3 us' (timing facts), less the "
                        "first-copy latency that floor contains, so that each is counted once"),
    "first_copy_latency_us": (0.25, "assumed: a core's first GM copy waits this long before its bytes move (the cold "
                                    "path to the HBM, a few hundred ns as on other HBM devices; not published for "
                                    "the 910B); later copies queue behind earlier ones, and copy_best_efficiency "
                                    "bounds what each still pays"),
    "wave_us": (2.0, "measured: each extra wave of small blocks costs about 2 us (tilelang-ascend PR #1791, "
                     "910B3, CANN 9.0.0)"),
    "issue_cycles": (2, "assumed: scalar-unit cycles to issue one instruction"),
    "loop_cycles": (4, "assumed: scalar-unit cycles per loop iteration (increment, compare, branch)"),
    "flag_cycles": (1, "assumed: a set_flag / wait_flag / barrier occupies its pipe for one cycle"),
    "flag_latency": (10, "assumed: cycles from a set_flag to the waiting pipe resuming (not published)"),
    "scalar_ub_cycles": (20, "assumed: one GetValue / SetValue of the UB on the scalar unit"),
}


@dataclass(frozen=True, slots=True)
class Platform:
    name: str
    aiv_cores: int
    clock_mhz: float
    mte2_bytes_per_cycle: float
    mte3_bytes_per_cycle: float
    copy_best_bytes: float
    copy_best_efficiency: float
    gm_align_bytes: int
    gm_unaligned_efficiency: float
    l2_mib: float
    l2_gbytes_per_s: float
    hbm_gbytes_per_s: float
    hbm_peak_gbytes_per_s: float
    launch_us: float
    first_copy_latency_us: float
    wave_us: float
    issue_cycles: float
    loop_cycles: float
    flag_cycles: float
    flag_latency: float
    scalar_ub_cycles: float

    def copy_start_cycles(self, bytes_per_cycle: float) -> float:
        """The fixed cost of one copy on a pipe moving `bytes_per_cycle`, such that a copy of
        copy_best_bytes runs at copy_best_efficiency of the rate (smaller copies derate more)."""
        return self.copy_best_bytes * (1 / self.copy_best_efficiency - 1) / bytes_per_cycle


    def gm_aligned(self, start: Any, itemsize: int) -> bool:
        """Whether GM element `start` (one per core, or one for all) is gm_align_bytes-aligned on every
        core, arguments starting aligned."""
        if isinstance(start, int):
            return (start * itemsize) % self.gm_align_bytes == 0
        return not bool(((np.asarray(start) * itemsize) % self.gm_align_bytes).any())

    def core_key(self) -> tuple:
        """The figures one core's timing depends on (runtime/core_timing.py); the chip-level ones (GM
        levels, launch floor, waves) only decide each core's share and what comes on top."""
        return (self.clock_mhz, self.mte2_bytes_per_cycle, self.mte3_bytes_per_cycle, self.copy_best_bytes,
                self.copy_best_efficiency, self.gm_unaligned_efficiency, self.first_copy_latency_us,
                self.issue_cycles, self.loop_cycles, self.flag_cycles, self.flag_latency, self.scalar_ub_cycles)

    def us_to_cycles(self, us: float) -> float:
        return us * self.clock_mhz

    def cycles_to_us(self, cycles: float) -> float:
        return cycles / self.clock_mhz

    def table(self) -> list[tuple[str, Any, str]]:
        """(parameter, value, source) for every parameter of this preset."""
        out = []
        for f in fields(self):
            if f.name == "name":
                continue
            src = _PRESET_SOURCES.get(self.name, {}).get(f.name, PARAMETERS[f.name][1])
            out.append((f.name, getattr(self, f.name), src))
        return out

    def fingerprint(self) -> str:
        """Every value of the model's table, for caches of decisions taken on the model (autotuning)."""
        return repr(sorted((f.name, getattr(self, f.name)) for f in fields(self)))


_BASE = {k: v for k, (v, _) in PARAMETERS.items()}

# Chip presets. The per-core rates are the A2 core's and the same on every 910B.
PRESETS: dict[str, dict[str, float]] = {
    "Ascend910B1": {"aiv_cores": 48, "clock_mhz": 1850},
    "Ascend910B2": {},
    "Ascend910B3": {"aiv_cores": 40},
    "Ascend910B4": {"aiv_cores": 40, "clock_mhz": 1500, "l2_mib": 96, "hbm_peak_gbytes_per_s": 800,
                    "hbm_gbytes_per_s": _BASE["hbm_gbytes_per_s"] * 0.5, "l2_gbytes_per_s": _BASE["l2_gbytes_per_s"] * 0.5},
}
_PRESET_SOURCES: dict[str, dict[str, str]] = {
    "Ascend910B1": {"aiv_cores": "spec: 910B1 has 24 AIC + 48 AIV (ascendc-facts §1)",
                    "clock_mhz": "spec, quoted by third parties: 910B1 at 1850 MHz (ascendc-facts §1)"},
    "Ascend910B3": {"aiv_cores": "spec: 910B3 has 20 AIC + 40 AIV (ascendc-facts §1)",
                    "l2_mib": "assumed: as 910B2",
                    "hbm_gbytes_per_s": "assumed: as 910B2 (same HBM spec, 1.6 TB/s; timing facts)"},
    "Ascend910B4": {"aiv_cores": "spec: 910B4 has 20 AIC + 40 AIV (timing facts)",
                    "clock_mhz": "spec: 910B4 1,500 MHz (timing facts)",
                    "l2_mib": "spec: 910B4 L2 96 MiB (timing facts)",
                    "hbm_gbytes_per_s": "derived: the 910B2's fitted rate x the HBM spec ratio 0.8 / 1.6 "
                                        "(timing facts)",
                    "hbm_peak_gbytes_per_s": "spec: HBM 0.8 TB/s on 910B4 (timing facts)",
                    "l2_gbytes_per_s": "assumed: the 910B2 fit scaled by the HBM ratio (0.8 / 1.6)"},
}


DEFAULT_PLATFORM = "Ascend910B2"


def platform(name: str | None = None, **overrides: float) -> Platform:
    """A preset (Ascend910B1-B4; None: the one `asc_trace.runtime.config.set_platform` chose, else the
    default), optionally with parameters overridden (e.g. flag_latency=20)."""
    from ..config import process_platform
    if name is not None and not isinstance(name, str):    # before any truth test: an array has none
        from ..errors import LaunchError
        raise LaunchError(f"unknown platform {name!r} (a {type(name).__name__}); presets: {', '.join(PRESETS)}", None)
    name = name or process_platform() or DEFAULT_PLATFORM
    if name not in PRESETS:
        from ..errors import LaunchError
        raise LaunchError(f"unknown platform {name!r}; presets: {', '.join(PRESETS)}", None)
    values = {**_BASE, **PRESETS[name], **check_overrides(overrides)}
    return Platform(name=name, **values)


# Parameters the model divides by (zero would be a ZeroDivisionError, a negative a negative time), the
# fractions among them (at most 1), and the counts (whole numbers); every other one may also be 0.
_POSITIVE = frozenset({"aiv_cores", "clock_mhz", "mte2_bytes_per_cycle", "mte3_bytes_per_cycle", "copy_best_efficiency",
                       "gm_align_bytes", "gm_unaligned_efficiency", "l2_gbytes_per_s", "hbm_gbytes_per_s",
                       "hbm_peak_gbytes_per_s"})
_FRACTIONS = frozenset({"copy_best_efficiency", "gm_unaligned_efficiency"})
_COUNTS = frozenset({"aiv_cores", "gm_align_bytes"})


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:       # an int beyond any float
        return False


def check_overrides(kw: dict[str, Any], loc: Any = None) -> dict[str, float]:
    """Parameter overrides a user gave (Profile.retimed, platform()): known names, finite real numbers in
    each parameter's range; an OptionError naming the first that is not."""
    from ..errors import OptionError
    out: dict[str, float] = {}
    for name, value in kw.items():
        if name not in PARAMETERS:
            raise OptionError(f"{name!r} is not a timing-model parameter; they are: {', '.join(PARAMETERS)}", loc)
        if name in _COUNTS:
            ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value >= 1
            want = "an int of at least 1"
        else:
            ok = (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
                  and _finite(value) and (value > 0 if name in _POSITIVE else value >= 0)
                  and (value <= 1 if name in _FRACTIONS else True))
            want = ("a number in (0, 1]" if name in _FRACTIONS else "a finite number above 0" if name in _POSITIVE
                    else "a finite number of at least 0")
        if not ok:
            raise OptionError(f"timing-model parameter {name} must be {want}, got {type(value).__name__} {value!r}",
                              loc)
        out[name] = int(value) if name in _COUNTS else float(value)
    return out


def with_overrides(p: Platform, **kw: float) -> Platform:
    return replace(p, **check_overrides(kw))
