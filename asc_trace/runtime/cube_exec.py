"""How the cube's ops run on one cube core: L1, L0A, L0B, L0C and the bias table are bytes, laid out in
the fractal formats of ascend-cube-facts §2, and every op moves or computes bytes as the hardware does.
Padding is memory: what an Mmad reads in the K padding of L0A / L0B is whatever is there (memories start
poisoned with 0xFF bytes, a NaN in every float type, so a kernel that relies on zeroed padding it never
wrote gets NaNs, as it could get garbage on the NPU). Accumulation is float32 (int32 for int8).

Each binder returns a closure `run(m) -> Instr`: the scalar side (operands evaluated, bounds and
alignment checked) happens at once, the data effect in `apply` when the pipe model executes it. `ins.ub`
holds the accesses for the race checker as (memory key, first byte, end byte, is_write); `ins.work` the
modelled cycles (runtime/cube_timing.py)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ..cube_enums import CUBE_MEMORY, MEMORY_BY_SPACE, QuantModes
from ..dtypes import from_compute, to_compute
from ..errors import AlignmentError, OutOfBoundsError, UBOverflowError
from ..graph.expr import compile_expr
from ..graph.hb import Instr
from ..graph.node import Node, Pipe, TensorRef
from ..graph.ops.cube import FRACTAL_BYTES, c0
from . import cube_timing as T
from .machine import Machine

POISON = 0xFF
CUBE_MEMORY_L0C_ELEMS = MEMORY_BY_SPACE["l0c"].nbytes // 4
_ROW0 = np.zeros(1, np.int64)
BINDERS: dict[str, Callable[[Node], Callable[[Machine], Any]]] = {}


def cube_binder(name: str) -> Callable:
    """Register the executor of the cube op `name` (its record is in graph/ops/cube.py)."""
    def deco(fn: Callable) -> Callable:
        BINDERS[name] = fn
        return fn
    return deco


@dataclass(slots=True)
class CubeRoot:
    """A LocalTensor in a cube memory: its byte range there."""

    space: str
    addr: int
    nbytes: int


def memories() -> dict[str, np.ndarray]:
    """A cube core's on-chip memories, poisoned."""
    return {space: np.full(mem.nbytes, POISON, np.uint8) for space, mem in MEMORY_BY_SPACE.items()}


_UNWRITTEN_SEEN: dict = {}      # warnings' "once per location" registry for check_l0c_written


def mark_l0c_written(m: Machine, addr: int, start: int, count: int) -> None:
    """Which L0C elements an Mmad has written on this core (its issue order: the pipes' order is the race
    checker's business), so a Fixpipe of elements no Mmad wrote is reported instead of copying the poison."""
    w = getattr(m, "l0c_written", None)
    if w is None:
        w = m.l0c_written = np.zeros(CUBE_MEMORY_L0C_ELEMS, bool)
    w[addr // 4 + start:addr // 4 + start + count] = True


def check_l0c_written(m: Machine, node: Node, addr: int, start: int, idx: np.ndarray) -> None:
    """An AscTraceWarning at the Fixpipe's line when it reads L0C elements no Mmad wrote: they hold the 0xFF
    poison (NaN in float32), as on the NPU they hold whatever an earlier kernel left (an Mmad with k = 0 writes
    nothing, as the vendor's does not; so does a Matmul whose K is 0)."""
    w = getattr(m, "l0c_written", None)
    base = addr // 4 + start
    if w is not None and w[base + idx].all():
        return
    import warnings
    from ..errors import AscTraceWarning
    n_bad = int(idx.size if w is None else (~w[base + idx]).sum())
    warnings.warn_explicit(AscTraceWarning(
        f"this Fixpipe reads {n_bad} L0C element(s) that no Mmad wrote on this core (an Mmad with k = 0 writes "
        "nothing): it copies the L0C's stale contents - NaN poison in the simulator, an earlier kernel's leftovers "
        "on the NPU"), AscTraceWarning, node.loc.file, node.loc.line, registry=_UNWRITTEN_SEEN)


def _f(e: Any) -> Callable[[dict], Any]:
    return compile_expr(e) if e is not None else (lambda env: None)


def _int(m: Machine, v: Any, node: Node, what: str) -> int:
    return m.uniform_int(v, node, what)


class Operand:
    """A tensor operand in a cube memory: evaluates to (root, first element) with checks."""

    def __init__(self, ref: TensorRef, what: str) -> None:
        self.ref = ref
        self.what = what
        self.off = _f(ref.offset)
        self.size = ref.dtype.itemsize
        self.np = ref.dtype.np
        self.root_id = ref.root

    def at(self, m: Machine, node: Node, align: int = 32) -> tuple[CubeRoot, int]:
        root: CubeRoot = m.roots[self.root_id]
        off = self.off(m.env)
        if off.__class__ is not int:
            off = _int(m, off, node, f"the offset of {self.what}")
        if off < 0:
            raise OutOfBoundsError(f"{self.what} starts {-off} element(s) before its tensor", node=node)
        addr = root.addr + off * self.size
        if addr % align:
            raise AlignmentError(f"{self.what} starts at {MEMORY_BY_SPACE[root.space].hardware} byte {addr}, which is "
                                 f"not {align}-byte aligned as this instruction requires", node=node,
                                 hint=f"place or slice the tensor at a multiple of {align} bytes")
        return root, off

    def elems(self, m: Machine, root: CubeRoot) -> np.ndarray:
        """The whole tensor as elements (a live view of the memory)."""
        mem = m.cube[root.space]
        return mem[root.addr:root.addr + root.nbytes - root.nbytes % self.size].view(self.np)

    def span(self, m: Machine, node: Node, root: CubeRoot, off: int, idx_max: int) -> None:
        have = root.nbytes // self.size
        if off + idx_max >= have:
            raise OutOfBoundsError(f"{self.what} reaches element {off + idx_max} of a tensor of {have} x "
                                   f"{self.ref.dtype} elements", node=node,
                                   hint="check the params' sizes and strides against the tensor's length")

    def key(self, root: CubeRoot, off: int, lo: int, hi: int, write: bool) -> tuple:
        base = root.addr + off * self.size
        return (root.space, base + lo * self.size, base + hi * self.size, write)


def define_root(m: Machine, node: Node, pos: Any, addr: int, n: int) -> None:
    mem = CUBE_MEMORY[pos]
    nbytes = n * node.attr("dtype").itemsize
    if addr < 0 or addr % mem.align:
        raise AlignmentError(f"a LocalTensor in TPosition.{pos.name} ({mem.hardware}) at byte {addr}: addresses there "
                             f"are multiples of {mem.align} bytes", node=node)
    if addr + nbytes > mem.nbytes:
        raise UBOverflowError(f"this tensor spans {mem.hardware} bytes [{addr}, {addr + nbytes}) but {mem.hardware} "
                              f"has {mem.nbytes} bytes", node=node,
                              hint="use smaller tiles, or fewer buffers in this memory")
    m.roots[node.id] = CubeRoot(mem.space, addr, nbytes)


def bind_local_tensor(node: Node) -> Callable[[Machine], None]:
    pos, addr, length = node.args
    fa, fl = _f(addr), _f(length)

    def run(m: Machine) -> None:
        define_root(m, node, pos, _int(m, fa(m.env), node, "the LocalTensor address"),
                    _int(m, fl(m.env), node, "the LocalTensor length"))
    return run


def _params(p: Any, m: Machine, node: Node, fs: tuple) -> dict[str, int]:
    """The struct's fields as integers: the constant ones as compiled, the others evaluated now."""
    consts, live = fs
    if not live:
        return consts
    out = dict(consts)
    env = m.env
    for k, f in live:
        v = f(env)
        out[k] = v if v.__class__ is int else _int(m, v, node, f"{type(p).__name__}.{k}")
    return out


def _compile_params(p: Any, skip: tuple[str, ...] = ()) -> tuple:
    """(constant fields, ((name, compiled expression), ...) of the others) of a params struct."""
    from ..graph.expr import Const
    consts, live = {}, []
    for k in p.__dataclass_fields__:
        if k in skip:
            continue
        e = getattr(p, k)
        if isinstance(e, Const):
            consts[k] = int(e.value)
        else:
            live.append((k, _f(e)))
    return consts, tuple(live)


def _gm_rows(info: tuple, rows: np.ndarray, length: int) -> tuple:
    """What an instruction touches in GM, row by row, for the check across cores: (parameter, element
    starts of the rows, elements per row, element size, is_write)."""
    param, start, _count, size, write = info[:5]
    return (param, int(np.asarray(start).flat[0]) + rows, length, size, write)


def _gm_key(info: tuple, lo: int, hi: int) -> tuple:
    param, start, _count, size, write = info[:5]
    s = int(np.asarray(start).flat[0])
    return (("gm", param), (s + lo) * size, (s + hi) * size, write)


# -- index maps, the same for every call with the same sizes (kept: a kernel repeats its shapes) -------

@lru_cache(maxsize=256)
def _nd2nz_index(nd: int, n: int, d: int, src_ms: int, src_d: int, dst_ms: int, c0s: int, ns: int, C0: int) -> tuple:
    """(source elements, destination elements, destination [lo, hi), source extent) of an Nd2Nz copy."""
    mats = np.arange(nd)[:, None, None]
    r = np.arange(n)[None, :, None]
    c = np.arange(d)[None, None, :]
    sidx = mats * src_ms + r * src_d + c
    didx = mats * dst_ms + (c // C0) * c0s * C0 + r * ns * C0 + c % C0
    rows = (mats * src_ms + r * src_d).ravel()
    return sidx, didx, int(didx.min()), int(didx.max()) + 1, int(sidx.max()) + 1, rows


@lru_cache(maxsize=256)
def _load2d_index(reps: int, start: int, stride: int, gap: int, F: int) -> tuple:
    """(source elements, destination elements, source [lo, hi), destination extent) of a LoadData2D."""
    i = np.arange(reps)
    sidx = ((start + i * stride) * F)[:, None] + np.arange(F)
    didx = (i * (1 + gap) * F)[:, None] + np.arange(F)
    return sidx, didx, int(sidx.min()), int(sidx.max()) + 1, int(didx.max()) + 1


@lru_cache(maxsize=256)
def _fixpipe_index(M: int, N: int, ss: int, ds: int) -> tuple:
    """(L0C elements, GM elements from the start, L0C [lo, hi), GM extent) of a ROW_MAJOR Fixpipe."""
    r = np.arange(M)[:, None]
    col = np.arange(N)[None, :]
    sidx = (col // 16) * ss * 16 + r * 16 + col % 16
    didx = (r * ds + col).ravel()
    return sidx, didx, int(sidx.min()), int(sidx.max()) + 1, int(didx.max()) + 1, r.ravel() * ds


# -- GM -> L1 ----------------------------------------------------------------------------------------

@cube_binder("data_copy_nd2nz")
def bind_nd2nz(node: Node) -> Callable[[Machine], Instr | None]:
    dst_r, src_r, p = node.args
    dst, fs = Operand(dst_r, "the destination of asc.data_copy"), _compile_params(p)
    fsrc = _f(src_r.offset)
    C0 = c0(dst_r.dtype.itemsize)

    def run(m: Machine) -> Instr | None:
        q = _params(p, m, node, fs)
        n, d = q["n_value"], q["d_value"]
        if n == 0 or d == 0 or q["nd_num"] == 0:
            return None
        root, off = dst.at(m, node)
        nd = q["nd_num"]
        sidx, didx, d_lo, d_hi, s_ext, rows = _nd2nz_index(nd, n, d, q["src_nd_matrix_stride"], q["src_d_value"],
                                                     q["dst_nz_matrix_stride"], q["dst_nz_c0_stride"],
                                                     q["dst_nz_n_stride"], C0)
        dst.span(m, node, root, off, d_hi - 1)
        info, src = m.gm_access(src_r, fsrc(m.env), s_ext, node, "the source of asc.data_copy", write=False)
        view = dst.elems(m, root)

        def apply() -> None:
            view[off + didx] = src[0][sidx]
        acc = (dst.key(root, off, d_lo, d_hi, True), _gm_key(info, 0, s_ext))
        return Instr(node, Pipe.MTE2, "op", apply=apply, ub=acc, gm=_gm_rows(info, rows, d),
                     work=T.mte2(nd * n * d * dst_r.dtype.itemsize))
    return run


def bind_copy_gm_l1(node: Node) -> Callable[[Machine], Instr | None]:
    dst_r, src_r, count = node.args
    dst, fsrc, fn = Operand(dst_r, "the destination of asc.data_copy"), _f(src_r.offset), _f(count)

    def run(m: Machine) -> Instr | None:
        n = m.count(fn(m.env), node)
        if n == 0:
            return None
        root, off = dst.at(m, node)
        dst.span(m, node, root, off, n - 1)
        info, src = m.gm_access(src_r, fsrc(m.env), n, node, "the source of asc.data_copy", write=False)
        view = dst.elems(m, root)

        def apply() -> None:
            view[off:off + n] = src[0]
        return Instr(node, Pipe.MTE2, "op", apply=apply, ub=(dst.key(root, off, 0, n, True), _gm_key(info, 0, n)),
                     gm=_gm_rows(info, _ROW0, n), work=T.mte2(n * dst_r.dtype.itemsize))
    return run


# -- L1 -> L0 ----------------------------------------------------------------------------------------

@cube_binder("load_data")
def bind_load2d(node: Node) -> Callable[[Machine], Instr | None]:
    dst_r, src_r, p = node.args
    dst, src, fs = Operand(dst_r, "dst of asc.load_data"), Operand(src_r, "src of asc.load_data"), _compile_params(p)
    F = FRACTAL_BYTES // dst_r.dtype.itemsize

    def run(m: Machine) -> Instr | None:
        q = _params(p, m, node, fs)
        reps = q["repeat_times"]
        if reps == 0:
            return None
        droot, doff = dst.at(m, node, 512)
        sroot, soff = src.at(m, node, 32)
        sidx, didx, s_lo, s_hi, d_hi = _load2d_index(reps, q["start_index"], q["src_stride"], q["dst_gap"], F)
        src.span(m, node, sroot, soff, s_hi - 1)
        dst.span(m, node, droot, doff, d_hi - 1)
        sv, dv = src.elems(m, sroot), dst.elems(m, droot)
        tr = bool(q["if_transpose"])

        def apply() -> None:
            frag = sv[soff + sidx]
            if tr:
                frag = frag.reshape(reps, 16, 16).transpose(0, 2, 1).reshape(reps, F)
            dv[doff + didx] = frag
        acc = (dst.key(droot, doff, 0, d_hi, True), src.key(sroot, soff, s_lo, s_hi, False))
        return Instr(node, Pipe.MTE1, "op", apply=apply, ub=acc, work=T.mte1(reps * FRACTAL_BYTES, droot.space))
    return run


@lru_cache(maxsize=256)
def _load3d_index(m_ext: int, k_ext: int, m0: int, k0: int, plane: int, C0: int, zn: bool = False) -> tuple:
    """(source elements, destination elements, source [lo, hi)) of the matmul case of LoadData3DV2:
    element (i, j) of the slice is row m0 + i, column k0 + j of the Nz matrix in L1 (`plane` elements per
    C0-wide column block), and lands in L0A's Zz order, or with `zn` in L0B's Zn order of the slice as a
    K x N matrix (fractals of 16 j by C0 i): the vendor's Matmul loads a B given K x N so, K as m and N as
    channels (load_to_l0b_loadInstr.h), and its Mmad then reads L0B as Zn."""
    i = np.arange(m_ext)[:, None]
    j = np.arange(k_ext)[None, :]
    col = k0 + j
    sidx = (col // C0) * plane + (m0 + i) * C0 + col % C0
    if zn:
        didx = ((i // C0) * (k_ext // 16) + j // 16) * (16 * C0) + (j % 16) * C0 + i % C0
    else:
        didx = ((i // 16) * (k_ext // C0) + j // C0) * (16 * C0) + (i % 16) * C0 + j % C0
    return sidx, didx, int(sidx.min()), int(sidx.max()) + 1


@cube_binder("load_data_3dv2")
def bind_load3d(node: Node) -> Callable[[Machine], Instr | None]:
    dst_r, src_r, p = node.args
    dst, src = Operand(dst_r, "dst of asc.load_data"), Operand(src_r, "src of asc.load_data")
    fs = _compile_params(p, skip=("pad_list",))
    C0 = c0(dst_r.dtype.itemsize)

    def run(m: Machine) -> Instr | None:
        q = _params(p, m, node, fs)
        m_ext, k_ext = q["m_extension"], q["k_extension"]
        if m_ext == 0 or k_ext == 0:
            return None
        if m_ext % 16 or k_ext % C0 or q["m_start_pt"] % 16 or q["k_start_pt"] % C0:
            raise AlignmentError("LoadData3DParamsV2: m_extension and m_start_pt must be multiples of 16, "
                                 f"k_extension and k_start_pt of {C0} (32 bytes)", node=node)
        if q["m_start_pt"] + m_ext > q["l1_h"] * q["l1_w"] or q["k_start_pt"] + k_ext > -(-q["channel_size"] // C0) * C0:
            raise OutOfBoundsError(f"LoadData3DParamsV2 takes rows [{q['m_start_pt']}, {q['m_start_pt'] + m_ext}) and "
                                   f"columns [{q['k_start_pt']}, {q['k_start_pt'] + k_ext}) of a {q['l1_h'] * q['l1_w']} x "
                                   f"{q['channel_size']} feature map", node=node)
        droot, doff = dst.at(m, node, 512)
        sroot, soff = src.at(m, node, 32)
        plane = q["l1_h"] * q["l1_w"] * C0
        if droot.space == "l0b" and k_ext % 16:
            raise AlignmentError(f"LoadData3DParamsV2 into L0B: k_extension ({k_ext}, L0B's n) must be a multiple of "
                                 "16, whole Zn fractals", node=node)
        sidx, didx, s_lo, s_hi = _load3d_index(m_ext, k_ext, q["m_start_pt"], q["k_start_pt"], plane, C0,
                                               droot.space == "l0b")
        src.span(m, node, sroot, soff, s_hi - 1)
        dst.span(m, node, droot, doff, m_ext * k_ext - 1)
        sv, dv = src.elems(m, sroot), dst.elems(m, droot)

        def apply() -> None:
            dv[doff + didx] = sv[soff + sidx]
        acc = (dst.key(droot, doff, 0, m_ext * k_ext, True), src.key(sroot, soff, s_lo, s_hi, False))
        return Instr(node, Pipe.MTE1, "op", apply=apply, ub=acc,
                     work=T.mte1(m_ext * k_ext * dst_r.dtype.itemsize, droot.space))
    return run


@cube_binder("data_copy_bias")
def bind_bias_copy(node: Node) -> Callable[[Machine], Instr | None]:
    dst_r, src_r, p = node.args
    dst, src, fs = Operand(dst_r, "the bias table tensor"), Operand(src_r, "the L1 source"), _compile_params(p)

    def run(m: Machine) -> Instr | None:
        q = _params(p, m, node, fs)
        if q["src_stride"] or q["dst_stride"]:
            from ..errors import NotProvidedError
            raise NotProvidedError("a copy into the bias table with gaps between blocks is not provided yet", node=node)
        n = q["block_count"] * q["block_len"] * 16       # 64-byte blocks of float32 in the bias table
        if n == 0:
            return None
        droot, doff = dst.at(m, node, 64)
        sroot, soff = src.at(m, node, 32)
        dst.span(m, node, droot, doff, n - 1)
        src.span(m, node, sroot, soff, n - 1)
        sv, dv = src.elems(m, sroot), dst.elems(m, droot)

        def apply() -> None:
            dv[doff:doff + n] = to_compute(sv[soff:soff + n], src_r.dtype).astype(np.float32)
        acc = (dst.key(droot, doff, 0, n, True), src.key(sroot, soff, 0, n, False))
        return Instr(node, Pipe.MTE1, "op", apply=apply, ub=acc, work=T.bias_copy(n * 4))
    return run


@cube_binder("init_const_value")
def bind_init(node: Node) -> Callable[[Machine], Instr | None]:
    dst_r, p = node.args
    dst, fs = Operand(dst_r, "dst of asc.init_const_value"), _compile_params(p, skip=("init_value",))
    fval = _f(p.init_value)
    dt = dst_r.dtype

    def run(m: Machine) -> Instr | None:
        q = _params(p, m, node, fs)
        root, off = dst.at(m, node, 32 if dst_r.space == "l1" else 512)
        unit = (32 if dst_r.space == "l1" else FRACTAL_BYTES) // dt.itemsize
        reps, blocks = q["repeat_times"], q["block_num"]
        if reps == 0 or blocks == 0:
            return None
        starts = np.arange(reps) * (blocks + q["dst_gap"]) * unit
        idx = (starts[:, None] + np.arange(blocks * unit)).ravel()
        dst.span(m, node, root, off, int(idx.max()))
        v = fval(m.env)
        value = from_compute(np.asarray([v], np.float32 if dt.is_float else np.int64), dt)[0]
        view = dst.elems(m, root)

        def apply() -> None:
            view[off + idx] = value
        return Instr(node, node.pipe, "op", apply=apply, ub=(dst.key(root, off, int(idx.min()), int(idx.max()) + 1,
                                                                        True),), work=T.fill(len(idx) * dt.itemsize))
    return run


# -- Mmad --------------------------------------------------------------------------------------------

def _acc_dtype(dt_name: str) -> Any:
    return np.int64 if dt_name == "int32" else np.float32


@cube_binder("mmad")
def bind_mmad(node: Node) -> Callable[[Machine], Instr | None]:
    refs = node.args[:-1]
    p = node.args[-1]
    c, a = Operand(refs[0], "dst of asc.mmad"), Operand(refs[1], "fm of asc.mmad")
    b = Operand(refs[2], "filter of asc.mmad")
    bias = Operand(refs[3], "bias of asc.mmad") if len(refs) == 4 else None
    fs = _compile_params(p)
    adt, cdt = refs[1].dtype, refs[0].dtype
    k0 = c0(adt.itemsize)
    acc_t = _acc_dtype(cdt.name)

    def run(m: Machine) -> Instr | None:
        q = _params(p, m, node, fs)
        M, N, K = q["m"], q["n"], q["k"]
        if M == 0 or N == 0 or K == 0:
            return None
        M1, N1, K1 = -(-M // 16), -(-N // 16), -(-K // k0)
        croot, coff = c.at(m, node, 1024)
        aroot, aoff = a.at(m, node, 512)
        broot, boff = b.at(m, node, 512)
        na, nb, nc = M1 * K1 * 16 * k0, K1 * N1 * 16 * k0, M1 * N1 * 256
        a.span(m, node, aroot, aoff, na - 1)
        b.span(m, node, broot, boff, nb - 1)
        if croot.addr + (coff + nc) * 4 > croot.addr + croot.nbytes:
            raise UBOverflowError(f"this Mmad writes {M1 * 16} x {N1 * 16} x 4 = {nc * 4} bytes of L0C from element "
                                  f"{coff}, but its CO1 tensor has {croot.nbytes} bytes", node=node,
                                  hint="make the L0C tensor hold m and n rounded up to 16 (128 KB at most)")
        av, bv, cv = a.elems(m, aroot), b.elems(m, broot), c.elems(m, croot)
        mark_l0c_written(m, croot.addr, coff, nc)
        init = bool(q["cmatrix_init_val"]) and not bool(q["is_bias"]) and bias is None
        acc = [c.key(croot, coff, 0, nc, True), a.key(aroot, aoff, 0, na, False), b.key(broot, boff, 0, nb, False)]
        if not init and bias is None:
            acc.append(c.key(croot, coff, 0, nc, False))
        bview = None
        if bias is not None:
            broot2, boff2 = bias.at(m, node, 64 if refs[3].space == "bt" else 1024)
            nbias = min(N1 * 16, broot2.nbytes // 4 - boff2)
            bias.span(m, node, broot2, boff2, N - 1)
            bview = (bias.elems(m, broot2), boff2, nbias)
            acc.append(bias.key(broot2, boff2, 0, nbias, False))

        def apply() -> None:
            # L0A's Zz (M1, K1, 16, k0) and L0B's Zn (K1, N1, 16 n, k0) as the matrices they hold
            A = to_compute(av[aoff:aoff + na], adt).reshape(M1, K1, 16, k0).transpose(0, 2, 1, 3)
            A = A.reshape(M1 * 16, K1 * k0)
            B = to_compute(bv[boff:boff + nb], adt).reshape(K1, N1, 16, k0).transpose(0, 3, 1, 2)
            B = B.reshape(K1 * k0, N1 * 16)
            prod = A.astype(acc_t) @ B.astype(acc_t)
            out = cv[coff:coff + nc]
            if bview is not None:
                bv_, bo, nbias = bview
                start = np.zeros(N1 * 16, np.float32)
                start[:nbias] = bv_[bo:bo + nbias]
                prod = prod + start[None, :]
            elif not init:
                prod = prod + out.reshape(N1, M1, 16, 16).transpose(1, 2, 0, 3).reshape(M1 * 16, N1 * 16)
            res = prod.reshape(M1, 16, N1, 16).transpose(2, 0, 1, 3).reshape(-1)
            if acc_t is np.int64:
                res = res.astype(np.int64).astype(np.int32)     # wraps as the 32-bit accumulator does
            out[...] = res.astype(cv.dtype)
        uf = q["unit_flag"]
        key = ("uf", croot.addr + coff * 4, 0, uf == 3) if uf in (2, 3) else None
        return Instr(node, Pipe.M, "op", key=key, apply=apply, ub=tuple(acc), work=T.mmad(M, N, K, adt.name))
    return run


# -- Fixpipe -----------------------------------------------------------------------------------------

@cube_binder("fixpipe")
def bind_fixpipe(node: Node) -> Callable[[Machine], Instr | None]:
    dst_r, src_r, p = node.args
    src, fs = Operand(src_r, "src of asc.fixpipe"), _compile_params(p)
    fdst = _f(dst_r.offset)
    ddt = dst_r.dtype

    def run(m: Machine) -> Instr | None:
        q = _params(p, m, node, fs)
        M, N, ss, ds = q["m_size"], q["n_size"], q["src_stride"], q["dst_stride"]
        if M == 0 or N == 0:
            return None
        sroot, soff = src.at(m, node, 64)
        sidx, didx, s_lo, s_hi, ext, rows = _fixpipe_index(M, N, ss, ds)
        src.span(m, node, sroot, soff, s_hi - 1)
        check_l0c_written(m, node, sroot.addr, soff, sidx)
        info, store = m.gm_access(dst_r, fdst(m.env), ext, node, "the destination of asc.fixpipe", write=True)
        sv = src.elems(m, sroot)
        relu, quant = bool(q["relu_en"]), q["quant_pre"]

        def apply() -> None:
            v = sv[soff + sidx]
            if relu:
                v = np.maximum(v, v.dtype.type(0))
            if quant in (QuantModes.F322F16, QuantModes.F322BF16):
                v = from_compute(v.astype(np.float32), ddt)      # round to nearest even
            store(v.reshape(1, -1).astype(ddt.np, copy=False), didx)
        acc = (src.key(sroot, soff, s_lo, s_hi, False), _gm_key(info, 0, ext))
        uf = q["unit_flag"]
        key = ("uf", sroot.addr + soff * 4, 1, uf == 3) if uf in (2, 3) else None
        return Instr(node, Pipe.FIX, "op", key=key, apply=apply, ub=acc, gm=_gm_rows(info, rows, N),
                     work=T.fixpipe(M, N))
    return run
