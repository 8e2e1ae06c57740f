"""Property tests: random sizes, tile counts, core counts, dtypes and ops; sim == eager == NumPy."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import asc_trace as asc
import vadd_tque
from helpers import rand

OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
DTYPES = [np.float32, np.float16, np.int32, np.int16]


@asc.jit
def binary_tiles(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
                 tile_num: asc.ConstExpr[int], buffer_num: asc.ConstExpr[int], op: asc.ConstExpr[str]):
    """The seed's manual kernel with the tile count, buffer count and operation as parameters."""
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    tile = block_length // tile_num // buffer_num
    dt = x.dtype
    size = tile * buffer_num * dt.sizeof()
    xl = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, tile * buffer_num)
    yl = asc.LocalTensor(dt, asc.TPosition.VECIN, size, tile * buffer_num)
    zl = asc.LocalTensor(dt, asc.TPosition.VECOUT, 2 * size, tile * buffer_num)
    vec = getattr(asc, op)
    for i in range(tile_num * buffer_num):
        b = i % buffer_num
        asc.data_copy(xl[b * tile:], x_gm[i * tile:], tile)
        asc.data_copy(yl[b * tile:], y_gm[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        vec(zl[b * tile:], xl[b * tile:], yl[b * tile:], tile)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * tile:], zl[b * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, b)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, b)


@settings(max_examples=120, deadline=None)
@given(cores=st.integers(1, 12), tile_num=st.integers(1, 6), buffer_num=st.integers(1, 3),
       blocks32=st.integers(1, 16), dtype=st.sampled_from(DTYPES), op=st.sampled_from(sorted(OPS)),
       seed=st.integers(0, 2**16))
def test_manual_kernel_sim_eager_numpy(cores, tile_num, buffer_num, blocks32, dtype, op, seed):
    per32 = 32 // np.dtype(dtype).itemsize
    tile = blocks32 * per32
    block_length = tile * tile_num * buffer_num
    x = rand(cores * block_length, dtype, seed)
    y = rand(cores * block_length, dtype, seed + 1)
    want = OPS[op](x, y)
    for backend in ("sim", "eager"):
        z = np.zeros_like(x)
        asc.jit(binary_tiles, backend=backend)[cores](x, y, z, block_length, tile_num, buffer_num, op)
        np.testing.assert_array_equal(z, want, err_msg=backend)


@settings(max_examples=75, deadline=None)
@given(cores=st.integers(1, 10), tiles=st.integers(1, 8), blocks32=st.integers(1, 8),
       dtype=st.sampled_from([np.float32, np.float16]), seed=st.integers(0, 2**16))
def test_tque_kernel_sim_eager_numpy(cores, tiles, blocks32, dtype, seed):
    tile = blocks32 * (32 // np.dtype(dtype).itemsize)
    block_length = tile * tiles
    x = rand(cores * block_length, dtype, seed)
    y = rand(cores * block_length, dtype, seed + 7)

    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
          tile_length: asc.ConstExpr[int]):
        offset = asc.get_block_idx() * block_length
        x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x + offset)
        y_gm.set_global_buffer(y + offset)
        z_gm.set_global_buffer(z + offset)
        pipe = asc.TPipe()
        qx = asc.TQue(asc.TPosition.VECIN, 2)
        qy = asc.TQue(asc.TPosition.VECIN, 2)
        qz = asc.TQue(asc.TPosition.VECOUT, 2)
        pipe.init_buffer(qx, 2, tile_length * x.dtype.sizeof())
        pipe.init_buffer(qy, 2, tile_length * y.dtype.sizeof())
        pipe.init_buffer(qz, 2, tile_length * z.dtype.sizeof())
        for i in range(block_length // tile_length):
            vadd_tque.copy_in(i, x_gm, y_gm, qx, qy, tile_length)
            vadd_tque.compute(z_gm, qx, qy, qz, tile_length)
            vadd_tque.copy_out(i, z_gm, qz, tile_length)

    for backend in ("sim", "eager"):
        z = np.zeros_like(x)
        asc.jit(k, backend=backend)[cores](x, y, z, block_length, tile)
        np.testing.assert_array_equal(z, x + y, err_msg=backend)
