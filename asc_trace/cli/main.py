"""The command line: `python -m asc_trace` or `asc-trace`, with `info`, `cache` and `inspect`.

Exit codes (the same for every command, so scripts can rely on them):
  0  success
  1  asc_trace reported an error about the kernel (trace, schedule, lowering, simulation)
  2  bad command line (unknown command or option, malformed --args or FILE.py::KERNEL, no inputs to inspect with)
  3  the file could not be loaded, or it has no such kernel
  4  `info --require BACKEND`: that backend is not usable here
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .._version import __version__
from ..errors import AscTraceError
from .common import EXIT_CODES, EXIT_KERNEL_ERROR, EXIT_OK, EXIT_USAGE, CliError


def build_parser() -> argparse.ArgumentParser:
    from . import cache_cmd, info, inspect_cmd     # on first use: `import asc_trace.cli` stays light
    parser = argparse.ArgumentParser(
        prog="asc-trace", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="asc_trace: Ascend C vector kernels in Python, traced. Ask what this machine supports, manage "
                    "the compile cache, and inspect a kernel's graph, Ascend C and modeled profile.",
        epilog=EXIT_CODES)
    parser.add_argument("--version", action="version", version=f"asc_trace {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in (info, cache_cmd, inspect_cmd):
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (`asc-trace` and `python -m asc_trace` exit with it)."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        # argparse would only say "COMMAND is required", hiding the option that was mistyped
        print(f"asc-trace: unknown option {argv[0]!r} before the command; commands: info, cache, inspect "
              "(asc-trace --help)", file=sys.stderr)
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:            # argparse: --help / --version (0) or a usage error (2)
        return int(e.code or 0)
    try:
        return int(args.run(args) or EXIT_OK)
    except CliError as e:
        print(f"asc-trace {args.command}: {e}", file=sys.stderr)
        return e.code
    except AscTraceError as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_KERNEL_ERROR
    except BrokenPipeError:            # `asc-trace inspect ... | head`
        return EXIT_OK
