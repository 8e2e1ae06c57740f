"""The high-level math functions (pyasc's asc.adv.<fn>): y = tanh(x) and y2 = sinh(x) over a runtime tile
loop, a shared temporary buffer sized by the vendor's GetTanhMaxMinTmpSize. No flags.
Run: python examples/adv_math.py [sim|eager|cpu_debug]"""
import sys

import numpy as np

import asc_trace as asc


@asc.jit
def tanh_sinh_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, y2: asc.GlobalAddress, tiles: int,
                     tile: asc.ConstExpr[int], tmp_bytes: asc.ConstExpr[int]):
    base = asc.get_block_idx() * tiles * tile
    xg, yg, y2g = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, tiles * tile)
    yg.set_global_buffer(y + base, tiles * tile)
    y2g.set_global_buffer(y2 + base, tiles * tile)
    pipe = asc.TPipe()
    in_q, out_q = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_q, 1, tile * x.dtype.sizeof())
    pipe.init_buffer(out_q, 1, 2 * tile * x.dtype.sizeof())
    pipe.init_buffer(tmp_buf, tmp_bytes)
    for i in range(tiles):
        src = in_q.alloc_tensor(x.dtype)
        asc.data_copy(src, xg[i * tile:], tile)
        in_q.enque(src)
        src = in_q.deque(x.dtype)
        dst = out_q.alloc_tensor(x.dtype)
        tmp = tmp_buf.get(asc.uint8)
        asc.adv.tanh(dst, src, tile, tmp)
        asc.adv.sinh(dst[tile:], src, tile, tmp)
        out_q.enque(dst)
        in_q.free_tensor(src)
        dst = out_q.deque(x.dtype)
        asc.data_copy(yg[i * tile:], dst, tile)
        asc.data_copy(y2g[i * tile:], dst[tile:], tile)
        out_q.free_tensor(dst)


def run(backend: str = "sim", cores: int = 2, tiles: int = 3, tile: int = 2048, dtype=np.float16, seed: int = 0):
    x = np.random.default_rng(seed).uniform(-4, 4, cores * tiles * tile).astype(dtype)
    y, y2 = np.zeros_like(x), np.zeros_like(x)
    tmp_max, _tmp_min = asc.adv.get_tanh_max_min_tmp_size([tile], x.itemsize)
    asc.jit(tanh_sinh_kernel, backend=backend)[cores](x, y, y2, tiles, tile, tmp_max)
    x64 = x.astype(np.float64)
    return (y, y2), (np.tanh(x64), np.sinh(x64))


if __name__ == "__main__":
    (y, y2), (t, s) = run(*(sys.argv[1:2] or ["sim"]))
    print("tanh, sinh within half tolerance:", np.allclose(y, t, rtol=4e-3, atol=1e-3),
          np.allclose(y2, s, rtol=4e-3, atol=1e-3))
