"""A kernel the first guess cannot settle is scheduled by the proof gate, not refused (issue 18)."""
import numpy as np
import pytest

import asc_trace as asc
from kernel_first_guess_unsettled import T, kern


@pytest.mark.parametrize("params", [(2, 3, 1, 0), (0, 0, 0, 0), (3, 1, 2, 2), (4, 4, 4, 4)])
def test_unsettled_first_guess_runs_the_same_everywhere(params):
    outs = {}
    for backend in ("sim", "eager", "cpp"):
        x = np.arange(8 * T, dtype=np.float32) % 7
        z = np.zeros_like(x)
        asc.jit(kern, backend=backend)[1](x, z, *params)
        outs[backend] = z
    np.testing.assert_array_equal(outs["sim"], outs["eager"])
    np.testing.assert_array_equal(outs["sim"], outs["cpp"])
