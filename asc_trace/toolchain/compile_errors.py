"""Compiler errors in the emitted Ascend C, led back to the user's line: every statement of the
source is preceded by a `// file.py:LINE (%id)` comment (lower/ascendc.py), so the first error's line
number finds the node, and the node carries the user's location."""
from __future__ import annotations

import re

from ..errors import ToolchainError
from ..graph.kernel_graph import KernelGraph

NODE_COMMENT = re.compile(r"^(\s*)// .*\(%(\d+)\)")


def compiler_error(tool: str, g: KernelGraph, source: str, filename: str, stderr: str, hint: str,
                   full_output: bool = False) -> ToolchainError:
    """A ToolchainError for `tool`'s failure on `source` (written as `filename`), pointing at the node of
    the first error's line; `full_output` appends the compiler's output (first 4,000 characters)."""
    lines = source.splitlines()
    node = None
    # the error's own line, else (an error inside the API's templates) where the source instantiated it
    m = re.search(rf"{re.escape(filename)}:(\d+):\d+: error", stderr) or \
        re.search(rf"{re.escape(filename)}:(\d+):\d+:\s+required from here", stderr)
    if m:
        for i in range(min(int(m.group(1)), len(lines)) - 1, -1, -1):
            c = NODE_COMMENT.match(lines[i])
            if c:
                node = next((n for n in g if n.id == int(c.group(2))), None)
                break
    first = next((ln for ln in stderr.splitlines() if "error" in ln), stderr.strip()[:500])
    msg = f"{tool} rejected the Ascend C emitted for {g.name}: {first}"
    if full_output:
        msg += "\n" + stderr.strip()[:4000]
    return ToolchainError(msg, node=node, hint=hint)
