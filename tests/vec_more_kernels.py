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
    return out
