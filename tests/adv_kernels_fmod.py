"""The kernel tests/test_adv_fmod.py runs: x, y -> asc.adv.fmod(z, x, y) with a temp buffer of `tmp_bytes`."""
from __future__ import annotations

import asc_trace as asc
from adv_kernels import N, UbTensors


def fmod_kernel(with_tmp: bool = True, tmp_bytes: int = 16384, backend: str = "sim", y_len: int = N,
                alias: bool = False):
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        lt = UbTensors(with_tmp)
        xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        yg.set_global_buffer(y)
        zg.set_global_buffer(z)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, N)
        yl = lt(y.dtype, asc.TPosition.VECIN, 8192, y_len)
        zl = xl if alias else lt(z.dtype, asc.TPosition.VECOUT, 16384, N)
        asc.data_copy(xl, xg, n)
        asc.data_copy(yl, yg, n)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 24576, tmp_bytes) if with_tmp else None
        asc.adv.fmod(zl, xl, yl, n, tmp)
        asc.data_copy(zg, zl, n)
    k.__name__ = k.__qualname__ = f"adv_fmod_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(k, backend=backend)
