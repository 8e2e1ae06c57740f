"""The timing model against the published 910B2 whole-kernel times (ascend-timing-facts.md): CANN's
Sigmoid, GELU and Maximum, written the plain Ascend C way (examples/cann_elementwise.py) and profiled
on the Ascend910B2 preset with 48 cores, timing only.

Two tables:
1. leave-one-out, the validation: each kernel predicted by the model with its two fitted figures (the
   L2-level and HBM bandwidths) fitted to the other five only; goal: within +-25 % each;
2. the platform's table as it stands (fitted to all six) against each time, for reference: these are
   fitted points, not predictions.
Every other figure of the model comes from its own source (`platform("Ascend910B2").table()`).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import cann_elementwise as cann  # noqa: E402
from asc_trace.runtime.calibrate import Case, fit, leave_one_out  # noqa: E402
from asc_trace.runtime.platform import platform  # noqa: E402


def main() -> None:
    base = platform("Ascend910B2")
    print(f"measured: {cann.MEASURED_SOURCE}")
    cases, walls = [], []
    for name, rows, cols, dtype, measured in cann.MEASURED:
        t0 = time.perf_counter()
        cases.append(Case(f"{name} {rows}x{cols} {dtype}", cann.profile(name, rows, cols, dtype), measured))
        walls.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    loo = leave_one_out(cases, base)
    t_loo = time.perf_counter() - t0

    print("\nleave-one-out: each kernel predicted from the L2 / HBM bandwidths fitted to the other five")
    print(f"{'kernel':<26} {'bytes moved':>12} {'L2 fit':>8} {'HBM fit':>8} {'measured':>9} {'predicted':>9} "
          f"{'error':>7}  bound by")
    for p in loo:
        prof = p.case.profile.retimed(p.platform)
        print(f"{p.case.name:<26} {prof.gm_bytes / 1e6:>9.1f} MB {p.platform.l2_gbytes_per_s / 1e3:>6.3f}TB "
              f"{p.platform.hbm_gbytes_per_s / 1e3:>6.3f}TB {p.case.measured_us:>7.2f}us {p.modeled_us:>7.2f}us "
              f"{p.error:>+7.1%}  {prof.bound}")
    worst = max(abs(p.error) for p in loo)
    print(f"largest left-out error {worst:.1%} (goal: <= 25%) -> {'met' if worst <= 0.25 else 'NOT met'} "
          f"(fits: {t_loo:.1f} s)")

    best = fit(cases, base)
    same = (best.l2_gbytes_per_s, best.hbm_gbytes_per_s) == (base.l2_gbytes_per_s, base.hbm_gbytes_per_s)
    print(f"\nfitted to all six: L2 {best.l2_gbytes_per_s / 1e3:.3f} TB/s, HBM {best.hbm_gbytes_per_s / 1e3:.3f} TB/s "
          f"(spec peak {base.hbm_peak_gbytes_per_s / 1e3:.1f}); the platform's table "
          f"{'holds these' if same else 'DIFFERS: ' + str((base.l2_gbytes_per_s, base.hbm_gbytes_per_s))}")
    print(f"{'kernel':<26} {'measured':>9} {'modeled':>9} {'error':>7}  bound by (profile wall time)")
    for case, wall in zip(cases, walls):
        prof = case.profile
        err = prof.time_us / case.measured_us - 1
        print(f"{case.name:<26} {case.measured_us:>7.2f}us {prof.time_us:>7.2f}us {err:>+7.1%}  {prof.bound} "
              f"({wall:.2f} s)")


if __name__ == "__main__":
    main()
