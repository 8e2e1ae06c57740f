"""Registry-driven kernels for the backends that run emitted Ascend C (cpp, cpu_debug) and for the
header check: every op record in every dtype it supports, the mask / repeat forms, every Cast pair
and rounding mode, the reductions, compare / select, the copies, scalar access, printf, and the
TPipe / TQue / TBuf framework. A case is (id, kernel, args factory, reader of the outputs)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import asc_trace as asc
import op_cases as C
from asc_trace.graph.ops import REGISTRY
from asc_trace.graph.ops.vec_cast import CAST_PAIRS


@dataclass(frozen=True)
class Case:
    id: str
    kernel: Any
    make_args: Callable[[], tuple]
    read: Callable[[tuple], np.ndarray]
    cores: int = 1


def _elementwise(op: str, dt: str) -> Case:
    rng = np.random.default_rng(abs(hash((op, dt))) % 2**32)
    n, cap = 200, C.padded(200, dt)
    a = C.values(cap, dt, rng, positive=op in ("ln", "sqrt", "rsqrt"))
    b = C.values(cap, dt, rng, positive=op == "div")
    z0 = C.values(cap, dt, rng)
    scalar = 0.75 if dt in ("float16", "float32", "bfloat16") else 3
    fam = REGISTRY[op].family
    return Case(f"{op}-{dt}", C.elementwise,
                lambda: (C.as_arg(a, dt), C.as_arg(b, dt), C.as_arg(z0.copy(), dt), n, cap, op, fam, scalar),
                lambda args: C.bits_of(args[2], dt))


def _masked(op: str, dt: str, mask: tuple) -> Case:
    rng = np.random.default_rng(7)
    per_block = 32 // np.dtype(C.NP[dt]).itemsize
    strides = (1, 2, 1, 9, 10, 8)
    fam = REGISTRY[op].family
    if fam != "vec_binary":
        strides = (strides[0], strides[1], strides[1], strides[3], strides[4], strides[4])
    cap = ((3 - 1) * 10 + 7 * 2 + 1) * per_block
    a = C.values(cap, dt, rng, positive=op in ("ln", "sqrt", "rsqrt"))
    b = C.values(cap, dt, rng, positive=op == "div")
    z0 = C.values(cap, dt, rng)
    scalar = 0.75 if np.dtype(C.NP[dt]).kind == "f" else 3
    kind = "bits" if len(mask) == 2 else "count"
    return Case(f"mask-{kind}-{op}-{dt}", C.masked,
                lambda: (a, b, z0.copy(), cap, op, fam, scalar, mask, 3, strides), lambda args: args[2])


def _cast(src: str, dst: str, mode: str) -> Case:
    rng = np.random.default_rng(11)
    n, cap = 100, 128
    if src == "int32":
        x = rng.integers(-2**30, 2**30, cap).astype(np.int32)
    elif src in ("float32", "float16"):
        x = (rng.standard_normal(cap) * (300 if dst not in ("int8", "uint8") else 60)).astype(C.NP[src])
        x[:32] = np.round(x[:32] * 2) / 2           # exact .5 ties for the round modes
    else:
        x = C.values(cap, src, rng)
    code = int(getattr(asc.RoundMode, "CAST_" + mode.upper()))
    return Case(f"cast-{src}-{dst}-{mode}", C.cast_kernel,
                lambda: (C.as_arg(x, src), C.as_arg(np.zeros(cap, C.NP[dst]), dst), n, cap, code),
                lambda args: C.bits_of(args[1], dst))


def _reduce(op: str, dt: str, n: int, cal_index: bool) -> Case:
    rng = np.random.default_rng(13)
    cap = C.padded(n, dt)
    a = C.values(cap, dt, rng)
    per = 32 // np.dtype(C.NP[dt]).itemsize
    z0 = C.values(per, dt, rng)
    return Case(f"{op}-{dt}-{n}{'-index' if cal_index else ''}", C.reduce_kernel,
                lambda: (a, z0.copy(), n, cap, op, cal_index), lambda args: args[1])


def _whole(op: str, dt: str, order: int, mask: int) -> Case:
    rng = np.random.default_rng(17)
    cap = 640 if dt == "float16" else 320
    a = C.values(cap, dt, rng)
    z0 = C.values(256, dt, rng)
    return Case(f"{op}-{dt}-order{order}-mask{mask}", C.whole_reduce_kernel,
                lambda: (a, z0.copy(), cap, op, mask, 3, 2, 1, 9, order), lambda args: args[1])


def _cmpsel(dt: str, mode: int, scalar: Any) -> Case:
    rng = np.random.default_rng(19)
    n = 256 if dt == "float16" else 128
    x = C.values(n, dt, rng)
    y = np.where(rng.random(n) < 0.2, x, C.values(n, dt, rng)).astype(C.NP[dt])
    return Case(f"cmpsel-{dt}-mode{mode}-{'scalar' if scalar is not None else 'tensor'}", C.cmpsel_kernel,
                lambda: (x, y, np.zeros(n // 8, np.uint8), np.zeros(n, C.NP[dt]), n, mode, scalar),
                lambda args: np.concatenate([args[2].view(np.uint8), args[3].view(np.uint8)]))


def _copies() -> list[Case]:
    rng = np.random.default_rng(23)
    out = []
    for dt in ("float32", "float16", "int16"):
        per = 32 // np.dtype(C.NP[dt]).itemsize
        cap = 4 * (2 + 2) * per
        x, z0 = C.values(cap, dt, rng), C.values(cap, dt, rng)
        out.append(Case(f"copy-params-{dt}", C.copy_params_kernel,
                        lambda x=x, z0=z0, cap=cap: (x, z0.copy(), cap, (4, 2, 2, 0), (4, 2, 0, 1)),
                        lambda args: args[1]))
    for dt, n, left, right, is_pad in (("float32", 13, 2, 1, True), ("float16", 9, 0, 0, False),
                                       ("int32", 5, 1, 2, False), ("float16", 16, 3, 0, True)):
        size = np.dtype(C.NP[dt]).itemsize
        per = 32 // size
        row = -(-(left + n + right) // per) * per
        cap = 3 * (row + per)
        x = C.values(3 * (n + 2) + per, dt, rng)
        pv = 5.0 if dt != "int32" else 5
        out.append(Case(f"pad-in-{dt}-{n}-{left}-{right}-{is_pad}", C.pad_in_kernel,
                        lambda x=x, cap=cap, n=n, size=size, left=left, right=right, is_pad=is_pad, pv=pv:
                        (x, np.zeros(cap, x.dtype), cap, (3, n * size, 2 * size, 1, 0), (is_pad, left, right, pv)),
                        lambda args: args[1]))
    for dt, n in (("float32", 13), ("float16", 7), ("int16", 40)):
        size = np.dtype(C.NP[dt]).itemsize
        per = 32 // size
        row = -(-n // per) * per + per
        x, z0 = C.values(3 * row, dt, rng), C.values(3 * (n + 2) + 1, dt, rng)
        out.append(Case(f"pad-out-{dt}-{n}", C.pad_out_kernel,
                        lambda x=x, z0=z0, row=row, n=n, size=size: (x, z0.copy(), 3 * row, (3, n * size, 1, 2 * size, 0)),
                        lambda args: args[1]))
    return out


@asc.jit
def tbuf_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, tile: asc.ConstExpr[int]):
    """TBuf for the work buffers, TQue for the copies: z = relu(x) * 2 per tile."""
    pipe = asc.TPipe()
    qin, qout = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    tmp = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qin, 2, tile * 4)
    pipe.init_buffer(qout, 2, tile * 4)
    pipe.init_buffer(tmp, tile * 4)
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * tiles * tile, tiles * tile)
    zg.set_global_buffer(z + asc.get_block_idx() * tiles * tile, tiles * tile)
    for i in range(tiles):
        a = qin.alloc_tensor(asc.float32)
        asc.data_copy(a, xg[i * tile:], tile)
        qin.enque(a)
        a = qin.deque(asc.float32)
        t = tmp.get(asc.float32)
        asc.relu(t, a, tile)
        qin.free_tensor(a)
        c = qout.alloc_tensor(asc.float32)
        asc.muls(c, t, 2.0, tile)
        qout.enque(c)
        c = qout.deque(asc.float32)
        asc.data_copy(zg[i * tile:], c, tile)
        qout.free_tensor(c)


def cases() -> list[Case]:
    out = [_elementwise(op.name, dt) for op in REGISTRY.values()
           if op.family in ("vec_binary", "vec_unary", "vec_scalar", "vec_duplicate") for dt in sorted(op.dtypes or ())]
    for op in REGISTRY.values():
        if op.family in ("vec_binary", "vec_unary", "vec_scalar", "vec_duplicate"):
            dt = "float16" if "float16" in (op.dtypes or ()) else sorted(op.dtypes)[0]
            out += [_masked(op.name, dt, (0xF0F0F0F0F0F0F0F0, 0x00FF00FF00FF00FF if dt in ("float16", "int16") else 0)),
                    _masked(op.name, dt, (37,))]
    out += [_cast(s, d, m) for (s, d), modes in sorted(CAST_PAIRS.items()) for m in sorted(modes)]
    for dt in ("float16", "float32"):
        for n in (37, 256, 600):
            out.append(_reduce("reduce_sum", dt, n, False))
            out += [_reduce(op, dt, n, idx) for op in ("reduce_max", "reduce_min") for idx in (False, True)]
        out += [_whole("whole_reduce_sum", dt, 0, 50)]
        out += [_whole(op, dt, order, mask) for op in ("whole_reduce_max", "whole_reduce_min")
                for order in range(4) for mask in (50,)]
        out += [_cmpsel(dt, mode, None) for mode in range(6)] + [_cmpsel(dt, 4, 0.5)]
    out += _copies()
    rng = np.random.default_rng(29)
    for dt in ("float32", "float16", "int32"):
        x = C.values(64, dt, rng)
        out.append(Case(f"get-set-{dt}", C.scalar_access_kernel, lambda x=x: (x, np.zeros(64, x.dtype), 64, 5, 60),
                        lambda args: args[1]))
    xt = C.values(4 * 8 * 256, "float32", rng)
    out.append(Case("tque-tbuf", tbuf_kernel, lambda: (xt, np.zeros_like(xt), 8, 256), lambda args: args[1], cores=4))
    import vec_more_kernels     # pyasc's further vector families (tests/vec_more_kernels.py)
    out += vec_more_kernels.backend_cases(Case)
    return out
