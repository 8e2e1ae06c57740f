"""Kernels that call each `asc.adv` function in each of its forms (with and without a shared temporary
buffer), for the tests of tests/test_adv_*.py and the suite's emitted-source checks (suite_kernels.py)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

import asc_trace as asc
from asc_trace.graph.ops.adv_math import UNARY

N = 1024            # elements per launch
TMP_BYTES = 64 * 1024


class UbTensors:
    """Makes a kernel's LocalTensors: raw ones at the given UB addresses when every adv call gets its
    temp_buffer (`raw`), else one TBuf each from a TPipe made here. The vendor's forms without a
    sharedTmpBuffer take their scratch from the UB the TPipe has not handed out (PopStackBuffer), so they need
    a TPipe created before the call (asc_trace refuses them otherwise), and raw tensors would sit in that
    scratch. Call it inside the kernel, before the first tensor."""

    def __init__(self, raw: bool) -> None:
        self.pipe = None if raw else asc.TPipe()

    def __call__(self, dtype, pos, addr: int, n: int):
        if self.pipe is None:
            return asc.LocalTensor(dtype, pos, addr, n)
        buf = asc.TBuf(pos)
        self.pipe.init_buffer(buf, -(-n * dtype.sizeof() // 32) * 32)
        return buf.get(dtype)



def unary_kernel(name: str, with_tmp: bool, **options):
    """x -> asc.adv.<name> -> z, one core, raw LocalTensors; `n` elements."""
    fn = getattr(asc.adv, name)

    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        lt = UbTensors(with_tmp)
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, N)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 8192, N)
        asc.data_copy(xl, xg, n)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 16384, TMP_BYTES)
            if name == "exp":
                fn(zl, xl, n, 0, temp_buffer=tmp)
            else:
                fn(zl, xl, count=n, temp_buffer=tmp)
        elif name == "exp":
            fn(zl, xl, n, 0)
        else:
            fn(zl, xl, count=n)
        asc.data_copy(zg, zl, n)
    kernel.__name__ = kernel.__qualname__ = f"adv_{name}_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(kernel, **options)


def binary_kernel(name: str, with_tmp: bool, **options):
    """x, y -> asc.adv.<name>(z, x, y) (power, xor); axpy: z += x * 0.5."""
    fn = getattr(asc.adv, name)

    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        lt = UbTensors(with_tmp)
        xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        yg.set_global_buffer(y)
        zg.set_global_buffer(z)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, N)
        yl = lt(y.dtype, asc.TPosition.VECIN, 8192, N)
        zl = lt(z.dtype, asc.TPosition.VECOUT, 16384, N)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 24576, TMP_BYTES) if with_tmp else None
        asc.data_copy(xl, xg, n)
        asc.data_copy(yl, yg, n)
        if name == "axpy":
            asc.data_copy(zl, zg, n)
            fn(zl, xl, 0.5, n, tmp)
        elif with_tmp:
            fn(zl, xl, yl, n, tmp)
        else:
            fn(zl, xl, yl, n)
        asc.data_copy(zg, zl, n)
    kernel.__name__ = kernel.__qualname__ = f"adv_{name}_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(kernel, **options)


def math_inputs(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    x = (np.linspace(0.1, 0.9, N)).astype(dtype)
    return x, np.zeros(N, dtype)


@lru_cache(maxsize=1)
def suite() -> tuple:
    """(name, CompiledKernel) of every adv function in every form."""
    out = []
    for name, *_ in UNARY + [("exp",)]:
        for with_tmp in (True, False):
            x, z = math_inputs(np.float16)
            out.append(asc.compile(unary_kernel(name, with_tmp), (x, z, N)))
    for name, dt in (("power", np.float32), ("xor", np.int16), ("axpy", np.float32)):
        for with_tmp in ((True,) if name == "axpy" else (True, False)):
            x = np.ones(N, dt)
            out.append(asc.compile(binary_kernel(name, with_tmp), (x, x, x.copy(), N)))
    for with_tmp in (True, False):
        x = np.ones((8, 64), np.float16)
        st = np.zeros(8 * 16, np.float16)
        out.append(asc.compile(softmax_kernel(8, 64, with_tmp=with_tmp), (x, x.copy(), st, st.copy())))
        x = np.ones(2 * 3 * 64, np.float32)
        out.append(asc.compile(rmsnorm_kernel(2, 3, 64, 60, 4096, 4, with_tmp=with_tmp), (x, x[:64].copy(), x.copy())))
        out.append(asc.compile(quant_kernel(256, with_tmp=with_tmp), (x[:256].copy(), np.zeros(256, np.int8))))
    for with_tmp in (True, False):
        x = np.ones(6 * 64, np.float32)
        out.append(asc.compile(layernorm_kernel(2, 3, 64, 4096, 4, with_tmp=with_tmp),
                               (x, x[:64].copy(), x[:64].copy(), x.copy(), np.zeros(8, np.float32),
                                np.zeros(8, np.float32))))
    x = np.zeros((4, 64), np.float32)
    out.append(asc.compile(log_softmax_kernel(4, 64, type_size=4), (x, x.copy(), np.zeros(32, np.float32),
                                                                     np.zeros(32, np.float32))))
    out.append(asc.compile(extract_kernel(1), (np.zeros(64, np.float32), np.zeros(32, np.float32),
                                               np.zeros(32, np.uint32))))
    out.append(asc.compile(quant_kernel(256, config=asc.adv.QuantConfig(256, 0, 0, 512)),
                           (np.ones(256, np.float16), np.zeros(256, np.int8))))
    for name in ACTIVATIONS + ("swiglu", "swish") + GLUS:
        for with_tmp in ((False,) if name in ("silu", "swish") else (True, False)):
            x = np.ones(N, np.float16)
            out.append(asc.compile(activation_kernel(name, with_tmp), (x, x.copy(), x.copy(), N)))
    from adv_kernels_quant_reduce import suite as quant_reduce_suite      # dequant, sum, mean, log2, clamp (m22)
    out += quant_reduce_suite()
    return tuple(out)


def softmax_kernel(m: int, k: int, float_stats: bool = False, with_tmp: bool = True, tmp_bytes: int = TMP_BYTES,
                   type_size: int = 2, host_tiling: bool = True, **options):
    """x [m, k] -> z = softmax rows; the row max and sum (one 32-byte block per row) to mx, sm. The tiling is
    the host helper's for `tmp_bytes`, or (host_tiling=False) all zero with the shape given to the call."""
    tiling = asc.adv.softmax_tiling_func([m, k], type_size, tmp_bytes) if host_tiling else asc.adv.SoftmaxTiling()

    def softmax_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, mx: asc.GlobalAddress, sm: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        xg, zg, mg, sg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        mg.set_global_buffer(mx)
        sg.set_global_buffer(sm)
        st = asc.float32 if float_stats else x.dtype
        per = 32 // x.dtype.sizeof()      # reduceK elements of st a row (16 floats with half x)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, m * k)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 32768, m * k)
        ml = lt(st, asc.TPosition.VECOUT, 65536, m * per)
        sl = lt(st, asc.TPosition.VECOUT, 65536 + 4096, m * per)
        asc.data_copy(xl, xg, m * k)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 65536 + 8192, tmp_bytes)
            asc.adv.softmax(zl, sl, ml, xl, tiling, tmp, shape=(m, k))
        else:
            asc.adv.softmax(zl, sl, ml, xl, tiling, shape=(m, k))
        asc.data_copy(zg, zl, m * k)
        asc.data_copy(mg, ml, m * per)
        asc.data_copy(sg, sl, m * per)
    softmax_rows.__name__ = softmax_rows.__qualname__ = f"adv_softmax_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(softmax_rows, **options)


def rmsnorm_kernel(b: int, s: int, h: int, oh: int, tmp_bytes: int, type_size: int, with_tmp: bool = True,
                   tiling=None, **options):
    """x [b, s, h], gamma [h] -> z = RmsNorm(x) * gamma, epsilon 1e-5; the tiling from the vendor's helper."""
    tiling = tiling or asc.adv.get_rms_norm_tiling_info([b, s, h], [b, s, oh], tmp_bytes, type_size)

    def rmsnorm_rows(x: asc.GlobalAddress, g: asc.GlobalAddress, z: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        xg, gg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        gg.set_global_buffer(g)
        zg.set_global_buffer(z)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, b * s * h)
        gl = lt(x.dtype, asc.TPosition.VECIN, 32768, h)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 49152, b * s * h)
        asc.data_copy(xl, xg, b * s * h)
        asc.data_copy(gl, gg, h)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 81920, tmp_bytes)
            asc.adv.rmsnorm(zl, xl, gl, 1e-5, tiling, tmp)
        else:
            asc.adv.rmsnorm(zl, xl, gl, 1e-5, tiling)
        asc.data_copy(zg, zl, b * s * h)
    rmsnorm_rows.__name__ = rmsnorm_rows.__qualname__ = f"adv_rmsnorm_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(rmsnorm_rows, **options)


def quant_kernel(n: int, with_tmp: bool = True, tmp_bytes: int = 1024, config=None, **options):
    """x -> int8 round(x * 2 + 0.9), computed in half (pyasc's quant sample)."""
    def quant_tensor(x: asc.GlobalAddress, z: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, n)
        zl = lt(asc.int8, asc.TPosition.VECOUT, 32768, n)
        asc.data_copy(xl, xg, n)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 49152, tmp_bytes)
            asc.adv.quant(zl, xl, 2.0, 0.9, n, tmp, config=config)
        else:
            asc.adv.quant(zl, xl, 2.0, 0.9, n)
        asc.data_copy(zg, zl, n)
    quant_tensor.__name__ = quant_tensor.__qualname__ = \
        f"adv_quant_{'tmp' if with_tmp else 'stack'}{'_config' if config else ''}"
    return asc.jit(quant_tensor, **options)


ACTIVATIONS = ("gelu", "faster_gelu", "silu", "sigmoid")
GLUS = ("geglu", "reglu")       # x, y -> z = x * act(y), with and without a temporary buffer


def activation_kernel(name: str, with_tmp: bool, **options):
    """x -> asc.adv.<gelu|faster_gelu|silu|sigmoid> -> z; swiglu: x, y -> z = x * swish(y), beta 1.0."""
    fn = getattr(asc.adv, name)

    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        lt = UbTensors(with_tmp)
        xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        yg.set_global_buffer(y)
        zg.set_global_buffer(z)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, N)
        yl = lt(x.dtype, asc.TPosition.VECIN, 8192, N)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 16384, N)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 24576, TMP_BYTES) if with_tmp else None
        asc.data_copy(xl, xg, n)
        asc.data_copy(yl, yg, n)
        if name == "swiglu":
            fn(zl, xl, yl, 1.0, n, tmp)
        elif name in GLUS:
            fn(zl, xl, yl, n, tmp)
        elif name == "swish":
            fn(zl, xl, n, 1.5)
        elif name == "silu":
            fn(zl, xl, n)
        else:
            fn(zl, xl, n, tmp)
        asc.data_copy(zg, zl, n)
    kernel.__name__ = kernel.__qualname__ = f"adv_{name}_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(kernel, **options)


def layernorm_kernel(b: int, s: int, h: int, tmp_bytes: int, type_size: int, with_tmp: bool = True, tiling=None,
                     eps: float = 1e-5, **options):
    """x [b, s, h], gamma, beta [h] -> z = LayerNorm(x), the row mean and variance to mean, var."""
    tiling = tiling or asc.adv.get_layernorm_nd_tiling_info([b, s, h, h], tmp_bytes, type_size)
    rows = b * s
    per = 32 // type_size

    def layernorm_rows(x: asc.GlobalAddress, g: asc.GlobalAddress, be: asc.GlobalAddress, z: asc.GlobalAddress,
                       mean: asc.GlobalAddress, var: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        xg, gg, bg, zg, mg, vg = (asc.GlobalTensor() for _ in range(6))
        for t, a in ((xg, x), (gg, g), (bg, be), (zg, z), (mg, mean), (vg, var)):
            t.set_global_buffer(a)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, rows * h)
        gl = lt(x.dtype, asc.TPosition.VECIN, 32768, h)
        bl = lt(x.dtype, asc.TPosition.VECIN, 36864, h)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 40960, rows * h)
        ml = lt(x.dtype, asc.TPosition.VECOUT, 73728, -(-rows // per) * per)
        vl = lt(x.dtype, asc.TPosition.VECOUT, 77824, -(-rows // per) * per)
        asc.data_copy(xl, xg, rows * h)
        asc.data_copy(gl, gg, h)
        asc.data_copy(bl, bg, h)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 81920, tmp_bytes)
            asc.adv.layernorm(zl, ml, vl, xl, gl, bl, eps, tiling, tmp)
        else:
            asc.adv.layernorm(zl, ml, vl, xl, gl, bl, eps, tiling)
        asc.data_copy(zg, zl, rows * h)
        asc.data_copy(mg, ml, -(-rows // per) * per)
        asc.data_copy(vg, vl, -(-rows // per) * per)
    layernorm_rows.__name__ = layernorm_rows.__qualname__ = f"adv_layernorm_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(layernorm_rows, **options)


def log_softmax_kernel(m: int, k: int, tmp_bytes: int = 16 * 1024, type_size: int = 2, tiling_bytes: int = 0,
                       **options):
    """x [m, k] -> z = LogSoftMax rows; the row max and sum (one 32-byte block per row, type T) to mx, sm. The
    tiling is the host helper's for `tiling_bytes` (default: the buffer's size)."""
    tiling = asc.adv.log_softmax_tiling_func([m, k], type_size, tiling_bytes or tmp_bytes)

    def log_softmax_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, mx: asc.GlobalAddress, sm: asc.GlobalAddress):
        xg, zg, mg, sg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        for t, a in ((xg, x), (zg, z), (mg, mx), (sg, sm)):
            t.set_global_buffer(a)
        per = 32 // x.dtype.sizeof()
        xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, m * k)
        zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 32768, m * k)
        ml = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 65536, m * per)
        sl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 65536 + 4096, m * per)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 81920, tmp_bytes)
        asc.data_copy(xl, xg, m * k)
        asc.adv.log_softmax(zl, sl, ml, xl, tiling, tmp)
        asc.data_copy(zg, zl, m * k)
        asc.data_copy(mg, ml, m * per)
        asc.data_copy(sg, sl, m * per)
    return asc.jit(log_softmax_rows, **options)


def extract_kernel(repeat: int, **options):
    """s (repeat x 32 sorted (value, index) structures of 8 bytes) -> their values v and uint32 indices i."""
    n = repeat * 32

    def unpack(s: asc.GlobalAddress, v: asc.GlobalAddress, i: asc.GlobalAddress):
        sg, vg, ig = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        sg.set_global_buffer(s)
        vg.set_global_buffer(v)
        ig.set_global_buffer(i)
        per = 8 // s.dtype.sizeof()
        sl = asc.LocalTensor(s.dtype, asc.TPosition.VECIN, 0, n * per)
        vl = asc.LocalTensor(s.dtype, asc.TPosition.VECOUT, 16384, n)
        il = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 32768, n)
        asc.data_copy(sl, sg, n * per)
        asc.adv.extract(vl, il, sl, repeat)
        asc.data_copy(vg, vl, n)
        asc.data_copy(ig, il, n)
    return asc.jit(unpack, **options)
