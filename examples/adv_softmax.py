"""Row softmax with the high-level API, as the vendor's SoftMax sample is written: the host fills the
SoftMaxTiling for the temporary buffer it gives (SoftMaxTilingFunc), each core copies its rows in through a
TQue, calls asc.adv.softmax once and copies the rows and their max / sum out. No flags: asc_trace derives
the synchronisation. Run: python examples/adv_softmax.py [sim|eager|cpu_debug]"""
import sys

import numpy as np

import asc_trace as asc


@asc.jit
def softmax_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, row_max: asc.GlobalAddress, row_sum: asc.GlobalAddress,
                   rows: asc.ConstExpr[int], cols: asc.ConstExpr[int], tmp_bytes: asc.ConstExpr[int],
                   tiling: asc.ConstExpr[asc.adv.SoftmaxTiling]):
    n, per = rows * cols, 32 // x.dtype.sizeof()            # the max and sum: one 32-byte block per row
    core = asc.get_block_idx()
    xg, yg, mg, sg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + core * n, n)
    yg.set_global_buffer(y + core * n, n)
    mg.set_global_buffer(row_max + core * rows * per, rows * per)
    sg.set_global_buffer(row_sum + core * rows * per, rows * per)
    pipe = asc.TPipe()
    in_q, out_q, stat_q = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1), \
        asc.TQue(asc.TPosition.VECOUT, 1)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_q, 1, n * x.dtype.sizeof())
    pipe.init_buffer(out_q, 1, n * x.dtype.sizeof())
    pipe.init_buffer(stat_q, 1, 2 * rows * 32)
    pipe.init_buffer(tmp_buf, tmp_bytes)
    src = in_q.alloc_tensor(x.dtype)
    asc.data_copy(src, xg, n)
    in_q.enque(src)
    src = in_q.deque(x.dtype)
    dst = out_q.alloc_tensor(x.dtype)
    stats = stat_q.alloc_tensor(x.dtype)
    asc.adv.softmax(dst, stats[rows * per:], stats, src, tiling, tmp_buf.get(asc.uint8))
    out_q.enque(dst)
    stat_q.enque(stats)
    in_q.free_tensor(src)
    dst = out_q.deque(x.dtype)
    asc.data_copy(yg, dst, n)
    out_q.free_tensor(dst)
    stats = stat_q.deque(x.dtype)
    asc.data_copy(mg, stats, rows * per)
    asc.data_copy(sg, stats[rows * per:], rows * per)
    stat_q.free_tensor(stats)


def run(backend: str = "sim", cores: int = 4, rows: int = 16, cols: int = 256, dtype=np.float16, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((cores * rows, cols)) * 2).astype(dtype)
    per = 32 // x.itemsize
    y, mx, sm = np.zeros_like(x), np.zeros(cores * rows * per, dtype), np.zeros(cores * rows * per, dtype)
    tmp_bytes = asc.adv.get_softmax_min_tmp_size([rows, cols], x.itemsize) * 4     # four rows a pass
    tiling = asc.adv.softmax_tiling_func([rows, cols], x.itemsize, tmp_bytes)
    asc.jit(softmax_kernel, backend=backend)[cores](x, y, mx, sm, rows, cols, tmp_bytes, tiling)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return y, e / e.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    got, want = run(*(sys.argv[1:2] or ["sim"]))
    print("softmax within half tolerance of float64:", np.allclose(got, want, rtol=2e-3, atol=2e-4))
