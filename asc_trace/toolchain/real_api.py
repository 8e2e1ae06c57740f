"""Building against the real Ascend C API on the host: the g++ flags of a CPU-debug build, and the two
cached artifacts every such build shares (the precompiled `kernel_operator.h` and asc_trace's stub
library). The headers themselves are found by ascendc_headers.py (ASC_TRACE_ASCENDC_HOME, then a CANN
installation).

Compiling the headers as host C++ needs the CPU-debug "stub" layer CANN's tikicpulib provides;
asc_trace brings its own (toolchain/stub/: the qualifiers, `half` / `bfloat16_t`, the block index and the
other globals, the API's check hooks, and a model of the AI Core intrinsics). With a CANN toolkit that
has tikicpulib, cpu_debug uses CANN's own flow instead (toolchain/tikicpulib.py).
"""
from __future__ import annotations

import hashlib
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

from .. import config
from ..errors import ToolchainError
from ..graph.ops.cpp_model import STUB_OPS_HEADER, stub_ops_header
from .ascendc_headers import AscendCHeaders, find_ascendc_headers
from .cache import CompileCache, cache_key, generated_header_dir
# the stub layer, the C++ model's shared headers, the emitted code's own helpers
from .sources import INCLUDE_DIR as SHARED_INCLUDE, PRELUDE_DIR, STUB_DIR

# dav-c220 vector kernel, CPU-debug mode (asc-devkit README: the known-good flags for g++ 12)
DEFINES = ("-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__DAV_C220_VEC__", "-D__NPU_ARCH__=2201",
           "-D_GLIBCXX_USE_CXX11_ABI=0", "-D__CCE_KT_TEST__=1", "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1")
# One flag set for the precompiled header, the checks and the kernel builds: GCC uses a .gch only when
# the options match. -Og: a batch of kernels builds in 70 % of -O1's time, and the API's CPU-debug
# TPipe (which fills every buffer with random words through std::map lookups) still runs five times
# faster than at -O0; the element loops live in the stub library, built with STUB_FLAGS.
# -Werror=narrowing: bisheng (clang) rejects narrowing in braces, g++ only warns.
CXXFLAGS = ("-std=c++17", "-Og", "-g0", "-Werror=narrowing", "-fwrapv")   # int64 scalar math wraps
# The stub library: -O1 builds in 60 % of -O2's time (its element loops are templates over every
# dtype) and a launch's time is the fork and the API's set-up, not these loops.
STUB_FLAGS = ["-std=c++17", "-O1", "-g0", "-Wall"]


def headers_if_configured() -> AscendCHeaders | None:
    """The headers, or None when none are configured or usable (the tests' skip condition)."""
    try:
        return find_ascendc_headers()
    except ToolchainError:
        return None


def flags(headers: AscendCHeaders) -> list[str]:
    """g++ options of a CPU-debug build against `headers`, asc_trace's stub layer first. The API's
    folders are system folders: its own warnings (narrowing in its check helpers) are not ours."""
    prelude = [f"-I{PRELUDE_DIR}"] if PRELUDE_DIR.is_dir() else []
    return [*CXXFLAGS, *DEFINES, f"-I{STUB_DIR}", f"-I{stub_ops_dir()}", *prelude] \
        + [f"-isystem{p}" for p in headers.include_dirs]


def stub_ops_dir() -> Path:
    """A folder holding the registry's part of the stub layer (graph/ops/cpp_model.py `stub_ops_header`), named
    by its content so that each version has its own; checked on every call (the cache folder may change or
    be cleared between builds)."""
    return generated_header_dir(config.cache_dir() / "stub-ops", STUB_OPS_HEADER, stub_ops_header())


@lru_cache(maxsize=8)
def identity(headers: AscendCHeaders) -> str:
    """A digest of the header files (names, sizes, modification times): a new kit is a new build."""
    h = hashlib.sha256(str(headers.root).encode())
    roots = sorted({p for p in headers.include_dirs if not any(q in p.parents for q in headers.include_dirs)})
    for base in roots:
        for dirpath, _dirs, files in os.walk(base):
            for f in sorted(files):
                if f.endswith((".h", ".hpp", ".inc")):
                    st = os.stat(os.path.join(dirpath, f))
                    h.update(f"{dirpath}/{f}:{st.st_size}:{int(st.st_mtime)}\n".encode())
    return h.hexdigest()


@lru_cache(maxsize=1)
def stub_digest() -> str:
    """A digest of asc_trace's stub layer and the headers it shares with the API model."""
    h = hashlib.sha256()
    files = sorted(STUB_DIR.rglob("*.h")) + sorted(STUB_DIR.rglob("*.cpp")) + sorted(SHARED_INCLUDE.glob("asc_trace_*.h")) \
        + sorted(PRELUDE_DIR.glob("*.h"))
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    h.update(stub_ops_header().encode())       # the part generated from the op registry
    return h.hexdigest()


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ToolchainError(f"{what} failed ({' '.join(cmd[:2])} ...):\n{proc.stderr.strip()[:4000]}", None,
                             hint="a compiler problem in asc_trace's stub layer or the headers; please report it")


def _key(kind: str, headers: AscendCHeaders, cxx_version: str) -> str:
    return cache_key({"kind": kind, "tree": identity(headers), "stub": stub_digest(), "cxx": cxx_version,
                      "flags": flags(headers)})


def precompiled_header(headers: AscendCHeaders, cxx: str, cxx_version: str) -> Path:
    """A folder holding `kernel_operator.h.gch` for `headers`: put it first on the include path and
    every `#include "kernel_operator.h"` parses in a fraction of the time (built once per header tree)."""
    def build(tmp: Path) -> Path:
        out = tmp / "kernel_operator.h.gch"
        _run([cxx, *flags(headers), "-x", "c++-header", str(headers.kernel_operator), "-o", str(out)], tmp,
             "precompiling the Ascend C headers")
        return out
    path, _ = CompileCache().get_or_build(_key("pch", headers, cxx_version), "kernel_operator.h.gch", build,
                                          meta={"kind": "pch"})
    return path.parent


def stub_library(headers: AscendCHeaders, cxx: str, cxx_version: str) -> Path:
    """asc_trace's stub layer compiled into a static library (the intrinsic model, the launcher, and
    the hooks the headers declare and tikicpulib would define)."""
    def compile_one(src: Path, tmp: Path) -> str:
        obj = tmp / f"{src.stem}.o"
        if src.stem == "api_hooks":   # the one file that needs the headers: on their precompiled form
            opts = [f"-I{precompiled_header(headers, cxx, cxx_version)}", *flags(headers)]
        else:
            opts = STUB_FLAGS + [f"-I{STUB_DIR}", f"-I{stub_ops_dir()}"]
        _run([cxx, *opts, "-c", str(src), "-o", str(obj)], tmp, f"compiling the stub layer's {src.name}")
        return str(obj)

    def build(tmp: Path) -> Path:
        sources = sorted((STUB_DIR / "src").glob("*.cpp"))
        with ThreadPoolExecutor(max_workers=max(1, min(len(sources), os.cpu_count() or 1))) as pool:
            objs = list(pool.map(lambda src: compile_one(src, tmp), sources))
        lib = tmp / "libasc_stub.a"
        _run(["ar", "rcs", str(lib), *objs], tmp, "archiving the stub layer")
        return lib
    key = cache_key({"lib": _key("stub-lib", headers, cxx_version), "stub_flags": STUB_FLAGS})
    path, _ = CompileCache().get_or_build(key, "libasc_stub.a", build, meta={"kind": "stub-lib"})
    return path
