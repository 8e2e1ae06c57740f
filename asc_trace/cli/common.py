"""What every subcommand shares: the exit codes (main.py's docstring explains them), the one error
a command reports without a traceback, and the parser factory that puts the codes in each --help.
main.py imports the subcommands, and they import this module, so the imports run one way."""
from __future__ import annotations

import argparse
from typing import Any

EXIT_OK, EXIT_KERNEL_ERROR, EXIT_USAGE, EXIT_LOAD, EXIT_UNAVAILABLE = 0, 1, 2, 3, 4
EXIT_CODES = f"""exit codes:
  {EXIT_OK}  success
  {EXIT_KERNEL_ERROR}  asc_trace reported an error about the kernel (trace, schedule, lowering, simulation)
  {EXIT_USAGE}  bad command line (unknown option, malformed --args or FILE.py::KERNEL, no inputs to inspect with)
  {EXIT_LOAD}  the file could not be loaded, or it has no such kernel
  {EXIT_UNAVAILABLE}  info --require BACKEND: that backend is not usable here"""


class CliError(Exception):
    """A failure the command reports in one message and an exit code (no traceback)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def add_command(sub: Any, name: str, **kw: Any) -> argparse.ArgumentParser:
    """A (sub)command's parser: its --help ends with the exit codes."""
    return sub.add_parser(name, epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter, **kw)
