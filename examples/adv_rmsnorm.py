"""RmsNorm with the high-level API, as the vendor's sample is written: the host sizes the temporary buffer
(GetRmsNormMaxMinTmpSize) and fills the RmsNormTiling (GetRmsNormTilingInfo); the kernel is one
asc.adv.rmsnorm call between TQue copies. h is padded to 32 bytes, original_h keeps the true length.
No flags. Run: python examples/adv_rmsnorm.py [sim|eager|cpu_debug]"""
import sys

import numpy as np

import asc_trace as asc


@asc.jit
def rmsnorm_kernel(x: asc.GlobalAddress, gamma: asc.GlobalAddress, y: asc.GlobalAddress, rows: asc.ConstExpr[int],
                   h: asc.ConstExpr[int], tmp_bytes: asc.ConstExpr[int], eps: asc.ConstExpr[float],
                   tiling: asc.ConstExpr[asc.adv.RmsNormTiling]):
    n = rows * h
    core = asc.get_block_idx()
    xg, gg, yg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + core * n, n)
    gg.set_global_buffer(gamma, h)
    yg.set_global_buffer(y + core * n, n)
    pipe = asc.TPipe()
    in_q, g_q, out_q = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1), \
        asc.TQue(asc.TPosition.VECOUT, 1)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_q, 1, n * x.dtype.sizeof())
    pipe.init_buffer(g_q, 1, h * x.dtype.sizeof())
    pipe.init_buffer(out_q, 1, n * x.dtype.sizeof())
    pipe.init_buffer(tmp_buf, tmp_bytes)
    src, g = in_q.alloc_tensor(x.dtype), g_q.alloc_tensor(x.dtype)
    asc.data_copy(src, xg, n)
    asc.data_copy(g, gg, h)
    in_q.enque(src)
    g_q.enque(g)
    src, g = in_q.deque(x.dtype), g_q.deque(x.dtype)
    dst = out_q.alloc_tensor(x.dtype)
    asc.adv.rmsnorm(dst, src, g, eps, tiling, tmp_buf.get(asc.uint8))
    out_q.enque(dst)
    in_q.free_tensor(src)
    g_q.free_tensor(g)
    dst = out_q.deque(x.dtype)
    asc.data_copy(yg, dst, n)
    out_q.free_tensor(dst)


def run(backend: str = "sim", cores: int = 4, rows: int = 8, h: int = 256, true_h: int = 250, dtype=np.float16,
        seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((cores * rows, h)).astype(dtype)
    x[:, true_h:] = 0                                    # the padding
    gamma = (rng.random(h) + 0.5).astype(dtype)
    y = np.zeros_like(x)
    _max, tmp_bytes = asc.adv.get_rms_norm_max_min_tmp_size([1, rows, h], x.itemsize)
    tmp_bytes *= 2                                       # two rows a pass
    tiling = asc.adv.get_rms_norm_tiling_info([1, rows, h], [1, rows, true_h], tmp_bytes, x.itemsize)
    asc.jit(rmsnorm_kernel, backend=backend)[cores](x, gamma, y, rows, h, tmp_bytes, 1e-5, tiling)
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64[:, :true_h] ** 2).mean(axis=1, keepdims=True) + 1e-5) * gamma
    return y, want


if __name__ == "__main__":
    got, want = run(*(sys.argv[1:2] or ["sim"]))
    print("rmsnorm within half tolerance of float64:", np.allclose(got, want, rtol=4e-3, atol=4e-3))
