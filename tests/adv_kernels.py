"""Kernels that call each `asc.adv` function in each of its forms (with and without a shared temporary
buffer), for the tests of tests/test_adv_*.py and the suite's emitted-source checks (suite_kernels.py)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

import asc_trace as asc
from asc_trace.graph.ops.adv_math import UNARY

N = 1024            # elements per launch
TMP_BYTES = 64 * 1024



def unary_kernel(name: str, with_tmp: bool, **options):
    """x -> asc.adv.<name> -> z, one core, raw LocalTensors; `n` elements."""
    fn = getattr(asc.adv, name)

    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
        zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, N)
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
        xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        yg.set_global_buffer(y)
        zg.set_global_buffer(z)
        xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
        yl = asc.LocalTensor(y.dtype, asc.TPosition.VECIN, 8192, N)
        zl = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 16384, N)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 24576, TMP_BYTES)
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
    return tuple(out)
