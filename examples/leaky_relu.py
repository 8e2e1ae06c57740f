"""z = leaky_relu(x, alpha) tile by tile (Ascend C LeakyRelu). Run: python examples/leaky_relu.py"""
import numpy as np

import asc_trace as asc

TILE = 256


@asc.jit
def leaky_relu_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, alpha: asc.ConstExpr[float]):
    base = asc.get_block_idx() * n
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, n)
    zg.set_global_buffer(z + base, n)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    for i in range(n // TILE):
        asc.data_copy(t, xg[i * TILE:], TILE)
        asc.leaky_relu(t, t, alpha, TILE)
        asc.data_copy(zg[i * TILE:], t, TILE)


def reference(x: np.ndarray, alpha: float) -> np.ndarray:
    a = x.dtype.type(np.float32(alpha))
    return np.where(x >= 0, x, x * a).astype(x.dtype)


def run(backend: str = "sim", cores: int = 8, n: int = 4 * TILE, dtype=np.float16, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(cores * n).astype(dtype)
    z = np.zeros_like(x)
    asc.jit(leaky_relu_kernel, backend=backend)[cores](x, z, n, 0.1)
    return z, reference(x, 0.1)


if __name__ == "__main__":
    got, want = run()
    print("leaky relu matches NumPy:", np.array_equal(got, want))
