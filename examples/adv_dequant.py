"""Per-channel dequantisation and a row mean with the high-level API, flag-free: int32 accumulators
(rows x cols, e.g. an int8 matmul's output) times a float scale per column (AscendDequant), then each row's
mean (Mean), tiled over a runtime loop with double-buffered queues.
Run: python examples/adv_dequant.py [sim|eager|cpu_debug]"""
import sys

import numpy as np

import asc_trace as asc


@asc.jit
def dequant_mean_kernel(x: asc.GlobalAddress, scale: asc.GlobalAddress, y: asc.GlobalAddress,
                        m: asc.GlobalAddress, tiles: int, rows: asc.ConstExpr[int], cols: asc.ConstExpr[int],
                        tmp_bytes: asc.ConstExpr[int]):
    tile = rows * cols
    core = asc.get_block_idx()
    xg, sg, yg, mg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + core * tiles * tile, tiles * tile)
    sg.set_global_buffer(scale, cols)
    yg.set_global_buffer(y + core * tiles * tile, tiles * tile)
    mg.set_global_buffer(m + core * tiles * 8, tiles * 8)     # one 32-byte block of means per tile
    pipe = asc.TPipe()
    in_q, scale_q = asc.TQue(asc.TPosition.VECIN, 2), asc.TQue(asc.TPosition.VECIN, 1)
    out_q, mean_q = asc.TQue(asc.TPosition.VECOUT, 2), asc.TQue(asc.TPosition.VECOUT, 2)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_q, 2, tile * 4)
    pipe.init_buffer(scale_q, 1, cols * 4)
    pipe.init_buffer(out_q, 2, tile * 4)
    pipe.init_buffer(mean_q, 2, 32)
    pipe.init_buffer(tmp_buf, tmp_bytes)
    sc = scale_q.alloc_tensor(asc.float32)
    asc.data_copy(sc, sg, cols)
    scale_q.enque(sc)
    sc = scale_q.deque(asc.float32)
    for i in range(tiles):
        src = in_q.alloc_tensor(asc.int32)
        asc.data_copy(src, xg[i * tile:], tile)
        in_q.enque(src)
        src = in_q.deque(asc.int32)
        dst = out_q.alloc_tensor(asc.float32)
        asc.adv.dequant(dst, src, sc, asc.adv.DequantParams(rows, cols, cols), tmp_buf.get(asc.uint8))
        mean = mean_q.alloc_tensor(asc.float32)
        asc.adv.mean(mean, dst, asc.adv.MeanParams(rows, cols, cols), tmp_buf.get(asc.uint8))
        in_q.free_tensor(src)
        out_q.enque(dst)
        mean_q.enque(mean)
        dst = out_q.deque(asc.float32)
        asc.data_copy(yg[i * tile:], dst, tile)
        out_q.free_tensor(dst)
        mean = mean_q.deque(asc.float32)
        asc.data_copy(mg[i * 8:], mean, 8)
        mean_q.free_tensor(mean)
    scale_q.free_tensor(sc)


def run(backend: str = "sim", cores: int = 2, tiles: int = 3, rows: int = 4, cols: int = 128, seed: int = 2026):
    rng = np.random.default_rng(seed)
    x = rng.integers(-2**20, 2**20, cores * tiles * rows * cols, dtype=np.int32)
    scale = rng.uniform(1e-4, 1e-3, cols).astype(np.float32)
    y = np.zeros(x.size, np.float32)
    means = np.zeros(cores * tiles * 8, np.float32)
    dq_max, _dq_min = asc.adv.get_ascend_dequant_max_min_tmp_size([rows, cols], 4)
    mean_max, _ = asc.adv.get_mean_max_min_tmp_size(cols, 4, 4)
    asc.jit(dequant_mean_kernel, backend=backend)[cores](x, scale, y, means, tiles, rows, cols,
                                                         max(dq_max, mean_max))
    want = (x.reshape(-1, cols).astype(np.float32) * scale)      # int -> float, one float multiply: exact
    got_means = means.reshape(-1, 8)[:, :rows].reshape(-1)      # the rest of each block is not written
    return (y, got_means), (want.reshape(-1), want.reshape(-1, cols).astype(np.float64).mean(axis=1))


if __name__ == "__main__":
    (y, means), (want, want_mean) = run(*(sys.argv[1:2] or ["sim"]))
    print("dequant: equal to int -> float x scale:", np.array_equal(y, want))
    print("mean: within 2e-6 of float64:", np.allclose(means, want_mean, rtol=2e-6, atol=1e-6))
