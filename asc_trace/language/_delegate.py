"""Module attributes answered from the top-level package: pyasc's `asc.language.*` modules hold the same
objects as `asc.*`, so a name added to asc_trace (by any op family) is reachable through every path."""
from __future__ import annotations

from typing import Any, Callable


def delegate(module_name: str) -> Callable[[str], Any]:
    """A module `__getattr__` that looks `name` up on asc_trace itself."""
    def __getattr__(name: str) -> Any:
        import asc_trace
        if name.startswith("__"):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        try:
            return getattr(asc_trace, name)     # a deliberately absent name raises its NotProvidedError here
        except asc_trace.NotProvidedError:
            raise
        except AttributeError:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}") from None
    return __getattr__
