"""pyasc's host configuration module (`asc.runtime.config`), so that a pyasc host script runs with only
its import changed: `Backend`, `Platform`, `KernelType` and `set_platform`, with pyasc 1.1's names and
values.

`Backend.Model` (pyasc's CAModel simulator) maps to asc_trace's simulator, `Backend.NPU` to the `npu`
backend. The choice is process-wide, as in pyasc; a kernel's own `backend=` option and the
ASC_TRACE_BACKEND environment variable take precedence over it (so an unchanged script can be run on
`cpp` or `cpu_debug`).
"""
from __future__ import annotations

from enum import Enum
from typing import Any

from .. import config as _env
from ..errors import OptionError, ToolchainError
from ..proxies.source_loc import user_loc
from .platform import PRESETS


class Backend(Enum):
    """Where pyasc runs kernels: `Model` (here: asc_trace's simulator) or `NPU`."""
    Model = "Model"
    NPU = "NPU"


class Platform(Enum):
    """pyasc's SoC versions. asc_trace's timing model has presets for Ascend910B1-B4 only."""
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


class KernelType(Enum):
    """pyasc's kernel types (`@asc.jit(kernel_type=...)`); asc_trace builds AIV_ONLY kernels."""
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


# pyasc's default SoC for the Model backend.
MODEL_DEFAULT_PLATFORM = Platform.Ascend910B1
_BACKENDS = {Backend.Model: "sim", Backend.NPU: "npu"}


def _enum_value(enum_type: type[Enum], value: Any, what: str) -> Any:
    try:
        return enum_type(value.value if isinstance(value, enum_type) else value)
    except ValueError:
        accepted = ", ".join(f"{enum_type.__name__}.{m.name}" for m in enum_type)
        raise OptionError(f"set_platform: {what} {value!r} is not one of pyasc's {enum_type.__name__} values", user_loc(),
                          hint=f"pass one of {accepted} (or its value as a string)") from None


def set_platform(backend: Backend | str, soc_version: Platform | str | None = None, device_id: int | None = None,
                 check: bool = True) -> None:
    """Choose where the process's kernels run, as pyasc's `set_platform` does.

    Args:
        backend: `Backend.Model` (or "Model"): asc_trace's simulator; `Backend.NPU` (or "NPU"): the NPU.
        soc_version: the chip, for the timing model of `asc.profile` (default: pyasc's Ascend910B1 on
            Model; on the NPU the device's own).
        device_id: the NPU to use (torch-npu's device); the simulator has one device and ignores it.
        check: with `Backend.NPU`, fail now if no NPU is usable.

    Raises:
        OptionError: an unknown backend or SoC version, a SoC the timing model has no preset for, or a
            device id that is not a non-negative int.
        ToolchainError: `Backend.NPU` with `check=True` where torch-npu, CANN or an NPU is missing.
    """
    chosen = _enum_value(Backend, backend, "backend")
    soc = None if soc_version is None else _enum_value(Platform, soc_version, "soc_version")
    if device_id is not None and (isinstance(device_id, bool) or not isinstance(device_id, int) or device_id < 0):
        raise OptionError(f"set_platform: device_id must be a non-negative int, got {device_id!r}", user_loc())
    if chosen is Backend.Model and soc is None:
        soc = MODEL_DEFAULT_PLATFORM
    if soc is not None and soc.value not in PRESETS:
        raise OptionError(f"set_platform: asc_trace's timing model has no preset for Platform.{soc.name}", user_loc(),
                          hint="use one of " + ", ".join(f"Platform.{p}" for p in PRESETS)
                               + " (every one runs the same vector core; the presets differ in clock and core count)")
    if chosen is Backend.NPU:
        _use_npu(device_id, check)
    _env.set_process_target(_BACKENDS[chosen], None if soc is None else soc.value)


def _use_npu(device_id: int | None, check: bool) -> None:
    from .npu_detect import npu_usable
    if not npu_usable():
        if check:
            raise ToolchainError("set_platform(Backend.NPU): no usable NPU here (torch-npu, a CANN toolkit and a "
                                 "visible device are needed)", user_loc(),
                                 hint="use Backend.Model to run the kernels on asc_trace's simulator")
        return
    if device_id is not None:
        import torch
        import torch_npu  # noqa: F401 - registers torch.npu
        torch.npu.set_device(device_id)


__all__ = ["Backend", "Platform", "KernelType", "set_platform"]
