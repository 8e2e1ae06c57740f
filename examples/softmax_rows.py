"""Row-wise softmax over R rows x C columns, a row too long for one tile: three runtime loops over the
row's tiles nested in a loop over rows (max, then sum of exp, then the normalised output), written
without a single flag. The scheduler synchronises the nest, double-buffers the tile and reuses event
ids across the three inner loops. Run: python examples/softmax_rows.py  (prints the profile)"""
import numpy as np

import asc_trace as asc

TILE = 256


@asc.jit
def softmax_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, rows_per_core: int, tiles: int):
    cols = tiles * TILE
    base = asc.get_block_idx() * rows_per_core * cols
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, rows_per_core * cols)
    zg.set_global_buffer(z + base, rows_per_core * cols)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    vec = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, TILE)     # running max / sum per lane
    tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 2048, TILE)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 3072, 8)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, TILE)
    for r in range(rows_per_core):
        row = r * cols
        asc.duplicate(vec, -3.0e38, TILE)
        for i in range(tiles):
            asc.data_copy(t, xg[row + i * TILE:], TILE)
            asc.max(vec, vec, t, TILE)
        asc.reduce_max(acc, vec, tmp, TILE)
        m = acc.get_value(0)
        asc.duplicate(vec, 0.0, TILE)
        for i in range(tiles):
            asc.data_copy(t, xg[row + i * TILE:], TILE)
            asc.adds(tmp, t, -m, TILE)
            asc.exp(tmp, tmp, TILE)
            asc.add(vec, vec, tmp, TILE)
        asc.reduce_sum(acc, vec, tmp, TILE)
        inv = 1.0 / acc.get_value(0)
        for i in range(tiles):
            asc.data_copy(t, xg[row + i * TILE:], TILE)
            asc.adds(out, t, -m, TILE)
            asc.exp(out, out, TILE)
            asc.muls(out, out, inv, TILE)
            asc.data_copy(zg[row + i * TILE:], out, TILE)


def reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)


def run(backend: str = "sim", cores: int = 4, rows_per_core: int = 3, tiles: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = (3 * rng.standard_normal((cores * rows_per_core, tiles * TILE))).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(softmax_rows, backend=backend)[cores](x, z, rows_per_core, tiles)
    return z, reference(x)


if __name__ == "__main__":
    got, want = run()
    print("softmax over rows of tiles close to NumPy:", np.allclose(got, want, rtol=1e-5, atol=1e-7))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8 * 8, 16 * TILE)).astype(np.float32)
    print(asc.profile(softmax_rows, x, np.zeros_like(x), 8, 16, core_num=8).summary())
