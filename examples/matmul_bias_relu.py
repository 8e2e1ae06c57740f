"""relu(A @ B + bias) on the cube core alone, flag-free: the bias goes GM -> L1 (C1) -> the bias table
(C2) and the first K step's Mmad starts from it (cmatrix_source / cmatrix_init_val=False), the later steps
accumulate in L0C, and Fixpipe applies the ReLU on the way out (relu_en) while it writes fp32 rows to GM.
Tiles and ping-pong buffers are matmul_cube.py's; M, N and K may have tails.

Run: python examples/matmul_bias_relu.py
"""
import numpy as np

import asc_trace as asc
from matmul_cube import BASE_K, BASE_M, BASE_N, Tiles, smin, up16


@asc.jit
def matmul_bias_relu(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                     m: int, n: int, k: int):
    t = Tiles(a, b, c)
    t.n = n
    gbias = asc.GlobalTensor()
    gbias.set_global_buffer(bias)
    bias_l1 = asc.LocalTensor(asc.float32, asc.TPosition.C1, 4 * BASE_M * BASE_K * 2, BASE_N)
    bias_bt = asc.LocalTensor(asc.float32, asc.TPosition.C2, 0, BASE_N)
    m_tiles = (m + BASE_M - 1) // BASE_M
    n_tiles = (n + BASE_N - 1) // BASE_N
    full_k = k // BASE_K
    tail_k = k - full_k * BASE_K
    has_tail = (tail_k + BASE_K - 1) // BASE_K       # 0 or 1
    has_full = smin(full_k, 1)                       # 0 or 1
    for tile in range(asc.get_block_idx(), m_tiles * n_tiles, asc.get_block_num()):
        row = tile // n_tiles * BASE_M
        col = tile % n_tiles * BASE_N
        cur_m = smin(m - row, BASE_M)
        cur_n = smin(n - col, BASE_N)
        # the tile's bias: one row, ND in L1, then 64-byte blocks into the bias table
        asc.data_copy(bias_l1, gbias[col:], asc.Nd2NzParams(1, 1, cur_n, 0, n, 1, 1, 0))
        asc.data_copy(bias_bt, bias_l1, asc.DataCopyParams(1, (cur_n * 4 + 63) // 64, 0, 0))
        # the first K step starts from the bias (whether it is a full step or the tail), the others accumulate
        for _ in range(has_full):
            t.k_step(k, 0, cur_m, cur_n, BASE_K, row, col, True, bias=bias_bt)
        for kk in range(1, full_k):
            t.k_step(k, kk, cur_m, cur_n, BASE_K, row, col, False)
        for _ in range(has_tail * (1 - has_full)):
            t.k_step(k, 0, cur_m, cur_n, tail_k, row, col, True, zero_pad=True, bias=bias_bt)
        for _ in range(has_tail * has_full):
            t.k_step(k, full_k, cur_m, cur_n, tail_k, row, col, False, zero_pad=True)
        asc.fixpipe(t.gc[row * n + col:], t.c1,
                    asc.FixpipeParamsV220(cur_n, cur_m, up16(cur_m), n, asc.QuantModes.NoQuant, relu_en=True))


def run(m: int = 200, n: int = 150, k: int = 100, cores: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    matmul_bias_relu[cores](a.ravel(), b.ravel(), bias, c.ravel(), m, n, k)
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0)
    return c, want


if __name__ == "__main__":
    got, want = run()
    print(f"relu(A @ B + bias), 200 x 100 @ 100 x 150 on 3 cube cores: max |error| vs NumPy = "
          f"{np.abs(got - want).max():.3g}")
