"""The modeled timing of the scheduler's work (issue 3 goals), from the simulator's pipe model:

1. the flag-free one-buffer vadd, auto-synced, on 8 cores x 4,096 float32: the cores' modeled cycles
   within 10 % of its busiest pipe's busy cycles (the pipes really overlap);
2. the same, at most 0.75x the seed's hand-synchronised kernel (whose MTE3->MTE2 handshake
   serialises its tiles);
3. at a large size (8 cores x 1 Mi float32, 16 KB tiles) at least 90 % of the model's own memory
   roofline (bytes moved / MTE bandwidth).
The first two compare the cores' time (`Profile.core_cycles`) without the fixed costs no overlap can
hide: the launch floor, and the first copy's latency (first_copy_latency_us) each core waits once.
Every figure comes from the same run; the parameters are in asc_trace/runtime/platform.py.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import asc_trace as asc  # noqa: E402
from vadd import vadd_kernel  # noqa: E402
from vadd_noflags import vadd_noflags  # noqa: E402


def main() -> None:
    cores, per_core = 8, 4096
    rng = np.random.default_rng(0)
    x = rng.random(cores * per_core, dtype=np.float32)
    y = rng.random(cores * per_core, dtype=np.float32)
    z = np.zeros_like(x)
    auto = asc.profile(vadd_noflags, x, y, z, per_core, 256, core_num=cores)
    assert np.array_equal(z, x + y)
    seed = asc.profile(vadd_kernel, x, y, z, per_core, core_num=cores)
    busiest = max(auto.pipe_busy[p] for p in ("MTE2", "V", "MTE3"))
    latency = auto.platform.us_to_cycles(auto.platform.first_copy_latency_us)
    work, seed_work = auto.core_cycles - latency, seed.core_cycles - latency
    over = work / busiest - 1
    ratio = work / seed_work
    print(f"flag-free vadd, auto-synced, {cores} x {per_core} f32, 256-element tiles: {work:,.0f} cycles after the "
          f"first copy's latency ({latency:,.0f}); busiest pipe {busiest:,.0f} -> {over:+.1%} (goal: within 10%) -> "
          f"{'met' if over <= 0.10 else 'NOT met'}")
    print(f"seed manual vadd, same data: {seed_work:,.0f} cycles; flag-free / seed = {ratio:.2f} "
          f"(goal: <= 0.75) -> {'met' if ratio <= 0.75 else 'NOT met'}")

    n = 1 << 20
    xb = rng.random(cores * n, dtype=np.float32)
    yb = rng.random(cores * n, dtype=np.float32)
    zb = np.zeros_like(xb)
    big = asc.profile(vadd_noflags, xb, yb, zb, n, 4096, core_num=cores)
    assert np.array_equal(zb, xb + yb)
    eff = big.roofline_efficiency
    print(f"flag-free vadd, {cores} x {n} f32, 4096-element tiles: {big.launch.body_cycles:,.0f} cycles (without the "
          f"launch floor) vs memory roofline "
          f"{big.memory_roofline_cycles:,.0f} -> {eff:.1%} (goal: >= 90%) -> {'met' if eff >= 0.90 else 'NOT met'}")
    print()
    print(auto.summary())


if __name__ == "__main__":
    main()
