"""cpu_debug with a real CANN installation: the emitted kernel built by CANN's documented CPU-debug
flow instead of against asc_trace's stub layer. The kernel and a launcher that calls it through
`ICPU_RUN_KF` (tikicpulib.h) go into a small CMake project that links `tikicpulib::<SOC>` (found with
`find_package(tikicpulib)`), as CANN's kernel-launch samples do; the launcher takes the same
command line as asc_trace's own (runtime/cpu_debug.py), so launching is shared.

NOT VERIFIED: no machine asc_trace is developed on has CANN. This is written from the documentation
(ICPU_RUN_KF, GmAlloc, SetKernelMode; asc-devkit cmake/asc/legacy_modules/function.cmake and
CMakeASCInformation.cmake), and only the project text, the command lines and the discovery of a
CANN layout are tested (against a fake installation). ICPU_RUN_KF documents GmAlloc'ed pointers as
its arguments; asc_trace's scalar kernel parameters are passed by value, which is untested.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ..errors import ToolchainError
from ..graph.kernel_graph import KernelGraph
from .cache import CompileCache, cache_key
from .ascendc_headers import AscendCHeaders
from .real_api import identity

SOC = "Ascend910B1"          # tikicpulib's target for Atlas A2 (dav-2201), CMakeASCInformation.cmake
# what CANN's CPU-debug kernel targets link besides tikicpulib (legacy_modules/function.cmake)
LINK = ["ascendc_acl_stub", "tiling_api", "register", "platform", "unified_dlog", "mmpa", "c_sec", "dl"]


def launcher(g: KernelGraph, name: str) -> str:
    """A main with asc_trace's launcher command line that runs the kernel `name` (its C identifier in
    the emitted source) through ICPU_RUN_KF:
    `<kernel 0> <gm file> <core_num> <g<offset>:<bytes>:<name> | i<int64> | f<hex float bits>>...`."""
    decls, args, copies = [], [], []
    for i, p in enumerate(g.signature.runtime):
        a = f"argv[{4 + i}]"
        if p.kind == "gm":
            decls.append(f"    unsigned long long off{i} = 0, len{i} = 0;\n"
                         f"    std::sscanf({a} + 1, \"%llu:%llu\", &off{i}, &len{i});\n"
                         f"    uint8_t* a{i} = static_cast<uint8_t*>(AscendC::GmAlloc(len{i}));\n"
                         f"    std::memcpy(a{i}, gm + off{i}, len{i});")
            copies.append(f"    std::memcpy(gm + off{i}, a{i}, len{i});\n    AscendC::GmFree(a{i});")
        elif p.kind == "int":
            decls.append(f"    int64_t a{i} = std::strtoll({a} + 1, nullptr, 10);")
        else:
            decls.append(f"    uint32_t b{i} = static_cast<uint32_t>(std::strtoul({a} + 1, nullptr, 16));\n"
                         f"    float a{i};\n    std::memcpy(&a{i}, &b{i}, 4);")
        args.append(f"a{i}")
    nl = "\n"
    return f"""
// ---- asc_trace cpu_debug backend, CANN tikicpulib flow (not verified: written from the docs) ----
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "tikicpulib.h"
int main(int argc, char** argv)
{{
    if (argc < 4) return 2;
    int fd = open(argv[2], O_RDWR);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return 2;
    uint8_t* gm = static_cast<uint8_t*>(mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    const uint32_t cores = static_cast<uint32_t>(std::atoi(argv[3]));
{nl.join(decls)}
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF({name}, cores{''.join(', ' + a for a in args)});
{nl.join(copies)}
    msync(gm, st.st_size, MS_SYNC);
    return 0;
}}
"""


def cmake_project(tree: AscendCHeaders, source: str, graph: KernelGraph, kernel: str) -> dict[str, str]:
    """The files of the CMake project that builds `source` (the emitted kernel) with tikicpulib."""
    home, lib = tree.root, tree.cpu_stub / "lib"
    includes = " ".join(f'"{p}"' for p in tree.include_dirs)
    lists = f"""cmake_minimum_required(VERSION 3.16)
project(asc_trace_cpu_debug CXX)
set(CMAKE_CXX_STANDARD 17)
list(APPEND CMAKE_PREFIX_PATH "{lib}/cmake" "{lib}")
find_package(tikicpulib REQUIRED)
add_executable(kernel kernel.cpp)
target_include_directories(kernel PRIVATE {includes} "{home}/include")
target_compile_definitions(kernel PRIVATE ASCENDC_CPU_DEBUG=1 ASCENDC_DEBUG=1 ASCENDC_DUMP=0 __NPU_ARCH__=2201
                           _GLIBCXX_USE_CXX11_ABI=0)
target_link_directories(kernel PRIVATE "{home}/lib64" "{home}/tools/simulator/{SOC}/lib")
target_link_libraries(kernel PRIVATE tikicpulib::{SOC} {' '.join(LINK)})
"""
    return {"CMakeLists.txt": lists, "kernel.cpp": source + launcher(graph, kernel)}


def build_commands(build_dir: Path) -> list[list[str]]:
    cmake = shutil.which("cmake") or "cmake"
    return [[cmake, "-S", str(build_dir), "-B", str(build_dir / "build"), "-DCMAKE_BUILD_TYPE=Debug"],
            [cmake, "--build", str(build_dir / "build"), "-j", "2"]]


def build_with_tikicpulib(tree: AscendCHeaders, source: str, graph: KernelGraph, kernel: str,
                          always: bool) -> tuple[Path, bool]:
    """The CPU-debug executable of the emitted `source` (kernel `kernel`) built by CANN's tikicpulib
    flow, and whether it was built now (False: from the disk cache)."""
    if shutil.which("cmake") is None:
        raise ToolchainError("CANN's tikicpulib is installed but cmake is not on PATH: its CPU-debug build is a CMake "
                             "package (find_package(tikicpulib))", None,
                             hint="install cmake, or unset ASCEND_HOME_PATH and set ASC_TRACE_ASCENDC_HOME to use "
                                  "asc_trace's own stub layer")
    files = cmake_project(tree, source, graph, kernel)
    key = cache_key({"kind": "cpu_debug-tikicpulib", "files": files, "tree": identity(tree)})

    def build(tmp: Path) -> Path:
        for name, text in files.items():
            (tmp / name).write_text(text)
        for cmd in build_commands(tmp):
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise ToolchainError(f"the tikicpulib CPU-debug build failed ({' '.join(cmd[:3])} ...):\n"
                                     f"{(proc.stdout + proc.stderr).strip()[-4000:]}", None)
        return tmp / "build" / "kernel"
    path, built = CompileCache().get_or_build(key, "kernel", build, always=always,
                                              meta={"kernel": graph.name, "backend": "cpu_debug/tikicpulib"})
    os.chmod(path, 0o755)
    return path, built
