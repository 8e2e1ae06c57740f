"""gelu(A @ B + bias) as a mixed kernel (KERNEL_TYPE_MIX_AIC_1_2), written without a single flag.

Each AI core takes output tiles of BASE_M x BASE_N in turn. Its cube core computes the tile with fp32
accumulation (matmul_cube.py's ping-pong K steps) and Fixpipes it, fp32, into its slot of a GM workspace:
on Atlas A2 the cube's results reach the vector cores through GM only. Its two vector cores each take half
of the tile's rows (`get_sub_block_idx()`), read them from the workspace, add the bias row, apply
`asc.adv.gelu` and write the valid columns to C. Nothing says which core runs what: cube calls run on the
cube core, vector calls on the vector cores. auto_sync derives the cross-core flags from the dataflow
through the workspace: the cube sets "ready" after its Fixpipe and the vector cores wait for it before
reading; since the slot is written again for the next tile, the vector cores acknowledge their read
and the cube waits for that before its next Fixpipe (print the compiled graph to see them).
M, N and K need not be multiples of anything: the last tiles are smaller.

Run: python examples/matmul_bias_gelu_mix.py
"""
import numpy as np

import asc_trace as asc
from matmul_cube import BASE_K, BASE_M, BASE_N, Tiles, smin, up16

HALF = BASE_M // 2                     # rows of a tile per vector core
TILE = BASE_M * BASE_N                 # fp32 elements of one workspace slot
# Gelu's scratch, given explicitly: without it the vendor's Gelu takes the UB after the TPipe's buffers
# (PopStackBuffer), and this kernel's LocalTensors are placed in one buffer over the whole usable UB, so the
# vendor's API would find none ("params.stackSize must > 0"); the size at which it runs in one pass
GELU_TMP = asc.adv.get_gelu_max_min_tmp_size([HALF * BASE_N], 4)[0]


def smax0(a):
    return a * (a > 0)


@asc.jit
def matmul_bias_gelu_mix(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                         ws: asc.GlobalAddress, m: int, n: int, k: int):
    t = Tiles(a, b, ws)                # the cube's output is the workspace
    t.n = n
    gbias, gc = asc.GlobalTensor(), asc.GlobalTensor()
    gbias.set_global_buffer(bias)
    gc.set_global_buffer(c)
    x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, HALF * BASE_N)
    y = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, HALF * BASE_N * 4, HALF * BASE_N)
    brow = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 2 * HALF * BASE_N * 4, BASE_N)
    tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, (2 * HALF + 1) * BASE_N * 4, GELU_TMP)
    m_tiles = (m + BASE_M - 1) // BASE_M
    n_tiles = (n + BASE_N - 1) // BASE_N
    full_k = k // BASE_K
    tail_k = k - full_k * BASE_K
    ai_core = asc.get_block_idx() // asc.get_task_ratio()      # the same on the cube and its vector cores
    slot = ai_core * TILE
    for tile in range(ai_core, m_tiles * n_tiles, asc.get_block_num()):
        row = tile // n_tiles * BASE_M
        col = tile % n_tiles * BASE_N
        cur_m = smin(m - row, BASE_M)
        cur_n = smin(n - col, BASE_N)
        # the cube core: the tile, fp32, into the workspace slot (rows BASE_N apart)
        for kk in range(full_k):
            t.k_step(k, kk, cur_m, cur_n, BASE_K, row, col, kk == 0)
        for _ in range((tail_k + BASE_K - 1) // BASE_K):
            t.k_step(k, full_k, cur_m, cur_n, tail_k, row, col, full_k == 0, zero_pad=True)
        asc.fixpipe(t.gc[slot:], t.c1, asc.FixpipeParamsV220(cur_n, cur_m, up16(cur_m), BASE_N,
                                                              asc.QuantModes.NoQuant))
        # each vector core: its half of the rows, + bias, GELU, out to C
        r0 = asc.get_sub_block_idx() * HALF
        rows = smax0(smin(cur_m - r0, HALF))
        for _ in range(smin(rows, 1)):
            asc.data_copy(x, t.gc[slot + r0 * BASE_N:], rows * BASE_N)
            asc.data_copy_pad(brow, gbias[col:], asc.DataCopyExtParams(1, cur_n * 4, 0, 0, 0),
                              asc.DataCopyPadExtParams(False, 0, 0, 0))
            for r in range(rows):
                asc.add(x[r * BASE_N:], x[r * BASE_N:], brow, BASE_N)
            asc.adv.gelu(y, x, rows * BASE_N, tmp)
            gap = (BASE_N * 4 - (cur_n * 4 + 31) // 32 * 32) // 32
            asc.data_copy_pad(gc[(row + r0) * n + col:], y, asc.DataCopyExtParams(rows, cur_n * 4, gap,
                                                                                  (n - cur_n) * 4, 0))


def gelu_ref(x: np.ndarray) -> np.ndarray:
    """The vendor's Gelu (tanh form, graph/ops/adv_activation.py), in float32."""
    y = 1.5957691216057308 * (x + 0.044715 * x ** 3)
    return (x / (np.exp(-np.abs(y)) + 1) * np.exp(np.minimum(y, 0))).astype(np.float32)


def run(m: int = 200, n: int = 150, k: int = 100, cores: int = 2, seed: int = 0,
        kernel=None) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(cores * TILE, np.float32)
    (kernel or matmul_bias_gelu_mix)[cores](a.ravel(), b.ravel(), bias, c.ravel(), ws, m, n, k)
    want = gelu_ref(a.astype(np.float32) @ b.astype(np.float32) + bias)
    return c, want


if __name__ == "__main__":
    got, want = run()
    print(f"gelu(A @ B + bias), 200 x 100 @ 100 x 150 on 2 AI cores (2 cube + 4 vector cores): "
          f"max |error| vs NumPy = {np.abs(got - want).max():.3g}")
