"""The header folders asc_trace ships for the compilers, and how a host build sees the emitted source.

- `prelude/`: the emitted code's own helpers (`asc_trace_prelude.h`: scalar helpers, the ASC_CHECK_*
  macros compiled out on the NPU) and the bisheng view (`asc_trace_bisheng_view.h`: bisheng's
  predefined macros, for the host builds).
- `include/`: the C++ model of the Ascend C API that the cpp backend compiles against.
- `stub/`: the CPU-debug layer under the vendor's real headers (the cpu_debug backend).
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
PRELUDE_DIR = _HERE / "prelude"
INCLUDE_DIR = _HERE / "include"
STUB_DIR = _HERE / "stub"

# The host builds (cpp, cpu_debug, the header check) see the kernel as bisheng does: its predefined
# macros (prelude/asc_trace_bisheng_view.h) come between the API headers and the kernel's own text.
BISHENG_VIEW_HEADER = "asc_trace_bisheng_view.h"
_API_INCLUDE = '#include "kernel_operator.h"\n'


@lru_cache(maxsize=1)
def prelude_digest() -> str:
    """Part of every compile-cache key: the emitted source depends on the prelude's text (and the host
    builds on the bisheng view)."""
    h = hashlib.sha256()
    for name in ("asc_trace_prelude.h", BISHENG_VIEW_HEADER):
        h.update((PRELUDE_DIR / name).read_bytes())
    return h.hexdigest()


def host_view(source: str) -> str:
    """The emitted source as a host build compiles it: the bisheng view right after the API include."""
    if _API_INCLUDE not in source:
        raise ValueError("not an emitted Ascend C source: no kernel_operator.h include")
    return source.replace(_API_INCLUDE, f'{_API_INCLUDE}#include "{BISHENG_VIEW_HEADER}"\n', 1)
