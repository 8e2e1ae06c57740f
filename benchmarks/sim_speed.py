"""Simulator throughput: the seed's manual vadd kernel on 8 cores x 65,536 float32 on `sim`,
against NumPy's `x + y` measured in the same run. Goal (issue 2): at most 20x NumPy's time."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import asc_trace as asc  # noqa: E402
from _timing import best_time  # noqa: E402
from vadd import vadd_kernel  # noqa: E402

CORES = 8
PER_CORE = 65536
GOAL = 20.0


def main() -> None:
    n = CORES * PER_CORE
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    z = np.zeros_like(x)
    kernel = asc.jit(vadd_kernel, backend="sim")
    kernel[CORES](x, y, z, PER_CORE)
    assert np.array_equal(z, x + y)
    t_sim = best_time(lambda: kernel[CORES](x, y, z, PER_CORE))
    t_np = best_time(lambda: x + y, number=20)
    ratio = t_sim / t_np
    sanitize = os.environ.get("ASC_TRACE_SANITIZE", "1") != "0"
    print(f"sim vadd, {CORES} cores x {PER_CORE} float32 (race checker {'on' if sanitize else 'off'}): "
          f"{t_sim * 1e3:.2f} ms")
    print(f"numpy x + y, same data:                           {t_np * 1e3:.3f} ms")
    print(f"ratio: {ratio:.1f}x NumPy (goal: <= {GOAL:.0f}x) -> {'met' if ratio <= GOAL else 'NOT met'}")


if __name__ == "__main__":
    main()
