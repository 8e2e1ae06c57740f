"""asc.get_gather_mask_remain_count() and asc.get_mrg_sort_result() read status registers asc_trace does not model:
the calls trace (pyasc's unit tests only read them), and any use of a value is a TraceError at the using line, the
same on every backend (it is raised while tracing)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at

X = np.zeros(64, np.float16)


def test_reading_them_traces_and_lowers():
    @asc.jit
    def k(x: asc.GlobalAddress):
        remain = asc.get_gather_mask_remain_count()
        m1, m2, m3, m4 = asc.get_mrg_sort_result()

    assert "extern \"C\"" in asc.compile(k, (X,)).source


@pytest.mark.parametrize("use", ["count", "arith", "branch", "mrg"])
@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_using_a_value_is_refused_at_its_line(use, backend):
    @asc.jit(backend=backend)
    def k(x: asc.GlobalAddress):
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)
        c = asc.get_gather_mask_remain_count()
        m = asc.get_mrg_sort_result()
        if use == "count":
            asc.adds(t, t, 1.0, c)  # use-count
        elif use == "arith":
            n = c * 2  # use-arith
        elif use == "branch":
            asc.adds(t, t, 1.0, asc.cond(c > 0, lambda: 64, lambda: 32))  # use-branch
        else:
            asc.adds(t, t, 1.0, m[2])  # use-mrg

    with pytest.raises(asc.TraceError, match="status register") as e:
        k[1](X.copy())
    assert_points_at(e.value, f"use-{use}")
