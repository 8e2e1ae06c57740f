"""The cube simulator's speed (issue 23's goal: a 512 x 512 x 512 fp16 matmul on 8 AI cores in under 50x
the time NumPy takes for the same matmul in float32), for the vendor-tiled kernel
(examples/matmul_vendor_tiling.py) and for examples/matmul_cube.py.

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
import matmul_vendor_tiling  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _time_kernel(launch, repeat: int = 5) -> tuple[float, float]:
    """(first launch: trace, schedule and the checked run; the best warm launch) in seconds."""
    t0 = time.perf_counter()
    launch()
    first = time.perf_counter() - t0
    return first, best(launch, repeat)


def main(size: int = 512, cores: int = 8) -> dict:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    ref = best(lambda: a32 @ b32, 20)
    want = (a32 @ b32).astype(np.float16).astype(np.float32)
    out: dict = {"size": size, "cores": cores, "blas_threads": threads, "numpy_f32_s": round(ref, 5), "goal": 50}
    # the vendor's tiling (128 x 256 x 64 blocks, B given transposed), a 4 x 2 grid of cores
    c = np.zeros((size, size), np.float16)
    single_m, single_n = matmul_vendor_tiling.grid(size, size, cores, 4, cores // 4)
    vargs = (a.ravel(), np.ascontiguousarray(b.T).ravel(), c.ravel(), size, size, size, single_m, single_n, cores // 4)
    first, sim = _time_kernel(lambda: matmul_vendor_tiling.matmul_vendor_tiling[cores](*vargs))
    out["vendor_tiling"] = {"first_launch_s": round(first, 3), "sim_s": round(sim, 4), "ratio": round(sim / ref, 1),
                            "max_abs_err": float(np.abs(c.astype(np.float32) - want).max())}
    # examples/matmul_cube.py (128 x 128 x 64 tiles, B row-major: more instructions per multiply-add)
    c2 = np.zeros((size, size), np.float16)
    args = (a.ravel(), b.ravel(), c2.ravel(), size, size, size)
    first, sim = _time_kernel(lambda: matmul_cube.matmul_cube[cores](*args))
    prof = asc.profile(matmul_cube.matmul_cube, *args, core_num=cores)
    out["matmul_cube"] = {"first_launch_s": round(first, 3), "sim_s": round(sim, 4), "ratio": round(sim / ref, 1),
                          "max_abs_err": float(np.abs(c2.astype(np.float32) - want).max()),
                          "modelled_us": round(prof.time_us, 2)}
    return out


if __name__ == "__main__":
    print(json.dumps(main()))
