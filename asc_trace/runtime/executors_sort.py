"""Sort32 (graph/ops/vec_sort.py): a stable descending sort of each repeat's 32 scores with their indices, written
as 8-byte (score, index) structures; the cases its documentation leaves open are refused."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import NotProvidedError
from ..graph.hb import Instr
from ..graph.node import Node, Pipe
from ..graph.ops import OpDef
from ..graph.ops.vec_sort import PER_REPEAT, STRUCT_BYTES
from .executor_base import binder, efn
from .machine import Machine

Step = Callable[[Machine], Instr | None]


def _check_defined(scores: np.ndarray, node: Node) -> None:
    """Refuse a NaN score, and +0 beside -0 in one repeat: the documentation does not say how they order."""
    if np.isnan(scores).any():
        raise NotProvidedError("asc.sort32 got a NaN score: where Sort32 places NaN is not documented", node=node,
                               hint="replace NaN scores (e.g. with asc.select against a compare) before sorting")
    zero = scores == 0
    neg = zero & np.signbit(scores)
    if (neg.any(axis=-1) & (zero & ~neg).any(axis=-1)).any():
        raise NotProvidedError("asc.sort32 got +0 and -0 scores in one repeat: whether Sort32 ties them is not "
                               "documented", node=node, hint="add +0.0 to the scores first (asc.adds) to make every "
                                                             "zero +0")


@binder("vec_sort32")
def _bind_sort32(node: Node, op: OpDef) -> Step:
    d, s0, s1, repeat_e = node.args
    fd, f0, f1, fr = efn(d.offset), efn(s0.offset), efn(s1.offset), efn(repeat_e)
    dt = s0.dtype

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        n = repeat * PER_REPEAT
        a0, v0 = m.ub_access(s0, f0(env), n, node, "src0 (the scores)")
        a1, v1 = m.ub_access(s1, f1(env), n, node, "src1 (the indices)")
        nd = n * STRUCT_BYTES // d.dtype.itemsize
        ad, _vd = m.ub_access(d, fd(env), nd, node, "dst")

        def apply() -> None:
            cores = v0.shape[0]
            scores = v0.reshape(cores, repeat, PER_REPEAT).astype(np.float32)
            _check_defined(scores, node)
            order = np.argsort(-scores, axis=-1, kind="stable")       # largest first, ties in input order
            bits = v0.view(np.uint16 if dt.itemsize == 2 else np.uint32).reshape(cores, repeat, PER_REPEAT)
            idx = v1.reshape(cores, repeat, PER_REPEAT)
            raw = m.ub[:, ad:ad + n * STRUCT_BYTES]
            words = raw.view(np.uint32).reshape(cores, repeat, PER_REPEAT, 2)
            words[..., 1] = np.take_along_axis(idx, order, axis=-1)
            if dt.itemsize == 4:
                words[..., 0] = np.take_along_axis(bits, order, axis=-1)
            else:                 # the half score in the low 2 bytes; the 2 reserved bytes are left as they were
                raw.view(np.uint16).reshape(cores, repeat, PER_REPEAT, 4)[..., 0] = \
                    np.take_along_axis(bits, order, axis=-1)
        return Instr(node, Pipe.V, "op", apply=apply, work=n,
                     ub=((a0, n * dt.itemsize, False), (a1, n * 4, False), (ad, n * STRUCT_BYTES, True)))
    return run

