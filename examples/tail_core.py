"""z = x * alpha + y over n elements that do not split evenly: each core takes a block of `block`
elements and the last core what is left, chosen at run time with asc.cond; inside a core, the last
tile may be partial too, and asc.cond picks its copy (data_copy for a whole tile, data_copy_pad for
the rest). The TQue framework carries the MTE2->V and V->MTE3 events; the scheduler adds what is left
(a PIPE_V barrier between muls and add). Run: python examples/tail_core.py"""
import numpy as np

import asc_trace as asc

TILE = 256
BUFFERS = 2


@asc.jit
def tail_core_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int, block: int,
                     alpha: float):
    blk = asc.get_block_idx()
    start = blk * block
    # the tail core: every core but the last has a whole block
    length = asc.cond(blk == asc.get_block_num() - 1, lambda: n - start, lambda: block)
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + start, length)
    yg.set_global_buffer(y + start, length)
    zg.set_global_buffer(z + start, length)
    pipe = asc.TPipe()
    qx, qy = asc.TQue(asc.TPosition.VECIN, BUFFERS), asc.TQue(asc.TPosition.VECIN, BUFFERS)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFFERS)
    for q in (qx, qy, qz):
        pipe.init_buffer(q, BUFFERS, TILE * x.dtype.sizeof())
    tiles = (length + TILE - 1) // TILE
    for t in range(tiles):
        # the tail tile: the last one holds what is left of the core's elements
        count = asc.cond(t == tiles - 1, lambda: length - t * TILE, lambda: TILE)
        xl, yl = qx.alloc_tensor(x.dtype), qy.alloc_tensor(y.dtype)
        copy(xl, xg[t * TILE:], count)
        copy(yl, yg[t * TILE:], count)
        qx.enque(xl)
        qy.enque(yl)
        xl, yl = qx.deque(x.dtype), qy.deque(y.dtype)
        zl = qz.alloc_tensor(z.dtype)
        asc.muls(zl, xl, alpha, count)
        asc.add(zl, zl, yl, count)
        qz.enque(zl)
        qx.free_tensor(xl)
        qy.free_tensor(yl)
        zl = qz.deque(z.dtype)
        copy(zg[t * TILE:], zl, count)
        qz.free_tensor(zl)


def copy(dst, src, count):
    """A whole tile with data_copy; a partial one with data_copy_pad, which copies any number of bytes
    (data_copy would drop the bytes past the last whole 32-byte block)."""
    size = src.dtype.sizeof()

    def whole():
        asc.data_copy(dst, src, TILE)

    def partial():
        asc.data_copy_pad(dst, src, asc.DataCopyExtParams(1, count * size, 0, 0, 0))
    asc.cond(count == TILE, whole, partial)


def reference(x: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    return x * np.float32(alpha) + y


def run(backend: str = "sim", n: int = 5000, block: int = 3 * TILE, alpha: float = 0.5, seed: int = 0):
    cores = -(-n // block)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(tail_core_kernel, backend=backend)[cores](x, y, z, n, block, alpha)
    return z, reference(x, y, alpha)


if __name__ == "__main__":
    got, want = run()
    print("tail core (5000 elements on 7 cores of 768) matches NumPy:", np.array_equal(got, want))
