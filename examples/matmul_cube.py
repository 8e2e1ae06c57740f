"""A tiled fp16 matmul on the cube core, written without a single flag: C = A @ B with fp32 accumulation.

A (M x K) and B (K x N) are row-major fp16 in GM; C (M x N) is fp16 (Fixpipe rounds the fp32 result).
Each core takes output tiles of BASE_M x BASE_N in turn and walks K in BASE_K steps: GM -> L1 in the Nz
layout (data_copy with Nd2NzParams, MTE2), L1 -> L0A (one load_data with LoadData3DParamsV2) and L0B
(load_data with LoadData2DParams, a transpose per fractal) on MTE1, Mmad into L0C (M), and
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


class Tiles:
    """The kernel's L1 / L0 buffers (ping-pong halves) and its GM tensors."""

    def __init__(self, a, b, c):
        self.ga, self.gb, self.gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        self.ga.set_global_buffer(a)
        self.gb.set_global_buffer(b)
        self.gc.set_global_buffer(c)
        self.a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 2 * BASE_M * BASE_K)
        self.b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 2 * A1_BYTES, 2 * BASE_K * BASE_N)
        self.a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 2 * BASE_M * BASE_K)
        self.b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 2 * BASE_K * BASE_N)
        self.c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, BASE_M * BASE_N)

    def k_step(self, k, kk, cur_m, cur_n, cur_k, row, col, first, zero_pad=False, bias=None):
        """C (+)= A[row:, kk*BASE_K:] @ B[kk*BASE_K:, col:] for one K step, in ping-pong half kk % 2.
        `first`: start L0C from zero (or, with `bias` in the bias table, from the bias)."""
        buf = kk % 2
        a_buf, b_buf = self.a1[buf * BASE_M * BASE_K:], self.b1[buf * BASE_K * BASE_N:]
        a_l0, b_l0 = self.a2[buf * BASE_M * BASE_K:], self.b2[buf * BASE_K * BASE_N:]
        n = self.n
        m16, k16, n16 = up16(cur_m), up16(cur_k), up16(cur_n)
        if zero_pad:        # the K tail: Mmad reads the padding up to 16, so it must hold zeros
            asc.init_const_value(a_buf, asc.InitConstValueParams(1, A1_BYTES // 32, 0, 0.0))
            asc.init_const_value(b_buf, asc.InitConstValueParams(1, B1_BYTES // 32, 0, 0.0))
        asc.data_copy(a_buf, self.ga[row * k + kk * BASE_K:], asc.Nd2NzParams(1, cur_m, cur_k, 0, k, m16, 1, 0))
        asc.data_copy(b_buf, self.gb[kk * BASE_K * n + col:], asc.Nd2NzParams(1, cur_k, cur_n, 0, n, k16, 1, 0))
        k1, n1 = k16 // 16, n16 // 16
        # Nz -> Zz in one instruction (the m16 x k16 matrix as a 1 x m16 feature map of k16 channels)
        asc.load_data(a_l0, a_buf, asc.LoadData3DParamsV2((0, 0, 0, 0), 1, m16, k16, k16, m16, 0, 0))
        for i in asc.range(k1):     # Nz -> Zn: each fractal transposed
            asc.load_data(b_l0[i * n1 * 256:], b_buf[i * 256:], asc.LoadData2DParams(0, n1, k1, 0, 0, True, 0))
        if bias is not None:
            asc.mmad(self.c1, a_l0, b_l0, bias, asc.MmadParams(cur_m, cur_n, cur_k, unit_flag=0, cmatrix_source=True,
                                                               cmatrix_init_val=False))
        else:
            asc.mmad(self.c1, a_l0, b_l0, asc.MmadParams(cur_m, cur_n, cur_k, unit_flag=0, cmatrix_source=False,
                                                         cmatrix_init_val=first))


@asc.jit
def matmul_cube(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, k: int):
    t = Tiles(a, b, c)
    t.n = n
    m_tiles = (m + BASE_M - 1) // BASE_M
    n_tiles = (n + BASE_N - 1) // BASE_N
    full_k = k // BASE_K
    tail_k = k - full_k * BASE_K
    for tile in range(asc.get_block_idx(), m_tiles * n_tiles, asc.get_block_num()):
        row = tile // n_tiles * BASE_M
        col = tile % n_tiles * BASE_N
        cur_m = smin(m - row, BASE_M)
        cur_n = smin(n - col, BASE_N)
        for kk in range(full_k):
            t.k_step(k, kk, cur_m, cur_n, BASE_K, row, col, kk == 0)
        for _ in range((tail_k + BASE_K - 1) // BASE_K):     # zero or one step: the K tail
            t.k_step(k, full_k, cur_m, cur_n, tail_k, row, col, full_k == 0, zero_pad=True)
        asc.fixpipe(t.gc[row * n + col:], t.c1,
                    asc.FixpipeParamsV220(cur_n, cur_m, up16(cur_m), n, asc.QuantModes.F322F16))


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
