"""A data-dependent loop with asc.while_loop: each core halves its row until no element's magnitude
exceeds `limit`, and counts the halvings. The loop carries the count and the row's peak, which the
scalar unit reads back from the UB after each step (reduce_max, then get_value), so how often it runs
depends on the data and differs from core to core (zero times for a row that is already small). No
flags: the scheduler adds the MTE2->V, V->S and V->MTE3 events on every path through the loop.
Run: python examples/halving.py"""
import numpy as np

import asc_trace as asc


@asc.jit
def halving_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, counts: asc.GlobalAddress,
                   cols: asc.ConstExpr[int], limit: float):
    blk = asc.get_block_idx()
    xg, zg, cg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * cols, cols)
    zg.set_global_buffer(z + blk * cols, cols)
    cg.set_global_buffer(counts + blk * 8, 8)       # 8 int32 per core: one 32-byte block
    nbytes = cols * x.dtype.sizeof()
    row = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cols)
    mag = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, nbytes, cols)
    work = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 2 * nbytes, cols)
    peak = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 3 * nbytes, 8)
    cnt = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 3 * nbytes + 32, 8)
    asc.data_copy(row, xg, cols)

    def largest():
        """max |row|, read by the scalar unit (once the vector unit has written it)."""
        asc.abs(mag, row, cols)
        asc.reduce_max(peak, mag, work, cols)
        return peak.get_value(0)

    def halve(k, m):
        asc.muls(row, row, 0.5, cols)
        return k + 1, largest()

    k, _ = asc.while_loop(lambda k, m: m > limit, halve, (0, largest()))
    asc.duplicate(cnt, k, 8)
    asc.data_copy(zg, row, cols)
    asc.data_copy(cg, cnt, 8)


def reference(x: np.ndarray, limit: float) -> tuple[np.ndarray, np.ndarray]:
    z, counts = x.copy(), np.zeros(x.shape[0], np.int32)
    for r in range(x.shape[0]):
        while np.abs(z[r]).max() > np.float32(limit):
            z[r] *= np.float32(0.5)
            counts[r] += 1
    return z, counts


def run(backend: str = "sim", cores: int = 6, cols: int = 256, limit: float = 1.0, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((cores, cols)) * np.logspace(-1, 3, cores)[:, None]).astype(np.float32)
    x[0] *= 0          # a row that needs no halving: the loop runs zero times
    z, counts = np.zeros_like(x), np.full(cores * 8, -1, np.int32)
    asc.jit(halving_kernel, backend=backend)[cores](x, z, counts, cols, limit)
    want_z, want_counts = reference(x, limit)
    got = np.concatenate([z.ravel(), counts.reshape(cores, 8)[:, 0].astype(np.float32)])
    want = np.concatenate([want_z.ravel(), want_counts.astype(np.float32)])
    return got, want


if __name__ == "__main__":
    got, want = run()
    print("halving matches NumPy:", np.array_equal(got, want))
    print("halvings per core:", got[-6:].astype(int).tolist())
