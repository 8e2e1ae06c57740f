"""What the fake bisheng of tests/fake_cann.py rejects: the source as the real bisheng of its CANN
generation would see it, as far as a machine without bisheng can tell.

- With that generation's Ascend C headers at hand (asc-devkit for CANN 9; a CANN 8.1.RC1 copy through
  ASC_TRACE_CANN81_HOME for CANN 8): the real header check (toolchain/header_check.py): g++ parses the source
  against them with bisheng's predefined macros in front of the kernel (block_idx, block_num, ...:
  prelude/asc_trace_bisheng_view.h) and `__CCE_AICORE__=220`, `__DAV_C220_VEC__`, `__NPU_ARCH__=2201`
  defined as bisheng defines them for dav-c220-vec (toolchain/real_api.py DEFINES). `__aicore__`, `__gm__`
  and `__global__` are the CPU-debug stub's (empty): bisheng's address-space rules are not emulated.
- Always: every Ascend C symbol the source uses must be one that generation declares
  (lower/api_symbols.txt), and no identifier may be one of bisheng's predefined macros.

Errors come out as bisheng prints them, `kernel.cce:LINE:COL: error: ...`, with the kernel's own lines."""
from __future__ import annotations

import re

from asc_trace.lower.api_symbols import unlisted
from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
from asc_trace.lower.cexpr import BISHENG_MACROS
from asc_trace.toolchain.header_check import Kernel, diagnostics


def _line_of(source: str, word: str) -> int:
    for i, text in enumerate(source.splitlines(), 1):
        if not text.lstrip().startswith("//") and re.search(rf"\b{re.escape(word)}\b", text):
            return i
    return 1


def judge(source: str, generation: int, headers: str | None) -> str:
    """The diagnostics the fake bisheng prints for `source`, or "" when it compiles."""
    out = []
    if headers is not None:
        tree = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": headers})
        for lines in diagnostics([Kernel("kernel", source)], tree).values():
            out += [ln.replace("kernel.cpp:", "kernel.cce:") for ln in lines]
    for sym in unlisted(source, "cann-8.1" if generation == 8 else "asc-devkit"):
        name = re.sub(r"(<>)?(/.*)?$", "", sym).lstrip(".").split("::")[0]
        out.append(f"kernel.cce:{_line_of(source, name)}:1: error: {sym} is not declared by the Ascend C "
                   f"headers of CANN {'8.1' if generation == 8 else '8.5+'}")
    code = re.sub(r"//[^\n]*", "", source)
    for macro in sorted(BISHENG_MACROS):
        if re.search(rf"(?<![\w.]){macro}\b", code):
            out.append(f"kernel.cce:{_line_of(source, macro)}:1: error: '{macro}' is a macro bisheng predefines")
    return "".join(ln + "\n" for ln in out)
