"""The `npu` backend: build the device binary with bisheng, register it with the CANN runtime and
launch it on torch-npu's current stream (npu-launch.md).

- Launch path (runtime/npu_detect.py: launch_plan): `aclrtBinaryLoadFromData` / `aclrtBinaryGetFunction`
  / `aclrtLaunchKernelWithHostArgs` from libacl_rt.so (else libascendcl.so) when the library exports
  them (CANN >= 8.5), else `rtDevBinaryRegister` / `rtFunctionRegister` / `rtKernelLaunch` from
  libruntime.so, as pyasc and triton-ascend do; once per (binary, device), with the bytes, stub and
  names kept alive. Every function is looked up when the runtime is opened: a missing one is a
  ToolchainError naming it and its library, before anything is registered.
- Arguments: one host blob in declaration order, each at the next multiple of max(4, its alignment),
  the total padded to 8 bytes (the BISHENG ABI); no hidden FFTS argument for a vector-only kernel; the
  8-byte overflow-record pointer last exactly when the kernel was built with record_overflow=True
  (toolchain/bisheng.py says why and where the vendor does the same).
- Tensors: torch-npu tensors go by device pointer and the launch stays asynchronous on the current
  stream (read afresh before every launch, which flushes torch-npu's task queue); NumPy arrays and
  CPU tensors are copied to the device as bytes and back as bytes, with a stream synchronisation
  (bytes, because NumPy has no bfloat16: `.cpu().numpy()` of a bfloat16 tensor raises TypeError).

Not run on hardware: this file follows the runtime headers; the tests drive the launch sequence
against fake runtime libraries that record their calls, and the NPU tests (marked `npu`) are skipped here.
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
from ..graph.ops import family
from ..graph.signature import Param
from ..lower.ascendc import lower, prelude_digest
from ..toolchain.bisheng import OVERFLOW_PARAM, OVERFLOW_STATUS_BYTES, Toolchain, build_device_binary, find_toolchain
from ..toolchain.cache import CompileCache, cache_key
from ..toolchain.cann_layout import lib64
from ..lower.cexpr import c_ident
from .base import LaunchJob, Runtime
from .npu_detect import LaunchPlan, launch_plan, load_library, npu_usable

RT_DEV_BINARY_MAGIC_ELF_AIVEC = 0x41415246
ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE = 0x41415246
ACL_RT_BINARY_LOAD_OPT_MAGIC = 2


# -- argument packing -------------------------------------------------------------------------------

def arg_layout(params: tuple[Param, ...], overflow: bool = False) -> tuple[list[tuple[str, int, int]], int]:
    """[(struct format, offset, size)] per kernel argument and the blob size (BISHENG ABI); with
    `overflow`, one more 8-byte pointer slot at the end (the kernel's trailing GM_ADDR)."""
    out: list[tuple[str, int, int]] = []
    off = 0
    kinds = [p.kind for p in params] + (["gm"] if overflow else [])
    for kind in kinds:
        fmt, size, align = {"gm": ("Q", 8, 8), "int": ("q", 8, 8), "float": ("f", 4, 4)}[kind]
        slot = max(4, align)
        off = -(-off // slot) * slot
        out.append((fmt, off, size))
        off += size
    return out, -(-off // 8) * 8


def pack_args(params: tuple[Param, ...], values: list[Any], overflow: int | None = None) -> bytes:
    """The argument blob; `overflow` is the device address of the overflow record, or None when the
    kernel was built with -cce-aicore-record-overflow=false and declares no such parameter."""
    layout, total = arg_layout(params, overflow is not None)
    blob = bytearray(total)
    for (fmt, off, _), v in zip(layout, list(values) + ([overflow] if overflow is not None else [])):
        struct.pack_into("<" + fmt, blob, off, v)
    return bytes(blob)


# -- host arrays to and from the device --------------------------------------------------------------

def stage_to_device(host: np.ndarray, device: str) -> Any:
    """A device copy of a flat host array, as bytes (every dtype, bfloat16 included, travels alike)."""
    import torch
    return torch.from_numpy(host.view(np.uint8)).to(device, copy=True)


def copy_back(host: np.ndarray, staged: Any) -> None:
    """Write the device bytes back into the host array (for a CPU tensor, its storage)."""
    np.copyto(host.view(np.uint8), staged.cpu().numpy())


# -- the CANN runtime -------------------------------------------------------------------------------

class _BinaryDesc(ctypes.Structure):
    """rtDevBinary_t (rt_external_kernel.h): 24 bytes."""
    _fields_ = [("magic", ctypes.c_uint32), ("version", ctypes.c_uint32), ("data", ctypes.c_void_p),
                ("length", ctypes.c_uint64)]


class _LoadOption(ctypes.Structure):
    """aclrtBinaryLoadOption (acl_rt.h): an enum and a 16-byte union."""
    _fields_ = [("type", ctypes.c_int32), ("value", ctypes.c_uint32 * 4)]


class _LoadOptions(ctypes.Structure):
    _fields_ = [("options", ctypes.POINTER(_LoadOption)), ("numOpt", ctypes.c_size_t)]


_P = ctypes.c_void_p
# restype and argtypes of every function called, transcribed from the headers (acl_rt.h: aclError is int;
# runtime/base.h: rtError_t is int32_t), so that ctypes converts each argument to the declared width.
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "aclrtBinaryLoadFromData": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(_LoadOptions), ctypes.POINTER(_P)]),
    "aclrtBinaryGetFunction": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
    "aclrtLaunchKernelWithHostArgs": (ctypes.c_int, [_P, ctypes.c_uint32, _P, _P, _P, ctypes.c_size_t, _P,
                                                     ctypes.c_size_t]),
    "rtDevBinaryRegister": (ctypes.c_int32, [ctypes.POINTER(_BinaryDesc), ctypes.POINTER(_P)]),
    "rtFunctionRegister": (ctypes.c_int32, [_P, _P, ctypes.c_char_p, _P, ctypes.c_uint32]),
    "rtKernelLaunch": (ctypes.c_int32, [_P, ctypes.c_uint32, _P, ctypes.c_uint32, _P, _P]),
}


def _bind(lib: ctypes.CDLL, path: Path, name: str) -> Any:
    try:
        fn = getattr(lib, name)
    except AttributeError:
        raise ToolchainError(f"the CANN runtime function {name} is not in {path}", None,
                             hint="the toolkit is incomplete or older than this launch path; "
                                  "ASC_TRACE_NPU_LAUNCH=rt|acl picks the other one") from None
    fn.restype, fn.argtypes = _SIGNATURES[name]
    return fn


class CannRuntime:
    """ctypes access to the toolkit's runtime library (loaded by absolute path)."""

    def __init__(self, tc: Toolchain, force: str | None = None) -> None:
        self.plan: LaunchPlan = launch_plan(lib64(tc.home), force)
        lib = load_library(self.plan.library)
        names = [n for n in _SIGNATURES if n.startswith("acl" if self.plan.kind == "acl" else "rt")]
        self.fn = {n: _bind(lib, self.plan.library, n) for n in names}
        self._errmsg = None
        if self.plan.acl_library is not None:   # optional: only enriches error messages
            errmsg = getattr(load_library(self.plan.acl_library), "aclGetRecentErrMsg", None)
            if errmsg is not None:
                errmsg.restype, errmsg.argtypes = ctypes.c_char_p, []
                self._errmsg = errmsg
        self._keep: list[Any] = []
        self._funcs: dict[tuple[bytes, int], Any] = {}
        self._counter = 0

    @property
    def use_acl(self) -> bool:
        return self.plan.kind == "acl"

    def _check(self, rc: int, what: str) -> None:
        if rc != 0:
            msg = (self._errmsg() or b"").decode(errors="replace") if self._errmsg is not None else ""
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
            handle, func = _P(), _P()
            self._check(self.fn["aclrtBinaryLoadFromData"](ctypes.cast(data, _P), len(elf), ctypes.byref(opts),
                                                           ctypes.byref(handle)), "aclrtBinaryLoadFromData")
            self._check(self.fn["aclrtBinaryGetFunction"](handle, name.encode(), ctypes.byref(func)),
                        "aclrtBinaryGetFunction")
            self._keep += [opt, opts, handle]
            self._funcs[key] = func
            return func
        desc = _BinaryDesc(RT_DEV_BINARY_MAGIC_ELF_AIVEC, 0, ctypes.cast(data, _P), len(elf))
        handle = _P()
        self._check(self.fn["rtDevBinaryRegister"](ctypes.byref(desc), ctypes.byref(handle)), "rtDevBinaryRegister")
        self._counter += 1
        stub_name = ctypes.create_string_buffer(f"{name}_{self._counter}".encode())
        kernel_name = ctypes.create_string_buffer(name.encode())
        stub = ctypes.c_size_t(self._counter)      # a unique host address used as the lookup key
        self._keep += [desc, handle, stub_name, kernel_name, stub]
        self._check(self.fn["rtFunctionRegister"](handle, ctypes.addressof(stub), stub_name,
                                                  ctypes.addressof(kernel_name), 0), "rtFunctionRegister")
        self._funcs[key] = _P(ctypes.addressof(stub))
        return self._funcs[key]

    def launch(self, func: Any, blocks: int, stream: int, blob: bytes) -> None:
        buf = ctypes.create_string_buffer(blob, len(blob))
        if self.use_acl:
            rc = self.fn["aclrtLaunchKernelWithHostArgs"](func, blocks, stream, None, ctypes.cast(buf, _P), len(blob),
                                                          None, 0)
            self._check(rc, "aclrtLaunchKernelWithHostArgs")
        else:
            rc = self.fn["rtKernelLaunch"](func, blocks, ctypes.cast(buf, _P), len(blob), None, stream)
            self._check(rc, "rtKernelLaunch")


_CANN: dict[Path, CannRuntime] = {}
_OVERFLOW_STATUS: dict[int, Any] = {}


def _overflow_status(device: int) -> Any:
    """The device buffer a record_overflow kernel writes to: 8 bytes, as the vendor's host stub allocates;
    one per device, kept for the process (nothing reads it back on A2)."""
    if device not in _OVERFLOW_STATUS:
        import torch
        _OVERFLOW_STATUS[device] = torch.zeros(OVERFLOW_STATUS_BYTES, dtype=torch.uint8, device=f"npu:{device}")
    return _OVERFLOW_STATUS[device]


@dataclass
class NpuArtifact:
    elf: bytes
    name: str
    graph: KernelGraph
    toolchain: Toolchain
    record_overflow: bool = False


# the ops that write to the host through the dump workspace: the debug family (printf, DumpTensor)
_DEVICE_OUTPUT = frozenset(op.name for op in family("debug"))


def refuse_device_output(graph: KernelGraph) -> None:
    """printf and dump_tensor are refused on the npu backend, before anything is built. On the device they
    write records into a dump workspace that the launch passes as a hidden trailing argument and the host
    reads back and formats after the stream syncs (asc-devkit impl/basic_api/kernel_operator_dump_tensor_*;
    ASCENDC_DUMP=1 builds); asc_trace builds with -DASCENDC_DUMP=0 and allocates no workspace, so the calls
    would print nothing. The record layout is in the headers, but the formatting of the host side is CANN's
    runtime's, which no machine here can run: rather than a reader never checked against a device, a clear
    error. The same kernel prints on sim, eager, cpp and cpu_debug."""
    node = next((n for n in graph if n.op in _DEVICE_OUTPUT), None)
    if node is not None:
        raise ToolchainError(f"asc.{node.op} does not print on the npu backend: asc_trace's device build has no "
                             "dump workspace (-DASCENDC_DUMP=0), so the output would be lost", node=node,
                             hint="run the kernel on backend='sim' (or eager, cpp, cpu_debug) to see what it prints, "
                                  "or remove the call for the NPU")


class NpuRuntime(Runtime):
    name = "npu"

    @classmethod
    def available(cls) -> bool:
        return npu_usable()

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> NpuArtifact:
        refuse_device_output(graph)
        tc = find_toolchain()
        record_overflow = options.get("record_overflow") is True
        source = lower(graph, OVERFLOW_PARAM if record_overflow else None, generation=tc.generation)
        key = cache_key({"kind": "npu", "source": source, "toolchain": tc.identity, "prelude": prelude_digest(),
                         "options": {k: options.get(k) for k in ("opt_level", "auto_sync", "kernel_type",
                                                                 "record_overflow")}})
        path, _ = CompileCache().get_or_build(key, "kernel.elf", lambda d: build_device_binary(tc, graph, source, d, options),
                                              always=bool(options.get("always_compile")),
                                              meta={"kernel": graph.name, "backend": "npu"})
        return NpuArtifact(Path(path).read_bytes(), c_ident(graph.name), graph, tc, record_overflow)

    def launch(self, art: NpuArtifact, job: LaunchJob) -> None:
        if not npu_usable():
            raise ToolchainError("the npu backend needs torch-npu, an Ascend NPU and the CANN toolkit", job.loc,
                                 hint="pip install 'asc-trace[npu]' on a machine with CANN, or use backend='sim'")
        import torch
        import torch_npu  # noqa: F401  (registers the npu device)
        home = art.toolchain.home
        if home not in _CANN:
            _CANN[home] = CannRuntime(art.toolchain, os.environ.get("ASC_TRACE_NPU_LAUNCH"))
        cann = _CANN[home]
        device = torch.npu.current_device()
        func = cann.function(art.elf, art.name, device)
        values: list[Any] = []
        staged: list[tuple[np.ndarray, Any]] = []
        for p in art.graph.signature.runtime:
            v = job.bound.values[p.index]
            if p.kind == "gm":
                if isinstance(v, torch.Tensor) and v.device.type == "npu":
                    values.append(v.data_ptr())
                    continue
                host = job.bound.arrays[p.index]      # the flat storage of the array or CPU tensor
                if host is None:
                    raise LaunchError(f"argument {p.name!r} is a tensor on {v.device}; the npu backend takes NPU "
                                      "tensors, CPU tensors and NumPy arrays", job.loc)
                dev = stage_to_device(host, f"npu:{device}")
                staged.append((host, dev))
                values.append(dev.data_ptr())
            else:
                values.append(job.bound.scalars[f"p{p.index}"])
        overflow = _overflow_status(device).data_ptr() if art.record_overflow else None
        blob = pack_args(art.graph.signature.runtime, values, overflow)
        stream = torch.npu.current_stream(device).npu_stream   # read afresh: flushes torch-npu's queue
        cann.launch(func, job.core_num, stream, blob)
        if staged:
            torch.npu.current_stream(device).synchronize()
            for host, dev in staged:
                copy_back(host, dev)
