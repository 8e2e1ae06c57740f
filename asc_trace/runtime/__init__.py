"""Backends (`sim`, `eager`, `cpp`, `cpu_debug`, `npu`) behind one interface, and streams.

`rt.current_stream()` returns torch-npu's current stream when the NPU backend is usable; on the CPU
backends it returns the host stream, on which launches run synchronously.
"""
from __future__ import annotations

from typing import Any

from .. import config as _env  # not `config`: that name is pyasc's host module below
from ..errors import LaunchError
from .base import LaunchJob, Runtime


class HostStream:
    """The stream of the CPU backends: work runs synchronously when launched."""

    npu_stream = 0

    def synchronize(self) -> None:
        return None

    def __repr__(self) -> str:
        return "HostStream()"


_HOST_STREAM = HostStream()


def current_stream(device: Any = None) -> Any:
    """The stream a launch uses by default: torch-npu's current stream on the NPU, else the host stream."""
    from .npu_detect import npu_usable
    if npu_usable():
        import torch  # noqa: F401
        import torch_npu  # noqa: F401
        return torch.npu.current_stream(device)
    return _HOST_STREAM


# every backend name asc.jit(backend=...) and ASC_TRACE_BACKEND accept
BACKENDS: tuple[str, ...] = ("auto", "sim", "eager", "cpp", "cpu_debug", "npu")
_RUNTIMES: dict[str, Runtime] = {}


def get_runtime(name: str) -> Runtime:
    """The backend called `name` ("auto", "sim", "eager", "cpp", "cpu_debug", "npu")."""
    name = (name or "auto").lower()
    if name == "auto":
        from .npu_detect import npu_usable
        name = "npu" if npu_usable() else "sim"
    if name not in _RUNTIMES:
        _RUNTIMES[name] = _make(name)
    return _RUNTIMES[name]


def _make(name: str) -> Runtime:
    if name == "sim":
        from .sim import SimRuntime
        return SimRuntime()
    if name == "eager":
        from .eager import EagerRuntime
        return EagerRuntime()
    if name == "cpp":
        from .cpp import CppRuntime
        return CppRuntime()
    if name == "cpu_debug":
        from .cpu_debug import CpuDebugRuntime
        return CpuDebugRuntime()
    if name == "npu":
        from .npu import NpuRuntime
        return NpuRuntime()
    raise LaunchError(f"unknown backend {name!r}", None, hint=f"choose one of {', '.join(BACKENDS)} "
                                                             "(asc.jit(backend=...) or ASC_TRACE_BACKEND)")


def default_backend() -> str:
    return _env.backend_from_env()


from . import config  # noqa: E402 - pyasc's `asc.runtime.config` (Backend, KernelType, set_platform)

__all__ = ["BACKENDS", "current_stream", "get_runtime", "Runtime", "LaunchJob", "HostStream", "config"]
