"""The NPU build: bisheng compiles the emitted Ascend C for Atlas A2 vector cores, ld.lld links the
device ELF (facts §8; npu-launch.md §1). Toolchain discovery follows CANN's environment script:
ASCEND_HOME_PATH (or ASCEND_TOOLKIT_HOME), then PATH.

Not verified on hardware: no machine asc_trace is developed on has CANN. The commands are those
pyasc runs (python/asc/runtime/compiler.py) for CANN 8.x; tests check them against a fake toolchain.
"""
from __future__ import annotations

import os
import platform as _platform
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ToolchainError
from ..graph.kernel_graph import KernelGraph
from .compile_errors import compiler_error

INSTALL_HINT = ("install the CANN toolkit (it provides bisheng, ld.lld and the Ascend C headers) and load its "
                "environment: `source /usr/local/Ascend/ascend-toolkit/set_env.sh` (CANN 8) or "
                "`source /usr/local/Ascend/cann/set_env.sh` (CANN 9); or use backend='sim' or 'cpp'")


@dataclass(frozen=True)
class Toolchain:
    home: Path
    bisheng: Path
    ld_lld: Path
    includes: tuple[Path, ...]
    version: str
    version_tuple: tuple[int, ...] = field(default=())

    @property
    def identity(self) -> str:
        return f"CANN {self.version} bisheng={self.bisheng}"


def _arch_dir(home: Path) -> Path:
    return home / f"{_platform.machine()}-linux"


def _version(home: Path) -> tuple[str, tuple[int, ...]]:
    for f in (home / "version.cfg", home / "compiler" / "version.info", _arch_dir(home) / "ascend_toolkit_install.info",
              home / "version.info"):
        try:
            text = f.read_text()
        except OSError:
            continue
        m = re.search(r"[Vv]ersion\s*[=:]\s*\"?([0-9][0-9A-Za-z.\-]*)", text)
        if m:
            v = m.group(1)
            lead = re.match(r"\d+(?:\.\d+)*", v)
            nums = tuple(int(x) for x in lead.group(0).split(".")[:3]) if lead else ()
            return v, nums
    return "unknown", ()


def find_toolchain(env: dict[str, str] | None = None) -> Toolchain:
    """The CANN toolchain, or a ToolchainError saying what is missing and how to get it."""
    env = dict(os.environ if env is None else env)
    home_s = env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME")
    home = Path(home_s) if home_s else None
    search: list[Path] = []
    if home is not None:
        if not home.is_dir():
            raise ToolchainError(f"ASCEND_HOME_PATH points to {home}, which is not a directory", None, hint=INSTALL_HINT)
        search += [_arch_dir(home) / "ccec_compiler" / "bin", home / "compiler" / "ccec_compiler" / "bin",
                   home / "ccec_compiler" / "bin", home / "bin"]
    path = os.pathsep.join([str(p) for p in search] + [env.get("PATH", "")])
    bisheng = shutil.which("bisheng", path=path)
    ld = shutil.which("ld.lld", path=path)
    missing = [name for name, p in (("bisheng", bisheng), ("ld.lld", ld)) if p is None]
    if home is None and bisheng is not None:
        # .../<home>/compiler/ccec_compiler/bin/bisheng or .../<home>/<arch>-linux/ccec_compiler/bin/bisheng
        up = Path(bisheng).resolve().parents[2]
        home = up.parent if up.name == "compiler" or up.name.endswith("-linux") else up
    if home is None:
        raise ToolchainError("no CANN toolkit found: ASCEND_HOME_PATH and ASCEND_TOOLKIT_HOME are not set and "
                             f"{' and '.join(missing) or 'bisheng'} is not on PATH", None, hint=INSTALL_HINT)
    if missing:
        raise ToolchainError(f"the CANN toolkit at {home} has no {' or '.join(missing)}", None, hint=INSTALL_HINT)
    arch = _arch_dir(home)
    candidates = [home / "compiler" / "tikcpp" / "tikcfw", home / "compiler" / "tikcpp" / "tikcfw" / "impl",
                  home / "compiler" / "tikcpp" / "tikcfw" / "interface",
                  arch / "asc", arch / "asc" / "include", arch / "asc" / "include" / "basic_api",
                  arch / "asc" / "impl" / "basic_api", arch / "asc" / "include" / "utils",
                  arch / "tikcpp" / "tikcfw", arch / "tikcpp" / "tikcfw" / "impl",
                  arch / "tikcpp" / "tikcfw" / "interface", home / "include", home / "include" / "ascendc"]
    includes = tuple(p for p in candidates if p.is_dir())
    if not any((p / "kernel_operator.h").is_file() for p in includes):
        raise ToolchainError(f"the CANN toolkit at {home} has no kernel_operator.h in its Ascend C include folders",
                             None, hint=INSTALL_HINT)
    version, nums = _version(home)
    return Toolchain(home, Path(bisheng), Path(ld), includes, version, nums)


def compile_commands(tc: Toolchain, src: Path, obj: Path, elf: Path, options: dict[str, Any]) -> list[list[str]]:
    """The bisheng and ld.lld command lines for a vector-only (AIV) device binary."""
    kernel_type = options.get("kernel_type")
    if kernel_type not in (None, "vector", "aiv", "KERNEL_TYPE_AIV_ONLY"):
        raise ToolchainError(f"kernel_type={kernel_type!r}: asc_trace builds vector-only kernels", None,
                             hint="leave kernel_type unset (KERNEL_TYPE_AIV_ONLY)")
    level = int(options.get("opt_level", 3))
    if not 0 <= level <= 3:
        raise ToolchainError(f"opt_level must be 0..3, got {level}", None)
    cmd = [str(tc.bisheng), "-c", "-x", "cce", f"-O{level}", str(src), "--cce-aicore-arch=dav-c220-vec",
           "--cce-aicore-only", "-o", str(obj), "-std=c++17"]
    for inc in tc.includes:
        cmd.append(f"-I{inc}")
    version_h = tc.home / "include" / "version" / "cann_version.h"
    if version_h.is_file():
        cmd += ["-include", str(version_h)]
    cmd += ["--cce-disable-kernel-global-attr-check",
            "-mllvm", "-cce-aicore-stack-size=0x8000", "-mllvm", "-cce-aicore-function-stack-size=0x8000",
            "-mllvm", "-cce-aicore-dcci-insert-for-scalar=false",
            f"-DASCENDC_DUMP={1 if options.get('dump') else 0}", "-D__NPU_TILING__", "-DTILING_KEY_VAR=0"]
    if not options.get("auto_sync", True):
        # the user owns the cross-pipe events; bisheng adds the V<->V and scalar syncs users never write
        cmd += ["--cce-auto-sync", "-mllvm", "-api-deps-filter"]
    link = [str(tc.ld_lld), "-m", "aicorelinux", "-Ttext=0", str(obj), "-static", "-o", str(elf)]
    return [cmd, link]


def build_device_binary(tc: Toolchain, graph: KernelGraph, source: str, workdir: Path,
                        options: dict[str, Any]) -> Path:
    """Compile and link `source` (the Ascend C of `graph`); a compiler error points at the user's line."""
    src = workdir / "kernel.cce"
    src.write_text(source)
    obj, elf = workdir / "kernel.o", workdir / "kernel.elf"
    compile_cmd, link_cmd = compile_commands(tc, src, obj, elf, options)
    for attempt, cmd in enumerate((compile_cmd, compile_cmd + ["-mllvm", "-disable-machine-licm"])):
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=workdir)
        if proc.returncode == 0:
            break
        if attempt == 1:   # pyasc retries once without machine LICM
            raise compiler_error("bisheng", graph, source, "kernel.cce", proc.stderr, full_output=True,
                                 hint="the source is kept under ASC_TRACE_DUMP_PATH when it is set")
    proc = subprocess.run(link_cmd, capture_output=True, text=True, check=False, cwd=workdir)
    if proc.returncode != 0:
        raise ToolchainError(f"ld.lld failed:\n{proc.stderr.strip()[:4000]}", None)
    return elf
