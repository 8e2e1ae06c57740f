"""`asc.fixpipe` from L0C into L1 (ascend-cube-facts §3, FX:43-64, 340-349): the result of one Mmad kept on
chip in the Nz layout, e.g. as the A operand of the next matmul. The vendor takes only CO2Layout.NZ here
(CFG_NZ; ROW_MAJOR is refused by its check), `dst_stride` counts 32-byte rows between the 16-column blocks,
and no channel split. asc_trace provides the 16-bit outputs (F322F16, F322BF16, with ReLU), whose 16-column
blocks of L0C are exactly L1's 32-byte Nz rows; the 8-bit outputs and DEQF16 take a deqScalar whose
encoding the headers do not publish, so they are refused."""
from __future__ import annotations

from typing import Any

from ..cube_enums import CO2Layout, QuantModes
from ..errors import DTypeError, NotProvidedError, TraceError
from ..graph.expr import Const
from ..graph.node import Pipe, TensorRef, make_attrs
from ..graph.source_loc import SourceLoc

_TO_L1 = {("float32", "float16"): QuantModes.F322F16, ("float32", "bfloat16"): QuantModes.F322BF16}


def fixpipe_to_l1(ctx: Any, d: TensorRef, s: TensorRef, p: Any, layout: Any, loc: SourceLoc) -> None:
    if layout != CO2Layout.NZ:
        raise TraceError(f"asc.fixpipe from L0C to L1 writes the Nz layout: pass asc.FixpipeConfig.cfg_nz "
                         f"(CO2Layout.NZ), not CO2Layout.{CO2Layout(layout).name}", loc)
    want = _TO_L1.get((s.dtype.name, d.dtype.name))
    if want is None:
        raise NotProvidedError(f"asc.fixpipe from {s.dtype} in L0C to {d.dtype} in L1 is not provided: the 8-bit "
                               "outputs and DEQF16 take a deqScalar whose encoding the headers do not publish "
                               "(float32 -> float16 / bfloat16 are provided)", loc)
    q = p.quant_pre.value if isinstance(p.quant_pre, Const) else None
    if q != want:
        raise DTypeError(f"asc.fixpipe from {s.dtype} to {d.dtype} in L1 needs quant_pre=QuantModes.{want.name}",
                         loc)
    if isinstance(p.is_channel_split, Const) and p.is_channel_split.value:
        raise TraceError("asc.fixpipe into L1 takes no channel split (is_channel_split=False)", loc)
    n = p.n_size.value if isinstance(p.n_size, Const) else None
    if n is not None and (n <= 0 or n % 16):
        raise TraceError(f"FixpipeParamsV220.n_size is {n}: into L1 it is a positive multiple of 16 (whole "
                         "16-column blocks)", loc)
    ctx.record("fixpipe_l1", (d, s, p), loc, Pipe.FIX, make_attrs(dtype=d.dtype))
