"""Per-tensor int8 quantisation with the high-level API (pyasc's quant sample, flag-free): y = round(x * 2 + 0.9)
computed in half by AscendQuant, tiled over a runtime loop with a double-buffered input queue.
Run: python examples/adv_quant.py [sim|eager|cpu_debug]"""
import sys

import numpy as np

import asc_trace as asc


@asc.jit
def quant_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, tiles: int, tile: asc.ConstExpr[int],
                 tmp_bytes: asc.ConstExpr[int]):
    base = asc.get_block_idx() * tiles * tile
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, tiles * tile)
    yg.set_global_buffer(y + base, tiles * tile)
    pipe = asc.TPipe()
    in_q, out_q = asc.TQue(asc.TPosition.VECIN, 2), asc.TQue(asc.TPosition.VECOUT, 2)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_q, 2, tile * x.dtype.sizeof())
    pipe.init_buffer(out_q, 2, tile)
    pipe.init_buffer(tmp_buf, tmp_bytes)
    for i in range(tiles):
        src = in_q.alloc_tensor(x.dtype)
        asc.data_copy(src, xg[i * tile:], tile)
        in_q.enque(src)
        src = in_q.deque(x.dtype)
        dst = out_q.alloc_tensor(asc.int8)
        asc.adv.quant(dst, src, 2.0, 0.9, tile, tmp_buf.get(asc.uint8))
        out_q.enque(dst)
        in_q.free_tensor(src)
        dst = out_q.deque(asc.int8)
        asc.data_copy(yg[i * tile:], dst, tile)
        out_q.free_tensor(dst)


def run(backend: str = "sim", cores: int = 4, tiles: int = 3, tile: int = 1024, dtype=np.float16, seed: int = 2025):
    x = (np.random.default_rng(seed).random(cores * tiles * tile) * 8.0 - 4.0).astype(dtype)
    y = np.zeros(x.size, np.int8)
    _max, tmp_bytes = asc.adv.get_ascend_quant_max_min_tmp_size([tile], x.itemsize)
    asc.jit(quant_kernel, backend=backend)[cores](x, y, tiles, tile, tmp_bytes)
    return y, np.round(x.astype(np.float64) * 2.0 + 0.9)


if __name__ == "__main__":
    got, want = run(*(sys.argv[1:2] or ["sim"]))
    print("quant: at most one off round(x*2+0.9) (half arithmetic at ties):", np.abs(got - want).max() <= 1)
