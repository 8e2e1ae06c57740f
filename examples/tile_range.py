"""Per-core tile ranges: core b scales tiles [b * per_core, (b + 1) * per_core), a loop whose start is a
runtime value, flag-free. Run: python examples/tile_range.py"""
import numpy as np

import asc_trace as asc

TILE = 512


@asc.jit
def tile_range(x: asc.GlobalAddress, z: asc.GlobalAddress, per_core: int, alpha: float):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * TILE, TILE)
    first = asc.get_block_idx() * per_core
    for t in range(first, first + per_core):
        asc.data_copy(a, xg[t * TILE:], TILE)
        asc.muls(b, a, alpha, TILE)
        asc.abs(b, b, TILE)
        asc.data_copy(zg[t * TILE:], b, TILE)


def reference(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.abs(x * np.float32(alpha))


def run(backend: str = "sim", cores: int = 8, per_core: int = 5, alpha: float = -1.5, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(cores * per_core * TILE).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(tile_range, backend=backend)[cores](x, z, per_core, alpha)
    return z, reference(x, alpha)


if __name__ == "__main__":
    got, want = run()
    print("tile ranges equal NumPy:", np.array_equal(got, want))
    print(asc.compile(tile_range, (np.zeros(8 * 5 * TILE, np.float32),) * 2 + (5, -1.5), core_num=8).graph)
