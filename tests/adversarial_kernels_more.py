"""Round-3 adversarial kernels (issue 18), written against the scheduler after the proof gate and the
local pruning landed: each with its NumPy reference and the runtime inputs that drive its hard paths.

- row_mix: per row, a branch on a runtime bit between a while loop (halving, any trip count) and a
  runtime for whose trip count depends on the row (zero trips in a streak), one UB tile throughout;
- deep4: a 4-deep nest (a reversed loop, a runtime step of 2, zero-trip levels) whose every step reads
  back from GM what an earlier step wrote (RAW through GM across every loop level), `% 8` addresses
  at each level (the proof's phases past its budget);
- prologue_que: a hand-synchronised prologue (V_MTE3 and MTE3_V ids 0..3) before a TQue pipeline whose
  vector stage is a branch;
- sibling_chain: six sibling runtime loops, each reading back the GM rows the one before wrote, with an
  optional in-place rescale between them (a second tile over the same rows).
"""
from __future__ import annotations


import numpy as np
import asc_trace as asc
from asc_trace import HardEvent as EV
from adversarial_kernels import Case, _x as random_input
L = 64
ROWS = 8


def _x(n: int) -> np.ndarray:
    return random_input(n, seed=5)

# A: per row, a branch on a bit: then = while-halving; else = runtime inner loop with zero trips for some rows
@asc.jit
def row_mix(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, bits: int, reps: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
    for r in range(rows):
        asc.data_copy(t, xg[r * L:], L)
        def halve():
            def body(k):
                asc.muls(t, t, 0.5, L)
                return k + 1
            asc.while_loop(lambda k: k < reps, body, 0)
        def grow():
            for c in range(r % 3):
                asc.adds(t, t, 1.0, L)
        asc.cond((bits // (1 << r)) % 2 == 1, halve, grow)
        asc.muls(u, t, 3.0, L)
        asc.data_copy(zg[r * L:], u, L)

def row_mix_ref(x, rows, bits, reps):
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows):
        t = x[r*L:(r+1)*L].copy()
        if bits >> r & 1:
            for _ in range(reps): t = t * np.float32(0.5)
        else:
            for _ in range(r % 3): t = t + np.float32(1.0)
        z[r*L:(r+1)*L] = t * np.float32(3.0)
    return z

# B: 4-deep nest, reversed middle loop, runtime step 2, GM read-back of the previous row (RAW through GM across iterations)
@asc.jit
def deep4(x: asc.GlobalAddress, z: asc.GlobalAddress, a: int, b: int, c: int, d: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
    for i in range(a):
        for j in range(b - 1, -1, -1):
            for k in range(0, c, 2):
                for m in range(d):
                    asc.data_copy(t, zg[((i + j + k + m) % ROWS) * L:], L)     # read what an earlier step wrote
                    asc.data_copy(u, xg[((i * 3 + m) % ROWS) * L:], L)
                    asc.add(t, t, u, L)
                    asc.data_copy(zg[((i + j + k + m + 1) % ROWS) * L:], t, L)

def deep4_ref(x, a, b, c, d):
    z = np.zeros(ROWS * L, np.float32)
    for i in range(a):
        for j in range(b - 1, -1, -1):
            for k in range(0, c, 2):
                for m in range(d):
                    s = (i + j + k + m) % ROWS
                    t = z[s*L:(s+1)*L] + x[((i*3+m) % ROWS)*L:((i*3+m) % ROWS + 1)*L]
                    o = (i + j + k + m + 1) % ROWS
                    z[o*L:(o+1)*L] = t
    return z

# C: hand-synced prologue with V_MTE3 ids 0..3 and MTE2_V 0..7, then a TQue pipeline main loop with a branch
@asc.jit
def prologue_que(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, bits: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 2)
    qout = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qin, 2, L * 4)
    pipe.init_buffer(qout, 2, L * 4)
    # prologue: zero the first rows of z by hand, through a raw tile after the queues' bytes
    w = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4 * L * 4, L)
    for k in asc.static_range(4):
        asc.duplicate(w, float(k), L)
        asc.set_flag(EV.V_MTE3, k)
        asc.wait_flag(EV.V_MTE3, k)
        asc.data_copy(zg[(ROWS + k) * L:], w, L)
        asc.set_flag(EV.MTE3_V, k)
        asc.wait_flag(EV.MTE3_V, k)
    for r in range(rows):
        a = qin.alloc_tensor(asc.float32)
        asc.data_copy(a, xg[r * L:], L)
        qin.enque(a)
        b = qin.deque(asc.float32)
        o = qout.alloc_tensor(asc.float32)
        def dbl():
            asc.muls(o, b, 2.0, L)
        def neg():
            asc.muls(o, b, -1.0, L)
        asc.cond((bits // (1 << r)) % 2 == 1, dbl, neg)
        qout.enque(o)
        qin.free_tensor(b)
        oo = qout.deque(asc.float32)
        asc.data_copy(zg[r * L:], oo, L)
        qout.free_tensor(oo)

def prologue_que_ref(x, rows, bits):
    z = np.zeros((ROWS + 4) * L, np.float32)
    for k in range(4): z[(ROWS+k)*L:(ROWS+k+1)*L] = k
    for r in range(rows):
        z[r*L:(r+1)*L] = x[r*L:(r+1)*L] * (2.0 if bits >> r & 1 else -1.0)
    return z

# D: long chain of sibling runtime loops, each reading back the GM rows the previous loop wrote, branches between
@asc.jit
def sibling_chain(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, bits: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    asc.data_copy(t, xg, L)
    asc.data_copy(zg, t, L)
    for s in asc.static_range(6):
        for i in range(n):
            asc.data_copy(t, zg[((s + i) % 4) * L:], L)
            asc.adds(t, t, float(s + 1), L)
            asc.data_copy(zg[((s + i + 1) % 4) * L:], t, L)
        def sc(s=s):
            t2 = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
            asc.data_copy(t2, zg[(s % 4) * L:], L)
            asc.muls(t2, t2, 0.5, L)
            asc.data_copy(zg[(s % 4) * L:], t2, L)
        asc.cond((bits // (1 << s)) % 2 == 1, sc, lambda: None)

def sibling_chain_ref(x, n, bits):
    z = np.zeros(4 * L, np.float32)
    z[:L] = x[:L]
    for s in range(6):
        for i in range(n):
            t = z[((s+i) % 4)*L:((s+i) % 4 + 1)*L] + np.float32(s + 1)
            o = (s + i + 1) % 4
            z[o*L:(o+1)*L] = t
        if bits >> s & 1:
            z[(s % 4)*L:(s % 4 + 1)*L] = z[(s % 4)*L:(s % 4 + 1)*L] * np.float32(0.5)
    return z

CASES = (
    Case("row_mix", row_mix, lambda rows, bits, reps: (_x(ROWS * L), np.zeros(ROWS * L, np.float32), rows, bits, reps),
         row_mix_ref, ((8, 0b10100101, 2), (8, 0, 0), (8, 0xff, 3), (5, 0b00011000, 1), (0, 0xff, 2))),
    Case("deep4", deep4, lambda a, b, c, d: (_x(ROWS * L), np.zeros(ROWS * L, np.float32), a, b, c, d), deep4_ref,
         ((2, 2, 3, 2), (1, 0, 3, 2), (2, 3, 0, 1), (3, 1, 4, 0), (1, 2, 5, 3))),
    Case("prologue_que", prologue_que, lambda rows, bits: (_x(ROWS * L), np.zeros((ROWS + 4) * L, np.float32), rows, bits),
         prologue_que_ref, ((8, 0b10110001), (1, 1), (0, 0), (8, 0))),
    Case("sibling_chain", sibling_chain, lambda n, bits: (_x(4 * L), np.zeros(4 * L, np.float32), n, bits),
         sibling_chain_ref, ((3, 0b101010), (0, 0b111111), (5, 0), (1, 0b000001))),
)
