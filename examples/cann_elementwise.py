"""Sigmoid, GELU and Maximum written the plain Ascend C way, as CANN's own element-wise kernels are:
TPipe / TQue with two buffers per queue, copy_in / compute / copy_out per tile, and a multi-core
tiling that gives each core a 512 B-aligned part of the data (the first `former_num` cores one 512 B
unit more than the rest) and each core's last tile whatever is left.

These are the kernels the timing model is checked against: CANN's Sigmoid, GELU and Maximum were
timed on a 910B2 (../shared/reference/ascend-timing-facts.md, `MEASURED` below), and the same work
written here and profiled on the model's Ascend910B2 preset must come within +-25 % of each time
(tests/test_timing_model.py; `python benchmarks/calibration.py` prints the table).

Run: python examples/cann_elementwise.py
"""
from __future__ import annotations

import numpy as np

import asc_trace as asc

BUFFER_NUM = 2
CORES = 48                 # the 910B2's vector cores: CANN's element-wise tiling uses them all
UB_USABLE = 192 * 1024 - 256
GM_ALIGN = 512             # bytes: the tiling keeps every core's part 512 B-aligned (best practice)
GELU_K = -1.5957691216057308    # -2 * sqrt(2 / pi): gelu(x) = x / (1 + exp(-2 * sqrt(2/pi) * (x + 0.044715 x^3)))

# CANN's kernels timed on a 910B2: kernel-only time from the torch_npu profiler's kernel_details,
# median of 20 runs, L2 flushed and clock boosted before each (botcanlearn/cann-bench-upstream @3f05105,
# tasks/metadata/910b2.json and tasks/level1/<op>/cases.csv, quoted in the timing facts).
MEASURED = [  # (kernel, rows, cols, dtype, microseconds)
    ("sigmoid", 1024, 1024, "float16", 5.30),
    ("sigmoid", 2048, 2048, "float32", 18.14),
    ("sigmoid", 8192, 8192, "float16", 142.2),
    ("sigmoid", 8192, 8192, "float32", 360.2),
    ("gelu", 2048, 2048, "float32", 17.3),
    ("maximum", 1024, 1024, "float16", 5.76),
]
MEASURED_SOURCE = "botcanlearn/cann-bench-upstream @3f05105 (910B2, kernel_details, median of 20)"


def tiling(n: int, itemsize: int, cores: int = CORES) -> tuple[int, int, int]:
    """(former_num, former_len, tail_len): the first former_num cores take former_len elements, the
    others tail_len; both are whole 512 B units, so every core's part starts 512 B-aligned."""
    unit = GM_ALIGN // itemsize
    if n % unit:
        raise ValueError(f"{n} elements is not a whole number of {GM_ALIGN} B units")
    units = n // unit
    base, extra = divmod(units, cores)
    if extra == 0:
        return cores, base * unit, base * unit
    return extra, (base + 1) * unit, base * unit


def tile_length(itemsize: int, queues: int) -> int:
    """Elements per tile: the largest power-of-two byte size whose double buffers all fit the UB."""
    nbytes = 1 << ((UB_USABLE // (queues * BUFFER_NUM)).bit_length() - 1)
    return nbytes // itemsize


@asc.jit
def core_part(former_num: int, former_len: int, tail_len: int):
    """(offset, length) of this core's part of the data."""
    blk = asc.get_block_idx()
    former = blk < former_num               # 1 on the first former_num cores, else 0
    length = tail_len + former * (former_len - tail_len)
    offset = blk * tail_len + (former_len - tail_len) * (former * blk + (1 - former) * former_num)
    return offset, length


def _gm(addr, length):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, length)
    return g


@asc.jit
def copy_in(que: asc.TQue, gm: asc.GlobalTensor, off: int, n: int):
    t = que.alloc_tensor(gm.dtype)
    asc.data_copy(t, gm[off:], n)
    que.enque(t)


@asc.jit
def copy_out(que: asc.TQue, gm: asc.GlobalTensor, off: int, n: int):
    t = que.deque(gm.dtype)
    asc.data_copy(gm[off:], t, n)
    que.free_tensor(t)


@asc.jit
def sigmoid_compute(qx: asc.TQue, qz: asc.TQue, dtype, n: int):
    x = qx.deque(dtype)
    z = qz.alloc_tensor(dtype)
    asc.muls(z, x, -1.0, n)          # 1 / (1 + exp(-x))
    asc.exp(z, z, n)
    asc.adds(z, z, 1.0, n)
    asc.reciprocal(z, z, n)
    qz.enque(z)
    qx.free_tensor(x)


@asc.jit
def sigmoid_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, former_num: int, former_len: int, tail_len: int,
                   tile: asc.ConstExpr[int]):
    offset, length = core_part(former_num, former_len, tail_len)
    xg, zg = _gm(x + offset, length), _gm(z + offset, length)
    pipe = asc.TPipe()
    qx, qz = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM), asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(qx, BUFFER_NUM, tile * x.dtype.sizeof())
    pipe.init_buffer(qz, BUFFER_NUM, tile * x.dtype.sizeof())
    full = length // tile
    for i in range(full):
        copy_in(qx, xg, i * tile, tile)
        sigmoid_compute(qx, qz, x.dtype, tile)
        copy_out(qz, zg, i * tile, tile)
    rest = length - full * tile          # the last, shorter tile (none when it is 0: every op is empty)
    copy_in(qx, xg, full * tile, rest)
    sigmoid_compute(qx, qz, x.dtype, rest)
    copy_out(qz, zg, full * tile, rest)


@asc.jit
def gelu_compute(qx: asc.TQue, qz: asc.TQue, dtype, n: int):
    x = qx.deque(dtype)
    z = qz.alloc_tensor(dtype)
    asc.mul(z, x, x, n)              # the tanh form: x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3)))
    asc.muls(z, z, 0.044715, n)
    asc.adds(z, z, 1.0, n)
    asc.mul(z, z, x, n)
    asc.muls(z, z, GELU_K, n)
    asc.exp(z, z, n)
    asc.adds(z, z, 1.0, n)
    asc.div(z, x, z, n)
    qz.enque(z)
    qx.free_tensor(x)


@asc.jit
def gelu_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, former_num: int, former_len: int, tail_len: int,
                tile: asc.ConstExpr[int]):
    offset, length = core_part(former_num, former_len, tail_len)
    xg, zg = _gm(x + offset, length), _gm(z + offset, length)
    pipe = asc.TPipe()
    qx, qz = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM), asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(qx, BUFFER_NUM, tile * x.dtype.sizeof())
    pipe.init_buffer(qz, BUFFER_NUM, tile * x.dtype.sizeof())
    full = length // tile
    for i in range(full):
        copy_in(qx, xg, i * tile, tile)
        gelu_compute(qx, qz, x.dtype, tile)
        copy_out(qz, zg, i * tile, tile)
    rest = length - full * tile
    copy_in(qx, xg, full * tile, rest)
    gelu_compute(qx, qz, x.dtype, rest)
    copy_out(qz, zg, full * tile, rest)


@asc.jit
def maximum_compute(qx: asc.TQue, qy: asc.TQue, qz: asc.TQue, dtype, n: int):
    x = qx.deque(dtype)
    y = qy.deque(dtype)
    z = qz.alloc_tensor(dtype)
    asc.max(z, x, y, n)
    qz.enque(z)
    qx.free_tensor(x)
    qy.free_tensor(y)


@asc.jit
def maximum_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, former_num: int,
                   former_len: int, tail_len: int, tile: asc.ConstExpr[int]):
    offset, length = core_part(former_num, former_len, tail_len)
    xg, yg, zg = _gm(x + offset, length), _gm(y + offset, length), _gm(z + offset, length)
    pipe = asc.TPipe()
    qx, qy = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM), asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    for q in (qx, qy, qz):
        pipe.init_buffer(q, BUFFER_NUM, tile * x.dtype.sizeof())
    full = length // tile
    for i in range(full):
        copy_in(qx, xg, i * tile, tile)
        copy_in(qy, yg, i * tile, tile)
        maximum_compute(qx, qy, qz, x.dtype, tile)
        copy_out(qz, zg, i * tile, tile)
    rest = length - full * tile
    copy_in(qx, xg, full * tile, rest)
    copy_in(qy, yg, full * tile, rest)
    maximum_compute(qx, qy, qz, x.dtype, rest)
    copy_out(qz, zg, full * tile, rest)


KERNELS = {"sigmoid": (sigmoid_kernel, 1), "gelu": (gelu_kernel, 1), "maximum": (maximum_kernel, 2)}


def reference(name: str, *inputs: np.ndarray) -> np.ndarray:
    """The same maths in float64, rounded once to the input type."""
    x = inputs[0].astype(np.float64)
    if name == "sigmoid":
        out = 1 / (1 + np.exp(-x))
    elif name == "gelu":
        out = x / (1 + np.exp(GELU_K * (x + 0.044715 * x ** 3)))
    else:
        out = np.maximum(x, inputs[1].astype(np.float64))
    return out.astype(inputs[0].dtype)


def launch_args(name: str, n: int, dtype, cores: int = CORES, data: bool = True, seed: int = 0) -> list:
    """The launch arguments of one case: inputs, output, tiling, tile (np.empty when data=False)."""
    dt = np.dtype(dtype)
    kernel, n_in = KERNELS[name]
    if data:
        rng = np.random.default_rng(seed)
        arrays = [(rng.standard_normal(n) * 3).astype(dt) for _ in range(n_in)] + [np.zeros(n, dt)]
    else:
        arrays = [np.empty(n, dt) for _ in range(n_in + 1)]
    return [*arrays, *tiling(n, dt.itemsize, cores), tile_length(dt.itemsize, n_in + 1)]


def run(name: str, n: int = 48 * 1000 + 256, dtype=np.float32, backend: str = "sim", cores: int = CORES):
    """(result, NumPy reference) of one kernel on `backend`."""
    args = launch_args(name, n, dtype, cores)
    kernel = asc.jit(KERNELS[name][0], backend=backend)
    kernel[cores](*args)
    n_in = KERNELS[name][1]
    return args[n_in], reference(name, *args[:n_in])


def profile(name: str, rows: int, cols: int, dtype, data: bool = False, platform: str = "Ascend910B2"):
    """The modeled profile of one measured case, on every vector core of the platform."""
    args = launch_args(name, rows * cols, dtype, data=data)
    return asc.profile(KERNELS[name][0], *args, core_num=CORES, platform=platform, timing_only=not data)


if __name__ == "__main__":
    for name in KERNELS:
        got, want = run(name)
        print(f"{name}: matches NumPy within 1e-5: {np.allclose(got, want, rtol=1e-5, atol=1e-6)}")
    for name, rows, cols, dtype, us in MEASURED:
        prof = profile(name, rows, cols, dtype)
        print(f"{name} {rows}x{cols} {dtype}: modeled {prof.time_us:7.2f} us, measured {us:7.2f} us "
              f"({prof.time_us / us - 1:+.1%}); bound by {prof.bound}")
