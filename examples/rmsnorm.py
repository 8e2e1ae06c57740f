"""RMSNorm: y = x / sqrt(mean(x^2) + eps) * gamma, row by row. The scalar math (mean, + eps, 1/sqrt)
goes through the vector unit and get_value, as Ascend C kernels do. Run: python examples/rmsnorm.py"""
import numpy as np

import asc_trace as asc


@asc.jit
def rmsnorm_kernel(x: asc.GlobalAddress, gamma: asc.GlobalAddress, y: asc.GlobalAddress, rows_per_core: int,
                   cols: asc.ConstExpr[int], eps: asc.ConstExpr[float]):
    base = asc.get_block_idx() * rows_per_core * cols
    xg, gg, yg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, rows_per_core * cols)
    gg.set_global_buffer(gamma, cols)
    yg.set_global_buffer(y + base, rows_per_core * cols)
    nbytes = cols * x.dtype.sizeof()
    g = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cols)
    row = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nbytes, cols)
    sq = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 2 * nbytes, cols)
    out = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 3 * nbytes, cols)
    tmp = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 4 * nbytes, cols)
    acc = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 5 * nbytes, 8)
    asc.data_copy(g, gg, cols)
    for r in range(rows_per_core):
        asc.data_copy(row, xg[r * cols:], cols)
        asc.mul(sq, row, row, cols)
        asc.reduce_sum(acc, sq, tmp, cols)
        mean = acc.get_value(0) / cols
        asc.duplicate(acc, mean + eps, 8)
        asc.rsqrt(acc, acc, 8)
        inv = acc.get_value(0)
        asc.muls(out, row, inv, cols)
        asc.mul(out, out, g, cols)
        asc.data_copy(yg[r * cols:], out, cols)


def reference(x: np.ndarray, gamma: np.ndarray, eps: float) -> np.ndarray:
    ms = (x.astype(np.float64) ** 2).mean(axis=1, keepdims=True)
    return (x / np.sqrt(ms + eps) * gamma).astype(x.dtype)


def run(backend: str = "sim", cores: int = 4, rows_per_core: int = 3, cols: int = 512, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((cores * rows_per_core, cols)).astype(np.float32)
    gamma = rng.random(cols).astype(np.float32) + 0.5
    y = np.zeros_like(x)
    asc.jit(rmsnorm_kernel, backend=backend)[cores](x, gamma, y, rows_per_core, cols, 1e-6)
    return y, reference(x, gamma, 1e-6)


if __name__ == "__main__":
    got, want = run()
    print("rmsnorm close to NumPy:", np.allclose(got, want, rtol=1e-5, atol=1e-6))
