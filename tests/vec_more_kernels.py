"""Kernels and plain-NumPy references for pyasc's further vector families (docs/pyasc-vector-ops.md): the
block / pair / repeat reductions, ... . Each reference is written from the documented semantics with
Python loops, independently of the simulator's executors."""
from __future__ import annotations

import numpy as np

import asc_trace as asc
from op_cases import gm


def lanes_of(mask, per_rep: int) -> list[int]:
    """The lanes of a repeat a mask selects (a count, or [mask0, mask1] bit words)."""
    if isinstance(mask, (list, tuple)):
        word = mask[0] | (mask[1] << 64)
        return [e for e in range(per_rep) if (word >> e) & 1]
    return list(range(min(mask, per_rep)))


def tree(vals: np.ndarray) -> np.generic:
    """Adjacent pairs added level by level, in the element type (zero-padded to a power of two)."""
    v = np.asarray(vals)
    n = 1
    while n < len(v):
        n *= 2
    v = np.concatenate([v, np.zeros(n - len(v), v.dtype)])
    while len(v) > 1:
        v = (v[0::2] + v[1::2]).astype(v.dtype)
    return v[0]


# -- block / pair / repeat reductions --------------------------------------------------------------

@asc.jit
def reduce_block_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int], out_cap: asc.ConstExpr[int],
                        op: asc.ConstExpr[str], mask: asc.ConstExpr[object], repeat: asc.ConstExpr[int],
                        dst_rep: asc.ConstExpr[int], src_blk: asc.ConstExpr[int], src_rep: asc.ConstExpr[int]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(a, gm(x), cap)
    out = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, out_cap)
    asc.data_copy(out, gm(z), out_cap)
    fn = getattr(asc, op)
    if op == "repeat_reduce_sum":
        fn(out, a, repeat, mask, 0, src_blk, dst_rep, src_rep)
    else:
        fn(out, a, repeat, mask, dst_rep, src_blk, src_rep)
    asc.data_copy(gm(z), out, out_cap)


def reduce_block_reference(op: str, x: np.ndarray, z0: np.ndarray, mask, repeat: int, dst_rep: int, src_blk: int,
                           src_rep: int) -> np.ndarray:
    z = z0.copy()
    per_block = 32 // x.itemsize
    per_rep = 8 * per_block
    lanes = lanes_of(mask, per_rep)
    layout = op.split("_")[0]
    red = op.split("_")[-1]
    width = {"block": per_block, "pair": 2, "repeat": per_rep}[layout]
    n_res = per_rep // width
    for r in range(repeat):
        vals = {e: x[r * src_rep * per_block + (e // per_block) * src_blk * per_block + e % per_block] for e in lanes}
        for g in range(n_res):
            mine = [vals[e] for e in range(g * width, (g + 1) * width) if e in vals]
            if not mine:
                continue
            if red == "sum":
                full = [vals.get(e, x.dtype.type(0)) for e in range(g * width, (g + 1) * width)]
                res = tree(np.array(full, x.dtype))
            else:
                res = (max if red == "max" else min)(mine)
            z[r * dst_rep * n_res + g] = res
    return z



# -- Copy, Brcb, CompareScalar ----------------------------------------------------------------------

@asc.jit
def copy_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int], out_cap: asc.ConstExpr[int],
                mask: asc.ConstExpr[object], repeat: asc.ConstExpr[int], strides: asc.ConstExpr[object]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(a, gm(x), cap)
    out = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, out_cap)
    asc.data_copy(out, gm(z), out_cap)
    asc.copy(out, a, mask, repeat, asc.CopyRepeatParams(*strides))
    asc.data_copy(gm(z), out, out_cap)


def copy_reference(x: np.ndarray, z0: np.ndarray, mask, repeat: int, strides: tuple) -> np.ndarray:
    dst_blk, src_blk, dst_rep, src_rep = strides
    per_block = 32 // x.itemsize
    z = z0.copy()
    for r in range(repeat):
        for e in lanes_of(mask, 8 * per_block):
            b, i = divmod(e, per_block)
            z[(r * dst_rep + b * dst_blk) * per_block + i] = x[(r * src_rep + b * src_blk) * per_block + i]
    return z


@asc.jit
def brcb_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int], out_cap: asc.ConstExpr[int],
                repeat: asc.ConstExpr[int], blk: asc.ConstExpr[int], rep: asc.ConstExpr[int]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(a, gm(x), cap)
    out = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, out_cap)
    asc.data_copy(out, gm(z), out_cap)
    asc.brcb(out, a, repeat_times=repeat, repeat_params=asc.BrcbRepeatParams(blk, rep))
    asc.data_copy(gm(z), out, out_cap)


def brcb_reference(x: np.ndarray, z0: np.ndarray, repeat: int, blk: int, rep: int) -> np.ndarray:
    per_block = 32 // x.itemsize
    z = z0.copy()
    for r in range(repeat):
        vals = [x[r * 8 + i] for i in range(8)]
        for i in range(8):
            start = (r * rep + i * blk) * per_block
            z[start:start + per_block] = vals[i]
    return z


@asc.jit
def compare_scalar_kernel(x: asc.GlobalAddress, bits: asc.GlobalAddress, cap: asc.ConstExpr[int],
                          nbytes: asc.ConstExpr[int], scalar: asc.ConstExpr[float], mode: asc.ConstExpr[int],
                          form: asc.ConstExpr[object]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(a, gm(x), cap)
    m = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 65536, nbytes)
    if form[0] == "count":
        asc.compare_scalar(m, a, scalar, asc.CMPMODE(mode), form[1])
    else:
        _, mask, repeat, blk, rep = form
        asc.compare_scalar(m, a, scalar, cmp_mode=asc.CMPMODE(mode), mask=mask, repeat_times=repeat,
                           repeat_params=asc.UnaryRepeatParams(1, blk, 8, rep))
    asc.data_copy(gm(bits), m, nbytes)


_CMP = [np.less, np.greater, np.equal, np.less_equal, np.greater_equal, np.not_equal]


def compare_scalar_reference(x: np.ndarray, nbytes: int, scalar: float, mode: int, form: tuple) -> np.ndarray:
    s = x.dtype.type(scalar)
    out = np.zeros(nbytes * 8, bool)
    if form[0] == "count":
        out[:form[1]] = _CMP[mode](x[:form[1]], s)
    else:
        _, mask, repeat, blk, rep = form
        per_block = 32 // x.itemsize
        for r in range(repeat):
            for e in lanes_of(mask, 8 * per_block):
                b, i = divmod(e, per_block)
                out[r * 8 * per_block + e] = _CMP[mode](x[(r * rep + b * blk) * per_block + i], s)
    return np.packbits(out, bitorder="little")



# -- Gather, Gatherb ------------------------------------------------------------------------------------

@asc.jit
def gather_kernel(x: asc.GlobalAddress, o: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int],
                  n_off: asc.ConstExpr[int], out_cap: asc.ConstExpr[int], base: int, form: asc.ConstExpr[object]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(a, gm(x), cap)
    off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 65536, n_off)
    asc.data_copy(off, gm(o), n_off)
    out = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 131072, out_cap)
    asc.data_copy(out, gm(z), out_cap)
    if form[0] == "count":
        asc.gather(out, a, off, base, form[1])
    elif form[0] == "mask":
        asc.gather(out, a, off, src_base=base, mask=form[1], repeat_times=form[2], dst_rep_stride=form[3])
    else:
        asc.gatherb(out, a, off, form[1], asc.GatherRepeatParams(form[2], form[3]))
    asc.data_copy(gm(z), out, out_cap)


def gather_reference(x: np.ndarray, offs: np.ndarray, z0: np.ndarray, base: int, form: tuple) -> np.ndarray:
    z = z0.copy()
    size = x.itemsize
    per_block = 32 // size
    if form[0] == "count":
        for i in range(form[1]):
            z[i] = x[(base + int(offs[i])) // size]
    elif form[0] == "mask":
        _, mask, repeat, dst_rep = form
        for r in range(repeat):
            for e in lanes_of(mask, 8 * per_block):
                z[r * dst_rep * per_block + e] = x[(base + int(offs[r * 8 * per_block + e])) // size]
    else:
        _, repeat, blk, rep = form
        for r in range(repeat):
            for i in range(8):
                start = (r * rep + i * blk) * per_block
                src = int(offs[r * 8 + i]) // size
                z[start:start + per_block] = x[src:src + per_block]
    return z



# -- the mask form of Cast ----------------------------------------------------------------------------

@asc.jit
def cast_mask_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int], out_cap: asc.ConstExpr[int],
                     mode: asc.ConstExpr[int], mask: asc.ConstExpr[object], repeat: asc.ConstExpr[int],
                     strides: asc.ConstExpr[object]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(a, gm(x), cap)
    out = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, out_cap)
    asc.data_copy(out, gm(z), out_cap)
    asc.cast(out, a, asc.RoundMode(mode), mask=mask, repeat_times=repeat, repeat_params=asc.UnaryRepeatParams(*strides))
    asc.data_copy(gm(z), out, out_cap)


def cast_mask_reference(x: np.ndarray, z0: np.ndarray, convert, mask, repeat: int, strides: tuple) -> np.ndarray:
    """`convert` maps the selected source elements (a NumPy array) to the destination's values."""
    dst_blk, src_blk, dst_rep, src_rep = strides
    per_rep = 256 // max(x.itemsize, z0.itemsize)
    dpb, spb = 32 // z0.itemsize, 32 // x.itemsize
    z = z0.copy()
    for r in range(repeat):
        for e in lanes_of(mask, per_rep):
            z[(r * dst_rep + e // dpb * dst_blk) * dpb + e % dpb] = convert(
                np.array([x[(r * src_rep + e // spb * src_blk) * spb + e % spb]]))[0]
    return z



# -- GatherMask -----------------------------------------------------------------------------------------

@asc.jit
def gather_mask_kernel(x: asc.GlobalAddress, p: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int],
                       n_pat: asc.ConstExpr[int], out_cap: asc.ConstExpr[int], pattern: asc.ConstExpr[object],
                       params: asc.ConstExpr[object]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(a, gm(x), cap)
    out = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, out_cap)
    asc.data_copy(out, gm(z), out_cap)
    if pattern == "tensor":
        bits = asc.LocalTensor(p.dtype, asc.TPosition.VECIN, 131072, n_pat)
        asc.data_copy(bits, gm(p), n_pat)
        asc.gather_mask(out, a, bits, False, 0, asc.GatherMaskParams(*params))
    else:
        n = asc.gather_mask(out, a, pattern, False, 0, asc.GatherMaskParams(*params))
        out.set_value(out_cap - 1, n)
    asc.data_copy(gm(z), out, out_cap)


def gather_mask_reference(x: np.ndarray, pat_words: np.ndarray, z0: np.ndarray, pattern, params: tuple) -> np.ndarray:
    blk, repeat, rep, prep = params
    per_block = 32 // x.itemsize
    per_rep = 8 * per_block
    z = z0.copy()
    k = 0
    for r in range(repeat):
        if pattern == "tensor":
            wbits = 8 * pat_words.itemsize
            base = r * prep * (32 // pat_words.itemsize)
            lanes = [e for e in range(per_rep) if (int(pat_words[base + e // wbits]) >> (e % wbits)) & 1]
        else:
            lanes = {1: range(0, per_rep, 2), 2: range(1, per_rep, 2), 7: range(per_rep)}.get(
                pattern, range(pattern - 3, per_rep, 4))
        for e in lanes:
            z[k] = x[(r * rep + e // per_block * blk) * per_block + e % per_block]
            k += 1
    if pattern != "tensor":
        z[-1] = k
    return z


def header_suite() -> list:
    """Kernels only compiled (the header check, the API-symbol audit): GatherMask and Transpose, whose
    intrinsics the cpu_debug stub layer does not model, and more forms of Gather / Gatherb."""
    out = []
    x16, z16 = np.arange(512, dtype=np.float16), np.zeros(512, np.float16)
    offs = (np.arange(512, dtype=np.uint32) * 2) % 1024
    for form in (("count", 200), ("mask", (0xFFFF, 0xFF), 2, 8)):
        out.append(asc.compile(gather_kernel, (x16, offs, z16, 512, 512, 512, 2, form)))
    pat = np.full(64, 0x5A5A, np.uint16)
    out.append(asc.compile(gather_mask_kernel, (x16, pat, z16, 512, 64, 512, 3, (1, 2, 8, 0))))
    out.append(asc.compile(gather_mask_kernel, (x16, pat, z16, 512, 64, 512, "tensor", (1, 2, 8, 1))))
    u16 = np.arange(512, dtype=np.uint16)
    out.append(asc.compile(gather_kernel, (u16, offs * 16, u16.copy(), 512, 512, 512, 0, ("gatherb", 2, 1, 8))))
    out.append(asc.compile(transpose_kernel, (x16, z16)))
    return out


@asc.jit
def transpose_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """asc.transpose (graph/ops/vec_transpose.py; cpu_debug's stub layer has no vtranspose): the 16 x 16 block
    at element 16 of the UB source into a destination at element 0."""
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 272)
    asc.data_copy(a[16:], gm(x), 256)
    out = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, 256)
    asc.transpose(out, a[16:])
    asc.data_copy(gm(z), out, 256)


def backend_cases(Case) -> list:
    """Cases for tests/backend_cases.py (run bit-exact on sim and cpu_debug by test_cpu_debug.py; emitted for the
    header check): the ops whose intrinsics the cpu_debug stub layer models."""
    out = []
    rng = np.random.default_rng(31)
    for dt in (np.float16, np.float32):
        per_block = 32 // np.dtype(dt).itemsize
        per_rep = 8 * per_block
        cap = (2 * 9 + 7 * 2 + 1) * per_block
        x = (rng.random(cap) * 8 - 4).astype(dt)
        z0 = (rng.random(4 * per_rep) * 8 - 4).astype(dt)
        hi = 0x3C if per_rep > 64 else 0          # mask1 covers lanes 64-127: none for float32
        for op, mask in (("block_reduce_sum", per_rep - 9), ("block_reduce_max", (0xF0F0F0F0F0F0F0F0, hi)),
                         ("block_reduce_min", 37), ("pair_reduce_sum", (0x0FF0FF00FF00FF0F, hi)),
                         ("repeat_reduce_sum", 50)):
            out.append(Case(f"{op}-{np.dtype(dt).name}", reduce_block_kernel,
                            lambda x=x, z0=z0, op=op, mask=mask, n=len(z0): (x, z0.copy(), len(x), n, op, mask, 3, 2, 2, 9),
                            lambda args: args[1]))
        cap2 = (3 * 10 + 7 * 2 + 1) * per_block
        x2 = (rng.random(cap2) * 8 - 4).astype(dt)
        z2 = (rng.random(6 * per_rep) * 8 - 4).astype(dt)
        cmask = (0xF0F0FFFF00FF0F0F, hi)
        out.append(Case(f"copy-{np.dtype(dt).name}", copy_kernel,
                        lambda x2=x2, z2=z2, cmask=cmask: (x2, z2.copy(), len(x2), len(z2), cmask, 3, (2, 2, 11, 10)),
                        lambda args: args[1]))
        out.append(Case(f"brcb-{np.dtype(dt).name}", brcb_kernel,
                        lambda x2=x2, z2=z2: (x2, z2.copy(), len(x2), len(z2), 3, 2, 16), lambda args: args[1]))
        xs = (np.round(x2 * 2) / 2).astype(dt)           # exact ties with the scalar 0.5
        full = (2**64 - 1, 2**64 - 1 if per_rep > 64 else 0)
        for form in (("count", 4 * per_rep), ("mask", full, 4, 2, 10), ("mask", per_rep, 4, 1, 8)):
            out.append(Case(f"compare_scalar-{form[0]}-{type(form[1]).__name__}-{np.dtype(dt).name}", compare_scalar_kernel,
                            lambda xs=xs, form=form, nb=per_rep // 2: (xs, np.zeros(nb, np.uint8), len(xs), nb, 0.5, 4,
                                                                       form),
                            lambda args: args[1]))
    x32 = (rng.random(400) * 600 - 300).astype(np.float32)
    z16 = rng.random(512).astype(np.float16)
    mode = int(asc.RoundMode.CAST_RINT)
    out.append(Case("cast-mask-f32-f16", cast_mask_kernel,
                    lambda: (x32, z16.copy(), 400, 512, mode, (0xF0F0F0F00F0F0FFF, 0), 3, (1, 2, 5, 12)),
                    lambda args: args[1]))
    x16 = (rng.random(512) * 8 - 4).astype(np.float16)
    z32 = rng.random(400).astype(np.float32)
    out.append(Case("cast-mask-f16-f32", cast_mask_kernel,
                    lambda: (x16, z32.copy(), 512, 400, int(asc.RoundMode.CAST_NONE), 50, 3, (2, 1, 17, 5)),
                    lambda args: args[1]))
    # Gather / Gatherb (the stub layer's vgather / vgatherb, the cpp model's asc_trace_gather.h)
    xg = (rng.random(512) * 8 - 4).astype(np.float32)
    og = (rng.integers(0, 500, 512) * 4).astype(np.uint32)
    zg = (rng.random(512) * 8 - 4).astype(np.float32)
    for form in (("count", 300), ("mask", (0xF0F0F0F00F0F0FFF, 0), 3, 9), ("mask", 50, 2, 8)):
        out.append(Case(f"gather-{form[0]}-{type(form[1]).__name__}-float32", gather_kernel,
                        lambda form=form: (xg, og, zg.copy(), 512, 512, 512, 8, form), lambda args: args[2]))
    ug = rng.integers(0, 60000, 512).astype(np.uint16)
    ob = (rng.integers(0, 31, 512) * 32).astype(np.uint32)
    # two repeats 16 blocks apart, blocks 2 apart (the gaps keep the output's old values); the last block ends at
    # element 496 + 16 = 512, the tensor's end (3 repeats 9 blocks apart would end at 528: OutOfBoundsError)
    out.append(Case("gatherb-uint16", gather_kernel,
                    lambda: (ug, ob, ug[::-1].copy(), 512, 512, 512, 0, ("gatherb", 2, 2, 16)), lambda args: args[2]))
    return out + create_vec_index_cases(Case)


@asc.jit
def create_vec_index_kernel(z: asc.GlobalAddress, first, count: int, cap: asc.ConstExpr[int]):
    """asc.create_vec_index (graph/ops/vec_create_vec_index.py) over a UB tensor of `cap` elements that Duplicate
    filled first, so that the copy out shows what lies past `count` too. The scalar unit writes the first block
    before the call's own S_V handshake, so V's Duplicate is waited for on S first (V_S)."""
    o = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, cap)
    asc.duplicate(o, 7, cap)
    asc.set_flag(asc.HardEvent.V_S, 0)
    asc.wait_flag(asc.HardEvent.V_S, 0)
    asc.create_vec_index(o, first, count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gm(z), o, cap)


def create_vec_index_cases(Case) -> list:
    """CreateVecIndex on sim and cpu_debug (the vendor's A2 code: SetValue, then Adds over the stub layer's vadds):
    every dtype, counts inside one block, one repeat and several repeats with tails, firsts where float16 rounds
    and int16 wraps."""
    out = []
    for dt, first, count in (("float16", 2040.5, 1000), ("float16", 0.3, 1000), ("float16", -3.0, 13), ("float32", 16777200.0, 700),
                             ("int16", 32700, 333), ("int32", -5, 2049), ("float32", 0.25, 129)):
        cap = -(-(count + 16) // 64) * 64
        out.append(Case(f"create_vec_index-{dt}-{count}", create_vec_index_kernel,
                        lambda dt=dt, first=first, count=count, cap=cap: (np.zeros(cap, dt), first, count, cap),
                        lambda args: args[0]))
    return out
