"""Executors of the op families beyond the count-form element-wise ops (runtime side of
graph/ops/*): mask forms, Cast, reductions, Compare / Select, strided and padded copies, scalar
access to the UB and DumpTensor. Same contract as executors.py: do the scalar unit's part now,
return the pipe's instruction with its data effect in `apply`."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..dtypes import DataType, from_compute, to_compute
from ..errors import AlignmentError, OutOfBoundsError
from ..graph.hb import Instr, api_steps
from ..graph.node import Node, Pipe, TensorRef
from ..graph.numerics import cast_values, tree_sum
from ..graph.ops import OpDef
from ..graph.ops.masked import BLOCKS, strides
from ..graph.ops.vec_reduce import whole_result_width
from ..graph.ops.reduce_work import count_form_work_elements
from .cmpmask_reg import select_count_sets_cmpmask as sets_cmpmask
from ..graph.ops.vec_cmpsel import check_count_256
from ..graph.params import Mask
from .executor_base import bind_elementwise, binder, efn, scalar_as
from .machine import Machine, gm_rows
from .mask_counter import counter_count, refuse_counter

Step = Callable[[Machine], Instr | None]


# -- mask / repeat forms ------------------------------------------------------------------------

def check_mask_count(n: int, m: Machine, node: Node, per_rep: int) -> None:
    """The API's range of a mask count (asc-devkit impl/basic_api/kernel_npu_debug.h CheckMaskValue): in NORMAL
    mode at most one repeat's lanes of a 2-, 4- or 8-byte type (1-byte types are not checked); in COUNTER mode
    (asc.set_mask_count) any count. The same rule and words as cpu_debug's refusal, which runs that check."""
    if m.mask_counter or per_rep >= 256 or n <= per_rep:
        return
    size = 256 // per_rep
    raise OutOfBoundsError(f"the mask count of asc.{node.op} is 1..{per_rep} in normal mask mode (one repeat of a "
                           f"{size}-byte type: the API's 'mask when sizeof(T) == {size}' check), got {n}", node=node,
                           hint="split the work into repeats (repeat_times), or call asc.set_mask_count() first "
                                "for a count that spans repeats")


def mask_positions(mask: Mask, env: dict, m: Machine, node: Node, per_rep: int,
                   count_checked: bool = True, elementwise: bool = False) -> np.ndarray:
    """Positions (0 .. per_rep-1) a mask selects within one repeat. `count_checked`: the API checks a count
    mask's range (CheckMaskValue; Select's mask forms do not). `elementwise`: the caller follows COUNTER mode
    itself (mask_counter.py); any other caller is refused there."""
    if not elementwise:
        refuse_counter(m, node)
    if mask.bits is not None:
        word = mask.bits[0] | (mask.bits[1] << 64)
        return np.array([e for e in range(per_rep) if (word >> e) & 1], dtype=np.int64)
    n = m.uniform_int(efn(mask.count)(env), node, "the mask count")
    if n < 1:
        raise OutOfBoundsError(f"a mask count must be at least 1, got {n}", node=node)
    if count_checked:
        check_mask_count(n, m, node, per_rep)
    # a count past the repeat selects the whole repeat (asc-devkit kernel_utils_base.h SetMask(len):
    # len >= 128 or len == elements per repeat sets the full mask)
    return np.arange(min(n, per_rep), dtype=np.int64)


def masked_index(pos: np.ndarray, repeat: int, blk: int, rep: int, per_block: int) -> np.ndarray:
    """Element offsets of the selected positions in every repeat, for one operand's strides."""
    within = (pos // per_block) * blk * per_block + pos % per_block
    return (np.arange(repeat, dtype=np.int64)[:, None] * rep * per_block + within[None, :]).ravel()


def bind_masked(node: Node, op: OpDef) -> Step:
    tensors = [a for a in node.args if isinstance(a, TensorRef)]
    mask, repeat_e = node.args[-3], node.args[-2]
    stride_fns = [(efn(b), efn(r)) for b, r in strides(node)]
    offs = [efn(t.offset) for t in tensors]
    fr = efn(repeat_e)
    scalar_e = node.args[len(tensors)] if op.family in ("vec_scalar", "vec_duplicate") else None
    fs = efn(scalar_e) if scalar_e is not None else None
    dt: DataType = tensors[0].dtype
    sdt: DataType = node.attr("src_dtype") or dt
    per_block = 32 // sdt.itemsize
    ref = op.ref
    family = op.family
    is_axpy = family == "vec_scalar" and op.reads_dst()      # ref(old dst, src, scalar)
    old_dst = is_axpy or (family == "vec_binary" and op.reads_dst())

    def run(m: Machine) -> Instr | None:
        env = m.env
        per_rep = BLOCKS * per_block
        counter = m.mask_counter        # the register's count runs across repeats; the repeat time is not read
        if counter:
            count = counter_count(mask, env, m, node, per_rep, sdt.itemsize)
            if count == 0:
                return None
            repeat = -(-count // per_rep)
        else:
            repeat = m.count(fr(env), node)
            if repeat == 0:
                return None
            pos = mask_positions(mask, env, m, node, per_rep)
        views, idxs, ub = [], [], []
        for t, off, (fb, frp) in zip(tensors, offs, stride_fns):
            blk = m.uniform_int(fb(env), node, "a block stride")
            rep = m.uniform_int(frp(env), node, "a repeat stride")
            pb = 32 // t.dtype.itemsize
            # counter mode: elements 0 .. count-1 are the first `count` of every lane over ceil(count / per_rep) repeats
            idx = masked_index(np.arange(per_rep), repeat, blk, rep, pb)[:count] if counter else \
                masked_index(pos, repeat, blk, rep, pb)
            # only the lanes the mask selects are accessed: the span ends at the last selected element
            nel = int(idx.max()) + 1 if len(idx) else 0
            addr, view = m.ub_access(t, off(env), nel, node, "an operand")
            views.append(view)
            idxs.append(idx)
            ub.append((addr, nel * t.dtype.itemsize, False))
        ub[0] = (ub[0][0], ub[0][1], True)
        scalar = scalar_as(sdt, fs(env)) if fs is not None else None

        def compute(sel: slice) -> None:
            """The op on the selected positions `sel` of every operand's index list."""
            srcs = [to_compute(v[:, i[sel]], t.dtype) for v, i, t in zip(views[1:], idxs[1:], tensors[1:])]
            d = idxs[0][sel]
            if is_axpy:
                out = ref(to_compute(views[0][:, d], dt), srcs[0], scalar)
            elif old_dst:           # FusedMulAdd, MulAddDst: ref(src0, src1, old dst)
                out = ref(*srcs, to_compute(views[0][:, d], dt))
            elif family == "vec_scalar":
                out = ref(srcs[0], scalar)
            elif family == "vec_duplicate":
                out = np.broadcast_to(scalar, (views[0].shape[0], len(d)))
            else:
                out = ref(*srcs)
            views[0][:, d] = from_compute(out, dt)

        if len(np.unique(idxs[0])) < len(idxs[0]):
            # strides that make an instruction write some element twice: element by element, in order
            def apply() -> None:
                for k in range(len(idxs[0])):
                    compute(slice(k, k + 1))
        else:
            def apply() -> None:
                compute(slice(None))
        if old_dst:
            ub.append((ub[0][0], ub[0][1], False))
        # a repeat takes its time whatever the mask selects
        return Instr(node, Pipe.V, "op", apply=apply, ub=tuple(ub), work=repeat * BLOCKS * per_block)
    return run


# -- Cast -------------------------------------------------------------------------------------

@binder("vec_cast")
def _bind_cast(node: Node, op: OpDef) -> Step:
    if node.attr("mask_form"):
        return _bind_cast_masked(node)
    d, s, mode, n = node.args
    mname = mode.name[5:].lower()
    return bind_elementwise(node, d, [s], n, lambda ins, sc, cnt, C: cast_values(ins[0], s.dtype, d.dtype, mname),
                            raw=True)


def _bind_cast_masked(node: Node) -> Step:
    """Cast's mask form: a repeat is 256 bytes of the wider type (graph/ops/vec_cast.py cast_per_repeat); each
    operand is placed by its own 32-byte blocks and strides; every selected element is read before any is
    written, the writes in repeat, lane order."""
    from ..graph.ops.vec_cast import cast_per_repeat
    d, s, mode, mask, repeat_e, p = node.args
    mname = mode.name[5:].lower()
    fd, fs, fr = efn(d.offset), efn(s.offset), efn(repeat_e)
    fdb, fdr, fsb, fsr = (efn(x) for x in (p.dst_blk_stride, p.dst_rep_stride, p.src_blk_stride, p.src_rep_stride))
    per_rep = cast_per_repeat(s.dtype, d.dtype)

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        pos = mask_positions(mask, env, m, node, per_rep)
        ints = [m.uniform_int(f(env), node, w) for f, w in ((fdb, "dst_blk_stride"), (fdr, "dst_rep_stride"),
                                                            (fsb, "src_blk_stride"), (fsr, "src_rep_stride"))]
        di = masked_index(pos, repeat, ints[0], ints[1], 32 // d.dtype.itemsize)
        si = masked_index(pos, repeat, ints[2], ints[3], 32 // s.dtype.itemsize)
        nd, ns = int(di.max()) + 1, int(si.max()) + 1
        asrc, vs = m.ub_access(s, fs(env), ns, node, "src")
        adst, vd = m.ub_access(d, fd(env), nd, node, "dst")

        def apply() -> None:
            out = cast_values(vs[:, si], s.dtype, d.dtype, mname)
            if len(np.unique(di)) == len(di):
                vd[:, di] = out
                return
            for k in range(len(di)):
                vd[:, di[k]] = out[:, k]
        return Instr(node, Pipe.V, "op", apply=apply, work=repeat * per_rep,
                     ub=((asrc, ns * s.dtype.itemsize, False), (adst, nd * d.dtype.itemsize, True)))
    return run


# -- reductions ---------------------------------------------------------------------------------

def index_bits(index: np.ndarray, dt: DataType) -> np.ndarray:
    """An index stored in a T slot as its bit pattern, read via uint16 for half, uint32 for float
    (docs/facts.md#api-reduce-results)."""
    bits = np.uint16 if dt.itemsize == 2 else np.uint32
    return index.astype(bits).view(dt.np)


@binder("vec_reduce")
def _bind_reduce(node: Node, op: OpDef) -> Step:
    d, s, tmp, n = node.args
    fd, fs, ft, fn = efn(d.offset), efn(s.offset), efn(tmp.offset), efn(n)
    dt: DataType = s.dtype
    per = 256 // dt.itemsize
    with_index = bool(node.attr("cal_index"))
    kind = node.op

    def run(m: Machine) -> Instr | None:
        env = m.env
        count = m.count(fn(env), node)
        if count == 0:
            return None
        reps = -(-count // per)
        aa, va = m.ub_access(s, fs(env), count, node, "src")
        ad, vd = m.ub_access(d, fd(env), 2 if with_index else 1, node, "dst")
        # the work tensor as far as the vendor's count form touches it; its content after the call is scratch
        # (the vendor's ReduceSum leaves it alone), so nothing is written there
        tmp_n = count_form_work_elements(kind, with_index, count, dt.itemsize)
        at = m.ub_span(tmp, ft(env), tmp_n, node, "the shared tmp buffer")

        def apply() -> None:
            x = to_compute(va, dt)
            if kind == "reduce_sum":
                padded = np.concatenate([x, np.zeros((x.shape[0], reps * per - count), x.dtype)], axis=1)
                partial = tree_sum(padded.reshape(x.shape[0], reps, per), x.dtype, per)
                vd[:, 0] = from_compute(tree_sum(partial, x.dtype, per), dt)
                return
            pick = np.argmax if kind == "reduce_max" else np.argmin
            nan_first = np.isnan(x).any(axis=1) if x.dtype.kind == "f" else np.zeros(x.shape[0], bool)
            idx = pick(x, axis=1)
            if nan_first.any():                       # NumPy's max: NaN wins, first NaN's index
                idx = np.where(nan_first, np.argmax(np.isnan(x), axis=1), idx)
            val = x[np.arange(x.shape[0]), idx]
            vd[:, 0] = from_compute(val, dt)
            if with_index:
                vd[:, 1] = index_bits(idx, dt)
        nb = dt.itemsize
        return Instr(node, Pipe.V, "op", apply=apply, work=count,
                     ub=((aa, count * nb, False), *(((at, tmp_n * nb, True),) if tmp_n else ()),
                         (ad, (2 if with_index else 1) * nb, True)), api=api_steps(node, lambda _e: count))
    return run


@binder("vec_whole_reduce")
def _bind_whole_reduce(node: Node, op: OpDef) -> Step:
    d, s, mask, repeat_e, dst_rep_e, src_blk_e, src_rep_e = node.args
    fd, fs = efn(d.offset), efn(s.offset)
    fr, fdr, fsb, fsr = efn(repeat_e), efn(dst_rep_e), efn(src_blk_e), efn(src_rep_e)
    dt: DataType = s.dtype
    per_block = 32 // dt.itemsize
    per_rep = BLOCKS * per_block
    kind = node.op
    order = node.attr("order") or 0

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        dst_rep = m.uniform_int(fdr(env), node, "dst_rep_stride")
        blk = m.uniform_int(fsb(env), node, "src_blk_stride")
        rep = m.uniform_int(fsr(env), node, "src_rep_stride")
        pos = mask_positions(mask, env, m, node, per_rep)
        idx = masked_index(pos, repeat, blk, rep, per_block)
        n_src = int(idx.max()) + 1          # only the selected lanes are read
        idx = idx.reshape(repeat, len(pos))
        width = whole_result_width(kind, order, dt.itemsize)
        n_dst = ((repeat - 1) * dst_rep + 1) * width
        aa, va = m.ub_access(s, fs(env), n_src, node, "src")
        ad, vd = m.ub_access(d, fd(env), n_dst, node, "dst")
        out_at = np.arange(repeat) * dst_rep * width

        def apply() -> None:
            x = to_compute(va[:, idx], dt)            # (C, repeat, selected)
            if kind == "whole_reduce_sum":
                full = np.zeros(x.shape[:2] + (per_rep,), x.dtype)
                full[..., pos] = x
                vd[:, out_at] = from_compute(tree_sum(full, x.dtype, per_rep), dt)
                return
            pick = np.argmax if kind == "whole_reduce_max" else np.argmin
            k = pick(x, axis=2)
            val = np.take_along_axis(x, k[..., None], axis=2)[..., 0]
            where = pos[k]
            value, index = from_compute(val, dt), index_bits(where, dt)
            if order == 3:                            # a uint32 index, in one or two T slots
                idx32 = where.astype(np.uint32).view(np.uint16 if dt.itemsize == 2 else np.uint32)
                for k in range(width):
                    vd[:, out_at + k] = idx32.reshape(where.shape + (width,))[..., k].view(dt.np)
                return
            first, second = (value, index) if order in (0, 2) else (index, value)
            if dst_rep >= 1:
                vd[:, out_at] = first
                if width == 2:
                    vd[:, out_at + 1] = second
                return
            for r in range(repeat):      # results that overlap: repeat after repeat, the later wins
                vd[:, out_at[r]] = first[:, r]
                if width == 2:
                    vd[:, out_at[r] + 1] = second[:, r]
        return Instr(node, Pipe.V, "op", apply=apply, work=repeat * per_rep,
                     ub=((aa, n_src * dt.itemsize, False), (ad, n_dst * dt.itemsize, True)))
    return run


# -- Compare / Select ---------------------------------------------------------------------------

_CMP = {0: np.less, 1: np.greater, 2: np.equal, 3: np.less_equal, 4: np.greater_equal, 5: np.not_equal}


@binder("vec_cmpsel")
def _bind_cmpsel(node: Node, op: OpDef) -> Step:
    if node.op == "compare":
        d, a, b, mode, n = node.args
        fd, fa, fb, fn = efn(d.offset), efn(a.offset), efn(b.offset), efn(n)
        dt = a.dtype
        cmp = _CMP[int(mode)]

        def run(m: Machine) -> Instr | None:
            env = m.env
            count = m.count(fn(env), node)
            check_count_256(node.op, count, dt, node=node)
            if count == 0:
                return None
            aa, va = m.ub_access(a, fa(env), count, node, "src0")
            ab, vb = m.ub_access(b, fb(env), count, node, "src1")
            ad, vd = m.ub_access(d, fd(env), count // 8, node, "the mask dst")

            def apply() -> None:
                bits = cmp(to_compute(va, dt), to_compute(vb, dt))
                vd[...] = np.packbits(bits, axis=1, bitorder="little").view(vd.dtype)
            nb = count * dt.itemsize
            return Instr(node, Pipe.V, "op", apply=apply, work=count,
                         ub=((aa, nb, False), (ab, nb, False), (ad, count // 8, True)))
        return run

    d, mk, a, b, mode, n = node.args
    fd, fm, fa, fn = efn(d.offset), efn(mk.offset), efn(a.offset), efn(n)
    tensor_b = isinstance(b, TensorRef)
    fb = efn(b.offset) if tensor_b else efn(b)
    dt = d.dtype

    def run(m: Machine) -> Instr | None:
        env = m.env
        count = m.count(fn(env), node)     # any count: the API selects in counter mode (SetMaskCount)
        if count == 0:
            return None
        units = -(-count // (8 * mk.dtype.itemsize))      # the sel_mask's words (uint8 .. uint64) holding the bits
        mask_bytes = units * mk.dtype.itemsize
        am, vm = m.ub_access(mk, fm(env), units, node, "sel_mask")
        aa, va = m.ub_access(a, fa(env), count, node, "src0")
        ad, vd = m.ub_access(d, fd(env), count, node, "dst")
        ub = [(am, mask_bytes, False), (aa, count * dt.itemsize, False), (ad, count * dt.itemsize, True)]
        if tensor_b:
            ab, vb = m.ub_access(b, fb(env), count, node, "src1")
            ub.append((ab, count * dt.itemsize, False))
        else:
            vb = from_compute(np.broadcast_to(scalar_as(dt, fb(env)), (m.C, count)), dt)

        def apply() -> None:
            bits = np.unpackbits(vm.view(np.uint8), axis=1, bitorder="little")[:, :count].astype(bool)
            vd[...] = np.where(bits, va, vb)
            sets_cmpmask(m, int(mode), None if tensor_b else vb[:, :1], dt)      # what the API leaves in CMPMASK
        return Instr(node, Pipe.V, "op", apply=apply, ub=tuple(ub), work=count)
    return run


# -- strided and padded copies ------------------------------------------------------------------

def _blocks(count: int, length: int, step: int) -> np.ndarray:
    return (np.arange(count, dtype=np.int64)[:, None] * step + np.arange(length, dtype=np.int64)[None, :]).ravel()


def _endpoint(m: Machine, ref: TensorRef, off: Any, nel: int, node: Node, what: str, write: bool):
    """(ub entry or gm entry, reader/view) of an envelope of `nel` elements at `ref`."""
    if ref.space == "ub":
        addr, view = m.ub_access(ref, off, nel, node, what)
        return ("ub", (addr, nel * ref.dtype.itemsize, write)), view
    info, io = m.gm_access(ref, off, nel, node, what, write=write)
    return ("gm", info), io


def _copy_instr(node: Node, pipe: Pipe, src_ep, dst_ep, apply, work: float,
                blocks: tuple | None = None) -> Instr:
    """The instruction of a copy between two endpoints of `_endpoint` (or ("none", None)). `blocks`, for a
    strided copy: (source blocks, destination blocks), each (count, length, step) in elements, the part of
    each endpoint's envelope the copy really touches."""
    ub = tuple(e for kind, e in (src_ep, dst_ep) if kind == "ub")
    gm = tuple(e for kind, e in (src_ep, dst_ep) if kind == "gm")
    ins = Instr(node, pipe, "op", apply=apply, ub=ub, gm=gm, work=work)
    if blocks is not None and gm:
        # the envelope has gaps: the cross-core check (runtime/race_check.py) compares the blocks themselves
        ins.gm_blocks = tuple(None if n <= 1 or step == length else (n, length * e[3], step * e[3])
                              for (kind, e), (n, length, step) in zip((src_ep, dst_ep), blocks) if kind == "gm")
    return ins


def _scatter_copy(dst_in_ub: bool, src_io, dst_io, src_idx: np.ndarray, dst_idx: np.ndarray) -> Callable[[], None]:
    """The data effect of a strided copy: elements `src_idx` of the source land at `dst_idx`."""
    def apply() -> None:
        data = src_io[:, src_idx]
        if dst_in_ub:
            dst_io[:, dst_idx] = data
        else:
            dst_io(data, dst_idx)
    return apply


def _pipe_of(d: TensorRef, s: TensorRef) -> Pipe:
    if d.space == "ub" and s.space == "gm":
        return Pipe.MTE2
    if d.space == "gm":
        return Pipe.MTE3
    return Pipe.V


def bind_copy_params(node: Node) -> Step:
    d, s, p = node.args
    fd, fs = efn(d.offset), efn(s.offset)
    fbc, fbl, fss, fds = (efn(x) for x in (p.block_count, p.block_len, p.src_stride, p.dst_stride))
    size = d.dtype.itemsize
    pipe = _pipe_of(d, s)

    def run(m: Machine) -> Instr | None:
        env = m.env
        bc = m.count(fbc(env), node)
        bl = m.count(fbl(env), node)
        if bc > 4095:
            raise OutOfBoundsError(f"DataCopyParams.block_count is at most 4095, got {bc}", node=node)
        if bc == 0 or bl == 0:
            return None                              # a no-op on A2 (docs/facts.md#facts-4)
        ss = m.count(fss(env), node)
        ds = m.count(fds(env), node)
        per = 32 // size
        blk = bl * per
        src_idx = _blocks(bc, blk, (bl + ss) * per)
        dst_idx = _blocks(bc, blk, (bl + ds) * per)
        src_ep, src_io = _endpoint(m, s, fs(env), int(src_idx[-1]) + 1, node, "the copy source", False)
        dst_ep, dst_io = _endpoint(m, d, fd(env), int(dst_idx[-1]) + 1, node, "the copy destination", True)
        apply = _scatter_copy(d.space == "ub", src_io, dst_io, src_idx, dst_idx)
        return _copy_instr(node, pipe, src_ep, dst_ep, apply, bc * blk * size,
                           ((bc, blk, (bl + ss) * per), (bc, blk, (bl + ds) * per)))
    return run


@binder("data_copy_pad")
def _bind_pad(node: Node, op: OpDef) -> Step:
    d, s, p, pad = node.args
    fd, fs = efn(d.offset), efn(s.offset)
    fbc, fbl, fss, fds = (efn(x) for x in (p.block_count, p.block_len, p.src_stride, p.dst_stride))
    fpad = None if pad is None else tuple(efn(x) for x in (pad.is_pad, pad.left_padding, pad.right_padding,
                                                           pad.padding_value))
    dt = d.dtype
    size = dt.itemsize
    pipe = _pipe_of(d, s)

    def run(m: Machine) -> Instr | None:
        env = m.env
        bc = m.count(fbc(env), node)
        bl = m.count(fbl(env), node)
        if bc > 4095 or bl > 2097151:
            raise OutOfBoundsError(f"DataCopyExtParams allows block_count <= 4095 and block_len <= 2097151 bytes, "
                                   f"got {bc} and {bl}", node=node)
        if bl % size:
            raise AlignmentError(f"block_len {bl} is not a multiple of sizeof({dt}) = {size}", node=node)
        if bc == 0 or bl == 0:
            return None
        ss = m.count(fss(env), node)
        ds = m.count(fds(env), node)
        n = bl // size
        if d.space == "ub":                          # GM -> UB
            if ss % size:
                raise AlignmentError(f"src_stride {ss} bytes is not a multiple of sizeof({dt})", node=node)
            is_pad, left, right, value = (0, 0, 0, 0) if fpad is None else (f(env) for f in fpad)
            left, right = m.count(left, node), m.count(right, node)
            if (left + right) * size > 64 or left * size > 32 or right * size > 32:
                raise OutOfBoundsError("left / right padding is at most 32 bytes each", node=node)
            row = -(-((left + n + right) * size) // 32) * 32 // size
            dst_step = row + ds * 32 // size
            src_idx = _blocks(bc, n, n + ss // size)
            dst_idx = _blocks(bc, n, dst_step) + left
            # Each row is filled up to 32 bytes (DataCopyPad docs): the pads and the dummy tail take
            # the padding value when is_pad; with no pads the dummy tail repeats the row's first element.
            dummy = _blocks(bc, row - left - n - right, dst_step) + left + n + right
            pads = np.concatenate([_blocks(bc, left, dst_step), _blocks(bc, right, dst_step) + left + n, dummy]) \
                if m.uniform_int(is_pad, node, "is_pad") and left + right else np.zeros(0, np.int64)
            pv = scalar_as(dt, value) if len(pads) else None
            firsts = (dummy, np.repeat(src_idx[::n], row - n)) if left + right == 0 and row > n else None
            env_src, env_dst = int(src_idx[-1]) + 1, (bc - 1) * dst_step + row
            gm_blocks = ((bc, n, n + ss // size), (bc, row, dst_step))
        else:                                        # UB -> GM
            if ds % size:
                raise AlignmentError(f"dst_stride {ds} bytes is not a multiple of sizeof({dt})", node=node)
            src_step = -(-bl // 32) * 32 // size + ss * 32 // size
            # the UB side is read in whole 32-byte blocks: the API refuses a source tensor smaller than the rounded
            # extent (asc-devkit kernel_check_data_copy_overflow.h CheckDataCopyPadTensorSizeOverflow)
            m.ub_span(s, fs(env), (bc - 1) * src_step + -(-bl // 32) * 32 // size, node,
                      "the copy source (whole 32-byte blocks)")
            src_idx = _blocks(bc, n, src_step)
            dst_idx = _blocks(bc, n, n + ds // size)
            pads, pv, firsts = np.zeros(0, np.int64), None, None
            env_src, env_dst = int(src_idx[-1]) + 1, int(dst_idx[-1]) + 1
            gm_blocks = ((bc, n, src_step), (bc, n, n + ds // size))
        src_ep, src_io = _endpoint(m, s, fs(env), env_src, node, "the copy source", False)
        dst_ep, dst_io = _endpoint(m, d, fd(env), env_dst, node, "the copy destination", True)
        copy = _scatter_copy(d.space == "ub", src_io, dst_io, src_idx, dst_idx)

        def apply() -> None:
            copy()
            if len(pads):                            # only GM -> UB pads
                dst_io[:, pads] = from_compute(np.broadcast_to(pv, (m.C, len(pads))), dt)
            if firsts is not None:
                dst_io[:, firsts[0]] = src_io[:, firsts[1]]
        return _copy_instr(node, pipe, src_ep, dst_ep, apply, bc * bl, gm_blocks)
    return run


# -- scalar access and DumpTensor ---------------------------------------------------------------

@binder("scalar")
def _bind_scalar_access(node: Node, op: OpDef) -> Step:
    ref, index = node.args[:2]
    fo, fi = efn(ref.offset), efn(index)
    dt: DataType = ref.dtype
    key = f"v{node.id}"
    if ref.space == "gm":
        return _gm_scalar_access(node, fo, fi)
    if node.op == "get_value":
        def run(m: Machine) -> Instr:
            env = m.env
            addr, view = m.ub_access(ref, fo(env) + m.uniform_int(fi(env), node, "the index"), 1, node,
                                     "the element", aligned=False)

            def apply() -> None:
                v = to_compute(view[:, 0], dt)
                vals = v.astype(np.float64) if dt.is_float else v.astype(np.int64)
                env[key] = vals if m.C > 1 else vals[0].item()
            return Instr(node, Pipe.S, "op", apply=apply, ub=((addr, dt.itemsize, False),), work=1)
        return run
    fv = efn(node.args[2])

    def run(m: Machine) -> Instr:
        env = m.env
        addr, view = m.ub_access(ref, fo(env) + m.uniform_int(fi(env), node, "the index"), 1, node, "the element",
                                 aligned=False)
        value = scalar_as(dt, fv(env))

        def apply() -> None:
            view[:, 0] = from_compute(np.broadcast_to(value, (m.C, 1))[:, 0], dt)
        return Instr(node, Pipe.S, "op", apply=apply, ub=((addr, dt.itemsize, True),), work=1)
    return run


def _gm_scalar_access(node: Node, fo, fi) -> Step:
    """GlobalTensor.get_value / set_value: one element of global memory through the scalar unit."""
    ref = node.args[0]
    dt: DataType = ref.dtype
    key = f"v{node.id}"
    write = node.op == "set_value"
    fv = efn(node.args[2]) if write else None

    def run(m: Machine) -> Instr:
        env = m.env
        off = fo(env) + m.uniform_int(fi(env), node, "the index")
        info, io = m.gm_access(ref, off, 1, node, "the element", write=write)
        if write:
            value = scalar_as(dt, fv(env))

            def apply() -> None:
                io(from_compute(np.broadcast_to(np.asarray(value), (m.C, 1)), dt))
            return _copy_instr(node, Pipe.S, ("gm", info), ("none", None), apply if io is not None else None, 1)
        if io is None:
            # a run that checks without data effects still needs the value (later addresses may use it):
            # reading the caller's array changes nothing
            arr, start = m.gm_span(ref, off, 1, node, "the element")
            io = gm_rows(arr, start, 1, m.C)

        def read() -> None:
            v = to_compute(np.asarray(io)[:, 0], dt)
            vals = v.astype(np.float64) if dt.is_float else v.astype(np.int64)
            env[key] = vals if m.C > 1 else vals[0].item()
        return _copy_instr(node, Pipe.S, ("gm", info), ("none", None), read, 1)
    return run


@binder("dump_tensor")
def _bind_dump(node: Node, op: OpDef) -> Step:
    from .printf import format_dump
    ref, desc, n, shape = node.args
    fo, fn = efn(ref.offset), efn(n)
    dt = ref.dtype

    def run(m: Machine) -> Instr | None:
        env = m.env
        count = m.count(fn(env), node)
        if ref.space == "ub":
            addr, view = m.ub_access(ref, fo(env), count, node, "the dumped tensor", aligned=False)
            ep = ("ub", (addr, count * dt.itemsize, False))
            where = [addr] * m.C
        else:
            info, view = m.gm_access(ref, fo(env), count, node, "the dumped tensor", write=False)
            ep = ("gm", info)
            starts = np.broadcast_to(info[1], (m.C,))
            where = [int(x) * dt.itemsize for x in starts]

        def apply() -> None:
            vals = to_compute(np.asarray(view), dt)
            for c in range(m.C):
                m.out[c].append(format_dump(desc.value, where[c], dt, ref.space, count, vals[c],
                                            shape.shape if shape is not None else None))
        return _copy_instr(node, Pipe.S, ep, ("none", None), apply, count)
    return run
