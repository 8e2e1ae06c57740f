"""An outsider's (x36) flag-free kernels against NumPy on every backend (#18), and the misuse they tried
(#25). The kernels are in tests/outsider_x36_kernels.py; each case's written arguments are compared
byte for byte with its NumPy reference."""
from __future__ import annotations

import numpy as np
import pytest

from helpers import every_backend
from outsider_x36_kernels import CASES, run_case


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("name", sorted(CASES))
def test_flag_free_kernel_matches_numpy(name: str, backend: str) -> None:
    for index, (got, want) in run_case(name, backend).items():
        assert np.array_equal(got, want), f"{name} on {backend}: argument {index} differs from NumPy"
