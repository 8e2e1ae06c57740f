"""Scheduling cost of auto_sync, before and after, side by side in one run.

Kernels:
- the branch-and-loop family (issue 18): N `asc.cond` branches on runtime bits, each around a runtime
  `for` loop that copies a tile in, computes and copies it out through one shared UB tile;
- `nest3`: a 3-deep runtime nest with an `asc.cond` at each level (the adversary's 26 s kernel).

Per kernel: the CPU time of `asc.compile` (trace + schedule + proof, cold: a new kernel each time; CPU
time of this process, so that other load on the machine does not count), the proof alone on the
result, and the number of inserted sync nodes. With `--before PATH` (another checkout, e.g. the main
branch or a worktree at an older commit), every kernel is measured there too, in a subprocess, and the
ratio printed. Goal (issue 18): N = 12 in <= 0.5 s.

Run: python benchmarks/schedule_cost.py [--max N] [--before PATH]   (PYTHONPATH: the checkout to measure)
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

L = 64
T = 128


def family(n: int):
    import asc_trace as asc

    @asc.jit
    def branch_loops(x: asc.GlobalAddress, z: asc.GlobalAddress, bits: int, trips: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
        u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
        for k in asc.static_range(n):
            def step(k=k):
                for r in asc.range(trips):
                    asc.data_copy(t, xg[(k * 4 + r % 4) * L:], L)
                    asc.muls(u, t, float(k + 1), L)
                    asc.data_copy(zg[(k * 4 + r % 4) * L:], u, L)
            asc.cond((bits // (1 << k)) % 2 == 1, step, lambda: None)
    return branch_loops


def nest3():
    import asc_trace as asc

    @asc.jit
    def n3(x: asc.GlobalAddress, z: asc.GlobalAddress, A: int, B: int, C: int, sel: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, 64 * T)
        zg.set_global_buffer(z, 64 * T)
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
        o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, T)
        for i in range(A):
            def top():
                asc.data_copy(a, xg[i * T:], T)
            asc.cond((sel + i) % 3 == 0, top, lambda: None)
            for j in range(B):
                for k in range(C):
                    def inner():
                        asc.adds(o, a, 1.0, T)
                        asc.data_copy(zg[((i * 4 + j) * 4 + k) * T:], o, T)

                    def inner2():
                        asc.data_copy(a, xg[(32 + k) * T:], T)
                    asc.cond((i + j + k + sel) % 2 == 0, inner, inner2)

                def mid():
                    asc.muls(o, a, 0.5, T)
                    asc.data_copy(zg[(48 + j) * T:], o, T)
                asc.cond(j == sel, mid, lambda: None)
    return n3


def measure(name: str) -> dict:
    """{compile, proof, syncs} for one kernel, in this process."""
    import numpy as np

    import asc_trace as asc
    if name == "nest3":
        k = nest3()
        x = np.zeros(64 * T, np.float32)
        args: tuple = (x, x.copy(), 2, 2, 2, 0)
    else:
        n = int(name.removeprefix("family"))
        k = family(n)
        args = (np.zeros(n * 4 * L, np.float32), np.zeros(n * 4 * L, np.float32), (1 << n) - 1, 3)
    t0 = time.process_time()
    g = asc.compile(k, args).graph
    total = time.process_time() - t0
    from asc_trace.graph import sync_proof
    from asc_trace.graph.sync_proof import prove
    if hasattr(sync_proof, "clear_verdicts"):
        sync_proof.clear_verdicts()     # the proof itself, not the verdict the compile remembered
    t1 = time.process_time()
    assert not prove(g)
    return {"compile": total, "proof": time.process_time() - t1, "syncs": sum(1 for x in g if x.attr("auto"))}


def measure_in(checkout: str, name: str) -> dict | None:
    env = dict(os.environ, PYTHONPATH=checkout)
    out = subprocess.run([sys.executable, __file__, "--one", name], env=env, capture_output=True, text=True,
                         timeout=900)
    if out.returncode != 0:
        print(f"  ({name} failed in {checkout}: {out.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=16, help="largest N of the family (even sizes from 2)")
    ap.add_argument("--before", help="another checkout to measure the same kernels in, side by side")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(measure(a.one)))
        return
    names = [f"family{n}" for n in range(2, a.max + 1, 2)] + ["nest3"]
    head = f"{'kernel':>9} {'compile (s)':>12} {'proof (s)':>10} {'syncs':>6}"
    if a.before:
        head += f" {'before (s)':>11} {'syncs':>6} {'speed-up':>9}"
    print(head)
    here = os.environ.get("PYTHONPATH") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in names:
        now = measure_in(here, name)
        if now is None:
            continue
        line = f"{name:>9} {now['compile']:>12.3f} {now['proof']:>10.3f} {now['syncs']:>6}"
        if a.before:
            old = measure_in(a.before, name)
            if old is not None:
                line += f" {old['compile']:>11.3f} {old['syncs']:>6} {old['compile'] / now['compile']:>8.1f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
