"""Simulator speed (issue 11), each figure against its goal, ratios against baselines measured in the
same run: NumPy's own `x + y` for throughput, and the launch as it ran before the fast path (every
launch through the pipe model with its data effects, timed and journalled) for the speed-up.

- the seed's manual vadd kernel on `sim` with the race checker on, 8 cores x 2,048 and x 65,536 float32:
  a launch again (its checks already passed for these arguments) vs NumPy, and the first launch of a
  launch key (the check, then the run) per loop iteration, race checker on and off;
- an empty launch on 8 cores;
- `import asc_trace` (CPU time) and the first compile in a fresh process, with bytecode cached as in any
  installation (this environment sets PYTHONDONTWRITEBYTECODE, which would add compiling every module);
- a launch's extra peak memory (tracemalloc) at 8 x 1M float32 against its output;
- `eager` per API call per core (no goal: for comparison).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "examples"))

import asc_trace as asc  # noqa: E402
from _timing import best_time  # noqa: E402
from asc_trace.runtime.args import bind_args  # noqa: E402
from asc_trace.runtime.base import LaunchJob  # noqa: E402
from asc_trace.runtime.platform import platform  # noqa: E402
from asc_trace.runtime.sim import SimRuntime, simulate  # noqa: E402
from vadd import vadd_kernel  # noqa: E402
from vadd_noflags import vadd_noflags  # noqa: E402

CORES = 8
ITERATIONS = 16        # the seed vadd's loop


def _verdict(value: float, goal: float) -> str:
    return "met" if value <= goal else "NOT met"


def _job(kernel, args: tuple, cores: int) -> tuple:
    g = asc.compile(kernel, args, core_num=cores).graph
    rt = SimRuntime()
    art = rt.prepare(g, kernel.options)
    job = LaunchJob(kernel.name, kernel.fn, g, bind_args(kernel.name, kernel.specs, args, {}, None), cores, None,
                    None, kernel.options)
    return rt, art, job


def vadd(per_core: int, goal: float) -> None:
    n = CORES * per_core
    rng = np.random.default_rng(0)
    x, y, z = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32), np.zeros(n, np.float32)
    k = asc.jit(vadd_kernel, backend="sim")
    k[CORES](x, y, z, per_core)
    assert np.array_equal(z, x + y)
    t_sim = best_time(lambda: k[CORES](x, y, z, per_core))
    t_np = best_time(lambda: x + y, number=50)
    rt, art, job = _job(k, (x, y, z, per_core), CORES)
    plat = platform(None)
    t_before = best_time(lambda: simulate(art, job, plat, True, False), repeat=3, number=1)

    def first() -> None:
        art.checked.clear()
        art.unchecked.clear()
        rt.launch(art, job)
    t_first = best_time(first, repeat=3, number=1)
    os.environ["ASC_TRACE_SANITIZE"] = "0"
    try:
        t_first_off = best_time(first, repeat=3, number=1)
    finally:
        os.environ.pop("ASC_TRACE_SANITIZE")
    ratio = t_sim / t_np
    print(f"seed vadd, {CORES} cores x {per_core} float32, race checker on")
    print(f"  a launch again:   {t_sim * 1e6:9.0f} us = {ratio:7.1f}x NumPy's x + y ({t_np * 1e6:.1f} us) "
          f"(goal <= {goal:.0f}x: {_verdict(ratio, goal)}); {t_before / t_sim:.0f}x faster than simulating it "
          f"as before ({t_before * 1e6:.0f} us)")
    print(f"  a first launch:   {t_first * 1e6:9.0f} us = {t_first * 1e6 / ITERATIONS:.1f} us per loop iteration "
          f"(race checker off: {t_first_off * 1e6 / ITERATIONS:.1f} us)")


def empty_launch(goal_us: float) -> None:
    @asc.jit
    def empty(x: asc.GlobalAddress):
        pass

    x = np.zeros(8, np.float32)
    empty[CORES](x)
    t = best_time(lambda: empty[CORES](x), number=50)
    print(f"an empty launch on {CORES} cores: {t * 1e6:.1f} us (goal <= {goal_us:.0f} us: "
          f"{_verdict(t * 1e6, goal_us)})")


_IMPORT = """
import time
t0 = time.process_time()
import asc_trace
print(1000 * (time.process_time() - t0))
"""

_COMPILE = """
import sys, time
sys.path.insert(0, {examples!r})
import numpy as np
import asc_trace as asc
from asc_trace.graph.passes import run_passes
from asc_trace.proxies.tracer import trace
from vadd import vadd_kernel
x = np.zeros(8 * 2048, np.float32)
t0 = time.perf_counter()
asc.compile(vadd_kernel, (x, x, x, 2048), core_num=8)
t1 = time.perf_counter()
ck = asc.compile(vadd_kernel, (x, x, x, 2048), core_num=8)
t2 = time.perf_counter()
print(1000 * (t1 - t0), 1000 * (t2 - t1))
"""


def _fresh(code: str, prefix: str) -> list[float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-X", f"pycache_prefix={prefix}", "-c", code], env=env,
                         capture_output=True, text=True, check=True).stdout
    return [float(v) for v in out.split()]


def startup(import_goal_ms: float, compile_goal_ms: float) -> None:
    with tempfile.TemporaryDirectory() as prefix:
        _fresh(_IMPORT, prefix)                    # writes the bytecode
        imp = min(_fresh(_IMPORT, prefix)[0] for _ in range(5))
        code = _COMPILE.format(examples=str(ROOT / "examples"))
        _fresh(code, prefix)
        cold, warm = min((_fresh(code, prefix) for _ in range(3)), key=lambda t: t[0])
    print(f"import asc_trace: {imp:.0f} ms CPU (goal <= {import_goal_ms:.0f} ms: {_verdict(imp, import_goal_ms)})")
    print(f"first compile in a process: {cold:.1f} ms, again {warm:.2f} ms (goal <= {compile_goal_ms:.0f} ms: "
          f"{_verdict(cold, compile_goal_ms)})")


def peak_memory(goal: float) -> None:
    per_core, tile = 1 << 20, 8192
    n = CORES * per_core
    rng = np.random.default_rng(0)
    x, y, z = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32), np.zeros(n, np.float32)
    vadd_noflags[CORES](x, y, z, per_core, tile)
    z[:] = 0
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        vadd_noflags[CORES](x, y, z, per_core, tile)
        t = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert np.array_equal(z, x + y)
    ratio = peak / z.nbytes
    print(f"flag-free vadd, {CORES} cores x 1M float32: extra peak memory {peak / 2**20:.1f} MiB = {ratio:.2f}x "
          f"the output (goal <= {goal}x: {_verdict(ratio, goal)}); {t * 1e3:.0f} ms under tracemalloc")


def eager_per_call() -> None:
    n = CORES * 2048
    x, y, z = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    k = asc.jit(vadd_kernel, backend="eager")
    k[CORES](x, y, z, 2048)
    t = best_time(lambda: k[CORES](x, y, z, 2048), repeat=3, number=1)
    calls = CORES * (ITERATIONS * 10 + 6)     # per iteration 3 copies, an add, 3 set/wait pairs; 6 tensors
    print(f"eager: {t * 1e6 / calls:.1f} us per API call per core (no goal)")


def main() -> None:
    vadd(2048, 100.0)
    vadd(65536, 6.0)
    empty_launch(50.0)
    peak_memory(0.25)
    startup(200.0, 15.0)
    eager_per_call()


if __name__ == "__main__":
    main()
