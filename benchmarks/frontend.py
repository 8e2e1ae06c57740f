"""Front-end latency: trace + schedule + lower to Ascend C source, for the seed's manual and TQue
kernels, against pyasc 1.1.1's front end (AST -> MLIR passes -> C++) measured in the same run.

- first: the first lowering in a fresh process (after `import`);
- warm: a fresh kernel object each time (every compile cache bypassed; the proof's remembered verdicts
  answer for a kernel proved before);
- cold: warm with the remembered verdicts and the expression memo caches cleared (the proof runs);
- cached: `asc.compile` of a kernel compiled before (the in-memory cache).
Times are CPU time of the process (time.process_time) on both sides, so that other work on the machine
does not count; the median of 15. The "first" figures run in fresh processes with bytecode allowed, as an
installed package runs (pyasc's venv has its .pyc from pip): PYTHONDONTWRITEBYTECODE is dropped and
PYTHONPYCACHEPREFIX points at a directory of this benchmark's own, filled by one unmeasured run first. Goals (issues 4, 18): warm and cold <= 1/3 of pyasc's; cached <= 100 us. pyasc runs from `.venv-pyasc` (made by
`make bench`) or the interpreter named by $PYASC_PYTHON; without it the ratios cannot be measured
and are not printed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "examples"))

COLD = r"""
import sys, time, json
t0 = time.process_time()
import numpy as np
import asc_trace as asc
t_import = time.process_time() - t0
sys.path.insert(0, {examples!r})
import vadd, vadd_tque
x = np.zeros(8 * 2048, np.float32)
out = {{"import_s": t_import}}
for name, k, args in (("manual", vadd.vadd_kernel, (x, x, x, 2048)), ("tque", vadd_tque.vadd_kernel, (x, x, x, 2048, 128))):
    t0 = time.process_time()
    src = asc.compile(k, args).source
    out[name + "_cold_s"] = time.process_time() - t0
print(json.dumps(out))
"""


def bytecode_env() -> dict[str, str]:
    """The environment of a measured fresh process: .pyc written and read (some environments set
    PYTHONDONTWRITEBYTECODE, which makes every import compile the source again), in a cache of its own."""
    import tempfile
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.environ.get("ASC_TRACE_BENCH_PYCACHE") or \
        str(Path(tempfile.gettempdir()) / "asc_trace_bench_pycache")
    return env


def fresh_process(argv: list[str]) -> subprocess.CompletedProcess:
    """`argv` in a fresh process with bytecode allowed: once to fill the bytecode cache, once measured."""
    env = bytecode_env()
    subprocess.run(argv, capture_output=True, text=True, env=env)
    return subprocess.run(argv, capture_output=True, text=True, env=env)


def median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


def ours() -> dict[str, float]:
    import asc_trace as asc
    import vadd
    import vadd_tque
    from asc_trace.graph import analysis, expr, linear
    from asc_trace.graph.sync_proof import clear_verdicts
    from asc_trace.jit_function import CompiledKernel, JitFunction
    from asc_trace.runtime.args import bind_args

    proc = fresh_process([sys.executable, "-c", COLD.format(examples=str(ROOT / "examples"))])
    proc.check_returncode()
    cold = json.loads(proc.stdout)
    x = np.zeros(8 * 2048, np.float32)
    out = dict(cold)
    for name, k, args in (("manual", vadd.vadd_kernel, (x, x, x, 2048)),
                          ("tque", vadd_tque.vadd_kernel, (x, x, x, 2048, 128))):
        def fresh() -> str:
            jf = JitFunction(k.fn)
            ck = CompiledKernel(jf, bind_args(jf.name, jf.specs, args, {}, None).signature)
            return ck.source

        fresh()
        warm, cleared = [], []
        for _ in range(15):
            t0 = time.process_time()
            fresh()
            warm.append(time.process_time() - t0)
        for _ in range(15):
            clear_verdicts()
            for fn in (analysis._access, analysis._subst, linear.disjoint, linear.linearize, expr.compile_expr):
                fn.cache_clear()
            t0 = time.process_time()
            fresh()
            cleared.append(time.process_time() - t0)
        asc.compile(k, args)
        cached = []
        for _ in range(200):
            t0 = time.process_time()
            asc.compile(k, args)
            cached.append(time.process_time() - t0)
        out[f"{name}_warm_s"] = median(warm)
        out[f"{name}_cleared_s"] = median(cleared)
        out[f"{name}_cached_s"] = median(cached)
    return out


def pyasc() -> dict[str, float] | str:
    """pyasc's figures, or why there are none."""
    py = os.environ.get("PYASC_PYTHON") or str(ROOT / ".venv-pyasc" / "bin" / "python")
    if not Path(py).exists():
        return ("pyasc is not installed: `make bench` creates .venv-pyasc (pip install pyasc==1.1.1) to measure "
                "the baseline")
    proc = fresh_process([py, str(HERE / "_pyasc_frontend.py")])
    if proc.returncode != 0:
        return f"the pyasc baseline failed:\n{proc.stderr[-2000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    a = ours()
    p = pyasc()
    why_not = p if isinstance(p, str) else None
    if why_not:
        p = None
    ms = lambda s: f"{s * 1e3:7.2f} ms"  # noqa: E731
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"CPU time of the process (time.process_time), median of 15; load average {load}; fresh processes "
          f"with bytecode allowed (PYTHONPYCACHEPREFIX={bytecode_env()['PYTHONPYCACHEPREFIX']})")
    print(f"asc_trace import: {ms(a['import_s'])}" + (f"   pyasc import: {ms(p['import_s'])}" if p else ""))
    for name in ("manual", "tque"):
        print(f"\n{name} vadd kernel (trace + schedule + lower to source)")
        print(f"  asc_trace first  {ms(a[name + '_cold_s'])}" + (f"   pyasc first {ms(p[name + '_cold_s'])}" if p else "")
              + "   (the first lowering in a fresh process)")
        print(f"  asc_trace warm   {ms(a[name + '_warm_s'])}" + (f"   pyasc warm  {ms(p[name + '_warm_s'])}" if p else ""))
        print(f"  asc_trace cold   {ms(a[name + '_cleared_s'])}   (verdicts and memo caches cleared)")
        cached = a[name + "_cached_s"] * 1e6
        print(f"  asc_trace cached {cached:7.1f} us (goal <= 100 us) -> {'met' if cached <= 100 else 'NOT met'}")
        if p:
            r = a[name + "_warm_s"] / p[name + "_warm_s"]
            rc = a[name + "_cleared_s"] / p[name + "_warm_s"]
            print(f"  ratio asc_trace / pyasc: warm {r:.2f}, cold {rc:.2f}; goal <= 0.33 -> "
                  f"{'met' if max(r, rc) <= 1 / 3 else 'NOT met'}")
    if why_not:
        print(f"\n{why_not}\nNo ratio is printed without the baseline.")


if __name__ == "__main__":
    main()
