"""LayerNorm with the high-level API, as the vendor's sample is written: the host sizes the temporary buffer
(GetLayerNormMaxMinTmpSize) and fills the LayerNormTiling (GetLayerNormNDTilingInfo); the kernel is one
asc.adv.layernorm call between TQue copies, writing the normalised rows and each row's mean and variance.
No flags. Run: python examples/adv_layernorm.py [sim|eager|cpu_debug]"""
import sys

import numpy as np

import asc_trace as asc


@asc.jit
def layernorm_kernel(x: asc.GlobalAddress, gamma: asc.GlobalAddress, beta: asc.GlobalAddress, y: asc.GlobalAddress,
                     mean: asc.GlobalAddress, var: asc.GlobalAddress, rows: asc.ConstExpr[int], h: asc.ConstExpr[int],
                     tmp_bytes: asc.ConstExpr[int], eps: asc.ConstExpr[float],
                     tiling: asc.ConstExpr[asc.adv.LayerNormTiling]):
    n = rows * h
    core = asc.get_block_idx()
    xg, gg, bg, yg, mg, vg = (asc.GlobalTensor() for _ in range(6))
    xg.set_global_buffer(x + core * n, n)
    gg.set_global_buffer(gamma, h)
    bg.set_global_buffer(beta, h)
    yg.set_global_buffer(y + core * n, n)
    mg.set_global_buffer(mean + core * rows, rows)
    vg.set_global_buffer(var + core * rows, rows)
    pipe = asc.TPipe()
    in_q, gb_q = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1)
    out_q, stat_q = asc.TQue(asc.TPosition.VECOUT, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    size = x.dtype.sizeof()
    pipe.init_buffer(in_q, 1, n * size)
    pipe.init_buffer(gb_q, 1, 2 * h * size)
    pipe.init_buffer(out_q, 1, n * size)
    pipe.init_buffer(stat_q, 1, 2 * rows * size)
    pipe.init_buffer(tmp_buf, tmp_bytes)
    src, gb = in_q.alloc_tensor(x.dtype), gb_q.alloc_tensor(x.dtype)
    asc.data_copy(src, xg, n)
    asc.data_copy(gb, gg, h)
    asc.data_copy(gb[h:], bg, h)
    in_q.enque(src)
    gb_q.enque(gb)
    src, gb = in_q.deque(x.dtype), gb_q.deque(x.dtype)
    dst, stats = out_q.alloc_tensor(x.dtype), stat_q.alloc_tensor(x.dtype)
    asc.adv.layernorm(dst, stats, stats[rows:], src, gb, gb[h:], eps, tiling, tmp_buf.get(asc.uint8))
    out_q.enque(dst)
    stat_q.enque(stats)
    in_q.free_tensor(src)
    gb_q.free_tensor(gb)
    dst, stats = out_q.deque(x.dtype), stat_q.deque(x.dtype)
    asc.data_copy(yg, dst, n)
    asc.data_copy(mg, stats, rows)
    asc.data_copy(vg, stats[rows:], rows)
    out_q.free_tensor(dst)
    stat_q.free_tensor(stats)


def run(backend: str = "sim", cores: int = 4, rows: int = 16, h: int = 128, dtype=np.float32, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((cores * rows, h)) * 2 + 0.5).astype(dtype)
    gamma, beta = (rng.random(h) + 0.5).astype(dtype), rng.standard_normal(h).astype(dtype)
    y, mean, var = np.zeros_like(x), np.zeros(cores * rows, dtype), np.zeros(cores * rows, dtype)
    _max, tmp_bytes = asc.adv.get_layernorm_max_min_tmp_size([1, rows, h, h], x.itemsize)
    tmp_bytes *= 4                                       # four rows a pass
    tiling = asc.adv.get_layernorm_nd_tiling_info([1, rows, h, h], tmp_bytes, x.itemsize)
    asc.jit(layernorm_kernel, backend=backend)[cores](x, gamma, beta, y, mean, var, rows, h, tmp_bytes, 1e-5, tiling)
    x64 = x.astype(np.float64)
    mu, v = x64.mean(axis=1), x64.var(axis=1)
    want = (x64 - mu[:, None]) / np.sqrt(v[:, None] + 1e-5) * gamma + beta
    return (y, mean, var), (want, mu, v)


if __name__ == "__main__":
    (got, m, v), (want, mu, var) = run(*(sys.argv[1:2] or ["sim"]))
    print("layernorm within float tolerance of float64:", np.allclose(got, want, rtol=2e-5, atol=4e-6),
          np.allclose(m, mu, rtol=2e-5, atol=1e-6), np.allclose(v, var, rtol=2e-5, atol=4e-6))
