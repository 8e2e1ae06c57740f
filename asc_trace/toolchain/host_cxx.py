"""The host C++ compiler the cpp backend, the cpu_debug backend and the header check run."""
from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache

from ..errors import ToolchainError


@lru_cache(maxsize=1)
def compiler() -> tuple[str, str]:
    """(path of g++, its version line)."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        raise ToolchainError("the cpp backend needs a C++17 compiler (g++), and none is on PATH", None,
                             hint="install one (Debian/Ubuntu: apt install g++), or use backend='sim'")
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False).stdout
    return cxx, out.splitlines()[0] if out else "unknown"
