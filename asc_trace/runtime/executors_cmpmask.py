"""The CMPMASK register (graph/ops/cmpmask.py) on sim and eager: `Machine.cmpmask`, 16 bytes per core, read and
written by the `apply` of vector-pipe instructions, so in V-pipe program order as on the hardware. Compare /
Select in their mask / repeat and register forms, get_cmp_mask and set_cmp_mask."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from ..dtypes import from_compute, to_compute
from ..enums import SELMODE
from ..graph.hb import Instr
from ..graph.node import Node, Pipe, TensorRef
from ..graph.ops import OpDef
from ..graph.ops.cmpmask import CMPMASK_BYTES
from ..graph.ops.masked import BLOCKS, strides
from .executor_base import Step, binder, efn, scalar_as
from .cmpmask_reg import select_count_sets_cmpmask
from .executor_base import BINDERS
from .executors_ops import _CMP, mask_positions, masked_index
from .machine import Machine

_POISON = config.UB_POISON_BYTE


def _register_bits(reg: np.ndarray, per_rep: int) -> np.ndarray:
    """(C, per_rep) booleans: bit e of each core's CMPMASK (LSB first) for lane e."""
    return np.unpackbits(reg, axis=1, bitorder="little")[:, :per_rep].astype(bool)


def _operand(m: Machine, t: TensorRef, off: Any, fb: Any, frp: Any, pos: np.ndarray, repeat: int, node: Node,
             what: str, write: bool) -> tuple:
    env = m.env
    blk = m.uniform_int(fb(env), node, "a block stride")
    rep = m.uniform_int(frp(env), node, "a repeat stride")
    idx = masked_index(pos, repeat, blk, rep, 32 // t.dtype.itemsize)
    nel = int(idx.max()) + 1 if len(idx) else 0
    addr, view = m.ub_access(t, off(env), nel, node, what)
    return idx, view, (addr, nel * t.dtype.itemsize, write)


def _bind_compare(node: Node) -> Step:
    d, a, b, mask, repeat_e, _p = node.args
    reg = node.attr("form") == "cmp_reg"
    dt = a.dtype
    per_rep = 256 // dt.itemsize
    cmp = _CMP[node.attr("cmp_mode")]
    (_db, _dr), (fb0, fr0), (fb1, fr1) = [(efn(x), efn(y)) for x, y in strides(node)]
    fa, fb, fr = efn(a.offset), efn(b.offset), efn(repeat_e)
    fd = efn(d.offset) if d is not None else None

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        # vcmpv compares every lane (its mask is not set); vcmp (into CMPMASK) the lanes the mask selects
        pos = mask_positions(mask, env, m, node, per_rep) if reg else np.arange(per_rep, dtype=np.int64)
        ia, va, ua = _operand(m, a, fa, fb0, fr0, pos, repeat, node, "src0", False)
        ib, vb, ub_ = _operand(m, b, fb, fb1, fr1, pos, repeat, node, "src1", False)
        if reg:
            def apply() -> None:
                bits = np.zeros((m.C, 8 * CMPMASK_BYTES), bool)
                bits[:, pos] = cmp(to_compute(va[:, ia], dt), to_compute(vb[:, ib], dt))
                packed = np.packbits(bits, axis=1, bitorder="little")
                if per_rep < 8 * CMPMASK_BYTES:       # a float repeat: the high 64 bits are not defined
                    packed[:, per_rep // 8:] = _POISON
                m.cmpmask[...] = packed
            return Instr(node, Pipe.V, "op", apply=apply, work=per_rep, ub=(ua, ub_))
        nbytes = repeat * per_rep // 8
        ad, vd = m.ub_access(d, fd(env), nbytes, node, "the mask dst")

        def apply_dst() -> None:
            bits = cmp(to_compute(va[:, ia], dt), to_compute(vb[:, ib], dt))
            vd[...] = np.packbits(bits, axis=1, bitorder="little").view(vd.dtype)
        return Instr(node, Pipe.V, "op", apply=apply_dst, work=repeat * per_rep, ub=(ua, ub_, (ad, nbytes, True)))
    return run


def _bind_select(node: Node) -> Step:
    d, sel, a, b, mask, repeat_e, _p = node.args
    form = node.attr("form")
    mode = node.attr("sel_mode")
    dt = d.dtype
    per_rep = 256 // dt.itemsize
    sf = [(efn(x), efn(y)) for x, y in strides(node)]
    fd, fa, fr = efn(d.offset), efn(a.offset), efn(repeat_e)
    fsel = efn(sel.offset) if sel is not None else None
    tensor_b = isinstance(b, TensorRef)
    fb = efn(b.offset) if tensor_b else (efn(b) if b is not None else None)

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        # Select's API does not check its mask count's range (asc-devkit kernel_operator_vec_cmpsel_intf_impl.h)
        pos = mask_positions(mask, env, m, node, per_rep, count_checked=False)
        idd, vd, ud = _operand(m, d, fd, *sf[0], pos, repeat, node, "dst", True)
        ia, va, ua = _operand(m, a, fa, *sf[1], pos, repeat, node, "src0", False)
        ub = [ud, ua]
        if tensor_b:
            ib, vb, u = _operand(m, b, fb, *sf[2], pos, repeat, node, "src1", False)
            ub.append(u)
        scalar = scalar_as(dt, fb(env)) if (fb is not None and not tensor_b) else None
        vs = None
        if sel is not None:
            nbits = 8 * CMPMASK_BYTES if mode == int(SELMODE.VSEL_CMPMASK_SPR) else repeat * per_rep
            units = -(-nbits // (8 * sel.dtype.itemsize))
            asel, vs = m.ub_access(sel, fsel(env), units, node, "sel_mask")
            ub.append((asel, units * sel.dtype.itemsize, False))
        lane_bit = (np.arange(repeat, dtype=np.int64)[:, None] * per_rep + pos[None, :]).ravel()

        def apply() -> None:
            if mode == int(SELMODE.VSEL_CMPMASK_SPR):
                if vs is not None:                    # the API loads sel_mask's first 128 bits first
                    m.cmpmask[...] = vs.view(np.uint8)[:, :CMPMASK_BYTES]
                take = np.tile(_register_bits(m.cmpmask, per_rep)[:, pos], (1, repeat))
            else:
                take = np.unpackbits(vs.view(np.uint8), axis=1, bitorder="little")[:, lane_bit].astype(bool)
            x = va[:, ia]
            if tensor_b:
                y = vb[:, ib]
            elif form == "sel_reg_scalar":            # the scalar is CMPMASK's low sizeof(T) bytes
                y = np.broadcast_to(np.ascontiguousarray(m.cmpmask[:, :dt.itemsize]).view(dt.np), x.shape)
            else:
                y = np.broadcast_to(from_compute(np.asarray(scalar), dt), x.shape)
            out = np.where(take, x, y)
            if form == "sel_mask":
                select_count_sets_cmpmask(m, mode, from_compute(np.asarray(scalar), dt) if scalar is not None
                                          else None, dt)
            vd[:, idd] = out
        return Instr(node, Pipe.V, "op", apply=apply, ub=tuple(ub), work=repeat * BLOCKS * (32 // dt.itemsize))
    return run


def _bind_select_count_spr(node: Node) -> Step:
    """Select's count form in VSEL_CMPMASK_SPR mode: sel_mask's first 128 bits into CMPMASK, then `count`
    elements in counter mode, the same 128 bits choosing the lanes of every repeat."""
    d, sel, a, b, _mode, n = node.args
    dt = d.dtype
    per_rep = 256 // dt.itemsize
    fd, fs, fa, fb, fn = efn(d.offset), efn(sel.offset), efn(a.offset), efn(b.offset), efn(n)

    def run(m: Machine) -> Instr | None:
        env = m.env
        count = m.count(fn(env), node)
        if count == 0:
            return None
        units = -(-8 * CMPMASK_BYTES // (8 * sel.dtype.itemsize))
        asel, vs = m.ub_access(sel, fs(env), units, node, "sel_mask")
        aa, va = m.ub_access(a, fa(env), count, node, "src0")
        ab, vb = m.ub_access(b, fb(env), count, node, "src1")
        ad, vd = m.ub_access(d, fd(env), count, node, "dst")
        lanes = np.arange(count) % per_rep

        def apply() -> None:
            m.cmpmask[...] = vs.view(np.uint8)[:, :CMPMASK_BYTES]
            take = _register_bits(m.cmpmask, per_rep)[:, lanes]
            vd[...] = np.where(take, va, vb)
        nb = count * dt.itemsize
        return Instr(node, Pipe.V, "op", apply=apply, work=count,
                     ub=((asel, units * sel.dtype.itemsize, False), (aa, nb, False), (ab, nb, False), (ad, nb, True)))
    return run


def bind_cmpsel_form(node: Node, op: OpDef) -> Step:
    """The executor of a compare / select node in a form of graph/ops/cmpmask.py (or select's count form in
    VSEL_CMPMASK_SPR mode)."""
    if node.op == "compare":
        return _bind_compare(node)
    if node.attr("form") is None:
        return _bind_select_count_spr(node)
    return _bind_select(node)


@binder("vec_cmpmask")
def _bind_get_set(node: Node, op: OpDef) -> Step:
    t = node.args[0]
    ft = efn(t.offset)
    n = max(1, CMPMASK_BYTES // t.dtype.itemsize)
    get = node.op == "get_cmp_mask"

    def run(m: Machine) -> Instr | None:
        addr, view = m.ub_access(t, ft(m.env), n, node, "dst" if get else "src")

        def apply() -> None:
            raw = view.view(np.uint8)
            if get:
                raw[:, :CMPMASK_BYTES] = m.cmpmask
            else:
                m.cmpmask[...] = raw[:, :CMPMASK_BYTES]
        return Instr(node, Pipe.V, "op", apply=apply, work=1, ub=((addr, n * t.dtype.itemsize, get),))
    return run


_PLAIN_CMPSEL = BINDERS["vec_cmpsel"]


@binder("vec_cmpsel")
def _bind_cmpsel(node: Node, op: OpDef) -> Step:
    """Compare / Select: the CMPMASK forms here, the count forms in executors_ops.py."""
    from ..graph.ops.cmpmask import cmpmask_form
    return bind_cmpsel_form(node, op) if cmpmask_form(node) else _PLAIN_CMPSEL(node, op)
