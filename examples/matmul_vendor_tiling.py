"""The vendor's basic-API high-performance matmul (asc-devkit examples/01_simd_cpp_api/05_best_practices/
01_matrix_compute/matmul_basic_api_high_performance) written asc_trace's way: no flags, auto_sync derives
them. fp16 A (M x K, row-major) times B given transposed (N x K, row-major), fp32 accumulation, fp16 C.

The vendor's tiling: base block 128 x 256 x 64, L1 packets of 8 K steps of A (128 x 512) and 4 of B
(256 x 256), ping-pong in L1 (all 512 KB of it) and in L0A / L0B, a grid of cores over M x N (4 x 6 for
8192^3 on 24 cores: 2048 x 1536 each, the last column 512 wide). A's K step goes from its Nz packet to
L0A in Zz order with one LoadData3DV2 (as the vendor's kernel does), B's Nz packet of B^T is already Zn:
one LoadData of 64 fractals.

Run: python examples/matmul_vendor_tiling.py   (a small shape, checked against NumPy)
"""
import numpy as np

import asc_trace as asc
from matmul_cube import smin

BM, BN, BK = 128, 256, 64
STEP_KA, STEP_KB = 8, 4                 # K steps per L1 packet of A / of B
A_PACKET = BM * BK * STEP_KA            # elements
B_PACKET = BN * BK * STEP_KB


@asc.jit
def matmul_vendor_tiling(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, k: int,
                         single_m: int, single_n: int, grid_n: int):
    ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(bt)
    gc.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 2 * A_PACKET)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 4 * A_PACKET, 2 * B_PACKET)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 2 * BM * BK)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 2 * BK * BN)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, BM * BN)
    blk = asc.get_block_idx()
    row0 = blk // grid_n * single_m
    col0 = blk % grid_n * single_n
    # the last grid row / column may be short, or empty: 0 then, not negative (two negative tile counts
    # would multiply into a positive trip count)
    core_m = smin(m - row0, single_m) * (m > row0)
    core_n = smin(n - col0, single_n) * (n > col0)
    tiles_m = (core_m + BM - 1) // BM           # rounded up: a short last tile, never a dropped one
    tiles_n = (core_n + BN - 1) // BN
    for t in range(tiles_m * tiles_n):
        row = row0 + t // tiles_n * BM
        col = col0 + t % tiles_n * BN
        rows = smin(core_m - t // tiles_n * BM, BM)
        cols = smin(core_n - t % tiles_n * BN, BN)
        for kp in range(k // (BK * STEP_KA)):
            a_pk = a1[kp % 2 * A_PACKET:]
            asc.data_copy(a_pk, ga[row * k + kp * BK * STEP_KA:],
                          asc.Nd2NzParams(1, rows, BK * STEP_KA, 0, k, BM, 1, 0))
            for kb in range(STEP_KA // STEP_KB):
                b_pk = b1[kb % 2 * B_PACKET:]
                asc.data_copy(b_pk, gb[col * k + kp * BK * STEP_KA + kb * BK * STEP_KB:],
                              asc.Nd2NzParams(1, cols, BK * STEP_KB, 0, k, BN, 1, 0))
                for ks in range(STEP_KB):
                    step = kb * STEP_KB + ks            # K step inside the A packet
                    buf = ks % 2
                    # the A packet (BM rows x BK * STEP_KA channels) -> this step's BM x BK slice in Zz, at once
                    asc.load_data(a2[buf * BM * BK:], a_pk,
                                  asc.LoadData3DParamsV2((0, 0, 0, 0), 1, BM, BK * STEP_KA, BK, BM, step * BK, 0))
                    asc.load_data(b2[buf * BK * BN:], b_pk[ks * 4 * BN * 16:],       # B^T's Nz is Zn already
                                  asc.LoadData2DParams(0, BK // 16 * (BN // 16), 1, 0, 0, False, 0))
                    first = (kp == 0) * (step == 0)
                    # full 128 x 256 blocks even for a short tile: the rows / columns past `rows` / `cols` hold
                    # stale L1 bytes, which reach only the L0C rows / columns Fixpipe does not write
                    asc.mmad(c1, a2[buf * BM * BK:], b2[buf * BK * BN:],
                             asc.MmadParams(BM, BN, BK, unit_flag=0, cmatrix_source=False, cmatrix_init_val=first))
        asc.fixpipe(gc[row * n + col:], c1, asc.FixpipeParamsV220(cols, rows, BM, n, asc.QuantModes.F322F16))


def grid(m: int, n: int, cores: int, grid_m: int, grid_n: int) -> tuple[int, int]:
    """(single_m, single_n) for a grid_m x grid_n core grid: M split evenly, N in multiples of BN (the last row /
    column of cores takes what is left, maybe nothing)."""
    if grid_m * grid_n != cores:
        raise ValueError(f"a {grid_m} x {grid_n} grid is {grid_m * grid_n} cores, not {cores}")
    single_m, single_n = -(-m // grid_m), -(-n // grid_n)
    return single_m, -(-single_n // BN) * BN


def check_k(k: int) -> None:
    """The vendor's kernel has no K tail: K goes to L1 in packets of BK * STEP_KA channels."""
    if k % (BK * STEP_KA):
        raise ValueError(f"K = {k} is not a multiple of {BK * STEP_KA} (the L1 packet of A); "
                         "examples/matmul_cube.py handles any K")


def run(m: int = 256, n: int = 768, k: int = 1024, grid_m: int = 2, grid_n: int = 2, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    check_k(k)
    single_m, single_n = grid(m, n, grid_m * grid_n, grid_m, grid_n)
    matmul_vendor_tiling[grid_m * grid_n](a.ravel(), np.ascontiguousarray(b.T).ravel(), c.ravel(), m, n, k,
                                          single_m, single_n, grid_n)
    return c, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)


if __name__ == "__main__":
    got, want = run()
    print("vendor-tiled matmul 256 x 1024 @ 1024 x 768 on 4 cube cores: max |error| =",
          float(np.abs(got.astype(np.float32) - want.astype(np.float32)).max()))
