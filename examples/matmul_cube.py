"""A tiled fp16 matmul on the cube core, written without a single flag: C = A @ B with fp32 accumulation.

A (M x K) and B (K x N) are row-major fp16 in GM; C (M x N) is fp16 (Fixpipe rounds the fp32 result).
Each core takes output tiles of BASE_M x BASE_N in turn and walks K in BASE_K steps: GM -> L1 in the Nz
layout (data_copy with Nd2NzParams, MTE2), L1 -> L0A / L0B (load_data, MTE1), Mmad into L0C (M), and
Fixpipe L0C -> GM (FIX). L1 and L0 buffers are ping-pong (`k % 2`), so the next K step's copies overlap
this one's Mmad; auto_sync derives every set_flag / wait_flag between the four pipes, the "buffer free"
flags back included. M, N and K need not be multiples of anything: the last tile of each is smaller, and
the K tail's padding in L1 is zeroed first (Mmad multiplies whatever the padding holds).

Run: python examples/matmul_cube.py   (the sim backend: cube kernels run on the simulator)
"""
import numpy as np

import asc_trace as asc

BASE_M, BASE_N, BASE_K = 128, 128, 64
A1_BYTES = BASE_M * BASE_K * 2          # one ping-pong half of L1 for A
B1_BYTES = BASE_K * BASE_N * 2


def smin(a, b):
    """min of two runtime integers (no Python `if` on a traced value)."""
    return b + (a - b) * (a < b)


def up16(x):
    return (x + 15) // 16 * 16


@asc.jit
def matmul_cube(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, k: int):
    ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    gc.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 2 * BASE_M * BASE_K)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 2 * A1_BYTES, 2 * BASE_K * BASE_N)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 2 * BASE_M * BASE_K)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 2 * BASE_K * BASE_N)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, BASE_M * BASE_N)
    m_tiles = (m + BASE_M - 1) // BASE_M
    n_tiles = (n + BASE_N - 1) // BASE_N
    full_k = k // BASE_K
    tail_k = k - full_k * BASE_K

    def k_step(kk, cur_m, cur_n, cur_k, row, col, buf, first, zero_pad):
        a_buf, b_buf = a1[buf * BASE_M * BASE_K:], b1[buf * BASE_K * BASE_N:]
        a_l0, b_l0 = a2[buf * BASE_M * BASE_K:], b2[buf * BASE_K * BASE_N:]
        m16, k16, n16 = up16(cur_m), up16(cur_k), up16(cur_n)
        if zero_pad:        # the K tail: Mmad reads the padding up to 16, so it must hold zeros
            asc.init_const_value(a_buf, asc.InitConstValueParams(1, A1_BYTES // 32, 0, 0.0))
            asc.init_const_value(b_buf, asc.InitConstValueParams(1, B1_BYTES // 32, 0, 0.0))
        asc.data_copy(a_buf, ga[row * k + kk * BASE_K:], asc.Nd2NzParams(1, cur_m, cur_k, 0, k, m16, 1, 0))
        asc.data_copy(b_buf, gb[kk * BASE_K * n + col:], asc.Nd2NzParams(1, cur_k, cur_n, 0, n, k16, 1, 0))
        m1, k1, n1 = m16 // 16, k16 // 16, n16 // 16
        for i in asc.range(m1):     # Nz -> Zz: one row of fractals at a time
            asc.load_data(a_l0[i * k1 * 256:], a_buf[i * 256:], asc.LoadData2DParams(0, k1, m1, 0, 0, False, 0))
        for i in asc.range(k1):     # Nz -> Zn: each fractal transposed
            asc.load_data(b_l0[i * n1 * 256:], b_buf[i * 256:], asc.LoadData2DParams(0, n1, k1, 0, 0, True, 0))
        asc.mmad(c1, a_l0, b_l0, asc.MmadParams(cur_m, cur_n, cur_k, unit_flag=0, cmatrix_source=False,
                                                cmatrix_init_val=first))

    for t in range(asc.get_block_idx(), m_tiles * n_tiles, asc.get_block_num()):
        row = t // n_tiles * BASE_M
        col = t % n_tiles * BASE_N
        cur_m = smin(m - row, BASE_M)
        cur_n = smin(n - col, BASE_N)
        for kk in range(full_k):
            k_step(kk, cur_m, cur_n, BASE_K, row, col, kk % 2, kk == 0, False)
        for _ in range((tail_k + BASE_K - 1) // BASE_K):     # zero or one step: the K tail
            k_step(full_k, cur_m, cur_n, tail_k, row, col, full_k % 2, full_k == 0, True)
        asc.fixpipe(gc[row * n + col:], c1, asc.FixpipeParamsV220(cur_n, cur_m, up16(cur_m), n, asc.QuantModes.F322F16))


def run(m: int = 300, n: int = 200, k: int = 150, cores: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    matmul_cube[cores](a.ravel(), b.ravel(), c.ravel(), m, n, k)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    return c, want


if __name__ == "__main__":
    got, want = run()
    err = np.abs(got.astype(np.float32) - want.astype(np.float32)).max()
    print(f"matmul_cube 300 x 150 @ 150 x 200 on 4 cube cores: max |error| vs NumPy (fp32 accumulation) = {err:.4g}")
