"""Where the real Ascend C API headers are, for a build against them (the `cpu_debug` backend, the
header check) and for `python -m asc_trace info`.

Two layouts are recognised:
- an asc-devkit checkout (the open-source Ascend C kit: `include/kernel_operator.h`, `impl/`), named by
  `ASC_TRACE_ASCENDC_HOME`; it has no CPU stub layer (tikicpulib), so `cpu_stub` is None;
- a CANN toolkit (`ASC_TRACE_ASCENDC_HOME`, else `ASCEND_HOME_PATH` / `ASCEND_TOOLKIT_HOME`, as CANN's
  set_env.sh exports them): the include folders of the toolkit's own kernel build, as cann_layout.py
  reads them (the `asc/` tree of CANN 9, the `tikcpp/tikcfw` tree of CANN 8), and the CPU-debug stub
  library under `tools/tikicpulib` (docs/facts.md#facts-9).

Small and free of the rest of asc_trace, so a backend (cpu_debug) and `asc-trace info` share it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ToolchainError
from .cann_layout import ascendc_layout

ENV_VARS = ("ASC_TRACE_ASCENDC_HOME", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
HINT = ("set ASC_TRACE_ASCENDC_HOME to an asc-devkit checkout (the folder holding include/kernel_operator.h) or to "
        "a CANN toolkit, or load CANN's environment (source .../ascend-toolkit/set_env.sh)")


@dataclass(frozen=True)
class AscendCHeaders:
    """Found headers: `include_dirs` in -I order, `kernel_operator` the header itself, `origin` the
    variable that led here, `layout` "asc-devkit" or "cann", `cpu_stub` CANN's tikicpulib (or None)."""

    root: Path
    origin: str
    layout: str
    include_dirs: tuple[Path, ...]
    kernel_operator: Path
    cpu_stub: Path | None
    generation: int = 9          # the CANN generation of the API (8: CANN 8.x tikcfw; 9: 8.5+ / asc-devkit)

    def describe(self) -> str:
        stub = f", CPU stub layer {self.cpu_stub}" if self.cpu_stub else ", no CPU stub layer (tikicpulib)"
        return f"{self.layout} at {self.root} (from {self.origin}){stub}"


def devkit_beside_checkout() -> Path | None:
    """The vendor's asc-devkit where a development checkout keeps it, `<checkout>/../shared/vendor/asc-devkit`
    (tests/conftest.py points ASC_TRACE_ASCENDC_HOME there; `asc-trace info` names it). Never used
    without being asked: an installed asc_trace must not pick up headers from a neighbouring folder."""
    kit = Path(__file__).resolve().parents[2].parent / "shared" / "vendor" / "asc-devkit"
    return kit if (kit / "include" / "kernel_operator.h").is_file() else None


def _devkit(root: Path) -> tuple[Path, ...] | None:
    if not (root / "include" / "kernel_operator.h").is_file():
        return None
    dirs = [root / "generated", root, root / "include", root / "include" / "basic_api", root / "include" / "utils",
            root / "impl", root / "impl" / "basic_api", root / "tests" / "api" / "simt_api" / "common_simt"]
    return tuple(d for d in dirs if d.is_dir())


def _cann(home: Path) -> tuple[Path, ...] | None:
    """The include folders of the toolkit's own kernel build (cann_layout.py), if they hold the API."""
    includes = ascendc_layout(home).includes
    return includes if any((d / "kernel_operator.h").is_file() for d in includes) else None


def find_ascendc_headers(env: dict[str, str] | None = None) -> AscendCHeaders:
    """The Ascend C headers this machine has, or a ToolchainError naming every place looked at."""
    env = dict(os.environ if env is None else env)
    looked: list[str] = []
    for var in ENV_VARS:
        value = env.get(var)
        if not value:
            continue
        root = Path(value)
        if not root.is_dir():
            looked.append(f"{var}={value} is not a directory")
            continue
        devkit = _devkit(root) if var == "ASC_TRACE_ASCENDC_HOME" else None
        if devkit:
            return AscendCHeaders(root, var, "asc-devkit", devkit, root / "include" / "kernel_operator.h", None)
        cann = _cann(root)
        if cann:
            stub = root / "tools" / "tikicpulib"
            return AscendCHeaders(root, var, "cann", cann, next(d / "kernel_operator.h" for d in cann
                                                                 if (d / "kernel_operator.h").is_file()),
                                  stub if stub.is_dir() else None, ascendc_layout(root).generation)
        looked.append(f"{var}={value} has no kernel_operator.h")
    if not looked:
        raise ToolchainError(f"no Ascend C headers: none of {', '.join(ENV_VARS)} is set", None, hint=HINT)
    raise ToolchainError("no Ascend C headers: " + "; ".join(looked), None, hint=HINT)
