"""Kernels and plain-NumPy references for the per-op tests (tests/test_ops.py).

Every case moves whole 32-byte blocks between GM and the UB and applies the op to `n` elements
(`n` need not be a block multiple: that is the tail case), so the parts of the destination past
`n` must come back unchanged.
"""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc

NP = {"float16": np.float16, "float32": np.float32, "int16": np.int16, "int32": np.int32, "uint16": np.uint16,
      "uint32": np.uint32, "int8": np.int8, "uint8": np.uint8, "int64": np.int64, "bfloat16": np.uint16}


def padded(n: int, dt: str) -> int:
    per = 32 // np.dtype(NP[dt]).itemsize
    return -(-n // per) * per


def values(n: int, dt: str, rng: np.random.Generator, positive: bool = False) -> np.ndarray:
    t = NP[dt]
    if dt == "bfloat16":
        from asc_trace.dtypes import f32_to_bf16
        return f32_to_bf16((rng.random(n) * 8 - 4).astype(np.float32))
    if np.dtype(t).kind == "f":
        v = rng.random(n) * 4 + 0.25 if positive else rng.random(n) * 8 - 4
        return v.astype(t)
    info = np.iinfo(t)
    return rng.integers(max(info.min, -500), min(info.max, 500), n).astype(t)


def gm(addr, n=None):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, n)
    return g


def _load(dt, pos, addr, g, n):
    t = asc.LocalTensor(dt, pos, addr, n)
    asc.data_copy(t, g, n)
    return t


@asc.jit
def elementwise(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int, cap: asc.ConstExpr[int],
                op: asc.ConstExpr[str], family: asc.ConstExpr[str], scalar: asc.ConstExpr[float]):
    """z[:n] = op(x, y) / op(x) / op(x, scalar), count form; the rest of z unchanged."""
    dt = x.dtype
    size = cap * dt.sizeof()
    a = _load(dt, asc.TPosition.VECIN, 0, gm(x), cap)
    c = _load(z.dtype, asc.TPosition.VECOUT, 2 * size, gm(z), cap)
    fn = getattr(asc, op)
    if family == "vec_binary":
        b = _load(dt, asc.TPosition.VECIN, size, gm(y), cap)
        fn(c, a, b, n)
    elif family == "vec_unary":
        fn(c, a, n)
    elif family == "vec_duplicate":
        fn(c, scalar, n)
    else:
        fn(c, a, scalar, n)
    asc.data_copy(gm(z), c, cap)


@asc.jit
def masked(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int],
           op: asc.ConstExpr[str], family: asc.ConstExpr[str], scalar: asc.ConstExpr[float], mask: asc.ConstExpr[tuple],
           repeat: asc.ConstExpr[int], strides: asc.ConstExpr[tuple]):
    """The mask / repeat form over buffers of `cap` elements."""
    dt = x.dtype
    size = cap * dt.sizeof()
    a = _load(dt, asc.TPosition.VECIN, 0, gm(x), cap)
    c = _load(z.dtype, asc.TPosition.VECOUT, 2 * size, gm(z), cap)
    fn = getattr(asc, op)
    m = list(mask) if len(mask) == 2 else mask[0]
    if family == "vec_binary":
        b = _load(dt, asc.TPosition.VECIN, size, gm(y), cap)
        fn(c, a, b, m, repeat, asc.BinaryRepeatParams(*strides))
    elif family == "vec_unary":
        fn(c, a, m, repeat, asc.UnaryRepeatParams(strides[0], strides[1], strides[3], strides[4]))
    elif family == "vec_duplicate":     # pyasc's keywords, the dst strides as two numbers
        fn(c, scalar, mask=m, repeat_times=repeat, dst_block_stride=strides[0], dst_repeat_stride=strides[3])
    else:
        fn(c, a, scalar, m, repeat, asc.UnaryRepeatParams(strides[0], strides[1], strides[3], strides[4]))
    asc.data_copy(gm(z), c, cap)


def masked_reference(fn, a, b, c, dt, mask, repeat, strides, family, scalar):
    """Plain NumPy loops over repeats, blocks and mask bits."""
    per_block = 32 // np.dtype(NP[dt]).itemsize
    per_rep = 8 * per_block
    if len(mask) == 2:
        word = mask[0] | (mask[1] << 64)
        on = [e for e in range(per_rep) if (word >> e) & 1]
    else:       # a count past the repeat selects the whole repeat (the vendor's SetMask(len))
        on = list(range(min(mask[0], per_rep)))
    out = c.copy()
    reads_dst = getattr(getattr(fn, "__code__", None), "co_argcount", 2) == 3 and family == "vec_binary"
    dblk, s0blk, s1blk, drep, s0rep, s1rep = strides
    for r in range(repeat):
        for e in on:
            blk, j = divmod(e, per_block)
            di = (r * drep + blk * dblk) * per_block + j
            ai = (r * s0rep + blk * s0blk) * per_block + j
            if family == "vec_binary":
                bi = (r * s1rep + blk * s1blk) * per_block + j
                old = (out[di:di + 1],) if reads_dst else ()     # the ops that read dst take it third
                out[di] = fn(a[ai:ai + 1], b[bi:bi + 1], *old)[0]
            elif family == "vec_unary":
                out[di] = fn(a[ai:ai + 1])[0]
            elif family == "vec_scalar":
                out[di] = fn(a[ai:ai + 1], scalar, out[di:di + 1])[0]
            elif family == "vec_duplicate":
                out[di] = out.dtype.type(scalar)
    return out


@asc.jit
def cast_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, cap: asc.ConstExpr[int],
                mode: asc.ConstExpr[int]):
    a = _load(x.dtype, asc.TPosition.VECIN, 0, gm(x), cap)
    c = _load(z.dtype, asc.TPosition.VECOUT, 4096, gm(z), cap)
    asc.cast(c, a, asc.RoundMode(mode), n)
    asc.data_copy(gm(z), c, cap)


@asc.jit
def reduce_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, cap: asc.ConstExpr[int],
                  op: asc.ConstExpr[str], cal_index: asc.ConstExpr[bool]):
    a = _load(x.dtype, asc.TPosition.VECIN, 0, gm(x), cap)
    tmp = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 16384, 1024)
    out = _load(z.dtype, asc.TPosition.VECOUT, 32768, gm(z), 32 // z.dtype.sizeof())
    if op == "reduce_sum":
        asc.reduce_sum(out, a, tmp, n)
    else:
        getattr(asc, op)(out, a, tmp, n, cal_index)
    asc.data_copy(gm(z), out, 32 // z.dtype.sizeof())


@asc.jit
def whole_reduce_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int], op: asc.ConstExpr[str],
                        mask: asc.ConstExpr[int], repeat: asc.ConstExpr[int], dst_rep: asc.ConstExpr[int],
                        src_blk: asc.ConstExpr[int], src_rep: asc.ConstExpr[int], order: asc.ConstExpr[int]):
    a = _load(x.dtype, asc.TPosition.VECIN, 0, gm(x), cap)
    out = _load(z.dtype, asc.TPosition.VECOUT, 65536, gm(z), 256)
    fn = getattr(asc, op)
    if op == "whole_reduce_sum":
        fn(out, a, mask, repeat, dst_rep, src_blk, src_rep)
    else:
        fn(out, a, mask, repeat, dst_rep, src_blk, src_rep, asc.ReduceOrder(order))
    asc.data_copy(gm(z), out, 256)


@asc.jit
def cmpsel_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, bits: asc.GlobalAddress, z: asc.GlobalAddress,
                  n: asc.ConstExpr[int], mode: asc.ConstExpr[int], scalar: asc.ConstExpr[object]):
    dt = x.dtype
    a = _load(dt, asc.TPosition.VECIN, 0, gm(x), n)
    b = _load(dt, asc.TPosition.VECIN, 65536, gm(y), n)
    # whole 32-byte blocks: DataCopyPad reads the UB side in blocks, and the vendor's API (and so every backend)
    # refuses a source tensor smaller than the rounded length ("tensor size needs to be at least 64 bytes")
    m = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 131072, -(-n // 256) * 32)
    asc.compare(m, a, b, asc.CMPMODE(mode), n)
    asc.data_copy_pad(gm(bits), m, asc.DataCopyExtParams(1, n // 8, 0, 0, 0))
    c = asc.LocalTensor(dt, asc.TPosition.VECOUT, 139264, n)
    if scalar is None:
        asc.select(c, m, b, a, asc.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
    else:
        asc.select(c, m, b, scalar, asc.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
    asc.data_copy(gm(z), c, n)


@asc.jit
def copy_params_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int],
                       p_in: asc.ConstExpr[tuple], p_out: asc.ConstExpr[tuple]):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.duplicate(t, 0, cap) if x.dtype.is_int else asc.duplicate(t, 0.0, cap)
    asc.data_copy(t, gm(x), asc.DataCopyParams(*p_in))
    asc.data_copy(gm(z), t, asc.DataCopyParams(*p_out))


@asc.jit
def pad_in_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int], p: asc.ConstExpr[tuple],
                  pad: asc.ConstExpr[tuple]):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.duplicate(t, 7.0 if x.dtype.is_float else 7, cap)
    asc.data_copy_pad(t, gm(x), asc.DataCopyExtParams(*p), asc.DataCopyPadExtParams(*pad))
    asc.data_copy(gm(z), t, cap)


@asc.jit
def pad_out_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int], p: asc.ConstExpr[tuple]):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(t, gm(x), cap)
    asc.data_copy_pad(gm(z), t, asc.DataCopyExtParams(*p))


@asc.jit
def scalar_access_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int], i: int, j: int):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(t, gm(x), cap)
    v = t.get_value(i)
    t.set_value(j, v * 2)
    asc.muls(t, t, 3.0 if x.dtype.is_float else 3, cap)
    asc.data_copy(gm(z), t, cap)


@asc.jit
def dump_kernel(x: asc.GlobalAddress, n: asc.ConstExpr[int], shape: asc.ConstExpr[tuple]):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, gm(x), 64)
    if shape:
        asc.dump_tensor(t, 5, n, asc.ShapeInfo(asc.array(asc.uint32, list(shape))))
    else:
        asc.dump_tensor(t, 5, n)
    asc.dump_tensor(gm(x)[8:], 6, 8)


def as_arg(arr: np.ndarray, dt: str):
    """NumPy has no bfloat16: bfloat16 data (held as uint16 bits) goes in as a torch tensor."""
    if dt != "bfloat16":
        return arr
    torch = pytest.importorskip("torch", reason="bfloat16 data goes in as a torch tensor (torch is optional)")
    return torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)


def bits_of(arg, dt: str) -> np.ndarray:
    if dt != "bfloat16":
        return arg
    import torch
    return arg.view(torch.int16).numpy().view(np.uint16)
