"""Scheduling cost of the branch-and-loop family: N `asc.cond` branches on runtime bits, each around a
runtime `for` loop that copies a tile in, computes and copies it out through one shared UB tile.
Prints, per N, the time auto_sync takes (trace + schedule + proof: `asc.compile`, cold per kernel)
and the time of the proof alone on the result. Goal (issue 18): N = 12 in <= 0.5 s.

Run: python benchmarks/schedule_cost.py [max N]   (with PYTHONPATH pointing at the checkout to measure)
"""
from __future__ import annotations

import sys
import time

import numpy as np

import asc_trace as asc

L = 64


def family(n: int):
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


def measure(n: int) -> tuple[float, float, int]:
    k = family(n)
    args = (np.zeros(n * 4 * L, np.float32), np.zeros(n * 4 * L, np.float32), (1 << n) - 1, 3)
    t0 = time.perf_counter()
    g = asc.compile(k, args).graph
    total = time.perf_counter() - t0
    try:
        from asc_trace.graph.sync_proof import prove
    except ImportError:
        return total, float("nan"), sum(1 for x in g if x.attr("auto"))
    t1 = time.perf_counter()
    assert not prove(g)
    return total, time.perf_counter() - t1, sum(1 for x in g if x.attr("auto"))


def main() -> None:
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    print(f"{'N':>3} {'compile (s)':>12} {'proof (s)':>10} {'sync nodes':>10}")
    for n in range(2, top + 1, 2):
        total, proof, syncs = measure(n)
        print(f"{n:>3} {total:>12.3f} {proof:>10.3f} {syncs:>10}")


if __name__ == "__main__":
    main()
