"""The timing model's parameters: one table, each value with its source or "assumed".

Vector throughput per op and dtype lives in the op registry (`OpDef.rate`, facts §10's table).
Everything else is here. Platform presets override the chip-level figures.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

# name -> (value, source)
PARAMETERS: dict[str, tuple[float, str]] = {
    "aiv_cores": (48, "910B1/B2: 24 AIC + 48 AIV (facts §1, AscendNPU-IR target spec)"),
    "clock_mhz": (1800, "910B2 cube_freq=1800 from CANN's platform_config ini, quoted by third parties (facts §1)"),
    "gm_gbytes_per_s": (1600, "assumed: no official HBM figure; triton-ascend's profiling guide uses ~1.8 TB/s "
                              "(facts §1)"),
    "mte2_bytes_per_cycle": (32, "ddr_rate=32 B/cycle per core from the CANN ini, quoted by third parties "
                                 "(facts §10)"),
    "mte3_bytes_per_cycle": (32, "assumed equal to MTE2 (no per-core MTE3 figure found, facts §10)"),
    "mte_start_cycles": (32, "assumed: a 16 KB copy then runs at 94 % of the pipe bandwidth, matching 'copies "
                             "of >= 16 KB reach best bandwidth' (facts §4)"),
    "vec_start_cycles": (16, "assumed: vector issue latency is not published (facts §10)"),
    "vec_default_rate": (64, "assumed for ops without a figure: 256 B/cycle of 32-bit elements (facts §10)"),
    "issue_cycles": (2, "assumed: scalar-unit cycles to issue one instruction"),
    "loop_cycles": (4, "assumed: scalar-unit cycles per loop iteration (increment, compare, branch)"),
    "flag_cycles": (1, "assumed: a set_flag / wait_flag / barrier occupies its pipe for one cycle"),
    "flag_latency": (10, "assumed: cycles from a set_flag to the waiting pipe resuming (not published, facts §10)"),
    "scalar_ub_cycles": (20, "assumed: one GetValue / SetValue of the UB on the scalar unit"),
}


@dataclass(frozen=True, slots=True)
class Platform:
    name: str
    aiv_cores: int
    clock_mhz: float
    gm_gbytes_per_s: float
    mte2_bytes_per_cycle: float
    mte3_bytes_per_cycle: float
    mte_start_cycles: float
    vec_start_cycles: float
    vec_default_rate: float
    issue_cycles: float
    loop_cycles: float
    flag_cycles: float
    flag_latency: float
    scalar_ub_cycles: float

    @property
    def gm_bytes_per_cycle(self) -> float:
        """Chip-wide GM bandwidth in bytes per core clock, shared by every core's MTE2 and MTE3."""
        return self.gm_gbytes_per_s * 1e9 / (self.clock_mhz * 1e6)

    def cycles_to_us(self, cycles: float) -> float:
        return cycles / self.clock_mhz

    def table(self) -> list[tuple[str, Any, str]]:
        out = []
        for f in fields(self):
            if f.name == "name":
                continue
            src = PARAMETERS[f.name][1]
            if f.name in PRESETS.get(self.name, {}) and f.name in _PRESET_SOURCES.get(self.name, {}):
                src = _PRESET_SOURCES[self.name][f.name]
            out.append((f.name, getattr(self, f.name), src))
        return out


_BASE = {k: v for k, (v, _) in PARAMETERS.items()}

# Chip presets (facts §1). Clocks and bandwidths are third-party figures or assumptions, as marked.
PRESETS: dict[str, dict[str, float]] = {
    "Ascend910B1": {"aiv_cores": 48, "clock_mhz": 1850, "gm_gbytes_per_s": 1600},
    "Ascend910B2": {"aiv_cores": 48, "clock_mhz": 1800, "gm_gbytes_per_s": 1600},
    "Ascend910B3": {"aiv_cores": 40, "clock_mhz": 1800, "gm_gbytes_per_s": 1600},
    "Ascend910B4": {"aiv_cores": 40, "clock_mhz": 1500, "gm_gbytes_per_s": 960},
}
_PRESET_SOURCES: dict[str, dict[str, str]] = {
    "Ascend910B1": {"aiv_cores": "910B1: 48 AIV (facts §1)", "clock_mhz": "910B1 quoted at 1850 MHz (facts §1, third party)"},
    "Ascend910B3": {"aiv_cores": "910B3: 20 AIC + 40 AIV (facts §1)", "clock_mhz": "assumed: same as 910B2"},
    "Ascend910B4": {"aiv_cores": "910B4: 20 AIC + 40 AIV (facts §1)",
                    "clock_mhz": "910B4 cube_freq=1500 quoted by third parties (facts §1)",
                    "gm_gbytes_per_s": "third-party derivation 20 cores x 32 B/cycle x 1.5 GHz = 0.96 TB/s (facts §1)"},
}


DEFAULT_PLATFORM = "Ascend910B2"


def platform(name: str | None = None, **overrides: float) -> Platform:
    """A preset (Ascend910B1-B4; None: the default), optionally with parameters overridden (e.g. flag_latency=20)."""
    name = name or DEFAULT_PLATFORM
    if name not in PRESETS:
        from ..errors import LaunchError
        raise LaunchError(f"unknown platform {name!r}; presets: {', '.join(PRESETS)}", None)
    values = {**_BASE, **PRESETS[name], **overrides}
    return Platform(name=name, **values)


def with_overrides(p: Platform, **kw: float) -> Platform:
    return replace(p, **kw)
