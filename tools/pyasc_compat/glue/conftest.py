"""pyasc's test fixtures, as the census provides them: the launcher mock of its unit tests (which
only counts launches: the census intercepts them), its FileCheck helper (which here just launches the
kernel on one core), and the backend / platform options of its kernel tests (Model: the simulator)."""
from __future__ import annotations

from typing import Any

import pytest

import asc_trace.runtime.config as config
from pyasc_compat.census_state import State


class LaunchCounter:
    """Stands for pyasc's patched `Launcher.run`: `call_count` is the number of launches in the test."""

    @property
    def call_count(self) -> int:
        return State.launches

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        return None


@pytest.fixture
def mock_launcher_run() -> LaunchCounter:
    return LaunchCounter()


class FileCheck:
    def __init__(self, kernel_fn: Any) -> None:
        self.kernel_fn = kernel_fn

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.kernel_fn[1](*args, **kwargs)


@pytest.fixture
def filecheck() -> type:
    return FileCheck


@pytest.fixture
def backend() -> Any:
    return config.Backend.Model


@pytest.fixture
def platform() -> Any:
    return config.Platform.Ascend910B1
