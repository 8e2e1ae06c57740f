"""`asc-trace inspect FILE.py::KERNEL [--args ...]`: what `make demo` shows for vadd, for any kernel: the
traced graph, the scheduled graph, the Ascend C source and the modeled profile."""
from __future__ import annotations

import argparse
import ast
import os
from pathlib import Path
from typing import Any

from ..errors import LaunchError, OptionError, PathError
from ..jit_function import DEFAULT_OPTIONS, MAX_BLOCKS as MAX_CORE_NUM, compile as asc_compile, profile as asc_profile
from ..runtime.args import _match, bind_args
from ..runtime.platform import DEFAULT_PLATFORM, PRESETS
from .inputs import EXAMPLES_ATTR, __doc__ as INPUTS_DOC, declared_examples, describe, load_kernel, parse_args_spec
from .common import EXIT_USAGE, CliError, add_command

SECTIONS = ("traced", "scheduled", "source", "profile")


def add_parser(sub: Any) -> None:
    p = add_command(sub, "inspect", help="show a kernel's traced and scheduled graph, Ascend C and modeled profile",
                    description="Trace and schedule FILE.py::KERNEL for the given inputs and print its graph as "
                                "traced, the scheduled graph (with every event the scheduler added and why), the "
                                "Ascend C it lowers to, and its modeled profile on the simulator's pipe model "
                                "(which runs the kernel once).\n\n" + (INPUTS_DOC or ""))
    p.add_argument("target", metavar="FILE.py::KERNEL", help="the file and the @asc.jit kernel in it")
    p.add_argument("--args", nargs="+", metavar="TOKEN", dest="tokens",
                   help=f"the launch arguments (default: the file's {EXAMPLES_ATTR} entry for KERNEL)")
    p.add_argument("-c", "--core-num", type=int, help="cores to launch on (default: the example's, else 1)")
    p.add_argument("--show", default=",".join(SECTIONS),
                   help=f"comma-separated sections to print, from {', '.join(SECTIONS)} (default: all)")
    p.add_argument("-O", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help=f"an asc.jit option, repeatable ({', '.join(k for k in DEFAULT_OPTIONS if k != 'backend')}),"
                        " e.g. -O auto_sync=False -O multi_buffer=1")
    p.add_argument("--platform", choices=sorted(PRESETS), help=f"timing preset (default {DEFAULT_PLATFORM})")
    p.add_argument("--chrome-trace", metavar="PATH", help="also save the profile as a Chrome / Perfetto trace")
    p.add_argument("--seed", type=int, default=0, help="seed of the random array contents (default 0)")
    p.set_defaults(run=run)


def _check_core_num(n: int | None) -> None:
    """-c N out of range is a command-line mistake (exit 2), not a launch of some other core count."""
    if n is not None and not 1 <= n <= MAX_CORE_NUM:
        raise CliError(EXIT_USAGE, f"-c {n}: the core count must be from 1 to {MAX_CORE_NUM}")


def _check_writable(path: str) -> None:
    """--chrome-trace PATH is checked before the kernel runs, so a typo costs no simulation."""
    if not path.strip():
        raise CliError(EXIT_USAGE, f"--chrome-trace {path!r}: give a file path")
    target = Path(path).expanduser()
    parent = target.parent if str(target.parent) else Path(".")
    try:        # a name too long for the file system is an OSError of the checks themselves
        if target.is_dir():
            raise CliError(EXIT_USAGE, f"--chrome-trace {path}: is a directory; give a file path")
        if not parent.is_dir():
            raise CliError(EXIT_USAGE, f"--chrome-trace {path}: no such directory {parent}")
        if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
            raise CliError(EXIT_USAGE, f"--chrome-trace {path}: not writable")
        existed = target.exists()
    except (ValueError, OSError) as e:
        raise CliError(EXIT_USAGE, f"--chrome-trace {path}: {getattr(e, 'strerror', None) or e}") from None
    try:        # os.access trusts the mode bits; some file systems (/proc, read-only mounts) refuse anyway
        with open(target, "a"):
            pass
    except OSError as e:
        raise CliError(EXIT_USAGE, f"--chrome-trace {path}: {e.strerror or e}") from None
    if not existed:
        target.unlink(missing_ok=True)


def _options(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if key == "backend":
            raise CliError(EXIT_USAGE, f"-O {pair!r}: inspect traces, lowers and profiles on the simulator's model; "
                                       "no backend runs the kernel here, so there is none to choose")
        if not sep or key not in DEFAULT_OPTIONS:
            raise CliError(EXIT_USAGE, f"-O {pair!r}: give KEY=VALUE with KEY one of "
                                       f"{', '.join(k for k in DEFAULT_OPTIONS if k != 'backend')}")
        try:
            out[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            out[key] = text            # a bare word such as multi_buffer=off
    return out


def run(args: argparse.Namespace) -> int:
    show = [s.strip() for s in args.show.split(",") if s.strip()]
    unknown = [s for s in show if s not in SECTIONS]
    if unknown or not show:
        raise CliError(EXIT_USAGE, f"--show {args.show!r}: sections are {', '.join(SECTIONS)}")
    options = _options(args.option)
    _check_core_num(args.core_num)
    if args.chrome_trace is not None:
        _check_writable(args.chrome_trace)
    module, kernel, path = load_kernel(args.target)
    if args.tokens:
        inputs = parse_args_spec(args.tokens, args.seed)
    else:
        inputs = declared_examples(module, kernel.name, path)
        if inputs is None:
            raise CliError(EXIT_USAGE, f"no inputs for {kernel.name}: pass --args (e.g. --args f32[2048] f32[2048] "
                                       f"256) or declare {EXAMPLES_ATTR} in {path.name}")
    core_num = args.core_num if args.core_num is not None else (inputs.core_num or 1)
    if options:
        try:
            kernel = kernel.with_options(**options)
        except OptionError as e:
            raise CliError(EXIT_USAGE, f"-O: {e.msg}") from None
    try:
        values = _match(kernel.name, kernel.specs, inputs.args, inputs.kwargs, None)
        bind_args(kernel.name, kernel.specs, tuple(values), {}, None)    # each value fits its parameter's kind
    except LaunchError as e:
        raise CliError(EXIT_USAGE, f"the inputs ({inputs.origin}) do not fit the kernel: {e.msg}") from None
    ck = asc_compile(kernel, tuple(values), core_num=core_num)
    print(f"== {kernel.name}{ck.signature} from {path}")
    print(f"   inputs ({inputs.origin}): {', '.join(describe(v) for v in values)}; {core_num} core(s)"
          + (f"; options {options}" if options else ""))
    if "traced" in show:
        print(f"\n-- traced graph ({len(ck.traced)} nodes)")
        print(str(ck.traced).rstrip())
    if "scheduled" in show:
        print(f"\n-- scheduled graph ({len(ck.graph)} nodes: the events and buffers the passes added, and why)")
        print(str(ck.graph).rstrip())
    if "source" in show:
        print("\n-- Ascend C (what bisheng compiles for the NPU)")
        print(ck.source.rstrip())
    if "profile" in show or args.chrome_trace is not None:
        prof = asc_profile(kernel, *values, core_num=core_num, platform=args.platform)
        if "profile" in show:
            print("\n-- modeled profile (the simulator's pipe model: modeled cycles, not a measurement)")
            print(prof.summary())
        if args.chrome_trace is not None:
            try:
                prof.save_chrome_trace(args.chrome_trace)
            except OSError as e:       # the checks above cannot see everything (a full disk, a race)
                raise CliError(EXIT_USAGE, f"--chrome-trace {args.chrome_trace}: {e.strerror or e}") from None
            except PathError as e:     # e.g. /proc, which even root's os.access calls writable
                raise CliError(EXIT_USAGE, f"--chrome-trace {args.chrome_trace}: {str(e).splitlines()[0]}") from None
            print(f"\nChrome trace written to {args.chrome_trace} (open it in Perfetto or chrome://tracing)")
    return 0
