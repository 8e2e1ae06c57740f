"""The vendor's MLIR tools, `bishengir-opt` and `bishengir-compile`, from the `ascendnpu-ir` wheel
(`pip install 'asc-trace[vendor-ir]'`; Apache-2.0, x86-64 Linux, CPython 3.11).

They run here without CANN: they parse and verify HIVM IR and run the vendor's passes, among them the
intra-core synchronisation (`-hivm-inject-sync`, `-hivm-graph-sync-solver`). They stop before device
code (`hivmc` is part of CANN, not of the wheel). `ASC_TRACE_BISHENGIR` names another directory that
holds the two binaries.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from ..errors import ToolchainError

PIN = "ascendnpu-ir==1.2.0"
SOLVERS = {"inject-sync": "-hivm-inject-sync", "graph-sync-solver": "-hivm-graph-sync-solver"}


@lru_cache(maxsize=None)
def tool(name: str = "bishengir-opt") -> Path | None:
    """The binary, or None when the wheel is not installed."""
    env = os.environ.get("ASC_TRACE_BISHENGIR")
    if env:
        p = Path(env) / name
        return p if p.is_file() else None
    try:
        import ascendnpuir       # the wheel's package: its binaries are in bin/ beside it
    except ImportError:
        ascendnpuir = None
    if ascendnpuir is not None:
        p = Path(ascendnpuir.__file__).resolve().parent / "bin" / name
        if p.is_file():
            return p
    found = shutil.which(name)
    return Path(found) if found else None


def available() -> bool:
    return tool() is not None


@lru_cache(maxsize=1)
def version() -> str:
    """The first line of `bishengir-opt --version`, or "" without the tool."""
    exe = tool()
    if exe is None:
        return ""
    r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    return next((ln.strip() for ln in (r.stdout + r.stderr).splitlines() if ln.strip()), "")


def run_opt(mlir: str, *passes: str, timeout: float = 120) -> str:
    """`bishengir-opt` with `passes` on the module `mlir`; its output module.

    Raises:
        ToolchainError: the tool is missing, or it refused the module (its diagnostics in the message).
    """
    exe = tool()
    if exe is None:
        raise ToolchainError("bishengir-opt is not installed", hint=f"pip install '{PIN}' (or asc-trace[vendor-ir])")
    r = subprocess.run([str(exe), *passes, "-"], input=mlir, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise ToolchainError(f"bishengir-opt {' '.join(passes)} refused the module:\n{r.stderr.strip()[:4000]}")
    return r.stdout


def verify(mlir: str) -> str:
    """Parse and verify the module with the vendor's dialects (no pass); the tool's normal form of it."""
    return run_opt(mlir)


def vendor_sync(mlir: str, solver: str = "inject-sync") -> str:
    """The module with the vendor's intra-core synchronisation inserted by `solver`."""
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {sorted(SOLVERS)}")
    return run_opt(mlir, SOLVERS[solver])


__all__ = ["tool", "available", "version", "run_opt", "verify", "vendor_sync", "SOLVERS", "PIN"]
