"""The options of `asc.jit`: one table with each option's default, meaning and accepted values. The
table validates options (an error names the option and what it accepts) and writes the option list
of `help(asc.jit)`, so the two cannot drift apart."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .errors import OptionError
from .graph.source_loc import SourceLoc
from .runtime.platform import DEFAULT_PLATFORM, PRESETS

MAX_COPIES = 16
KERNEL_TYPES = ("vector", "aiv", "KERNEL_TYPE_AIV_ONLY")


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    accepted: str                           # what the error message and help() say it takes
    meaning: str
    check: Callable[[Any], Any]             # the normalised value, or ValueError


def _bool(v: Any) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    raise ValueError


def _multi_buffer(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("auto", "off"):
        return v.lower()
    if isinstance(v, (int, np.integer)) and 1 <= int(v) <= MAX_COPIES:
        return int(v)
    raise ValueError


def _backend(v: Any) -> Any:
    from .runtime import BACKENDS
    if v is None:
        return None
    if isinstance(v, str) and v.strip().lower() in BACKENDS:
        return v.strip().lower()
    raise ValueError


def _opt_level(v: Any) -> int:
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and 0 <= int(v) <= 3:
        return int(v)
    raise ValueError


def _kernel_type(v: Any) -> Any:
    if v is None or v in KERNEL_TYPES:
        return v
    raise ValueError


def _platform(v: Any) -> str:
    if isinstance(v, str) and v in PRESETS:
        return v
    raise ValueError


def _backends_text() -> str:
    from .runtime import BACKENDS
    return "None (ASC_TRACE_BACKEND, else auto) or one of " + ", ".join(repr(b) for b in BACKENDS)


OPTIONS: tuple[Option, ...] = (
    Option("auto_sync", True, "True or False",
           "the scheduler adds every set_flag / wait_flag / barrier the data dependences need (False: none; the "
           "simulator then reports any race)", _bool),
    Option("multi_buffer", "auto", f"'auto', 'off', True, False, or a number of copies from 1 to {MAX_COPIES}",
           "copies of each UB tensor that a runtime loop refills, so that loading tile i+1 overlaps computing "
           "tile i ('auto' = 2; 'off', False or 1 = none)", _multi_buffer),
    Option("always_compile", False, "True or False", "bypass the in-memory and on-disk compile caches", _bool),
    Option("backend", None, "<backends>", "where launches run: sim, eager, cpp, npu or auto (README, Backends)",
           _backend),
    Option("opt_level", 3, "an int from 0 to 3", "bisheng's -O level for the NPU build", _opt_level),
    Option("kernel_type", None, "None or one of " + ", ".join(repr(k) for k in KERNEL_TYPES),
           "the kernel type; asc_trace builds vector-only kernels (KERNEL_TYPE_AIV_ONLY)", _kernel_type),
    Option("record_overflow", False, "True or False",
           "NPU build: -cce-aicore-record-overflow and its argument slot (lower/bisheng.py)", _bool),
    Option("platform", DEFAULT_PLATFORM, "one of " + ", ".join(repr(p) for p in PRESETS),
           "the timing model's hardware preset (asc.profile)", _platform),
)
BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}
DEFAULT_OPTIONS: dict[str, Any] = {o.name: o.default for o in OPTIONS}


def _accepted(o: Option) -> str:
    return _backends_text() if o.accepted == "<backends>" else o.accepted


def validate(options: dict[str, Any], loc: SourceLoc | None) -> dict[str, Any]:
    """The options, normalised (e.g. backend names lower-cased).

    Raises:
        OptionError: an unknown option, or a value of the wrong type or out of range.
    """
    out = {}
    for name, value in options.items():
        opt = BY_NAME.get(name)
        if opt is None:
            raise OptionError(f"unknown asc.jit option {name!r}", loc,
                              hint=f"the options are {', '.join(BY_NAME)} (help(asc.jit) says what each does)")
        try:
            out[name] = opt.check(value)
        except ValueError:
            raise OptionError(f"asc.jit option {name}={value!r} is not accepted: {name} takes {_accepted(opt)}",
                              loc) from None
    return out


def describe() -> str:
    """The option list for `help(asc.jit)`."""
    lines = []
    for o in OPTIONS:
        lines.append(f"        {o.name} (default {o.default!r}): {o.meaning}.\n            Accepts {_accepted(o)}.")
    return "\n".join(lines)
