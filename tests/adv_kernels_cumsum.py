"""The kernel tests/test_adv_cumsum.py runs: x [outter, inner] -> asc.adv.cumsum -> z, and the last row -> r."""
from __future__ import annotations

import asc_trace as asc
from adv_kernels import UbTensors


def cumsum_kernel(outter: int, inner: int, last_axis: bool = True, last_row: bool = True, with_tmp: bool = True,
                  tmp_bytes: int | None = None, backend: str = "sim", alias: bool = False):
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, r: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        xg, zg, rg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        rg.set_global_buffer(r)
        n = outter * inner
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, n)
        zl = xl if alias else lt(x.dtype, asc.TPosition.VECOUT, 0x10000, n)
        rl = lt(x.dtype, asc.TPosition.VECOUT, 0x20000, inner)
        asc.data_copy(xl, xg, n)
        tb = tmp_bytes if tmp_bytes is not None else asc.adv.get_cumsum_max_min_tmp_size(
            [outter, inner], x.dtype.sizeof(), last_axis)[0]
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 0x28000, max(tb, 32)) if with_tmp else None
        asc.adv.cumsum(zl, rl, xl, asc.adv.CumSumInfo(outter, inner), tmp, is_last_axis=last_axis,
                       output_last_row=last_row)
        asc.data_copy(zg, zl, n)
        asc.data_copy(rg, rl, inner)
    kernel.__name__ = kernel.__qualname__ = f"adv_cumsum_{'last' if last_axis else 'first'}"
    return asc.jit(kernel, backend=backend)
