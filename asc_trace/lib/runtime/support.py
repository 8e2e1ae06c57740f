"""The types of pyasc's `asc.lib.runtime.support` that host scripts meet: the stream a launch takes
and the core types. pyasc's other handles (Memory, Kernel, Function, device-info enums) belong to its
low-level device runtime, which asc_trace does not expose: launches take NumPy arrays and torch
tensors directly."""
from __future__ import annotations

import enum
from typing import Any

from ...runtime import HostStream

# pyasc's Stream is a raw runtime handle; here it is the host stream of the CPU backends, or
# torch-npu's stream object on the NPU.
Stream = Any


class CoreType(enum.Enum):
    """Which cores a kernel runs on, with pyasc's names and values."""
    AiCore = "AiCore"
    VectorCore = "VectorCore"
    CubeCore = "CubeCore"
    AiCpu = "AiCpu"


__all__ = ["CoreType", "HostStream", "Stream"]
