"""What the census's child process shares between its runner and the conftest it gives pyasc's tests."""
from __future__ import annotations

from pathlib import Path
from typing import Any


class State:
    root: Path = Path(".")
    groups: dict[str, str] = {}      # rel path -> group
    out: Any = None
    methods: dict[str, list[str]] = {}
    current: str | None = None       # the running test's node id, or the script's path
    launches = 0                     # launches since the current test started (pyasc's mock call_count)
