"""The real Ascend C API on the host: where its headers are, how g++ compiles against them in
CPU-debug mode, and the two cached artifacts every such build shares (the precompiled
`kernel_operator.h` and asc_trace's stub library).

The headers are found, in this order, through `ASC_TRACE_ASCENDC_HOME` (an asc-devkit checkout, or a
CANN `asc` / `tikcfw` include tree) and a CANN installation (`ASCEND_HOME_PATH`, then
`ASCEND_TOOLKIT_HOME`). Compiling them as host C++ needs the CPU-debug "stub" layer CANN's tikicpulib
provides; asc_trace brings its own (lower/stub/: the qualifiers, `half` / `bfloat16_t`, the block
index and the other globals, and a model of the AI Core intrinsics). When CANN's tikicpulib is
installed, `HeaderTree.tikicpulib` points at it (see lower/tikicpulib.py).
"""
from __future__ import annotations

import hashlib
import os
import platform as _platform
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import ToolchainError
from .cache import CompileCache, cache_key

STUB_DIR = Path(__file__).resolve().parent / "stub"
SHARED_INCLUDE = Path(__file__).resolve().parent / "include"
# dav-c220 vector kernel, CPU-debug mode (asc-devkit README: the known-good flags for g++ 12)
DEFINES = ("-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__DAV_C220_VEC__", "-D__NPU_ARCH__=2201",
           "-D_GLIBCXX_USE_CXX11_ABI=0", "-D__CCE_KT_TEST__=1", "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1")
# One flag set for the precompiled header, the checks and the kernel builds: GCC uses a .gch only when
# the options match. -Og: a batch of kernels builds in 70 % of -O1's time, and the API's CPU-debug
# TPipe (which fills every buffer with random words through std::map lookups) still runs five times
# faster than at -O0; the element loops live in the stub library, built with STUB_FLAGS.
# -Werror=narrowing: bisheng (clang) rejects narrowing in braces, g++ only warns.
CXXFLAGS = ("-std=c++17", "-Og", "-g0", "-Werror=narrowing")
STUB_FLAGS = ["-std=c++17", "-O2", "-g0", "-Wall"]
HINT = ("point ASC_TRACE_ASCENDC_HOME at an asc-devkit checkout (e.g. ../shared/vendor/asc-devkit) or a CANN "
        "`asc` include tree, or source a CANN environment (ASCEND_HOME_PATH)")


@dataclass(frozen=True)
class HeaderTree:
    """One copy of the Ascend C headers: its folder, its layout and the include folders in order.

    layout: "kit" (asc-devkit checkout: include/ and impl/), "asc" (CANN 9's installed asc/ tree, the
        same shape), "tikcfw" (CANN 8's compiler/tikcpp/tikcfw with impl/ and interface/).
    found_by: the environment variable that led here.
    home: the CANN installation, when the headers came from one (or its tikicpulib is present).
    tikicpulib: CANN's CPU-debug library folder (tools/tikicpulib/lib), when installed.
    """

    root: Path
    layout: str
    found_by: str
    includes: tuple[Path, ...]
    home: Path | None = None
    tikicpulib: Path | None = None

    def flags(self, stub: bool = True) -> list[str]:
        """g++ options of a CPU-debug build against these headers (with asc_trace's stub layer first)."""
        out = list(CXXFLAGS) + list(DEFINES)
        if stub:
            out.append(f"-I{STUB_DIR}")
        return out + [f"-isystem{p}" for p in self.includes]   # the API's own warnings are not ours

    @property
    def identity(self) -> str:
        return tree_identity(self.root, self.includes)


def _kit_includes(root: Path, home: Path | None) -> tuple[Path, ...]:
    subs = ["generated", ".", "include", "include/basic_api", "include/utils", "include/adv_api", "include/c_api",
            "include/simt_api", "include/interface", "impl", "impl/basic_api", "impl/utils", "impl/adv_api",
            "impl/c_api", "impl/simt_api", "tests/api/simt_api/common_simt"]
    dirs = [root / s if s != "." else root for s in subs]
    if home is not None:
        dirs.append(home / "include")
    return tuple(p for p in dirs if p.is_dir())


def layout_of(root: Path, home: Path | None = None) -> tuple[str, tuple[Path, ...]] | None:
    """(layout, include folders) of a header tree, or None if `root` holds no Ascend C headers."""
    if (root / "include" / "kernel_operator.h").is_file() and (root / "impl" / "basic_api").is_dir():
        kind = "kit" if (root / "impl" / "CMakeLists.txt").is_file() or home is None else "asc"
        return kind, _kit_includes(root, home)
    if (root / "kernel_operator.h").is_file() and (root / "impl").is_dir():
        return "tikcfw", tuple(p for p in (root, root / "impl", root / "interface") if p.is_dir())
    return None


def _cann_roots(home: Path) -> list[Path]:
    arch = home / f"{_platform.machine()}-linux"
    return [arch / "asc", home / "asc", home / "compiler" / "tikcpp" / "tikcfw", arch / "tikcpp" / "tikcfw"]


def tikicpulib_of(home: Path | None) -> Path | None:
    """CANN's CPU-debug library folder, if this installation has one."""
    if home is None:
        return None
    lib = home / "tools" / "tikicpulib" / "lib"
    return lib if (lib / "include").is_dir() and any((lib / "include" / f).is_file()
                                                     for f in ("tikicpulib.h", "kern_fwk.h", "stub_def.h")) else None


def find_headers(env: dict[str, str] | None = None) -> HeaderTree | None:
    """The Ascend C headers the environment points at; None when nothing is configured. A variable
    that points at something unusable is an error, not a silent fallback."""
    env = dict(os.environ if env is None else env)
    explicit = env.get("ASC_TRACE_ASCENDC_HOME")
    if explicit:
        root = Path(explicit).expanduser()
        found = layout_of(root)
        if found is None:
            raise ToolchainError(f"ASC_TRACE_ASCENDC_HOME={explicit} holds no Ascend C headers (neither "
                                 "include/kernel_operator.h with impl/ nor a tikcfw tree)", None, hint=HINT)
        return HeaderTree(root.resolve(), found[0], "ASC_TRACE_ASCENDC_HOME", found[1])
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        if not env.get(var):
            continue
        home = Path(env[var]).expanduser()
        for root in _cann_roots(home):
            found = layout_of(root, home)
            if found is not None:
                return HeaderTree(root.resolve(), found[0], var, found[1], home, tikicpulib_of(home))
        raise ToolchainError(f"{var}={env[var]} has no Ascend C headers under asc/ or compiler/tikcpp/tikcfw",
                             None, hint=HINT)
    return None


def require_headers() -> HeaderTree:
    tree = find_headers()
    if tree is None:
        raise ToolchainError("no Ascend C headers are configured: ASC_TRACE_ASCENDC_HOME, ASCEND_HOME_PATH and "
                             "ASCEND_TOOLKIT_HOME are unset", None, hint=HINT)
    return tree


@lru_cache(maxsize=8)
def tree_identity(root: Path, includes: tuple[Path, ...]) -> str:
    """A digest of the header files (names, sizes, modification times): a new kit is a new build."""
    h = hashlib.sha256(str(root).encode())
    for base in sorted({root} | {p for p in includes if root not in p.parents and p != root}):
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
    files = sorted(STUB_DIR.rglob("*.h")) + sorted(STUB_DIR.rglob("*.cpp")) + sorted(SHARED_INCLUDE.glob("asc_trace_*.h"))
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ToolchainError(f"{what} failed ({' '.join(cmd[:2])} ...):\n{proc.stderr.strip()[:4000]}", None,
                             hint="a compiler problem in asc_trace's stub layer or the headers; please report it")


def precompiled_header(tree: HeaderTree, cxx: str, cxx_version: str) -> Path:
    """A folder holding `kernel_operator.h.gch` for `tree`: put it first on the include path and every
    `#include "kernel_operator.h"` parses in a fraction of the time (built once per tree)."""
    key = cache_key({"kind": "pch", "tree": tree.identity, "stub": stub_digest(), "cxx": cxx_version,
                     "flags": tree.flags()})

    def build(tmp: Path) -> Path:
        header = tree.includes[[(p / "kernel_operator.h").is_file() for p in tree.includes].index(True)]
        out = tmp / "kernel_operator.h.gch"
        _run([cxx, *tree.flags(), "-x", "c++-header", str(header / "kernel_operator.h"), "-o", str(out)], tmp,
             "precompiling the Ascend C headers")
        return out
    path, _ = CompileCache().get_or_build(key, "kernel_operator.h.gch", build, meta={"kind": "pch"})
    return path.parent


def stub_library(tree: HeaderTree, cxx: str, cxx_version: str) -> Path:
    """asc_trace's stub layer compiled into a static library (the intrinsic model, the launcher, and
    the hooks the headers declare and tikicpulib would define)."""
    key = cache_key({"kind": "stub-lib", "tree": tree.identity, "stub": stub_digest(), "cxx": cxx_version,
                     "flags": tree.flags()})

    def build(tmp: Path) -> Path:
        objs = []
        for src in sorted((STUB_DIR / "src").glob("*.cpp")):
            obj = tmp / f"{src.stem}.o"
            flags = tree.flags() if src.stem == "api_hooks" else STUB_FLAGS + [f"-I{STUB_DIR}"]
            _run([cxx, *flags, "-c", str(src), "-o", str(obj)], tmp, f"compiling the stub layer's {src.name}")
            objs.append(str(obj))
        lib = tmp / "libasc_stub.a"
        _run(["ar", "rcs", str(lib), *objs], tmp, "archiving the stub layer")
        return lib
    path, _ = CompileCache().get_or_build(key, "libasc_stub.a", build, meta={"kind": "stub-lib"})
    return path
