"""The gated activations (asc.adv.swiglu and asc.adv.geglu): y = a * swish(b) and y2 = a * gelu(b) over a runtime
tile loop, one shared temporary buffer sized by the vendor's GetSwiGLUMaxMinTmpSize / GetGeGLUMaxMinTmpSize.
No flags. Run: python examples/adv_swiglu.py [sim|eager|cpu_debug]"""
import sys

import numpy as np

import asc_trace as asc


@asc.jit
def glu_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, y: asc.GlobalAddress, y2: asc.GlobalAddress, tiles: int,
               tile: asc.ConstExpr[int], tmp_bytes: asc.ConstExpr[int]):
    base = asc.get_block_idx() * tiles * tile
    ag, bg, yg, y2g = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ag.set_global_buffer(a + base, tiles * tile)
    bg.set_global_buffer(b + base, tiles * tile)
    yg.set_global_buffer(y + base, tiles * tile)
    y2g.set_global_buffer(y2 + base, tiles * tile)
    pipe = asc.TPipe()
    # one queue per operand: the vendor's SwiGLU / GeGLU check that dst, src0 and src1 have one size (GetSize)
    qa, qb = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1)
    qy, qy2 = asc.TQue(asc.TPosition.VECOUT, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    for q in (qa, qb, qy, qy2):
        pipe.init_buffer(q, 1, tile * a.dtype.sizeof())
    pipe.init_buffer(tmp_buf, tmp_bytes)
    for i in range(tiles):
        la, lb = qa.alloc_tensor(a.dtype), qb.alloc_tensor(a.dtype)
        asc.data_copy(la, ag[i * tile:], tile)
        asc.data_copy(lb, bg[i * tile:], tile)
        qa.enque(la)
        qb.enque(lb)
        la, lb = qa.deque(a.dtype), qb.deque(a.dtype)
        ly, ly2 = qy.alloc_tensor(a.dtype), qy2.alloc_tensor(a.dtype)
        tmp = tmp_buf.get(asc.uint8)
        asc.adv.swiglu(ly, la, lb, 1.0, tile, tmp)
        asc.adv.geglu(ly2, la, lb, tile, tmp)
        qy.enque(ly)
        qy2.enque(ly2)
        qa.free_tensor(la)
        qb.free_tensor(lb)
        ly, ly2 = qy.deque(a.dtype), qy2.deque(a.dtype)
        asc.data_copy(yg[i * tile:], ly, tile)
        asc.data_copy(y2g[i * tile:], ly2, tile)
        qy.free_tensor(ly)
        qy2.free_tensor(ly2)


def run(backend: str = "sim", cores: int = 2, tiles: int = 3, tile: int = 1024, dtype=np.float16, seed: int = 0):
    rng = np.random.default_rng(seed)
    a, b = (rng.uniform(-4, 4, cores * tiles * tile).astype(dtype) for _ in range(2))
    y, y2 = np.zeros_like(a), np.zeros_like(a)
    tmp_max = max(asc.adv.GetSwiGLUMaxMinTmpSize([tile], a.itemsize)[0],
                  asc.adv.GetGeGLUMaxMinTmpSize([tile], a.itemsize)[0], 256)
    asc.jit(glu_kernel, backend=backend)[cores](a, b, y, y2, tiles, tile, tmp_max)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    gelu = 0.5 * b64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (b64 + 0.044715 * b64 ** 3)))
    return (y, y2), (a64 * b64 / (1 + np.exp(-b64)), a64 * gelu)


if __name__ == "__main__":
    (y, y2), (s, g) = run(*(sys.argv[1:2] or ["sim"]))
    print("swiglu, geglu within half tolerance:", np.allclose(y, s, rtol=4e-3, atol=1e-3),
          np.allclose(y2, g, rtol=4e-3, atol=1e-3))
