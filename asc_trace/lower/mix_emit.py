"""The Ascend C of a mixed cube + vector kernel: one `KERNEL_TYPE_MIX_AIC_1_2` kernel whose body is the cube
side under `if ASCEND_IS_AIC { ... }` and the vector side under `if ASCEND_IS_AIV { ... }`, the split the
vendor's headers make (impl/utils/sys_macros.h: `ASCEND_IS_AIC` is `constexpr(g_coreType == AIC)` when the
kernel is compiled for the cube with `__DAV_CUBE__`, so each compile keeps only its own side). Each side
is rendered by the kernel emitter (lower/ascendc.py) from its scheduled graph (graph/mix_split.py)."""
from __future__ import annotations

from typing import Callable

from ..graph.mix_split import MixGraph

MIX_TYPE = "KERNEL_TYPE_MIX_AIC_1_2"


def _parts(text: str) -> tuple[list[str], str, list[str]]:
    """(the lines before the kernel's signature, the signature, the body's lines without the task type)."""
    lines = text.splitlines()
    sig = next(i for i, ln in enumerate(lines) if ln.startswith('extern "C"'))
    end = max(i for i, ln in enumerate(lines) if ln == "}")
    body = [ln for ln in lines[sig + 2:end] if "KERNEL_TASK_TYPE_DEFAULT" not in ln]
    return lines[:sig], lines[sig], body


def lower_mix(g: MixGraph, lower: Callable[..., str], overflow_param: str | None = None,
              generation: int | None = None) -> str:
    """`lower`: lower/ascendc.py's, for each side."""
    pre_c, sig, body_c = _parts(lower(g.aic, overflow_param, generation))
    pre_v, _sig, body_v = _parts(lower(g.aiv, overflow_param, generation))
    pre = []
    for ln in pre_v + [ln for ln in pre_c if ln not in pre_v]:
        if ln.startswith("// Vector-only kernel") or ln.startswith("// Cube-only kernel"):
            ln = ("// Mixed cube + vector kernel for Atlas A2 (KERNEL_TYPE_MIX_AIC_1_2: per AI core one cube core, "
                  "dav-c220-cube, and two vector cores, dav-c220-vec).")
        pre.append(ln)
    kind = MIX_TYPE
    if getattr(g, "matmul_clients", 1) > 1:
        # pyasc's MIX Matmul mode (graph/matmul_clients.py): each client a vector core with a cube core of its own
        kind = "KERNEL_TYPE_MIX_AIC_1_1"
        pre.append("// pyasc's MIX Matmul mode: one Matmul client per vector core, each paired with a cube core "
                   "(KERNEL_TYPE_MIX_AIC_1_1): launch it on 2 x the pyasc launch's blocks.")
    out = pre + [sig, "{", f"    KERNEL_TASK_TYPE_DEFAULT({kind});", "    if ASCEND_IS_AIC {"]
    out += ["    " + ln if ln else ln for ln in body_c]
    out += ["    }", "    if ASCEND_IS_AIV {"]
    out += ["    " + ln if ln else ln for ln in body_v]
    out += ["    }", "}", ""]
    return "\n".join(out)
