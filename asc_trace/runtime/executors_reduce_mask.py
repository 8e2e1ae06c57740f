"""The mask form of ReduceSum / ReduceMax / ReduceMin (graph/ops/vec_reduce.py): `(dst, src, sharedTmpBuffer,
mask, repeatTime, srcRepStride[, calIndex])`. The vendor's A2 steps (asc-devkit impl/basic_api/dav_c220/
kernel_operator_vec_reduce_impl.h ReduceImplWithIndex / ReduceImplNoIndex / ReduceSumImpl): one whole-repeat
reduction per repeat (the mask's lanes, repeats srcRepStride blocks apart, block stride 1) into the shared
buffer, then reductions of those partial results until one is left. The index (calIndex) is the element's
offset from src's start: the lane plus srcRepStride blocks per repeat before it (ReduceImplThirdStep's
`firstIndex + preNum`)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..dtypes import DataType, from_compute, to_compute
from ..errors import OutOfBoundsError
from ..graph.hb import Instr, api_steps
from ..graph.node import Node, Pipe
from ..graph.numerics import tree_sum
from ..graph.ops import OpDef
from ..graph.ops.reduce_work import work_elements
from .executor_base import BINDERS, binder, efn
from .executors_ops import index_bits, mask_positions, masked_index
from .machine import Machine

Step = Callable[[Machine], Instr | None]


def bind_reduce_mask(node: Node, op: OpDef) -> Step:
    d, s, tmp, mask, repeat_e, src_rep_e = node.args
    fd, fs, ft, fr, fsr = efn(d.offset), efn(s.offset), efn(tmp.offset), efn(repeat_e), efn(src_rep_e)
    dt: DataType = s.dtype
    per_block = 32 // dt.itemsize
    per = 8 * per_block
    with_index = bool(node.attr("cal_index"))
    kind = node.op

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        rep = m.uniform_int(fsr(env), node, "src_rep_stride")
        if mask.bits is None:
            n = m.uniform_int(efn(mask.count)(env), node, "the mask count")
            if n > per:        # CheckFunVecReduce: the count is one repeat's lanes at most
                raise OutOfBoundsError(f"the mask count of asc.{kind} is 1..{per} (the elements of one repeat), "
                                       f"got {n}", node=node)
        pos = mask_positions(mask, env, m, node, per)
        if len(pos) == 0:      # the vendor returns at once for an all-zero mask (mask[0] == 0 && mask[1] == 0)
            return None
        idx = masked_index(pos, repeat, 1, rep, per_block)
        n_src = int(idx.max()) + 1
        n_tmp = work_elements(kind, with_index, repeat, dt.itemsize)    # what the vendor's steps touch
        n_dst = 2 if with_index else 1
        aa, va = m.ub_access(s, fs(env), n_src, node, "src")
        ad, vd = m.ub_access(d, fd(env), n_dst, node, "dst")
        # one repeat with the index: the vendor writes dst only, and the work tensor is not touched
        at, vt = m.ub_access(tmp, ft(env), n_tmp, node, "the shared tmp buffer") if n_tmp else (0, None)

        def apply() -> None:
            x = to_compute(va[:, idx], dt)                      # (C, repeat * selected), repeat-major
            if kind == "reduce_sum":
                full = np.zeros((x.shape[0], repeat, per), x.dtype)
                full[..., pos] = x.reshape(x.shape[0], repeat, len(pos))
                partial = tree_sum(full, x.dtype, per)          # one whole-repeat sum per repeat
                vt[:, :repeat] = from_compute(partial, dt)
                vd[:, 0] = from_compute(tree_sum(partial, x.dtype, per), dt)
                return
            pick = np.argmax if kind == "reduce_max" else np.argmin
            k = pick(x, axis=1)
            if x.dtype.kind == "f":                             # NumPy's max: NaN wins, the first NaN
                nan = np.isnan(x)
                k = np.where(nan.any(axis=1), np.argmax(nan, axis=1), k)
            val = x[np.arange(x.shape[0]), k]
            if vt is not None:
                vt[:, 0] = from_compute(val, dt)
            vd[:, 0] = from_compute(val, dt)
            if with_index:
                vd[:, 1] = index_bits(idx[k], dt)
        nb = dt.itemsize
        return Instr(node, Pipe.V, "op", apply=apply, work=repeat * per,
                     ub=((aa, n_src * nb, False), *(((at, n_tmp * nb, True),) if n_tmp else ()), (ad, n_dst * nb, True)),
                     api=api_steps(node, lambda _e: repeat))
    return run


_COUNT_FORM = BINDERS["vec_reduce"]       # executors_ops' binder of the count form


@binder("vec_reduce")
def _bind_reduce_forms(node: Node, op: OpDef) -> Step:
    return bind_reduce_mask(node, op) if node.attr("mask_form") else _COUNT_FORM(node, op)
