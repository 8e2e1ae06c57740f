"""Hardware rules the simulator keeps, and the environment variables asc_trace reads.

Figures come from docs/facts.md (Atlas A2 / 910B, `__NPU_ARCH__` 2201), which names their sources.
"""
from __future__ import annotations

import os
from pathlib import Path

UB_BYTES = 192 * 1024                 # Unified Buffer per vector core (docs/facts.md#facts-1)
UB_USABLE = UB_BYTES - 256            # "at most 192 KB - 256 B is usable" (docs/facts.md#facts-1)
# UB addresses and DataCopy lengths are 32-byte multiples (docs/facts.md#facts-1, #facts-4)
UB_ALIGN = 32
EVENT_IDS = 8                         # event ids 0..7 per HardEvent on A2 (docs/facts.md#facts-3)
MAX_QUE_BUFFERS_PER_POSITION = 8      # each queue buffer holds an event id (docs/facts.md#facts-6)
MAX_CORES = 48                        # 910B1/B2 have 48 AIV (docs/facts.md#facts-1)
# The UB starts filled with this byte, so a read of bytes no one wrote shows up as NaN (float)
# or -1 (int) on every CPU backend instead of as a plausible zero.
UB_POISON_BYTE = 0xFF


def _env_get(name: str) -> str | None:
    """os.environ.get(name): every launch reads a few variables, which are usually unset, and
    os.environ's Mapping.get pays for a KeyError raised and caught each time; on POSIX its byte-keyed
    store (the one os.environ and monkeypatch.setenv change) answers the same directly."""
    data = getattr(os.environ, "_data", None)
    if data is None or os.name != "posix":
        return os.environ.get(name)
    v = data.get(name.encode("utf-8", "surrogateescape"))
    return None if v is None else v.decode("utf-8", "surrogateescape")


def env_str(name: str, default: str = "") -> str:
    v = _env_get(name)
    return default if v is None else v


def env_int(name: str, default: int = 0) -> int:
    v = _env_get(name)
    if v is None:
        return default
    try:
        return int(v)
    except ValueError:
        return default


# The process-wide target a pyasc host script chooses with `asc_trace.runtime.config.set_platform`:
# the backend its Backend maps to, and the timing preset its soc_version names.
_TARGET: dict[str, str | None] = {"backend": None, "platform": None}


def set_process_target(backend: str | None, platform: str | None) -> None:
    """Record set_platform's choice (None, None: forget it)."""
    _TARGET["backend"], _TARGET["platform"] = backend, platform


def process_platform() -> str | None:
    """The timing preset set_platform chose, if any."""
    return _TARGET["platform"]


def backend_from_env() -> str:
    """The backend of a kernel that names none: ASC_TRACE_BACKEND when set (so an unchanged pyasc
    script can be run on any backend), else the one set_platform chose, else auto."""
    env = env_str("ASC_TRACE_BACKEND").strip().lower()
    return env or _TARGET["backend"] or "auto"


def debug_level() -> int:
    """ASC_TRACE_DEBUG=2 prints the graph after each pass."""
    return env_int("ASC_TRACE_DEBUG", 0)


def check_passes() -> bool:
    """ASC_TRACE_CHECK=1 runs `verify` after every pass."""
    return env_int("ASC_TRACE_CHECK", 0) > 0


def sanitize() -> bool:
    """ASC_TRACE_SANITIZE=0 turns the simulator's race checker off."""
    return env_int("ASC_TRACE_SANITIZE", 1) != 0


def home_dir() -> Path:
    return Path(env_str("ASC_TRACE_HOME") or Path.home() / ".asc_trace")


def cache_dir() -> Path:
    explicit = env_str("ASC_TRACE_CACHE_DIR")
    return Path(explicit) if explicit else home_dir() / "cache"


def dump_dir() -> Path | None:
    explicit = env_str("ASC_TRACE_DUMP_PATH")
    return Path(explicit) if explicit else None
