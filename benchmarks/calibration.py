"""The timing model against the published 910B2 whole-kernel times (ascend-timing-facts.md): CANN's
Sigmoid, GELU and Maximum, written the plain Ascend C way (examples/cann_elementwise.py) and profiled
on the Ascend910B2 preset with 48 cores, timing only. Prints modeled vs measured (goal: within
+-25 % each) and how long each profile took on this machine.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import cann_elementwise as cann  # noqa: E402


def main() -> None:
    print(f"measured: {cann.MEASURED_SOURCE}")
    print(f"{'kernel':<26} {'bytes moved':>12} {'measured':>9} {'modeled':>9} {'error':>7}  bound by (profile wall time)")
    worst = 0.0
    for name, rows, cols, dtype, measured in cann.MEASURED:
        t0 = time.perf_counter()
        prof = cann.profile(name, rows, cols, dtype)
        wall = time.perf_counter() - t0
        err = prof.time_us / measured - 1
        worst = max(worst, abs(err))
        print(f"{name + f' {rows}x{cols} {dtype}':<26} {prof.gm_bytes / 1e6:>9.1f} MB {measured:>7.2f}us "
              f"{prof.time_us:>7.2f}us {err:>+7.1%}  {prof.bound} ({wall:.2f} s)")
    print(f"largest error {worst:.1%} (goal: <= 25%) -> {'met' if worst <= 0.25 else 'NOT met'}")


if __name__ == "__main__":
    main()
