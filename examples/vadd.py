"""The seed article's vadd kernel: manual double buffering with hardware events, 8 cores.

Run: python examples/vadd.py   (or `make demo`). It runs on the default backend (ASC_TRACE_BACKEND,
else the NPU when one is usable, else the simulator), checks z == x + y and shows the traced graph.
"""
import numpy as np

import asc_trace as asc
import asc_trace.runtime as rt

USE_CORE_NUM = 8
BUFFER_NUM = 2
TILE_NUM = 8


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    tile_length = block_length // TILE_NUM // BUFFER_NUM
    data_type = x.dtype
    buffer_size = tile_length * BUFFER_NUM * data_type.sizeof()
    x_local = asc.LocalTensor(data_type, asc.TPosition.VECIN, 0, tile_length * BUFFER_NUM)
    y_local = asc.LocalTensor(data_type, asc.TPosition.VECIN, buffer_size, tile_length * BUFFER_NUM)
    z_local = asc.LocalTensor(data_type, asc.TPosition.VECOUT, buffer_size + buffer_size, tile_length * BUFFER_NUM)
    for i in range(TILE_NUM * BUFFER_NUM):
        buf_id = i % BUFFER_NUM
        asc.data_copy(x_local[buf_id * tile_length:], x_gm[i * tile_length:], tile_length)
        asc.data_copy(y_local[buf_id * tile_length:], y_gm[i * tile_length:], tile_length)
        asc.set_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.wait_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.add(z_local[buf_id * tile_length:], x_local[buf_id * tile_length:], y_local[buf_id * tile_length:],
                tile_length)
        asc.set_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.wait_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.data_copy(z_gm[i * tile_length:], z_local[buf_id * tile_length:], tile_length)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, buf_id)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, buf_id)


def vadd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    z = np.zeros_like(x)
    vadd_kernel[USE_CORE_NUM, rt.current_stream()](x, y, z, x.size // USE_CORE_NUM)
    return z


def __asc_examples__() -> dict:
    """Inputs for `python -m asc_trace inspect examples/vadd.py::vadd_kernel`."""
    x = np.random.default_rng(0).random(USE_CORE_NUM * 2048, dtype=np.float32)
    return {"vadd_kernel": {"args": (x, x.copy(), np.zeros_like(x), 2048), "core_num": USE_CORE_NUM}}


def main() -> None:
    size = USE_CORE_NUM * 2048
    rng = np.random.default_rng(0)
    x = rng.random(size, dtype=np.float32)
    y = rng.random(size, dtype=np.float32)
    backend = rt.get_runtime(vadd_kernel.backend).name
    print(f"1. run: backend {backend} (asked for {vadd_kernel.backend!r}), {USE_CORE_NUM} cores x "
          f"{size // USE_CORE_NUM} float32")
    z = vadd(x, y)
    ok = np.array_equal(z, x + y)
    print(f"   z == x + y exactly: {ok}")

    ck = asc.compile(vadd_kernel, (x, y, z, size // USE_CORE_NUM), core_num=USE_CORE_NUM)
    print(f"\n2. the traced graph ({len(ck.traced)} nodes; the loop body is traced once, not 16 times):")
    print(ck.traced)
    print("\n3. the Ascend C it lowers to (what bisheng would compile for the NPU):")
    print(ck.source)

    print("4. its time on the simulator's pipe model (modeled, not measured on hardware):")
    print(asc.profile(vadd_kernel, x, y, z, size // USE_CORE_NUM, core_num=USE_CORE_NUM).summary())

    try:
        z_cpp = np.zeros_like(x)
        asc.jit(vadd_kernel, backend="cpp")[USE_CORE_NUM](x, y, z_cpp, size // USE_CORE_NUM)
        print(f"\n5. that Ascend C, built with g++ against asc_trace's model of the API and run: "
              f"z == x + y exactly: {np.array_equal(z_cpp, x + y)}")
    except asc.ToolchainError as e:
        print(f"\n5. cpp backend skipped: {e.msg}")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
