"""The two host builds of the emitted Ascend C side by side on the examples: `cpp` (g++ against
asc_trace's model of the API, a shared library called in process) and `cpu_debug` (g++ against the
real Ascend C headers in CPU-debug mode with asc_trace's intrinsic model, run in a child process).
Build: one kernel compiled cold (the cpu_debug precompiled header and stub library already made;
their one-time cost is printed first) and a batch of all kernels in one cpu_debug build. Run: the
best warm launch. `sim` is the baseline of the run times, measured in the same run.

Needs the Ascend C headers: ASC_TRACE_ASCENDC_HOME, or ../shared/vendor/asc-devkit next to the
checkout. Run: python benchmarks/cpp_vs_cpu_debug.py
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "examples"))
if (ROOT.parent / "shared" / "vendor" / "asc-devkit").is_dir():
    os.environ.setdefault("ASC_TRACE_ASCENDC_HOME", str(ROOT.parent / "shared" / "vendor" / "asc-devkit"))
os.environ["ASC_TRACE_CACHE_DIR"] = tempfile.mkdtemp(prefix="asc_bench_cache_")   # cold builds

import asc_trace as asc  # noqa: E402
from _timing import best_time  # noqa: E402


def cases() -> list[tuple[str, object, tuple, int]]:
    import axpy
    import leaky_relu
    import rmsnorm
    import softmax
    import vadd
    import vadd_noflags
    import vadd_tail
    import vadd_tque
    rng = np.random.default_rng(0)
    f32 = lambda n: rng.standard_normal(n).astype(np.float32)   # noqa: E731
    n = 8 * 2048
    return [
        ("vadd (seed, flags)", vadd.vadd_kernel, (f32(n), f32(n), np.zeros(n, np.float32), 2048), 8),
        ("vadd (seed, TQue)", vadd_tque.vadd_kernel, (f32(n), f32(n), np.zeros(n, np.float32), 2048, 128), 8),
        ("vadd (no flags)", vadd_noflags.vadd_noflags, (f32(n), f32(n), np.zeros(n, np.float32), 2048, 256), 8),
        ("axpy", axpy.axpy_kernel, (f32(n), f32(n), np.zeros(n, np.float32), 2048, 0.5), 8),
        ("leaky_relu f16", leaky_relu.leaky_relu_kernel,
         (f32(n).astype(np.float16), np.zeros(n, np.float16), 2048, 0.1), 8),
        ("softmax", softmax.softmax_kernel, (f32(32 * 256).reshape(32, 256), np.zeros((32, 256), np.float32), 4, 256), 8),
        ("rmsnorm", rmsnorm.rmsnorm_kernel, (f32(12 * 512).reshape(12, 512), np.abs(f32(512)) + 0.5,
                                             np.zeros((12, 512), np.float32), 3, 512, 1e-6), 4),
        ("vadd_tail", vadd_tail.vadd_tail_kernel, (f32(8 * 1573), f32(8 * 1573), np.zeros(8 * 1573, np.float32), 1573), 8),
    ]


def build_seconds(kernel, args, cores: int, backend: str) -> float:
    ck = asc.compile(asc.jit(kernel, backend=backend, always_compile=True), args, core_num=cores)
    from asc_trace.runtime import get_runtime
    rt = get_runtime(backend)
    t0 = time.perf_counter()
    ck.artifact(rt)
    return time.perf_counter() - t0


def main() -> None:
    from asc_trace.toolchain.real_api import headers_if_configured, precompiled_header, stub_library
    from asc_trace.runtime.cpp import compiler
    tree = headers_if_configured()
    if tree is None:
        raise SystemExit("no Ascend C headers: set ASC_TRACE_ASCENDC_HOME")
    cxx, version = compiler()
    t0 = time.perf_counter()
    precompiled_header(tree, cxx, version)
    t_pch = time.perf_counter() - t0
    t0 = time.perf_counter()
    stub_library(tree, cxx, version)
    t_lib = time.perf_counter() - t0
    print(f"cpu_debug one-time setup per header tree: precompiled kernel_operator.h {t_pch:.1f} s, "
          f"stub library {t_lib:.1f} s (both cached on disk)")
    rows, totals = [], {"cpp": 0.0, "cpu_debug": 0.0}
    for name, kernel, args, cores in cases():
        b_cpp = build_seconds(kernel, args, cores, "cpp")
        b_dbg = build_seconds(kernel, args, cores, "cpu_debug")
        totals["cpp"] += b_cpp
        totals["cpu_debug"] += b_dbg
        run = {}
        for backend in ("sim", "cpp", "cpu_debug"):
            ck = asc.compile(asc.jit(kernel, backend=backend), args, core_num=cores)
            run[backend] = best_time(lambda: ck(*args), repeat=5, number=2)
        rows.append((name, b_cpp, b_dbg, run["sim"], run["cpp"], run["cpu_debug"]))
    print(f"\n{'example':22s} {'build cpp':>10s} {'build cpu_debug':>16s}   {'run sim':>9s} {'run cpp':>9s} "
          f"{'run cpu_debug':>14s}")
    for name, b1, b2, r0, r1, r2 in rows:
        print(f"{name:22s} {b1:9.2f}s {b2:15.2f}s   {r0 * 1e3:7.2f}ms {r1 * 1e3:7.2f}ms {r2 * 1e3:12.2f}ms")
    from asc_trace.runtime.cpu_debug import _PREBUILT, prebuild
    _PREBUILT.clear()
    graphs = [asc.compile(k, a, core_num=c).graph for _n, k, a, c in cases()]
    os.environ["ASC_TRACE_CACHE_DIR"] = tempfile.mkdtemp(prefix="asc_bench_cache_")
    precompiled_header(tree, cxx, version)
    stub_library(tree, cxx, version)
    t0 = time.perf_counter()
    prebuild(graphs)
    t_batch = time.perf_counter() - t0
    n = len(rows)
    print(f"\nbuild, all {n} kernels one by one: cpp {totals['cpp']:.1f} s, cpu_debug {totals['cpu_debug']:.1f} s "
          f"(ratio {totals['cpu_debug'] / totals['cpp']:.2f}); cpu_debug as one batch (prebuild): {t_batch:.1f} s")
    mean = lambda i: sum(r[i] for r in rows) / n   # noqa: E731
    print(f"run, mean over the examples: sim {mean(3) * 1e3:.2f} ms, cpp {mean(4) * 1e3:.2f} ms, "
          f"cpu_debug {mean(5) * 1e3:.2f} ms (cpu_debug / cpp {mean(5) / mean(4):.1f}x)")


if __name__ == "__main__":
    main()
