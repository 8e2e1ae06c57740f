"""The options of `asc.jit`: one table with each option's meaning and accepted values (the defaults
are KernelOptions' fields, kernel_options.py). The table validates options (an error names the option
and what it accepts), `make` is the one place a kernel's KernelOptions is built, and the table writes
the option list of `help(asc.jit)`, so the three cannot drift apart."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .errors import OptionError
from .kernel_options import DEFAULTS, NAMES, KernelOptions
from .graph.source_loc import SourceLoc
from .runtime.platform import DEFAULT_PLATFORM, PRESETS

MAX_COPIES = 16
KERNEL_TYPES = ("vector", "aiv", "KERNEL_TYPE_AIV_ONLY", "cube", "aic", "KERNEL_TYPE_AIC_ONLY", "mix",
                "KERNEL_TYPE_MIX_AIC_1_2")


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
    if v is None or (isinstance(v, str) and v in KERNEL_TYPES):
        return v
    from .runtime.config import KernelType
    if isinstance(v, KernelType):
        if v is KernelType.AIV_ONLY:
            return "KERNEL_TYPE_AIV_ONLY"
        if v is KernelType.AIC_ONLY:
            return "KERNEL_TYPE_AIC_ONLY"
        if v is KernelType.MIX_AIC_1_2:      # a mixed cube + vector kernel (graph/mix_split.py)
            return "KERNEL_TYPE_MIX_AIC_1_2"
        raise OptionError(f"asc.jit option kernel_type=KernelType.{v.name} is not accepted: asc_trace builds vector "
                          "kernels (KernelType.AIV_ONLY), cube kernels (KernelType.AIC_ONLY) and mixed cube + vector "
                          "kernels (KernelType.MIX_AIC_1_2)", None,
                          hint="leave kernel_type unset (the calls say which), or pass KernelType.AIV_ONLY / "
                               "AIC_ONLY / MIX_AIC_1_2")
    raise ValueError


def _insert_sync(v: Any) -> bool | None:
    return None if v is None else _bool(v)


def _platform(v: Any) -> str | None:
    if v is None or (isinstance(v, str) and v in PRESETS):
        return v
    raise ValueError


def _backends_text() -> str:
    from .runtime import BACKENDS
    return "None (ASC_TRACE_BACKEND, else auto) or one of " + ", ".join(repr(b) for b in BACKENDS)


OPTIONS: tuple[Option, ...] = (
    Option("auto_sync", DEFAULTS.auto_sync, "True or False",
           "the scheduler adds every set_flag / wait_flag / barrier the data dependences need (False: none; the "
           "simulator then reports any race)", _bool),
    Option("multi_buffer", DEFAULTS.multi_buffer, f"'auto', 'off', True, False, or a number of copies from 1 to {MAX_COPIES}",
           "copies of each UB tensor that a runtime loop refills, so that loading tile i+1 overlaps computing "
           "tile i ('auto' = 2; 'off', False or 1 = none)", _multi_buffer),
    Option("always_compile", DEFAULTS.always_compile, "True or False", "bypass the in-memory and on-disk compile caches", _bool),
    Option("backend", DEFAULTS.backend, "<backends>", "where launches run: sim, eager, cpp, npu or auto (README, Backends)",
           _backend),
    Option("opt_level", DEFAULTS.opt_level, "an int from 0 to 3", "bisheng's -O level for the NPU build", _opt_level),
    Option("kernel_type", DEFAULTS.kernel_type, "None, asc_trace.runtime.config.KernelType.AIV_ONLY or one of "
           + ", ".join(repr(k) for k in KERNEL_TYPES),
           "the kernel type: vector (KERNEL_TYPE_AIV_ONLY), cube (KERNEL_TYPE_AIC_ONLY) or mixed cube + vector "
           "(KERNEL_TYPE_MIX_AIC_1_2); unset: recognised from the calls", _kernel_type),
    Option("matmul_cube_only", DEFAULTS.matmul_cube_only, "True or False",
           "pyasc's option for a Matmul kernel that runs on the cube alone: the same as "
           "kernel_type=KernelType.AIC_ONLY", _bool),
    Option("insert_sync", DEFAULTS.insert_sync, "None, True or False",
           "pyasc's compiler-inserted synchronisation (LocalTensorAuto kernels). Here the scheduler derives every "
           "sync, so True means auto_sync=True, even next to auto_sync=False (pyasc then syncs in its own pass); "
           "None and False leave auto_sync as it is", _insert_sync),
    Option("record_overflow", DEFAULTS.record_overflow, "True or False",
           "NPU build: -cce-aicore-record-overflow and its argument slot (toolchain/bisheng.py)", _bool),
    Option("platform", DEFAULTS.platform, "None or one of " + ", ".join(repr(p) for p in PRESETS),
           "the timing model's hardware preset (asc.profile); None: the one asc_trace.runtime.config.set_platform "
           f"chose, else {DEFAULT_PLATFORM!r}", _platform),
)
BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}
DEFAULT_OPTIONS: dict[str, Any] = dict(DEFAULTS)
assert tuple(BY_NAME) == NAMES, "options.OPTIONS and KernelOptions list different options"


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
        if opt is None and name in PYASC_ONLY:
            raise OptionError(f"pyasc's asc.jit option {name!r} has no counterpart in asc_trace", loc,
                              hint=PYASC_ONLY[name])
        if opt is None:
            raise OptionError(f"unknown asc.jit option {name!r}", loc,
                              hint=f"the options are {', '.join(BY_NAME)} (help(asc.jit) says what each does)")
        try:
            out[name] = opt.check(value)
        except OptionError as e:
            raise OptionError(e.msg, loc, hint=e.hint) from None
        except ValueError:
            raise OptionError(f"asc.jit option {name}={value!r} is not accepted: {name} takes {_accepted(opt)}",
                              loc) from None
    return out


def make(options: dict[str, Any], loc: SourceLoc | None) -> KernelOptions:
    """The options a kernel runs with: the defaults, then the user's (validated); `insert_sync=True`
    (pyasc's compiler-managed synchronisation) turns the scheduler on.

    Raises:
        OptionError: as `validate`.
    """
    opts = KernelOptions(**validate(options, loc))
    if opts.matmul_cube_only:
        if opts.kernel_type not in (None, "cube", "aic", "KERNEL_TYPE_AIC_ONLY"):
            raise OptionError(f"matmul_cube_only=True makes a cube kernel, but kernel_type={opts.kernel_type!r}", loc)
        opts = opts.replace(kernel_type="KERNEL_TYPE_AIC_ONLY")
    return opts.replace(auto_sync=True) if opts.insert_sync else opts


# pyasc 1.1's other CodegenOptions / CompileOptions, and what to use instead.
PYASC_ONLY: dict[str, str] = {
    "debug": "run the kernel with backend='eager' to step through it in pdb, or read ck.source",
    "strip_loc": "the emitted source always carries the user's file:line comments",
    "verify_sync": "every launch on sim, eager and cpp is checked for races and unmatched flags (ASC_TRACE_SANITIZE)",
    "print_ir_before_all": "ASC_TRACE_DEBUG=2 prints the graph after each pass",
    "run_passes": "the scheduling passes always run; auto_sync=False keeps them from adding synchronisation",
    "auto_sync_log": "print(asc.compile(kernel, args).graph) shows every inserted sync and the dependence it serves",
    "bisheng_options": "opt_level sets bisheng's -O level; other bisheng flags are chosen by toolchain/bisheng.py",
    "capture_exceptions": "errors always name the kernel's file and line",
    "ir_multithreading": "tracing runs in the calling thread; there is no MLIR context to configure",
}


def describe() -> str:
    """The option list for `help(asc.jit)`."""
    lines = []
    for o in OPTIONS:
        lines.append(f"        {o.name} (default {o.default!r}): {o.meaning}.\n            Accepts {_accepted(o)}.")
    return "\n".join(lines)
