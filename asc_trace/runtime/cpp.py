"""The `cpp` backend: the emitted Ascend C, compiled with g++ against asc_trace's model of the API
(toolchain/include/kernel_operator.h) into a shared library, loaded with ctypes and run once per block
index on the caller's arrays. It tests the lowering end to end without bisheng."""
from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import config
from ..errors import AscTraceError
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node
from ..graph.ops.cpp_model import MODEL_OPS_HEADER, model_ops_header
from ..lower.ascendc import lower
from ..toolchain.cache import CompileCache, cache_key, generated_header_dir
from ..lower.cexpr import c_ident
from ..toolchain.compile_errors import NODE_COMMENT, compiler_error
from ..toolchain.host_cxx import compiler
from ..toolchain.sources import INCLUDE_DIR, PRELUDE_DIR, host_view, prelude_digest
from .base import LaunchJob, Runtime, written_params
from .checks import ERRORS
from .cube_eager import CubeHazards
from .mix_hazards import MixHazards
from .hazards import HazardMemo, check_hazards
from .printf import emit_output

# -fwrapv: int64 scalar arithmetic wraps, as the kernel's semantics say (docs/numerics.md)
CXXFLAGS = ["-std=c++17", "-O1", "-fPIC", "-shared", "-pthread", "-fwrapv", "-Werror=narrowing", "-Wall",
            "-Wno-unused-variable", "-Wno-unused-but-set-variable", "-Wno-format-security"]


@lru_cache(maxsize=1)
def header_digest() -> str:
    # every header of the model (kernel_operator.h includes the others): an edit to any one rebuilds
    h = hashlib.sha256()
    for path in sorted(INCLUDE_DIR.glob("*.h")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return hashlib.sha256(h.digest() + model_ops_header().encode() + prelude_digest().encode()).hexdigest()


@lru_cache(maxsize=4)
def model_ops_dir(cache_root: str) -> Path:
    """A directory holding the registry's part of the C++ model (graph/ops/cpp_model.py), one per version."""
    return generated_header_dir(Path(cache_root) / "cpp-model", MODEL_OPS_HEADER, model_ops_header())


def model_include_dirs() -> list[Path]:
    """The include path of the C++ API model: its header, and the registry's part beside it."""
    return [INCLUDE_DIR, model_ops_dir(str(config.cache_dir()))]


@lru_cache(maxsize=4)
def precompiled_header(cache_root: str) -> Path | None:
    """A directory holding kernel_operator.h precompiled (g++ PCH) for CXXFLAGS, built once per header
    version into the disk cache; it halves every kernel's build. None if the compiler cannot make one
    (kernels then build without it)."""
    cxx, version = compiler()
    key = cache_key({"kind": "cpp-pch", "header": header_digest(), "cxx": version, "flags": CXXFLAGS})
    flags = [f for f in CXXFLAGS if f != "-shared"]

    def build(tmp: Path) -> Path:
        out = tmp / "kernel_operator.h.gch"
        subprocess.run([cxx, *flags, "-Wno-pragma-once-outside-header", f"-I{model_ops_dir(cache_root)}", "-x",
                        "c++-header", str(INCLUDE_DIR / "kernel_operator.h"), "-o", str(out)], capture_output=True,
                       check=True)
        return out

    try:
        path, _ = CompileCache(Path(cache_root)).get_or_build(key, "kernel_operator.h.gch", build,
                                                              meta={"kind": "precompiled header"})
    except (subprocess.CalledProcessError, OSError):
        return None
    return path.parent


def refuse_unmodeled(graph: KernelGraph) -> None:
    """A high-level call (asc.adv) whose record has no C++ model cannot be built here: say so at its line
    rather than let g++ report a missing AscendC member."""
    from ..errors import ToolchainError
    from ..graph.ops import NA, REGISTRY
    from ..graph.ops.cmpmask import cmpmask_form
    for n in graph:
        op = REGISTRY[n.op]
        # a vector op without a model (pyasc's further families, docs/pyasc-vector-ops.md) likewise
        if op.family == "vec_reduce" and n.attr("mask_form"):
            raise ToolchainError(f"the cpp backend has no model of the mask form of Ascend C {op.c_name} "
                                 f"(asc.{n.op}(..., mask=, repeat_time=, src_rep_stride=)); its count form is modelled",
                                 n.loc, hint="run this kernel on backend='sim', 'eager' or 'cpu_debug' (which builds "
                                             "the vendor's own implementation)")
        if op.family == "vec_cmpsel" and cmpmask_form(n):
            raise ToolchainError(f"the cpp backend has no model of the CMPMASK register or of the mask / repeat "
                                 f"forms of Ascend C {op.c_name} (asc.{n.op}(..., mask=, repeat_times=, "
                                 "repeat_params=), Compare without dst, VSEL_CMPMASK_SPR); its count form is modelled",
                                 n.loc, hint="run this kernel on backend='sim', 'eager' or 'cpu_debug' (which builds "
                                             "the vendor's own implementation)")
        if (op.family == "adv" or op.family.startswith("vec_")) and isinstance(op.cpp_model, NA):
            name = f"asc.adv.{n.op[4:]}" if op.family == "adv" else f"asc.{n.op}"
            raise ToolchainError(f"the cpp backend has no model of Ascend C {op.c_name} ({name}): "
                                 f"{op.cpp_model.reason}", n.loc,
                                 hint="run this kernel on backend='sim', 'eager' or 'cpu_debug' (which builds the "
                                      "vendor's own implementation)")


def adv_tmp_minimums(graph: KernelGraph) -> dict[int, str]:
    """node id -> the C++ arguments of ASC_TRACE_ADV_TMP_MIN for each adv call given a temporary buffer whose
    vendor minimum is known when tracing (the count a constant, or no count): the model checks the buffer
    against it, as sim and eager do (runtime/executors_adv.py check_tmp)."""
    from ..graph.expr import Const
    from ..graph.ops.adv_common import ADV, extent, operands
    out = {}
    for n in graph:
        if n.op not in ADV or not n.attr("tmp"):
            continue
        spec = ADV[n.op]
        # the size sim checks against: the count, or the first output's extent for a call without one
        count = operands(n)[3] if spec.counted else extent(n, spec.outs[0])
        if not isinstance(count, Const) or count.value == 0:
            continue            # known only at run time (docs/adv.md), or nothing done
        need = spec.min_tmp(n, count.value)
        helper = spec.tmp_helper or f"asc.adv.get_{n.op[4:]}_max_min_tmp_size"
        out[n.id] = f'{int(need)}u, "{n.op[4:]}", "{helper}"'
    return out


def instrument(source: str, graph: KernelGraph | None = None) -> str:
    """Mark every statement with its node (the model reports failures by node), the kernel seen as
    bisheng sees it (toolchain/sources.host_view); with the graph, also each adv call's temporary-buffer
    minimum."""
    mins = adv_tmp_minimums(graph) if graph is not None else {}
    out = []
    for line in host_view(source).splitlines():
        out.append(line)
        m = NODE_COMMENT.match(line)
        if m:
            out.append(f"{m.group(1)}ASC_TRACE_NODE({m.group(2)});")
            if int(m.group(2)) in mins:
                out.append(f"{m.group(1)}ASC_TRACE_ADV_TMP_MIN({mins[int(m.group(2))]});")
    return "\n".join(out) + "\n"


def call_args(g: KernelGraph, array: str = "args") -> str:
    """The kernel's arguments unpacked from `void** array` (one pointer per runtime parameter)."""
    args = []
    for i, p in enumerate(g.signature.runtime):
        if p.kind == "gm":
            args.append(f"static_cast<GM_ADDR>({array}[{i}])")
        elif p.kind == "int":
            args.append(f"*static_cast<int64_t*>({array}[{i}])")
        else:
            args.append(f"*static_cast<float*>({array}[{i}])")
    return ", ".join(args)


def launcher(g: KernelGraph) -> str:
    call = f"{c_ident(g.name)}({call_args(g)});"
    return f"""
// ---- asc_trace cpp backend: run the kernel once per block index ----
#include <string>
#include <vector>
static std::string asc_trace_kind, asc_trace_msg;
static int asc_trace_node = -1, asc_trace_core = -1;
static std::vector<std::string> asc_trace_out;

extern "C" int asc_trace_launch(void** args, int32_t core_num, const int64_t* gm_lo, const int64_t* gm_hi, int32_t ngm)
{{
    auto& ranges = AscendC::detail::gm_ranges();
    ranges.clear();
    for (int32_t i = 0; i < ngm; ++i)
        ranges.push_back({{reinterpret_cast<const uint8_t*>(gm_lo[i]), reinterpret_cast<const uint8_t*>(gm_hi[i])}});
    asc_trace_out.assign(static_cast<size_t>(core_num), std::string());
    for (int32_t c = 0; c < core_num; ++c) {{
        auto& st = AscendC::detail::core();
        AscendC::detail::reset_core(st, c, core_num);
        try {{
            {call}
        }} catch (const AscendC::detail::Failure& f) {{
            asc_trace_kind = f.kind;
            asc_trace_msg = f.message;
            asc_trace_node = st.node;
            asc_trace_core = c;
            asc_trace_out[static_cast<size_t>(c)] = st.out;
            return 1;
        }}
        asc_trace_out[static_cast<size_t>(c)] = st.out;
    }}
    return 0;
}}
extern "C" const char* asc_trace_error_kind() {{ return asc_trace_kind.c_str(); }}
extern "C" const char* asc_trace_error_message() {{ return asc_trace_msg.c_str(); }}
extern "C" int asc_trace_error_node() {{ return asc_trace_node; }}
extern "C" int asc_trace_error_core() {{ return asc_trace_core; }}
extern "C" const char* asc_trace_output(int32_t core) {{ return asc_trace_out[static_cast<size_t>(core)].c_str(); }}
"""


def mix_launcher(g: KernelGraph) -> str:
    """The launcher of a mixed kernel: per AI core, its cube core and two vector cores (asc_trace_mix.h), numbered
    as the mixed simulator numbers them: the cube core of AI core c is c, its vector cores core_num + 2c + s. In
    pyasc's MIX Matmul mode (graph/matmul_clients.py) each of the core_num Matmul clients runs with a cube core of
    its own, both with the client's block id: vector core core_num + c."""
    call = f"{c_ident(g.name)}({call_args(g)});"
    nvec = 1 if getattr(g, "matmul_clients", 1) > 1 else 2
    return f"""
// ---- asc_trace cpp backend: per AI core, one cube core and two vector cores ----
#include <memory>
#include <string>
#include <vector>
static std::string asc_trace_kind, asc_trace_msg;
static int asc_trace_node = -1, asc_trace_core = -1, asc_trace_side = 0;
static std::vector<std::string> asc_trace_out;

extern "C" int asc_trace_launch(void** args, int32_t core_num, const int64_t* gm_lo, const int64_t* gm_hi, int32_t ngm)
{{
    auto& ranges = AscendC::detail::gm_ranges();
    ranges.clear();
    for (int32_t i = 0; i < ngm; ++i)
        ranges.push_back({{reinterpret_cast<const uint8_t*>(gm_lo[i]), reinterpret_cast<const uint8_t*>(gm_hi[i])}});
    asc_trace_out.assign(static_cast<size_t>(3 * core_num), std::string());
    static std::unique_ptr<AscendC::detail::Core> owned[3];
    AscendC::detail::Core* cores[3];
    for (int i = 0; i < 3; ++i) {{
        if (!owned[i]) owned[i].reset(new AscendC::detail::Core());
        cores[i] = owned[i].get();
    }}
    const int nvec = {nvec};
    for (int32_t c = 0; c < core_num; ++c) {{
        const int ids[3] = {{c, core_num + nvec * c, core_num + nvec * c + 1}};
        for (int i = 0; i < 1 + nvec; ++i) {{
            auto& st = *cores[i];
            // GetBlockIdx() on a vector core: 2 * AI core + sub-block (a Matmul client's pair: the client's id)
            AscendC::detail::reset_core(st, i == 0 || nvec == 1 ? c : 2 * c + i - 1, core_num);
            st.mix_local = i;
        }}
        try {{
            AscendC::detail::run_ai_core(cores, [&] {{ {call} }}, nvec);
        }} catch (const AscendC::detail::MixFailure& f) {{
            asc_trace_kind = f.failure.kind;
            asc_trace_msg = f.failure.message;
            asc_trace_node = cores[f.local]->node;
            asc_trace_core = ids[f.local];
            asc_trace_side = f.local == 0 ? 0 : 1;
            for (int i = 0; i < 1 + nvec; ++i) asc_trace_out[static_cast<size_t>(ids[i])] = cores[i]->out;
            return 1;
        }}
        for (int i = 0; i < 1 + nvec; ++i) asc_trace_out[static_cast<size_t>(ids[i])] = cores[i]->out;
    }}
    return 0;
}}
extern "C" const char* asc_trace_error_kind() {{ return asc_trace_kind.c_str(); }}
extern "C" const char* asc_trace_error_message() {{ return asc_trace_msg.c_str(); }}
extern "C" int asc_trace_error_node() {{ return asc_trace_node; }}
extern "C" int asc_trace_error_core() {{ return asc_trace_core; }}
extern "C" int asc_trace_error_side() {{ return asc_trace_side; }}
extern "C" const char* asc_trace_output(int32_t core) {{ return asc_trace_out[static_cast<size_t>(core)].c_str(); }}
"""


class CppArtifact:
    def __init__(self, lib: ctypes.CDLL, graph: KernelGraph, path: Path, built: bool) -> None:
        self.lib = lib
        self.path = path
        self.built = built          # compiled by this process (False: taken from the disk cache)
        from ..graph.cube_graph import is_cube_graph
        from ..graph.mix_split import MixGraph
        self.mixed = isinstance(graph, MixGraph)
        # a mixed kernel's nodes per side (0 the cube core's, 1 the vector cores'): ids are shared, nodes may differ
        sides = (graph.aic, graph.aiv) if self.mixed else (graph,)
        self.nodes = [{n.id: n for n in side} for side in sides]
        self.written = written_params(graph)
        self.cube = not self.mixed and is_cube_graph(graph)
        # the pipes (and a mixed kernel's GM between cores), which the host's program order cannot show, are
        # judged by the simulators: the cube's without data as on eager, a mixed kernel's on copies
        from .block_sync_hazards import BlockSyncHazards
        from .block_sync_sim import has_block_sync
        self.block_sync = not self.mixed and has_block_sync(graph)
        self.hazards: Any = (MixHazards(graph) if self.mixed else CubeHazards(graph) if self.cube
                             else BlockSyncHazards(graph) if self.block_sync else HazardMemo(graph))
        self.params = graph.signature.runtime
        lib.asc_trace_launch.restype = ctypes.c_int
        lib.asc_trace_launch.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int32,
                                         ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64),
                                         ctypes.c_int32]
        self.outputs = 3 if self.mixed else 1            # printf slots per AI core
        for fn in ("asc_trace_error_kind", "asc_trace_error_message"):
            getattr(lib, fn).restype = ctypes.c_char_p
        lib.asc_trace_output.restype = ctypes.c_char_p
        lib.asc_trace_output.argtypes = [ctypes.c_int32]


class CppRuntime(Runtime):
    name = "cpp"

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> CppArtifact:
        cxx, version = compiler()
        refuse_unmodeled(graph)
        from ..graph.mix_split import MixGraph
        from .block_sync_sim import block_launcher, has_block_sync
        source = instrument(lower(graph), graph) + (mix_launcher(graph) if isinstance(graph, MixGraph) else
                                             block_launcher(graph, call_args(graph)) if has_block_sync(graph)
                                             else launcher(graph))
        key = cache_key({"kind": "cpp", "source": source, "header": header_digest(), "cxx": version,
                         "flags": CXXFLAGS})

        def build(tmp: Path) -> Path:
            (tmp / "kernel.cpp").write_text(source)
            out = tmp / "kernel.so"
            pch = precompiled_header(str(config.cache_dir()))
            includes = ([f"-I{pch}"] if pch is not None else []) + [
                f"-I{INCLUDE_DIR}", f"-I{model_ops_dir(str(config.cache_dir()))}", f"-I{PRELUDE_DIR}"]
            proc = subprocess.run([cxx, *CXXFLAGS, *includes, "kernel.cpp", "-o", str(out)], cwd=tmp,
                                  capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise compiler_error("g++", graph, source, "kernel.cpp", proc.stderr,
                                     hint="this is a bug in asc_trace's lowering or its API model; please report it "
                                          "with the kernel (ASC_TRACE_DUMP_PATH keeps the source)")
            return out

        cache = CompileCache()
        path, built = cache.get_or_build(key, "kernel.so", build, always=bool(options.get("always_compile")),
                                         meta={"kernel": graph.name, "backend": "cpp"})
        try:
            lib = ctypes.CDLL(str(path))
        except OSError:          # a truncated or foreign file that still matched its checksum: rebuild once
            path, built = cache.get_or_build(key, "kernel.so", build, always=True)
            lib = ctypes.CDLL(str(path))
        return CppArtifact(lib, graph, path, built)

    def launch(self, art: CppArtifact, job: LaunchJob) -> None:
        if art.cube or art.mixed or art.block_sync:
            art.hazards.check(job)
        else:
            check_hazards(art.hazards, job)
        bound = job.bound
        snapshot = {i: bound.arrays[i].copy() for i in art.written}
        keep: list[Any] = []
        ptrs = (ctypes.c_void_p * max(1, len(art.params)))()
        for i, p in enumerate(art.params):
            if p.kind == "gm":
                ptrs[i] = bound.arrays[p.index].ctypes.data
            elif p.kind == "int":
                v = ctypes.c_int64(bound.scalars[f"p{p.index}"])
                keep.append(v)
                ptrs[i] = ctypes.addressof(v)
            else:
                v = ctypes.c_float(bound.scalars[f"p{p.index}"])
                keep.append(v)
                ptrs[i] = ctypes.addressof(v)
        arrays = [a for a in bound.arrays if a is not None]
        lo = (ctypes.c_int64 * max(1, len(arrays)))(*[a.ctypes.data for a in arrays])
        hi = (ctypes.c_int64 * max(1, len(arrays)))(*[a.ctypes.data + a.nbytes for a in arrays])
        rc = art.lib.asc_trace_launch(ptrs, job.core_num, lo, hi, len(arrays))
        slots = art.outputs * job.core_num
        failed_core = art.lib.asc_trace_error_core() if rc else slots
        outs = [(c, [art.lib.asc_trace_output(c).decode(errors="replace")])
                for c in range(slots if art.mixed or art.block_sync else min(job.core_num, failed_core + 1))]
        emit_output(outs, job.core_num)
        if rc:
            for i, old in snapshot.items():
                np.copyto(bound.arrays[i], old)
            kind = art.lib.asc_trace_error_kind().decode()
            msg = art.lib.asc_trace_error_message().decode()
            side = art.lib.asc_trace_error_side() if art.mixed else 0
            node: Node | None = art.nodes[side].get(art.lib.asc_trace_error_node())
            err = ERRORS.get(kind, AscTraceError)
            raise err(f"{msg} (core {failed_core}, cpp backend)", node=node)
