"""The `npu` backend: build the device binary with bisheng, register it with the CANN runtime and
launch it on torch-npu's current stream (npu-launch.md).

- Registration: `aclrtBinaryLoadFromData` / `aclrtBinaryGetFunction` / `aclrtLaunchKernelWithHostArgs`
  on CANN >= 8.5, else `rtDevBinaryRegister` / `rtFunctionRegister` / `rtKernelLaunch` (as pyasc and
  triton-ascend do); once per (binary, device), with the bytes, stub and names kept alive.
- Arguments: one host blob in declaration order, each at the next multiple of max(4, its alignment),
  the total padded to 8 bytes (the BISHENG ABI); no hidden FFTS argument for a vector-only kernel.
- Tensors: torch-npu tensors go by device pointer and the launch stays asynchronous on the current
  stream (read afresh before every launch, which flushes torch-npu's task queue); NumPy arrays and
  CPU tensors are copied to the device and back, with a stream synchronisation.

Not verified on hardware: this file follows the documented interfaces; the tests check the argument
packing, the build commands and the errors, and the NPU tests (marked `npu`) are skipped here.
"""
from __future__ import annotations

import ctypes
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import LaunchError, ToolchainError
from ..graph.kernel_graph import KernelGraph
from ..graph.signature import Param
from ..lower.ascendc import lower
from ..lower.bisheng import Toolchain, build_device_binary, find_toolchain
from ..lower.cache import CompileCache, cache_key
from ..lower.cexpr import c_ident
from .base import LaunchJob, Runtime
from .npu_detect import npu_usable

RT_DEV_BINARY_MAGIC_ELF_AIVEC = 0x41415246
ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE = 0x41415246
ACL_RT_BINARY_LOAD_OPT_MAGIC = 2


# -- argument packing -------------------------------------------------------------------------------

def arg_layout(params: tuple[Param, ...]) -> tuple[list[tuple[str, int, int]], int]:
    """[(struct format, offset, size)] per kernel argument and the blob size (BISHENG ABI)."""
    out: list[tuple[str, int, int]] = []
    off = 0
    for p in params:
        fmt, size, align = {"gm": ("Q", 8, 8), "int": ("q", 8, 8), "float": ("f", 4, 4)}[p.kind]
        slot = max(4, align)
        off = -(-off // slot) * slot
        out.append((fmt, off, size))
        off += size
    return out, -(-off // 8) * 8


def pack_args(params: tuple[Param, ...], values: list[Any]) -> bytes:
    layout, total = arg_layout(params)
    blob = bytearray(total)
    for (fmt, off, _), v in zip(layout, values):
        struct.pack_into("<" + fmt, blob, off, v)
    return bytes(blob)


# -- the CANN runtime -------------------------------------------------------------------------------

class _BinaryDesc(ctypes.Structure):
    _fields_ = [("magic", ctypes.c_uint32), ("version", ctypes.c_uint32), ("data", ctypes.c_void_p),
                ("length", ctypes.c_uint64)]


class _LoadOption(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("value", ctypes.c_uint32 * 4)]


class _LoadOptions(ctypes.Structure):
    _fields_ = [("options", ctypes.POINTER(_LoadOption)), ("numOpt", ctypes.c_size_t)]


class CannRuntime:
    """ctypes access to libascendcl / libruntime from the toolkit (loaded by absolute path)."""

    def __init__(self, tc: Toolchain) -> None:
        lib64 = tc.home / "lib64"
        self.use_acl = tc.version_tuple >= (8, 5) if tc.version_tuple else False
        if os.environ.get("ASC_TRACE_NPU_LAUNCH") in ("acl", "rt"):
            self.use_acl = os.environ["ASC_TRACE_NPU_LAUNCH"] == "acl"
        try:
            self.acl = ctypes.CDLL(str(lib64 / "libascendcl.so"))
            self.rt = None if self.use_acl else ctypes.CDLL(str(lib64 / "libruntime.so"))
        except OSError as exc:
            raise ToolchainError(f"cannot load the CANN runtime from {lib64}: {exc}", None) from exc
        self._keep: list[Any] = []
        self._funcs: dict[tuple[bytes, int], Any] = {}
        self._counter = 0

    def _check(self, rc: int, what: str) -> None:
        if rc != 0:
            msg = ""
            try:
                self.acl.aclGetRecentErrMsg.restype = ctypes.c_char_p
                msg = (self.acl.aclGetRecentErrMsg() or b"").decode(errors="replace")
            except AttributeError:
                pass
            raise LaunchError(f"{what} failed with error {rc}{': ' + msg if msg else ''}", None)

    def function(self, elf: bytes, name: str, device: int) -> Any:
        key = (elf, device)
        if key in self._funcs:
            return self._funcs[key]
        data = ctypes.create_string_buffer(elf, len(elf))
        self._keep.append(data)
        if self.use_acl:
            opt = _LoadOption(ACL_RT_BINARY_LOAD_OPT_MAGIC, (ctypes.c_uint32 * 4)(ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE))
            opts = _LoadOptions(ctypes.pointer(opt), 1)
            handle, func = ctypes.c_void_p(), ctypes.c_void_p()
            self._check(self.acl.aclrtBinaryLoadFromData(data, ctypes.c_size_t(len(elf)), ctypes.byref(opts),
                                                         ctypes.byref(handle)), "aclrtBinaryLoadFromData")
            self._check(self.acl.aclrtBinaryGetFunction(handle, name.encode(), ctypes.byref(func)),
                        "aclrtBinaryGetFunction")
            self._keep += [opt, opts, handle]
            self._funcs[key] = func
            return func
        desc = _BinaryDesc(RT_DEV_BINARY_MAGIC_ELF_AIVEC, 0, ctypes.cast(data, ctypes.c_void_p), len(elf))
        handle = ctypes.c_void_p()
        self._check(self.rt.rtDevBinaryRegister(ctypes.byref(desc), ctypes.byref(handle)), "rtDevBinaryRegister")
        self._counter += 1
        stub_name = ctypes.create_string_buffer(f"{name}_{self._counter}".encode())
        kernel_name = ctypes.create_string_buffer(name.encode())
        stub = ctypes.c_size_t(self._counter)      # a unique host address used as the lookup key
        self._keep += [desc, handle, stub_name, kernel_name, stub]
        self._check(self.rt.rtFunctionRegister(handle, ctypes.byref(stub), stub_name, kernel_name, 0),
                    "rtFunctionRegister")
        self._funcs[key] = ctypes.byref(stub)
        return self._funcs[key]

    def launch(self, func: Any, blocks: int, stream: int, blob: bytes) -> None:
        buf = ctypes.create_string_buffer(blob, len(blob))
        if self.use_acl:
            rc = self.acl.aclrtLaunchKernelWithHostArgs(func, ctypes.c_uint32(blocks), ctypes.c_void_p(stream), None,
                                                        buf, ctypes.c_size_t(len(blob)), None, ctypes.c_size_t(0))
            self._check(rc, "aclrtLaunchKernelWithHostArgs")
        else:
            rc = self.rt.rtKernelLaunch(func, ctypes.c_uint32(blocks), buf, ctypes.c_uint32(len(blob)), None,
                                        ctypes.c_void_p(stream))
            self._check(rc, "rtKernelLaunch")


_CANN: CannRuntime | None = None


@dataclass
class NpuArtifact:
    elf: bytes
    name: str
    graph: KernelGraph
    toolchain: Toolchain


class NpuRuntime(Runtime):
    name = "npu"

    @classmethod
    def available(cls) -> bool:
        return npu_usable()

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> NpuArtifact:
        tc = find_toolchain()
        source = lower(graph)
        key = cache_key({"kind": "npu", "source": source, "toolchain": tc.identity,
                         "options": {k: options.get(k) for k in ("opt_level", "auto_sync", "kernel_type")}})
        path, _ = CompileCache().get_or_build(key, "kernel.elf", lambda d: build_device_binary(tc, graph, source, d, options),
                                              always=bool(options.get("always_compile")),
                                              meta={"kernel": graph.name, "backend": "npu"})
        return NpuArtifact(Path(path).read_bytes(), c_ident(graph.name), graph, tc)

    def launch(self, art: NpuArtifact, job: LaunchJob) -> None:
        global _CANN
        if not npu_usable():
            raise ToolchainError("the npu backend needs torch-npu, an Ascend NPU and the CANN toolkit", job.loc,
                                 hint="pip install 'asc-trace[npu]' on a machine with CANN, or use backend='sim'")
        import torch
        import torch_npu  # noqa: F401  (registers the npu device)
        if _CANN is None:
            _CANN = CannRuntime(art.toolchain)
        device = torch.npu.current_device()
        func = _CANN.function(art.elf, art.name, device)
        values: list[Any] = []
        copies: list[tuple[Any, Any]] = []
        for p in art.graph.signature.runtime:
            v = job.bound.values[p.index]
            if p.kind == "gm":
                if isinstance(v, torch.Tensor) and v.device.type == "npu":
                    values.append(v.data_ptr())
                    continue
                host = torch.from_numpy(job.bound.arrays[p.index]) if isinstance(v, np.ndarray) else v
                dev = host.to(f"npu:{device}")
                copies.append((job.bound.arrays[p.index], dev))
                values.append(dev.data_ptr())
            else:
                values.append(job.bound.scalars[f"p{p.index}"])
        blob = pack_args(art.graph.signature.runtime, values)
        stream = torch.npu.current_stream(device).npu_stream   # read afresh: flushes torch-npu's queue
        _CANN.launch(func, job.core_num, stream, blob)
        if copies:
            torch.npu.current_stream(device).synchronize()
            for host, dev in copies:
                np.copyto(host, dev.cpu().numpy().reshape(-1).view(host.dtype))
