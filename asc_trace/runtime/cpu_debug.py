"""The `cpu_debug` backend: the emitted Ascend C linked with the real Ascend C API in CPU-debug mode
(the headers toolchain/real_api.py finds) and asc_trace's model of the AI Core intrinsics (toolchain/stub/),
run for each core on the caller's arrays.

Each launch runs the built kernel in a child process (one forked process per core inside it, as
tikicpulib does), on a copy of the caller's arrays in a shared file: the API's own checks abort the
process (raise(SIGABRT)), a wild pointer would crash it, and neither can take the Python process
with it. The arrays are written back only when every core has finished without error.
"""
from __future__ import annotations

import mmap
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .. import config, errors
from ..errors import (AlignmentError, AscTraceError, LaunchError, OutOfBoundsError, QueueError, SyncError,
                      ToolchainError, UBOverflowError)
from ..graph.kernel_graph import KernelGraph
from ..graph.ops import REGISTRY, read, written
from ..lower.ascendc import lower
from ..toolchain.ascendc_headers import AscendCHeaders, find_ascendc_headers
from ..toolchain.cache import CompileCache, cache_key
from ..lower.cexpr import PREFIX, c_ident
from ..toolchain.compile_errors import compiler_error
from ..toolchain.header_check import Kernel, batch_source, diagnostics_by_kernel
from ..toolchain.real_api import flags, identity, precompiled_header, stub_digest, stub_library
from .base import LaunchJob, Runtime, written_params
from ..toolchain.host_cxx import compiler
from .cpp import call_args, instrument
from .hazards import HazardMemo, check_hazards
from .printf import emit_output

_KINDS = {"alignment": AlignmentError, "bounds": OutOfBoundsError, "ub": UBOverflowError, "queue": QueueError,
          "not_provided": errors.NotProvidedError,
          "sync": SyncError, "scalar": getattr(errors, "ScalarError", AscTraceError), "launch": LaunchError}
_CORE = re.compile("\x1e@@ASC_TRACE_CORE (\\d+)\x1e")
_REPORT = re.compile(r"^@@ASC_TRACE_(FAIL|SIGNAL)\t([^\t]*)\t(-?\d+)\t(-?\d+)\t(.*)$", re.M)
# the API's own log lines in CPU-debug mode (impl/basic_api/kernel_log.h), kept apart from printf output
# Its messages often end in their own "\n" before the log's newline: that empty line is the log's too.
_API_LOG = re.compile(r"(\[(?:ERROR|WARN|INFO|DEBUG)\]\[(?:Block|Core)_[^\n]*|\[ASSERT\] [^\n]*)\n?\n?")
_GM_ALIGN = 512


_SET_GLOBAL = re.compile(rf"^(\s*){PREFIX}t(\d+)\.SetGlobalBuffer\(")
_LOCAL = re.compile(rf"^(\s*)AscendC::LocalTensor<[^>]+> {PREFIX}t(\d+)(\(AscendC::TPosition::| = {PREFIX}ub\.)")


def instrument_gm(g: KernelGraph, source: str) -> str:
    """The source with each statement's node marker (cpp.instrument) and, for the stub layer's
    checks, each GlobalTensor's SetGlobalBuffer window, the GlobalTensor each statement uses, and
    each static LocalTensor's place in the usable Unified Buffer (the API allows all 192 KB)."""
    roots = {n.id: sorted({r.root for r in written(n) + read(n) if r.space == "gm"}) for n in g}
    adv = {n.id for n in g if n.op.startswith("adv_")}      # the vendor's implementation runs inside these
    out = []
    for line in instrument(source).splitlines():
        out.append(line)
        m = re.match(r"^(\s*)ASC_TRACE_NODE\((\d+)\);$", line)
        if m and int(m.group(2)) in adv:
            out.append(f"{m.group(1)}asc_stub::vendor_impl();")
        if m and roots.get(int(m.group(2))):
            out.append(f"{m.group(1)}asc_stub::gm_operand({roots[int(m.group(2))][0]});")
        m = _LOCAL.match(line)
        if m:
            t = f"{PREFIX}t{m.group(2)}"
            out.append(f"{m.group(1)}asc_stub::check_ub({t}.GetPhyAddr(), {t}.GetSize() * sizeof(*{t}.GetPhyAddr()), "
                       f"32, \"this LocalTensor\");")
        m = _SET_GLOBAL.match(line)
        if m:
            t = f"{PREFIX}t{m.group(2)}"
            out.append(f"{m.group(1)}asc_stub::gm_window({m.group(2)}, {t}.GetPhyAddr(), {t}.GetSize() * "
                       f"sizeof(*{t}.GetPhyAddr()));")
    return "\n".join(out) + "\n"


def program(graphs: list[KernelGraph], generation: int | None = None) -> str:
    """One translation unit: the kernels (each in its own namespace, toolchain/header_check.batch_source),
    lowered for the headers' CANN `generation`, and the `main` that runs kernel i (its first argument)
    through asc_stub::run_launch."""
    text, parts = batch_source([Kernel(g.name, instrument_gm(g, lower(g, generation=generation)), g)
                                for g in graphs])
    calls = [f"static void asc_call_{i}(void** a) {{ asc_check_{i}::{c_ident(g.name)}({call_args(g, 'a')}); }}"
             for i, g in enumerate(graphs)]
    table = ", ".join(f"&asc_call_{i}" for i in range(len(graphs)))
    return text + f"""
// ---- asc_trace cpu_debug backend: run kernel <argv[1]> once per block index ----
#include "asc_stub_launch.h"
{chr(10).join(calls)}
static const asc_stub::KernelCall asc_kernels[] = {{{table}}};
static uint8_t* asc_ub() {{ return AscendC::ConstDefiner::Instance().cpuUB; }}
int main(int argc, char** argv) {{ return asc_stub::run_launch(argc, argv, asc_kernels, {len(graphs)}, &asc_ub); }}
"""


class CpuDebugArtifact:
    def __init__(self, exe: Path, index: int, graph: KernelGraph, built: bool) -> None:
        self.exe = exe
        self.index = index          # the kernel's place in a multi-kernel executable (prebuild)
        self.built = built
        self.nodes = {n.id: n for n in graph}
        self.params = graph.signature.runtime
        self.written = written_params(graph)
        self.hazards = HazardMemo(graph)


# kernel key -> (executable, index) of kernels built together by prebuild() in this process
_PREBUILT: dict[str, tuple[Path, int]] = {}


def _key(tree: AscendCHeaders, version: str, graph: KernelGraph) -> str:
    """A kernel's identity among prebuilt kernels (the executable's cache key covers its whole text)."""
    return cache_key({"source": instrument_gm(graph, lower(graph, generation=tree.generation)), "tree": identity(tree),
                      "stub": stub_digest(),
                      "cxx": version})


def _build(tree: AscendCHeaders, graphs: list[KernelGraph], always: bool = False) -> tuple[Path, bool]:
    """The executable of `graphs` (from the disk cache when it is there)."""
    cxx, version = compiler()
    source = program(graphs, tree.generation)
    key = cache_key({"kind": "cpu_debug", "source": source, "tree": identity(tree), "stub": stub_digest(),
                     "cxx": version, "flags": flags(tree)})

    def build(tmp: Path) -> Path:
        pch = precompiled_header(tree, cxx, version)
        lib = stub_library(tree, cxx, version)
        (tmp / "kernels.cpp").write_text(source)
        out = tmp / "kernels"
        proc = subprocess.run([cxx, f"-I{pch}", *flags(tree), "kernels.cpp", str(lib), "-o", str(out)],
                              cwd=tmp, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            if len(graphs) == 1:
                single = instrument_gm(graphs[0], lower(graphs[0], generation=tree.generation))
                lines = diagnostics_by_kernel(proc.stderr.replace("kernels.cpp", "batch.cpp"), batch_source(
                    [Kernel(graphs[0].name, single, graphs[0])])[1]).get(0, [proc.stderr])
                raise compiler_error("g++ with the real Ascend C headers", graphs[0], single, "kernel.cpp",
                                     "\n".join(lines), full_output=True,
                                     hint="the real API does not accept this source as emitted (or asc_trace's stub "
                                          "layer lacks what it needs); please report it with the kernel")
            raise ToolchainError(f"g++ rejected a batch of {len(graphs)} kernels", None)
        return out

    path, built = CompileCache().get_or_build(key, "kernels", build, always=always,
                                              meta={"kernels": [g.name for g in graphs], "backend": "cpu_debug"})
    os.chmod(path, 0o755)
    return path, built


def prebuild(graphs: list[KernelGraph]) -> None:
    """Build the cpu_debug executables of many kernels with one compiler run (one translation unit:
    the API is parsed and its templates instantiated once, so each extra kernel costs little). Later
    launches of these kernels in this process use it. A batch the compiler rejects is left to the
    kernels' own builds, which report the error at the user's line."""
    tree = find_ascendc_headers()
    _, version = compiler()
    todo = {}
    for g in graphs:
        k = _key(tree, version, g)
        if k not in _PREBUILT:
            todo.setdefault(k, g)
    if not todo:
        return
    try:
        exe, _ = _build(tree, list(todo.values()))
    except ToolchainError:
        return
    for i, k in enumerate(todo):
        _PREBUILT[k] = (exe, i)


def refuse_vendor_cpu(graph: KernelGraph) -> None:
    """What the vendor's CPU-debug build itself does not compile, said at the user's line instead of g++'s."""
    from ..enums import TPosition
    sizes = {n.id: n.args[1].value for n in graph if n.op == "tbufpool"}
    for n in graph:
        if (n.op == "init_buf_pool" and n.args[0].kind == "pool"
                and sizes.get(n.args[0].root) != sizes.get(n.args[1].root)):
            raise ToolchainError("the vendor's CPU-debug build of Ascend C does not compile a TBufPool nested in one of "
                                 "another buf_id_size: TBufPool<pos, N>::InitBufPool reads the nested pool's protected "
                                 "tBufPoolImpl, which only a TBufPool of the same buf_id_size may "
                                 "(impl/basic_api/kernel_tbufpool_impl.h)", n.loc,
                                 hint="give the nested pool the same buf_id_size, or run on backend='sim', 'eager' or "
                                      "'cpp'")
        if n.op == "tque" and n.args[0] == TPosition.VECCALC:
            raise ToolchainError("the vendor's CPU-debug build of Ascend C does not compile TQue<TPosition::VECCALC>: "
                                 "TQue derives its queue's positions with GetBufferLogicPos, which asserts pos != "
                                 "VECCALC (impl/basic_api/kernel_event.h), and the assert is not constexpr there", n.loc,
                                 hint="run on backend='sim', 'eager' or 'cpp', or make the scratch memory a TBuf: "
                                      "asc.TBuf(asc.TPosition.VECCALC) with pipe.init_buffer(tbuf, len_bytes)")


class CpuDebugRuntime(Runtime):
    name = "cpu_debug"

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> CpuDebugArtifact:
        refuse_vendor_cpu(graph)
        from .block_sync_sim import refuse_block_sync
        refuse_block_sync(graph, "cpu_debug")
        tree = find_ascendc_headers()
        if tree.cpu_stub is not None:
            from ..toolchain.tikicpulib import build_with_tikicpulib
            exe, built = build_with_tikicpulib(tree, lower(graph, generation=tree.generation), graph,
                                               c_ident(graph.name), bool(options.get("always_compile")))
            return CpuDebugArtifact(exe, 0, graph, built)
        always = bool(options.get("always_compile"))
        hit = None if always else _PREBUILT.get(_key(tree, compiler()[1], graph))
        if hit is not None:
            return CpuDebugArtifact(hit[0], hit[1], graph, False)
        exe, built = _build(tree, [graph], always)
        return CpuDebugArtifact(exe, 0, graph, built)

    def launch(self, art: CpuDebugArtifact, job: LaunchJob) -> None:
        check_hazards(art.hazards, job)      # races, events, cross-core writes: as sim finds them
        bound = job.bound
        offsets: dict[int, int] = {}
        size = 0
        sig = bound.signature
        for p in art.params:
            if p.kind == "gm" and sig.gm_home(p.index)[0] == p.index:
                # one region per memory: arguments that share it at this launch (graph/signature.py alias)
                # get offsets into their home's region, so that a write through one is seen through the other
                span = max([bound.arrays[p.index].nbytes] +
                           [delta + bound.arrays[q.index].nbytes for q in sig.params
                            if q.kind == "gm" and q.alias is not None
                            for home, delta in [q.alias] if home == p.index])
                offsets[p.index] = size
                size += -(-span // _GM_ALIGN) * _GM_ALIGN + _GM_ALIGN
        for p in art.params:
            if p.kind == "gm" and p.index not in offsets:
                home, delta = sig.gm_home(p.index)
                offsets[p.index] = offsets[home] + delta
        argv = []
        for p in art.params:
            if p.kind == "gm":
                arr = bound.arrays[p.index]
                argv.append(f"g{offsets[p.index]}:{arr.nbytes}:{p.name}")
            elif p.kind == "int":
                argv.append(f"i{int(bound.scalars[f'p{p.index}'])}")
            else:
                bits = struct.unpack("<I", struct.pack("<f", float(bound.scalars[f'p{p.index}'])))[0]
                argv.append(f"f{bits:08x}")
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        with tempfile.NamedTemporaryFile(prefix="asc_trace_gm_", dir=shm) as f:
            f.truncate(max(size, 1))
            with mmap.mmap(f.fileno(), max(size, 1)) as gm:
                for idx, off in offsets.items():
                    arr = bound.arrays[idx]
                    gm[off:off + arr.nbytes] = arr.tobytes()
                proc = self._run(art, job, [str(art.index), f.name, str(job.core_num), *argv])
                outs, fail = _parse(proc, job.core_num)
                emit_output(outs, job.core_num)
                if fail is not None:
                    raise fail(art)
                for idx in art.written:
                    arr = bound.arrays[idx]
                    np.copyto(arr, np.frombuffer(gm, arr.dtype, arr.size, offsets[idx]).reshape(arr.shape))

    def _run(self, art: CpuDebugArtifact, job: LaunchJob, args: list[str]) -> subprocess.CompletedProcess:
        timeout = config.env_int("ASC_TRACE_CPU_DEBUG_TIMEOUT", 300)
        try:
            return subprocess.run([str(art.exe), *args], capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise LaunchError(f"{job.name} did not finish within {timeout} s on the cpu_debug backend", job.loc,
                              hint="a loop that never ends, or a hang; ASC_TRACE_CPU_DEBUG_TIMEOUT sets the limit")


def _parse(proc: subprocess.CompletedProcess, core_num: int):
    """(per-core printf output, a function making the error or None) from the child's output."""
    out = proc.stdout.decode(errors="replace")
    err = proc.stderr.decode(errors="replace")
    pieces = _CORE.split(out)
    if len(pieces) == 1 and out:        # a launcher without core markers (CANN's tikicpulib flow)
        sys.stdout.write(out)
    per_core: dict[int, str] = {int(pieces[i]): pieces[i + 1] for i in range(1, len(pieces) - 1, 2)}
    logs: dict[int, list[str]] = {}
    outs = []
    for core in sorted(per_core):
        text = per_core[core]
        logs[core] = [m.group(1) for m in _API_LOG.finditer(text)]
        outs.append((core, [_API_LOG.sub("", text)]))
    report = _REPORT.search(err)
    if proc.returncode == 0 and report is None:
        return outs, None
    return outs, lambda art: _error(art, report, logs, proc, err)


def _error(art: CpuDebugArtifact, report: re.Match | None, logs: dict[int, list[str]],
           proc: subprocess.CompletedProcess, err: str) -> AscTraceError:
    if report is None:
        return ToolchainError(f"the cpu_debug kernel exited with status {proc.returncode}:\n{err.strip()[:2000]}",
                              None)
    tag, kind, node_id, core, msg = report.groups()
    node = art.nodes.get(int(node_id))
    where = f" (core {core}, cpu_debug backend)"
    if tag == "FAIL":
        if kind == "unmodeled":
            return ToolchainError(msg + where, node=node,
                                  hint="run this kernel on backend='sim' or 'cpp', or model the intrinsic in "
                                       "asc_trace/toolchain/stub (stub_fun.h)")
        return _KINDS.get(kind, AscTraceError)(msg + where, node=node)
    api = [ln for ln in logs.get(int(core), []) if ln.startswith(("[ERROR]", "[ASSERT]"))]
    if kind != "abort" or not api:
        return LaunchError(f"the kernel crashed ({kind}){where}", node=node,
                           hint="the real API or asc_trace's intrinsic model hit an address it cannot touch; run it "
                                "on backend='sim' for a checked diagnosis")
    source = " ".join(re.findall(r"\[([^\]]*)\]", api[-1].split("] ", 1)[0] + "]"))   # [file:line][function]
    text = re.sub(r"^\[ERROR\](\[[^\]]*\])+\s*", "", api[-1]).strip()
    # a tag holding brackets itself ("[operator[]]") leaves its tail behind: "][20439] offset is ..."
    text = re.sub(r"^\](\[[^\]]*\])*\s*", "", text)
    cls = _api_error_class(text, source)
    hint = ("the real API's CPU-debug build does not run this call (the NPU build does): use backend='sim' or 'cpp' "
            "for it") if cls is ToolchainError else None
    return cls(f"the Ascend C API refused the call: {text}{where}", node=node, hint=hint)


# the vendor's TQue / TBuf / TPipe code, as its error's [file][function] names it: the Ascend C names of
# the queue records (tque, tpipe, tbuf, alloctensor, enque, deque, freetensor)
_QUEUE_WORDS = tuple(sorted(op.c_name.lower() for op in REGISTRY.values()
                            if op.role == "queue" or op.defines not in ("", "tensor")))


def _api_error_class(text: str, source: str) -> type[AscTraceError]:
    """The error class of an API check's message; `source` is its [file:line][function] tag."""
    low, where = text.lower(), source.lower()
    if "not supported" in low:
        return ToolchainError
    if "align" in low or "divisible by" in low:   # e.g. DataCopyPad: blockLen "must be divisible by 4"
        return AlignmentError
    # a limit of the UB's size is an overflow whichever call checks it (InitBuffer's "exceeds the limit
    # 196608" is a TPipe message, but the error is the UB's, as sim / eager / cpp report it)
    if "max len" in low or "ub size" in low or str(config.UB_BYTES) in low:
        return UBOverflowError
    # a high-level call's scratch below its minimum ("softmax need min tmpbuffer is not enough"): sim, eager
    # and cpp report a too-small temporary buffer (given, or the UB PopStackBuffer finds) as the UB's overflow
    if "tmpbuffer" in low or "tmp buffer" in low or "stacksize" in low:
        return UBOverflowError
    # TBuf::Get past its buffer ("len is 2048, max buffer len is 1024"): a bounds error, as sim / eager / cpp say
    if "max buffer len" in low:
        return OutOfBoundsError
    if any(w in where for w in _QUEUE_WORDS):
        return QueueError
    # "... which can not be larger than data len 256": GetValue / SetValue / a tensor slice past its length
    if any(w in low for w in ("exceed", "out of range", "range", "overflow", "size", "larger than")):
        return OutOfBoundsError
    return AscTraceError
