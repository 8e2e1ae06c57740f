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


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("name", sorted(__import__("outsider_x36_state").KERNELS))
def test_outside_state_changed_by_a_kernel_is_refused_at_its_line(name: str, backend: str) -> None:
    """A helper's mutable default, a class attribute, a function attribute, a bound method's object, a
    partial's argument, a lambda default in a dict, an array.array: the same TraceError at the line on every
    backend, where before eager and sim gave different bytes (sim [1, 2, 3], eager [2, 4, 6] over 3 launches)."""
    import importlib
    import sys

    import asc_trace as asc
    from helpers import assert_points_at
    sys.modules.pop("outsider_x36_state", None)      # fresh state: the module's objects as written
    state = importlib.import_module("outsider_x36_state")
    kernel, marker = state.KERNELS[name]
    x, z = np.ones(64, np.float32), np.zeros(64, np.float32)
    args = (x, z, 3) if name == "default_in_loop" else (x, z)
    with pytest.raises(asc.TraceError) as err:
        asc.jit(kernel, backend=backend)[1](*args)
    assert_points_at(err.value, f"x36: {marker}", state.__file__)
