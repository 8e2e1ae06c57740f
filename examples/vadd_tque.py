"""The seed article's second vadd: TPipe / TQue with copy_in / compute / copy_out sub-kernels
(pyasc's `add_framework` tutorial). The queues carry the MTE2->V and V->MTE3 synchronisation.

Run: python examples/vadd_tque.py
"""
import numpy as np
import asc_trace as asc

BUFFER_NUM = 2
USE_CORE_NUM = 8
TILE_NUM = 8

@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
                tile_length: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    z_gm.set_global_buffer(z + offset)
    pipe = asc.TPipe()
    in_queue_x = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    in_queue_y = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    out_queue_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(in_queue_x, BUFFER_NUM, tile_length * x.dtype.sizeof())
    pipe.init_buffer(in_queue_y, BUFFER_NUM, tile_length * y.dtype.sizeof())
    pipe.init_buffer(out_queue_z, BUFFER_NUM, tile_length * z.dtype.sizeof())
    for i in range(TILE_NUM * BUFFER_NUM):
        copy_in(i, x_gm, y_gm, in_queue_x, in_queue_y, tile_length)
        compute(z_gm, in_queue_x, in_queue_y, out_queue_z, tile_length)
        copy_out(i, z_gm, out_queue_z, tile_length)


@asc.jit
def copy_in(i: int, x_gm: asc.GlobalAddress, y_gm: asc.GlobalAddress, in_queue_x: asc.TQue, in_queue_y: asc.TQue,
            tile_length: asc.ConstExpr[int]):
    x_local = in_queue_x.alloc_tensor(x_gm.dtype)
    y_local = in_queue_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile_length:], tile_length)
    asc.data_copy(y_local, y_gm[i * tile_length:], tile_length)
    in_queue_x.enque(x_local)
    in_queue_y.enque(y_local)


@asc.jit
def compute(z_gm: asc.GlobalTensor, in_queue_x: asc.TQue, in_queue_y: asc.TQue, out_queue_z: asc.TQue,
            tile_length: asc.ConstExpr[int]):
    x_local = in_queue_x.deque(z_gm.dtype)
    y_local = in_queue_y.deque(z_gm.dtype)
    z_local = out_queue_z.alloc_tensor(z_gm.dtype)
    asc.add(z_local, x_local, y_local, tile_length)
    out_queue_z.enque(z_local)
    in_queue_x.free_tensor(x_local)
    in_queue_y.free_tensor(y_local)


@asc.jit
def copy_out(i: int, z_gm: asc.GlobalTensor, out_queue_z: asc.TQue, tile_length: asc.ConstExpr[int]):
    z_local = out_queue_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile_length:], z_local, tile_length)
    out_queue_z.free_tensor(z_local)

def __asc_examples__() -> dict:
    """Inputs for `python -m asc_trace inspect` and the vendor-IR judge (benchmarks/vendor_sync.py)."""
    x = np.random.default_rng(0).random(USE_CORE_NUM * 2048, dtype=np.float32)
    block_length = 2048
    return {"vadd_kernel": {"args": (x, x.copy(), np.zeros_like(x), block_length,
                                     block_length // TILE_NUM // BUFFER_NUM), "core_num": USE_CORE_NUM}}


def vadd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    z = np.zeros_like(x)
    block_length = x.size // USE_CORE_NUM
    tile_length = block_length // TILE_NUM // BUFFER_NUM
    vadd_kernel[USE_CORE_NUM](x, y, z, block_length, tile_length)
    return z


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float16):
        x = rng.random(8 * 2048).astype(dt)
        y = rng.random(8 * 2048).astype(dt)
        print(dt.__name__, "z == x + y exactly:", np.array_equal(vadd(x, y), x + y))
