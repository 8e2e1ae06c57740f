"""Extract (Ascend C `include/basic_api/kernel_operator_proposal_intf.h`, pyasc's `asc.adv.extract`): the values
and the uint32 indices of sorted (value, index) structures, each 8 bytes (Sort32 / Sort output on A2).

The vendor's A2 steps (`impl/basic_api/kernel_operator_proposal_intf_impl.h`, the 2201 branch): two GatherMask
passes over the structures, repeatTime x 32 of them: for half, pattern 3 (the first half of every 4) gives the
values, for float pattern 1 (the first float of every 2); pattern 2 over the bytes read as uint32 (the second word
of every 2) gives the indices. Exact copies of bits.
"""
from __future__ import annotations

import numpy as np

from ..expr import Const
from .adv_common import AdvSpec, Steps, adv_record, operands, register_adv

PER_REPEAT = 32          # structures a repeat covers (256 bytes of 8-byte structures)


def _extract(st: Steps, ins, sc, node) -> dict:
    n = node.attr("repeat") * PER_REPEAT
    raw = np.ascontiguousarray(ins["src"])
    cores = raw.shape[0]
    per = 8 // raw.dtype.itemsize                 # elements of T in one structure
    st._note_n("gather", raw, n * per)
    st._note_n("gather", raw, n * per)
    words = raw.view(np.uint32).reshape(cores, n, 2)
    return {"dst_value": raw.reshape(cores, n, per)[..., 0].copy(), "dst_index": words[..., 1].copy()}


def _extent(node, name):
    n = node.attr("repeat") * PER_REPEAT
    return Const(n * 8 // node.attr("dtype").itemsize if name == "src" else n)


def _emit(ctx, node) -> str:
    tens, _tmp, _s, _c = operands(node)
    args = ", ".join(ctx.ref(tens[k]) for k in ("dst_value", "dst_index", "src"))
    return f"AscendC::Extract({args}, {node.attr('repeat')});"


register_adv(
    adv_record("adv_extract", "Extract",
               AdvSpec(("dst_value", "dst_index"), ("src",), _extract, lambda nd, n: 0, lambda nd, n: 0,
                       counted=False, extent=_extent, distinct=()),
               _emit, frozenset({"float16", "float32"}),
               {"Extract/4": ("include/basic_api/kernel_operator_proposal_intf.h:142",
                              "interface/kernel_operator_proposal_intf.h:155")},
               {"float16": (0.0, 0.0), "float32": (0.0, 0.0)}, header=""),
)
