"""z = alpha * x + y with Ascend C's Axpy (dst += src * scalar), tiles in a runtime loop, no flags:
the scheduler synchronises and double-buffers it. Run: python examples/axpy.py"""
import numpy as np

import asc_trace as asc

TILE = 512


@asc.jit
def axpy_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int, alpha: float):
    base = asc.get_block_idx() * n
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, n)
    yg.set_global_buffer(y + base, n)
    zg.set_global_buffer(z + base, n)
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    yl = asc.LocalTensor(y.dtype, asc.TPosition.VECIN, TILE * x.dtype.sizeof(), TILE)
    for i in range(n // TILE):
        asc.data_copy(xl, xg[i * TILE:], TILE)
        asc.data_copy(yl, yg[i * TILE:], TILE)
        asc.axpy(yl, xl, alpha, TILE)
        asc.data_copy(zg[i * TILE:], yl, TILE)


def reference(x: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    a = x.dtype.type(np.float32(alpha))
    return (y + (x * a).astype(x.dtype)).astype(x.dtype)


def run(backend: str = "sim", cores: int = 8, n: int = 4 * TILE, dtype=np.float32, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(cores * n).astype(dtype)
    y = rng.standard_normal(cores * n).astype(dtype)
    z = np.zeros_like(x)
    asc.jit(axpy_kernel, backend=backend)[cores](x, y, z, n, 0.5)
    return z, reference(x, y, 0.5)


if __name__ == "__main__":
    got, want = run()
    print("axpy matches NumPy:", np.array_equal(got, want))
