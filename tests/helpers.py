"""Shared test helpers."""
from __future__ import annotations

import inspect
import re

import numpy as np

import asc_trace as asc


def line_of(marker: str, fn_or_file=None) -> int:
    """The line number of the (unique) source line ending in the comment `# marker` in the caller's file."""
    path = fn_or_file or inspect.stack()[1].filename
    with open(path) as f:
        hits = [i + 1 for i, line in enumerate(f) if f"# {marker}" in line]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times in {path}"
    return hits[0]


def assert_points_at(err: Exception, marker: str, path: str | None = None) -> None:
    """The error message names `file:line` of the marked line and shows that line."""
    path = path or inspect.stack()[1].filename
    line = line_of(marker, path)
    text = str(err)
    assert f"{path}:{line}" in text, f"expected {path}:{line} in:\n{text}"
    with open(path) as f:
        src = f.readlines()[line - 1].strip()
    assert src in text, f"expected the source line {src!r} in:\n{text}"


def run(kernel, backend: str, cores: int, *args):
    asc.jit(kernel, backend=backend)[cores](*args)


def rand(n: int, dtype, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.random(n) * 4 - 2).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    return rng.integers(lo, hi, n).astype(dtype)


def strip_ansi(s: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", s)


def every_backend() -> list:
    """sim, eager, cpp and cpu_debug as pytest params; cpu_debug skipped (saying why) without Ascend C headers."""
    import pytest

    from asc_trace.toolchain.real_api import headers_if_configured
    skip = pytest.mark.skipif(headers_if_configured() is None,
                              reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
    return ["sim", "eager", "cpp", pytest.param("cpu_debug", marks=skip)]


def cpu_debug_ready() -> bool:
    """The vendor's Ascend C headers are configured or found beside the checkout (cpu_debug can build)."""
    try:
        from asc_trace.toolchain.real_api import headers_if_configured
        return headers_if_configured() is not None
    except Exception:       # noqa: BLE001 - a broken configuration means "not ready", which the skip says
        return False


def _needs_headers_mark():
    import pytest
    return pytest.mark.skipif(not cpu_debug_ready(),
                              reason="cpu_debug needs the Ascend C headers (ASC_TRACE_ASCENDC_HOME)")


# a test that runs cpu_debug (the conftest files it under the `toolchain` marker by this reason)
needs_headers = _needs_headers_mark()
