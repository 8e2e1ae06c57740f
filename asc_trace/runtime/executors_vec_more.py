"""Executors of the vector op families pyasc has beyond the element-wise ones (graph/ops/vec_reduce_block.py,
...): the same contract as executors.py (do the scalar unit's part now, return the pipe's instruction with
its data effect in `apply`)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..dtypes import DataType, from_compute, to_compute
from ..errors import OutOfBoundsError
from ..graph.hb import Instr
from ..graph.node import Node, Pipe
from ..graph.numerics import tree_sum
from ..graph.ops import OpDef
from ..graph.ops.masked import BLOCKS
from ..graph.params import Mask
from ..graph.ops.vec_reduce_block import LAYOUT, results_per_repeat
from ..graph.ops.vec_cmpsel import check_count_256
from .executor_base import binder, efn, scalar_as
from .executors_ops import bind_masked, mask_positions, masked_index
from .machine import Machine

Step = Callable[[Machine], Instr | None]


def strict_positions(mask: Mask, env: dict, m: Machine, node: Node, per_rep: int) -> np.ndarray:
    """The lanes a mask selects, where the API refuses a count past one repeat (CheckMaskValue)."""
    if mask.bits is None:
        n = m.uniform_int(efn(mask.count)(env), node, "the mask count")
        if n > per_rep:
            raise OutOfBoundsError(f"the mask count is 1..{per_rep} (the elements of one repeat), got {n}", node=node)
    return mask_positions(mask, env, m, node, per_rep)


def _reduce_groups(x: np.ndarray, on: np.ndarray, kind: str, dt_np: np.dtype, width: int) -> np.ndarray:
    """Reduce the last axis (groups of `width` lanes, `on` the selected ones): a tree sum with zeros in
    the lanes not selected, or the max / min of the selected lanes (the first NaN wins, as NumPy's)."""
    if kind == "sum":
        return tree_sum(np.where(on, x, dt_np.type(0)), dt_np, width)
    fill = -np.inf if kind == "max" else np.inf
    picked = np.where(on, x.astype(np.float64), fill)
    k = (np.argmax if kind == "max" else np.argmin)(picked, axis=-1)
    nan = np.isnan(picked)
    k = np.where(nan.any(axis=-1), np.argmax(nan, axis=-1), k)
    return np.take_along_axis(x, k[..., None], axis=-1)[..., 0]


@binder("vec_block_reduce")
def _bind_block_reduce(node: Node, op: OpDef) -> Step:
    d, s, mask, repeat_e, dst_rep_e, src_blk_e, src_rep_e = node.args[:7]
    fd, fs = efn(d.offset), efn(s.offset)
    fr, fdr, fsb, fsr = efn(repeat_e), efn(dst_rep_e), efn(src_blk_e), efn(src_rep_e)
    dt: DataType = s.dtype
    per_block = 32 // dt.itemsize
    per_rep = BLOCKS * per_block
    layout, kind = LAYOUT[node.op]
    width = {"block": per_block, "pair": 2, "repeat": per_rep}[layout]     # lanes per result
    n_res = results_per_repeat(layout, dt.itemsize)

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        dst_rep = m.uniform_int(fdr(env), node, "dst_rep_stride")
        blk = m.uniform_int(fsb(env), node, "src_blk_stride")
        rep = m.uniform_int(fsr(env), node, "src_rep_stride")
        pos = strict_positions(mask, env, m, node, per_rep)
        on_lane = np.zeros(per_rep, bool)
        on_lane[pos] = True
        groups = on_lane.reshape(n_res, width)
        if layout == "pair" and (groups.any(axis=1) & ~groups.all(axis=1)).any():
            i = int(np.argmax(groups.any(axis=1) & ~groups.all(axis=1)))
            raise OutOfBoundsError(f"the mask of asc.pair_reduce_sum selects one lane of the pair ({2 * i}, {2 * i + 1}); "
                                   "PairReduceSum adds whole pairs", node=node,
                                   hint="select both lanes of each pair (an even mask count)")
        written = np.flatnonzero(groups.any(axis=1))             # results with at least one lane selected
        idx = masked_index(pos, repeat, blk, rep, per_block)
        n_src = int(idx.max()) + 1
        # every lane of the selected repeats' envelope is read through a full (repeat, per_rep) grid
        full_idx = np.zeros((repeat, per_rep), np.int64)
        full_idx[:, pos] = idx.reshape(repeat, len(pos))
        n_dst = (repeat - 1) * dst_rep * n_res + int(written[-1]) + 1
        aa, va = m.ub_access(s, fs(env), n_src, node, "src")
        ad, vd = m.ub_access(d, fd(env), n_dst, node, "dst")
        out_at = (np.arange(repeat)[:, None] * dst_rep * n_res + written[None, :])

        def apply() -> None:
            x = to_compute(va[:, full_idx], dt)                   # (C, repeat, per_rep)
            res = _reduce_groups(x.reshape(x.shape[:2] + (n_res, width)), groups, kind, x.dtype, width)
            vals = from_compute(res[..., written], dt)            # (C, repeat, written)
            if dst_rep * n_res >= len(written) and dst_rep > 0:
                vd[:, out_at.ravel()] = vals.reshape(vals.shape[0], -1)
                return
            for r in range(repeat):            # results that overlap: repeat after repeat, the later wins
                vd[:, out_at[r]] = vals[:, r]
        return Instr(node, Pipe.V, "op", apply=apply, work=repeat * per_rep,
                     ub=((aa, n_src * dt.itemsize, False), (ad, n_dst * dt.itemsize, True)))
    return run


# -- Copy, Brcb, CompareScalar (graph/ops/vec_copy_brcb.py) ---------------------------------------

@binder("vec_copy")
def _bind_copy(node: Node, op: OpDef) -> Step:
    return bind_masked(node, op)       # the mask form of an identity: the strides place the elements


@binder("vec_brcb")
def _bind_brcb(node: Node, op: OpDef) -> Step:
    d, s, repeat_e, p = node.args
    fd, fs, fr = efn(d.offset), efn(s.offset), efn(repeat_e)
    fblk, frep = efn(p.dst_blk_stride), efn(p.dst_rep_stride)
    dt: DataType = d.dtype
    per_block = 32 // dt.itemsize

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        blk = m.uniform_int(fblk(env), node, "dst_blk_stride")
        rep = m.uniform_int(frep(env), node, "dst_rep_stride")
        starts = (np.arange(repeat)[:, None] * rep + np.arange(8)[None, :] * blk).ravel() * per_block   # (repeat*8,)
        n_dst = int(starts.max()) + per_block
        aa, va = m.ub_access(s, fs(env), repeat * 8, node, "src")
        ad, vd = m.ub_access(d, fd(env), n_dst, node, "dst")
        idx = (starts[:, None] + np.arange(per_block)[None, :]).ravel()
        src_of = np.repeat(np.arange(repeat * 8), per_block)

        def apply() -> None:
            vals = va[:, src_of].copy()          # the repeat's sources are read before any block is written
            if len(np.unique(idx)) == len(idx):
                vd[:, idx] = vals
                return
            for r in range(repeat):              # overlapping blocks: repeat after repeat, block after block
                sl = slice(r * 8 * per_block, (r + 1) * 8 * per_block)
                vals_r = va[:, src_of[sl]].copy()
                for b in range(8):
                    bs = slice(b * per_block, (b + 1) * per_block)
                    vd[:, idx[sl][bs]] = vals_r[:, bs]
        return Instr(node, Pipe.V, "op", apply=apply, work=repeat * 8 * per_block,
                     ub=((aa, repeat * 8 * dt.itemsize, False), (ad, n_dst * dt.itemsize, True)))
    return run


_CMP = {0: np.less, 1: np.greater, 2: np.equal, 3: np.less_equal, 4: np.greater_equal, 5: np.not_equal}


@binder("vec_compare_scalar")
def _bind_compare_scalar(node: Node, op: OpDef) -> Step:
    d, s, scalar_e, mode = node.args[:4]
    fd, fs, fsc = efn(d.offset), efn(s.offset), efn(scalar_e)
    dt: DataType = s.dtype
    cmp = _CMP[int(mode)]
    per_block = 32 // dt.itemsize
    per_rep = 8 * per_block
    masked = bool(node.attr("mask_form"))
    if masked:
        mask, repeat_e, p = node.args[4:]
        fr, fsb, fsr = efn(repeat_e), efn(p.src_blk_stride), efn(p.src_rep_stride)
    else:
        fn = efn(node.args[4])

    def run(m: Machine) -> Instr | None:
        env = m.env
        sc = scalar_as(dt, fsc(env))
        if not masked:
            count = m.count(fn(env), node)
            check_count_256(node.op, count, dt, node=node)
            if count == 0:
                return None
            aa, va = m.ub_access(s, fs(env), count, node, "src")
            ad, vd = m.ub_access(d, fd(env), count // 8, node, "the mask dst")

            def apply() -> None:
                bits = cmp(to_compute(va, dt), sc)
                vd[...] = np.packbits(bits, axis=1, bitorder="little").view(vd.dtype)
            return Instr(node, Pipe.V, "op", apply=apply, work=count,
                         ub=((aa, count * dt.itemsize, False), (ad, count // 8, True)))
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        blk = m.uniform_int(fsb(env), node, "src_blk_stride")
        rep = m.uniform_int(fsr(env), node, "src_rep_stride")
        pos = mask_positions(mask, env, m, node, per_rep)
        if len(pos) < per_rep:     # A2's CompareScalar does not apply the mask (graph/ops/vec_copy_brcb.py)
            raise OutOfBoundsError(f"asc.compare_scalar's mask selects {len(pos)} of the {per_rep} lanes, but on "
                                   "Atlas A2 it compares every lane of a repeat", node=node,
                                   hint=f"pass mask={per_rep} (or all bits set)")
        idx = masked_index(pos, repeat, blk, rep, per_block)
        n_src = int(idx.max()) + 1
        where = (np.arange(repeat)[:, None] * per_rep + pos[None, :]).ravel()
        nbytes = repeat * per_rep // 8
        aa, va = m.ub_access(s, fs(env), n_src, node, "src")
        ad, vd = m.ub_access(d, fd(env), nbytes, node, "the mask dst")

        def apply() -> None:
            bits = np.zeros((m.C, repeat * per_rep), bool)
            bits[:, where] = cmp(to_compute(va[:, idx], dt), sc)
            vd[...] = np.packbits(bits, axis=1, bitorder="little").view(vd.dtype)
        return Instr(node, Pipe.V, "op", apply=apply, work=repeat * per_rep,
                     ub=((aa, n_src * dt.itemsize, False), (ad, nbytes, True)))
    return run


# -- Gather, Gatherb (graph/ops/vec_gather.py) ------------------------------------------------------

def _offsets_to_index(byte_off: np.ndarray, itemsize: int, src_len: int, unit: int, node: Node) -> np.ndarray:
    """Element indices of byte offsets into the source, each checked: a multiple of `unit` bytes and inside
    the source's `src_len` elements (the hardware would read whatever UB holds there)."""
    off = byte_off.astype(np.int64)
    bad = (off % unit != 0) | (off < 0) | (off // itemsize + unit // itemsize > src_len)
    if bad.any():
        i = np.argwhere(bad)[0]
        v = int(off[tuple(i)])
        what = "not a multiple of %d bytes" % unit if v % unit else f"past the source's {src_len} elements"
        raise OutOfBoundsError(f"gather offset {v} bytes (lane {int(i[-1])}) is {what}", node=node,
                               hint="offsets are byte offsets from the source's start (plus src_base)")
    return off // itemsize


@binder("vec_gather")
def _bind_gather(node: Node, op: OpDef) -> Step:
    if node.op == "gatherb":
        return _bind_gatherb(node)
    d, s, off, base_e, len_e = node.args[:5]
    fd, fs, fo, fb, fl = efn(d.offset), efn(s.offset), efn(off.offset), efn(base_e), efn(len_e)
    dt: DataType = d.dtype
    per_block = 32 // dt.itemsize
    per_rep = 8 * per_block
    masked = bool(node.attr("mask_form"))
    if masked:
        mask, repeat_e, dst_rep_e = node.args[5:]
        fr, fdr = efn(repeat_e), efn(dst_rep_e)
    else:
        fn = efn(node.args[5])

    def run(m: Machine) -> Instr | None:
        env = m.env
        if masked:
            repeat = m.count(fr(env), node)
            if repeat == 0:
                return None
            dst_rep = m.uniform_int(fdr(env), node, "dst_rep_stride")
            pos = mask_positions(mask, env, m, node, per_rep)
            lanes = (np.arange(repeat)[:, None] * per_rep + pos[None, :]).ravel()
            dst_idx = (np.arange(repeat)[:, None] * dst_rep * per_block + pos[None, :]).ravel()
        else:
            count = m.count(fn(env), node)
            if count == 0:
                return None
            lanes = dst_idx = np.arange(count)
        base = m.uniform_int(fb(env), node, "src_base")
        src_len = m.count(fl(env), node)
        if base % dt.itemsize:
            raise OutOfBoundsError(f"src_base {base} is not a multiple of sizeof({dt}) = {dt.itemsize} bytes", node=node)
        n_off, n_dst = int(lanes.max()) + 1, int(dst_idx.max()) + 1
        ao, vo = m.ub_access(off, fo(env), n_off, node, "src_offset")
        asrc, vs = m.ub_access(s, fs(env), src_len, node, "src")
        ad, vd = m.ub_access(d, fd(env), n_dst, node, "dst")

        def apply() -> None:
            idx = _offsets_to_index(vo[:, lanes].astype(np.int64) + base, dt.itemsize, src_len, dt.itemsize, node)
            vals = np.take_along_axis(vs, idx, axis=1)
            if len(np.unique(dst_idx)) == len(dst_idx):
                vd[:, dst_idx] = vals
                return
            for k in range(len(dst_idx)):         # overlapping repeats: in order, the later wins
                vd[:, dst_idx[k]] = vals[:, k]
        return Instr(node, Pipe.V, "op", apply=apply, work=len(lanes),
                     ub=((ao, n_off * 4, False), (asrc, src_len * dt.itemsize, False), (ad, n_dst * dt.itemsize, True)))
    return run


def _bind_gatherb(node: Node) -> Step:
    d, s, off, len_e, repeat_e, p = node.args
    fd, fs, fo, fl, fr = efn(d.offset), efn(s.offset), efn(off.offset), efn(len_e), efn(repeat_e)
    fblk, frep = efn(p.dst_blk_stride), efn(p.dst_rep_stride)
    dt: DataType = d.dtype
    per_block = 32 // dt.itemsize

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        blk = m.uniform_int(fblk(env), node, "dst_blk_stride")
        rep = m.uniform_int(frep(env), node, "dst_rep_stride")
        src_len = m.count(fl(env), node)
        starts = (np.arange(repeat)[:, None] * rep + np.arange(8)[None, :] * blk).ravel() * per_block
        dst_idx = (starts[:, None] + np.arange(per_block)[None, :]).ravel()
        n_dst = int(dst_idx.max()) + 1
        ao, vo = m.ub_access(off, fo(env), repeat * 8, node, "offset")
        asrc, vs = m.ub_access(s, fs(env), src_len, node, "src")
        ad, vd = m.ub_access(d, fd(env), n_dst, node, "dst")

        def apply() -> None:
            first = _offsets_to_index(vo.astype(np.int64), dt.itemsize, src_len, 32, node)      # (C, repeat*8)
            idx = (first[:, :, None] + np.arange(per_block)[None, None, :]).reshape(first.shape[0], -1)
            vals = np.take_along_axis(vs, idx, axis=1)
            if len(np.unique(dst_idx)) == len(dst_idx):
                vd[:, dst_idx] = vals
                return
            for k in range(len(dst_idx)):
                vd[:, dst_idx[k]] = vals[:, k]
        return Instr(node, Pipe.V, "op", apply=apply, work=repeat * 8 * per_block,
                     ub=((ao, repeat * 32, False), (asrc, src_len * dt.itemsize, False), (ad, n_dst * dt.itemsize, True)))
    return run
