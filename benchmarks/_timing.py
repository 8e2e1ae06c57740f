"""Timing helpers shared by the benchmarks: best of several repeats, so machine noise shows less."""
from __future__ import annotations

import time
from typing import Callable


def best_time(fn: Callable[[], object], repeat: int = 7, number: int = 3) -> float:
    """Seconds per call: the best of `repeat` rounds of `number` calls."""
    fn()  # warm up
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best
