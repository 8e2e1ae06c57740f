"""User-facing errors. Every one names the user's file and line, shows that line, and says what to do.

Layout of a rendered error (Triton-style excerpt, then the node being run, then the hint):

    AlignmentError: UB address 0x0044 of x_local is not 32-byte aligned
      --> /home/me/add.py:51 in vadd_kernel
       51 |         asc.data_copy(x_local[3:], x_gm[i * 8:], 8)
          |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      while running %7 = data_copy ...
      hint: ...
"""
from __future__ import annotations

from typing import Any, Callable

from .graph.source_loc import SourceLoc

# How an error shows the node it is about. graph/printer.py installs its `node_line` when it is
# imported, so this module needs nothing above it (repr until then).
_node_renderer: Callable[[Any], str] = repr


def set_node_renderer(render: Callable[[Any], str]) -> None:
    """Install the function that turns a graph node into its one-line dump (graph/printer.py)."""
    global _node_renderer
    _node_renderer = render


class AscTraceError(Exception):
    """Base of every error asc_trace reports about a user's kernel or launch.

    Args:
        msg: what is wrong, in one sentence.
        loc: the user's source location the error is about.
        node: the graph node being traced, scheduled or run (its dump line is shown).
        hint: what to do about it.
        related: further (label, SourceLoc) pairs to show, e.g. the other side of a race.
    """

    def __init__(self, msg: str, loc: SourceLoc | None = None, node: Any = None, hint: str | None = None,
                 related: list[tuple[str, SourceLoc]] | None = None) -> None:
        self.msg = msg
        self.loc = loc if loc is not None else getattr(node, "loc", None)
        self.node = node
        # rendered once, here: the message must not change if the node's printer changes later
        self.node_line = _node_renderer(node) if node is not None else None
        self.hint = hint
        self.related = list(related or [])
        self.iteration: str | None = None     # set by the simulator: which loop iteration was running
        super().__init__(self.render())

    def render(self) -> str:
        parts = [self.msg]
        if self.loc is not None:
            parts.extend(_excerpt(self.loc))
        for label, loc in self.related:
            parts.append(f"  {label}:")
            parts.extend(_excerpt(loc))
        if self.node_line is not None:
            parts.append(f"  while running {self.node_line}")
        if self.iteration:
            parts.append(f"  in {self.iteration}")
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.render()


def _excerpt(loc: SourceLoc) -> list[str]:
    lines = [f"  --> {loc.file}:{loc.line} in {loc.func}"]
    if loc.code:
        stripped = loc.code.rstrip()
        num = str(loc.line)
        lines.append(f"  {num:>4} | {stripped}")
        if 0 <= loc.col < len(stripped):
            end = loc.end_col if loc.end_col > loc.col else len(stripped)
            end = min(end, len(stripped))
            lines.append(f"  {'':>4} | {' ' * loc.col}{'^' * max(1, end - loc.col)}")
    return lines


class TraceError(AscTraceError):
    """The kernel cannot be traced: a Python construct, an argument or an API use that has no kernel meaning."""


class OptionError(TraceError, ValueError):
    """An `asc.jit` option that does not exist, or a value it does not accept (the message lists what it takes)."""


class NotProvidedError(TraceError, AttributeError):
    """A pyasc name asc_trace does not provide (yet); the message says what to use instead. An
    AttributeError too, so `hasattr` and `from ... import` behave as for any missing name."""


class DTypeError(TraceError):
    """An operand's dtype does not fit the operation (mismatch, or not supported on the target)."""


class AlignmentError(AscTraceError):
    """A Unified Buffer address or a copy length breaks the hardware's 32-byte rule."""


class UBOverflowError(AscTraceError):
    """A Unified Buffer allocation or access goes past the usable UB."""


class OutOfBoundsError(AscTraceError):
    """An access outside a tensor, a `set_global_buffer` window or the caller's array."""


class QueueError(AscTraceError):
    """A TPipe / TQue / TBuf misuse (no buffer initialised, no free buffer, dequeue of an empty queue, ...)."""


class ScalarError(AscTraceError, ArithmeticError):
    """A runtime scalar expression has no value: an integer `//` or `%` by zero, or a shift by a
    negative count or by 64 bits or more (docs/numerics.md)."""


class RaceError(AscTraceError):
    """Two pipes access overlapping bytes without an ordering set/wait, barrier or queue operation."""


class SyncError(AscTraceError):
    """Events that would hang or corrupt the hardware: a wait nobody sets, a double set, a flag left set."""


class LaunchError(AscTraceError):
    """Bad launch: wrong number or kind of arguments, bad core count, unusable array."""


class ToolchainError(AscTraceError):
    """A compiler or runtime the chosen backend needs is missing or failed."""


class PathError(AscTraceError):
    """A file asc_trace was asked to write (a Chrome trace, a PNG timeline) cannot be: its path is a folder,
    its folder does not exist, or it is not writable. The message names the path."""


class CacheError(PathError):
    """The disk cache (ASC_TRACE_CACHE_DIR, default $ASC_TRACE_HOME/cache) or the dump folder
    (ASC_TRACE_DUMP_PATH) cannot be used: a path in it is a file where a folder must be, or cannot be created
    or written. The message names the path. (A damaged cache entry is no error: it is rebuilt.)"""


class TorchOpError(AscTraceError):
    """An `asc.torch_op` PyTorch cannot register: torch missing or too old, a bad name, schema or mutates_args."""


class AscTraceWarning(UserWarning):
    """Something asc_trace can run but that is probably not what the user meant (configs of an autotune
    doing different work, a loop that silently drops a remainder). Filter it as any warning class:
    `warnings.simplefilter("error", asc.AscTraceWarning)`."""
