"""pyasc's `asc.lib.runtime` as far as its host scripts use it: `current_stream()` for a launch
`kernel[core_num, rt.current_stream()](...)`, and `synchronize()`.

pyasc's low-level device runtime (malloc, memcpy, register_function, launch_kernel, ...) has no
counterpart: asc_trace launches take NumPy arrays or torch tensors, and asking for one of those names
is a NotProvidedError saying so.
"""
from __future__ import annotations

from typing import Any

from ...errors import NotProvidedError
from ...proxies.source_loc import user_loc
from ...runtime import HostStream
from ...runtime import current_stream as _current_stream
from . import support
from .support import CoreType, Stream

# pyasc 1.1's asc.lib.runtime names that have no counterpart here.
_DEVICE_RUNTIME = frozenset({
    "use_model", "use_npu", "is_initialized", "is_available", "magic_elf_value", "check_device_handle",
    "default_device", "current_device", "current_platform", "device_count", "device_info", "reset_device",
    "set_device", "create_stream", "destroy_stream", "register_device_binary_kernel",
    "unregister_device_binary_kernel", "register_function", "malloc", "memcpy", "copy_data_to_device",
    "copy_data_from_device", "launch_kernel", "synchronize_device", "c2c_ctrl_addr", "set_pro_switch",
    "current_tick", "acl_init", "acl_finalize", "set_soc_version", "npu_utils", "msprof_task_type",
    "get_soc_version", "free_mem", "free", "Memory", "Kernel", "Function", "DeviceModuleType", "DeviceInfoType",
    "MemorySizes", "ProfilingCommandHandle", "MsprofTaskType", "call_print_interface",
})


def current_stream(device_id: int | None = None) -> Any:
    """The stream a launch uses: torch-npu's current stream on the NPU, else the host stream of the
    CPU backends (on which launches run synchronously)."""
    return _current_stream(device_id)


def synchronize(stream_handle: Any = None, timeout: int = 0) -> None:
    """Wait for the work queued on `stream_handle` (default: the current stream). Launches on the CPU
    backends have finished when they return. `timeout` (ms, pyasc's meaning) is not supported on the NPU
    path: 0 only."""
    if timeout:
        raise NotProvidedError("asc_trace.lib.runtime.synchronize has no timeout", user_loc(),
                               hint="call synchronize(stream) without a timeout")
    stream = current_stream() if stream_handle is None else stream_handle
    stream.synchronize()


def __getattr__(name: str) -> Any:
    if name in _DEVICE_RUNTIME:
        raise NotProvidedError(f"asc_trace.lib.runtime.{name} (pyasc's low-level device runtime) is not provided",
                               user_loc(), hint="launch kernels with kernel[core_num, rt.current_stream()](...) on "
                                                "NumPy arrays or torch tensors; asc_trace moves the data itself")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["current_stream", "synchronize", "support", "CoreType", "HostStream", "Stream"]
