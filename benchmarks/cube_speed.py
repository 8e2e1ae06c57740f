"""The cube simulator's speed (issue 23's goal: a 512 x 512 x 512 fp16 matmul on 8 AI cores in under 50x
the time NumPy takes for the same matmul in float32), and the modelled time of the example kernel.

Both sides run in this process with the same BLAS settings. On a loaded machine a multi-threaded BLAS
is very slow for the simulator's small per-Mmad products (threads spin against other processes), so the
script pins BLAS to one thread before NumPy is imported unless ASC_TRACE_BENCH_BLAS_THREADS says
otherwise. Prints one JSON line."""
import json
import os
import sys
import time
from pathlib import Path

threads = os.environ.get("ASC_TRACE_BENCH_BLAS_THREADS", "1")
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, threads)

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import asc_trace as asc  # noqa: E402
import matmul_cube  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(size: int = 512, cores: int = 8) -> dict:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    c = np.zeros((size, size), np.float16)
    args = (a.ravel(), b.ravel(), c.ravel(), size, size, size)
    kernel = matmul_cube.matmul_cube[cores]
    t0 = time.perf_counter()
    kernel(*args)                                   # trace, schedule, first (checked) launch
    first = time.perf_counter() - t0
    sim = best(lambda: kernel(*args), 3)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    ref = best(lambda: a32 @ b32, 20)
    err = float(np.abs(c.astype(np.float32) - (a32 @ b32).astype(np.float16).astype(np.float32)).max())
    prof = asc.profile(matmul_cube.matmul_cube, *args, core_num=cores)
    return {"size": size, "cores": cores, "blas_threads": threads, "first_launch_s": round(first, 3),
            "sim_s": round(sim, 4), "numpy_f32_s": round(ref, 5), "ratio": round(sim / ref, 1), "goal": 50,
            "max_abs_err": err, "modelled_us": round(prof.time_us, 2), "pipe_busy": prof.pipe_busy}


if __name__ == "__main__":
    print(json.dumps(main()))
