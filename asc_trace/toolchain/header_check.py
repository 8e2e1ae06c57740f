"""The emitted Ascend C checked against the real Ascend C API: g++ in CPU-debug mode parses it with
the vendor's headers (toolchain/real_api.py) and asc_trace's stub layer, many kernels per translation
unit on top of a precompiled `kernel_operator.h`, so that checking a whole suite of kernels costs a
few compiler runs. A rejected kernel's error names the user's line, as the cpp backend's does.

What this establishes, and what it does not: every API call of the emitted source resolves to an
overload of the real headers with the argument types g++ deduces (the exact-type scalar rule, the
const-ness of mask arrays, the parameter structs' constructors, narrowing in braces). It is not
bisheng: its builtins, attributes and the device-only code paths of the headers are not compiled.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import ToolchainError
from ..graph.kernel_graph import KernelGraph
from .sources import BISHENG_VIEW_HEADER
from .compile_errors import compiler_error
from .ascendc_headers import AscendCHeaders, find_ascendc_headers
from .host_cxx import compiler
from .real_api import flags, precompiled_header

_INCLUDE = re.compile(r'^\s*#\s*include\s+"(kernel_operator|asc_trace_bisheng_view)\.h"\s*$')
_KERNEL = re.compile(r'^extern "C" (__global__ __aicore__ void \w+\(.*)$')


@dataclass(frozen=True)
class Kernel:
    """One emitted source to check, with the graph that maps its errors to the user's lines."""

    name: str
    source: str
    graph: KernelGraph | None = None


@dataclass
class _Part:
    kernel: Kernel
    first_tu_line: int      # the TU line of the kernel's `extern "C"` line
    first_src_line: int     # the same line in the kernel's own source
    n_lines: int


def _split(source: str) -> tuple[list[str], list[str], int]:
    """(prelude lines without the API include, kernel lines from `extern "C"` on, that line's number)."""
    lines = source.splitlines()
    for i, line in enumerate(lines):
        if _KERNEL.match(line):
            return [ln for ln in lines[:i] if not _INCLUDE.match(ln)], lines[i:], i + 1
    raise ValueError("not an emitted Ascend C kernel: no `extern \"C\" __global__ __aicore__` function")


def batch_source(kernels: Sequence[Kernel]) -> tuple[str, list[_Part]]:
    """One translation unit holding every kernel: the API included once, each distinct prelude once
    at file scope, each kernel function in its own namespace (a C++ function: `extern "C"` would make
    kernels of the same name collide)."""
    out = ['#include "kernel_operator.h"', f'#include "{BISHENG_VIEW_HEADER}"']
    preludes: set[str] = set()
    parts = []
    for i, k in enumerate(kernels):
        prelude, body, first = _split(k.source)
        code = "\n".join(ln for ln in prelude if not ln.lstrip().startswith("//"))
        if code.strip() and code not in preludes:
            preludes.add(code)
            out.extend(code.splitlines())
        out.append(f"namespace asc_check_{i} {{")
        parts.append(_Part(k, len(out) + 1, first, len(body)))
        out.append(_KERNEL.sub(r"\1", body[0]))
        out.extend(body[1:])
        out.append(f"}}  // namespace asc_check_{i}")
    return "\n".join(out) + "\n", parts


def _owner(parts: list[_Part], tu_line: int) -> _Part | None:
    for p in parts:
        if p.first_tu_line <= tu_line < p.first_tu_line + p.n_lines:
            return p
    return None


def diagnostics_by_kernel(stderr: str, parts: list[_Part]) -> dict[int, list[str]]:
    """The compiler's diagnostics for each kernel (by index), batch.cpp lines renumbered to the
    kernel's own source (kernel.cpp). A diagnostic ("In function ...", "In instantiation of ...",
    "In file included from ...", then its notes) belongs to the kernel of its first batch.cpp line."""
    blocks: list[list[str]] = []
    for line in stderr.splitlines():
        if not blocks or line.startswith("In file included from") or re.match(r"^\S[^:]*: In ", line):
            blocks.append([])
        blocks[-1].append(line)
    found: dict[int, list[str]] = {}
    for block in blocks:
        owner: int | None = None
        out = []
        for line in block:
            m = re.match(r"batch\.cpp:(\d+):(\d+):(.*)$", line)
            p = _owner(parts, int(m.group(1))) if m else None
            if p is not None:
                owner = parts.index(p) if owner is None else owner
                line = f"kernel.cpp:{int(m.group(1)) - p.first_tu_line + p.first_src_line}:{m.group(2)}:{m.group(3)}"
            out.append(line)
        if owner is not None and any("error" in ln for ln in out):
            found.setdefault(owner, []).extend(out)
    return found


def diagnostics(kernels: Sequence[Kernel], tree: AscendCHeaders | None = None,
                batch: int = 64) -> dict[int, list[str]]:
    """Compile every kernel against the real headers (syntax and semantics, no code generation): the
    compiler's diagnostics of each rejected kernel, by index, with lines of its own source (kernel.cpp)."""
    tree = tree or find_ascendc_headers()
    cxx, version = compiler()
    pch = precompiled_header(tree, cxx, version)
    found: dict[int, list[str]] = {}
    for start in range(0, len(kernels), batch):
        chunk = list(kernels[start:start + batch])
        text, parts = batch_source(chunk)
        with tempfile.TemporaryDirectory(prefix="asc_check_") as tmp:
            (Path(tmp) / "batch.cpp").write_text(text)
            proc = subprocess.run([cxx, f"-I{pch}", *flags(tree), "-fsyntax-only", "-fmax-errors=50",
                                   "batch.cpp"], cwd=tmp, capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            continue
        blamed = diagnostics_by_kernel(proc.stderr, parts)
        if not blamed:
            raise ToolchainError(f"g++ rejected the batch of emitted Ascend C outside any kernel:\n"
                                 f"{proc.stderr.strip()[:4000]}", None)
        for idx, lines in blamed.items():
            found[start + idx] = lines
    return found


def check_kernels(kernels: Sequence[Kernel], tree: AscendCHeaders | None = None,
                  batch: int = 64) -> list[ToolchainError]:
    """One ToolchainError per kernel the real headers reject, naming the user's line when the graph is
    known."""
    tree = tree or find_ascendc_headers()
    return [_error(kernels[i], "\n".join(lines), tree) for i, lines in sorted(diagnostics(kernels, tree, batch).items())]


def _error(k: Kernel, stderr: str, tree: AscendCHeaders) -> ToolchainError:
    hint = (f"the real Ascend C API ({tree.root}) does not accept this call as emitted: a bug in asc_trace's "
            "lowering; please report it with the kernel (ASC_TRACE_DUMP_PATH keeps the source)")
    if k.graph is not None:
        return compiler_error("g++ with the real Ascend C headers", k.graph, k.source, "kernel.cpp", stderr,
                              hint=hint, full_output=True)
    first = next((ln for ln in stderr.splitlines() if "error" in ln), stderr.strip()[:500])
    return ToolchainError(f"g++ with the real Ascend C headers rejected {k.name}: {first}\n{stderr[:4000]}", None,
                          hint=hint)
