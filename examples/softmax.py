"""Row-wise softmax: reduce_max -> get_value -> adds -> exp -> reduce_sum -> muls, one row at a time,
rows spread over the cores. No flags: the scheduler adds the MTE2/V/MTE3 events, the V->S events
that the scalar reads (get_value) need, and double-buffers the row. Run: python examples/softmax.py"""
import numpy as np

import asc_trace as asc


@asc.jit
def softmax_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, rows_per_core: int, cols: asc.ConstExpr[int]):
    base = asc.get_block_idx() * rows_per_core * cols
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, rows_per_core * cols)
    zg.set_global_buffer(z + base, rows_per_core * cols)
    nbytes = cols * x.dtype.sizeof()
    row = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cols)
    tmp = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, nbytes, cols)
    acc = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 2 * nbytes, 8)
    for r in range(rows_per_core):
        asc.data_copy(row, xg[r * cols:], cols)
        asc.reduce_max(acc, row, tmp, cols)
        m = acc.get_value(0)
        asc.adds(row, row, -m, cols)
        asc.exp(row, row, cols)
        asc.reduce_sum(acc, row, tmp, cols)
        s = acc.get_value(0)
        asc.muls(row, row, 1.0 / s, cols)
        asc.data_copy(zg[r * cols:], row, cols)


def reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)


def run(backend: str = "sim", cores: int = 8, rows_per_core: int = 4, cols: int = 256, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((cores * rows_per_core, cols)).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(softmax_kernel, backend=backend)[cores](x, z, rows_per_core, cols)
    return z, reference(x)


if __name__ == "__main__":
    got, want = run()
    print("softmax close to NumPy:", np.allclose(got, want, rtol=1e-5, atol=1e-7))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8 * 4, 256)).astype(np.float32)
    print(asc.profile(softmax_kernel, x, np.zeros_like(x), 4, 256, core_num=8).summary())
