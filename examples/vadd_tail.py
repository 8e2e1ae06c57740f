"""vadd over a length that is not a multiple of the tile: whole tiles with data_copy, then the tail
with data_copy_pad (DataCopy would silently drop the bytes past the last 32-byte block).
Run: python examples/vadd_tail.py"""
import numpy as np

import asc_trace as asc

TILE = 256


@asc.jit
def vadd_tail_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    base = asc.get_block_idx() * n
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, n)
    yg.set_global_buffer(y + base, n)
    zg.set_global_buffer(z + base, n)
    size = x.dtype.sizeof()
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, TILE * size, TILE)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * TILE * size, TILE)
    full = n // TILE
    for i in range(full):
        asc.data_copy(xl, xg[i * TILE:], TILE)
        asc.data_copy(yl, yg[i * TILE:], TILE)
        asc.add(zl, xl, yl, TILE)
        asc.data_copy(zg[i * TILE:], zl, TILE)
    tail = n - full * TILE
    for _ in range((tail + TILE - 1) // TILE):      # zero or one iteration: the tail, if there is one
        params = asc.DataCopyExtParams(1, tail * size, 0, 0, 0)
        asc.data_copy_pad(xl, xg[full * TILE:], params, asc.DataCopyPadExtParams(False, 0, 0, 0))
        asc.data_copy_pad(yl, yg[full * TILE:], params, asc.DataCopyPadExtParams(False, 0, 0, 0))
        asc.add(zl, xl, yl, tail)
        asc.data_copy_pad(zg[full * TILE:], zl, params)


def run(backend: str = "sim", cores: int = 8, n: int = 3 * TILE + 37, dtype=np.float32, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(cores * n).astype(dtype)
    y = rng.standard_normal(cores * n).astype(dtype)
    z = np.zeros_like(x)
    asc.jit(vadd_tail_kernel, backend=backend)[cores](x, y, z, n)
    return z, x + y


if __name__ == "__main__":
    got, want = run()
    print("vadd with a tail matches NumPy:", np.array_equal(got, want))
