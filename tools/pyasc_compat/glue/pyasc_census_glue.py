"""The census's stand-ins for pyasc's test doubles (`asc.runtime.jit.MockTensor` / `MockValue`): a GM
argument of a dtype and a scalar of a dtype, for kernels that are only traced and lowered."""
from __future__ import annotations

from typing import Any

import numpy as np

# Elements of a mock GM argument: unit-test kernels are compiled, never run, so only the dtype matters.
MOCK_ELEMENTS = 4096


def MockTensor(dtype: Any) -> np.ndarray:  # noqa: N802 - pyasc's name
    return np.zeros(MOCK_ELEMENTS, dtype=dtype.np)


def MockValue(dtype: Any) -> Any:  # noqa: N802 - pyasc's name
    return dtype.np.type(0)
