"""One softmax over rows too long for one tile, FlashAttention-2 style, with the high-level API's SoftmaxFlashV2
as the vendor's flash samples use it: each row of 2 x k is read in two tiles of k; the first call
(is_update=False) gives exp(x - max) and the row's sum and max, the second (is_update=True) updates them with
the second tile and returns exp_max = exp(old max - new max), which rescales the first tile. The rows are then
divided by the final sum (Mul / Div with a block-broadcast operand: one 32-byte statistics block per row).
The host fills one SoftMaxFlashV2 tiling per step. No flags: asc_trace derives the synchronisation.
Run: python examples/adv_flash_softmax.py [sim|eager|cpu_debug]"""
import sys

import numpy as np

import asc_trace as asc


@asc.jit
def flash_softmax_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, rows: asc.ConstExpr[int],
                         k: asc.ConstExpr[int], tmp_bytes: asc.ConstExpr[int],
                         tiling_first: asc.ConstExpr[asc.adv.SoftmaxTiling],
                         tiling_update: asc.ConstExpr[asc.adv.SoftmaxTiling]):
    n, per = rows * k, 8                  # float statistics: one 32-byte block (8 floats) per row
    core = asc.get_block_idx()
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + core * 2 * n, 2 * n)
    yg.set_global_buffer(y + core * 2 * n, 2 * n)
    pipe = asc.TPipe()
    in_q, out_q = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    exp0_buf, exp1_buf, stat_buf, tmp_buf = (asc.TBuf(asc.TPosition.VECCALC) for _ in range(4))
    pipe.init_buffer(in_q, 1, n * 4)
    pipe.init_buffer(out_q, 1, 2 * n * 4)
    pipe.init_buffer(exp0_buf, n * 4)                    # exp(x - max) of each tile: dst's GetSize() is
    pipe.init_buffer(exp1_buf, n * 4)                    # src's, as the vendor asserts
    pipe.init_buffer(stat_buf, 5 * rows * per * 4)       # sum, max of each step; exp_max
    pipe.init_buffer(tmp_buf, tmp_bytes)
    e = (exp0_buf.get(asc.float32), exp1_buf.get(asc.float32))
    st = stat_buf.get(asc.float32)
    sums, maxs, exp_max = (st, st[rows * per:]), (st[2 * rows * per:], st[3 * rows * per:]), st[4 * rows * per:]
    for j in asc.static_range(2):            # unrolled: is_update is a template argument
        src = in_q.alloc_tensor(asc.float32)
        # tile j of each row: rows blocks of k floats, k floats apart in GM
        asc.data_copy(src, xg[j * k:], asc.DataCopyParams(rows, k // 8, k // 8, 0))
        in_q.enque(src)
        src = in_q.deque(asc.float32)
        asc.adv.softmax_flash_v2(e[j], sums[j], maxs[j], src, exp_max, sums[0], maxs[0],
                                 tiling_update if j else tiling_first, tmp_buf.get(asc.uint8), is_update=j > 0)
        in_q.free_tensor(src)
    out = out_q.alloc_tensor(asc.float32)
    by_row = asc.BinaryRepeatParams(1, 1, 0, k // 8, k // 8, 1)      # src1: the row's statistics block in each
    to_out = asc.BinaryRepeatParams(1, 1, 0, 2 * k // 8, k // 8, 1)   # block; one repeat per row
    for c in asc.static_range(0, k, 64):
        asc.mul(e[0][c:], e[0][c:], exp_max, 64, rows, by_row)              # tile 0 rescaled by exp(max0 - max)
        asc.div(out[c:], e[0][c:], sums[1], 64, rows, to_out)             # tile 0 / sum
        asc.div(out[k + c:], e[1][c:], sums[1], 64, rows, to_out)     # tile 1 / sum
    out_q.enque(out)
    out = out_q.deque(asc.float32)
    asc.data_copy(yg, out, 2 * n)
    out_q.free_tensor(out)


def run(backend: str = "sim", cores: int = 2, rows: int = 8, k: int = 64, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((cores * rows, 2 * k)) * 3).astype(np.float32)
    y = np.zeros_like(x)
    tmp_bytes = asc.adv.get_softmax_flash_v2_max_tmp_size([rows, k], 4, 4, True)
    first = asc.adv.softmax_flash_v2_tiling_func([rows, k], 4, 4, tmp_bytes, False)
    update = asc.adv.softmax_flash_v2_tiling_func([rows, k], 4, 4, tmp_bytes, True)
    asc.jit(flash_softmax_kernel, backend=backend)[cores](x, y, rows, k, tmp_bytes, first, update)
    x64 = x.astype(np.float64)
    ex = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return y, ex / ex.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    got, want = run(*(sys.argv[1:2] or ["sim"]))
    print("two SoftmaxFlashV2 steps = one softmax over the row (float, within 1e-5 of float64):",
          np.allclose(got, want, rtol=1e-5, atol=1e-7))
