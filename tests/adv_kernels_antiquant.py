"""The kernel tests/test_adv_antiquant.py runs: int8 x [n] -> asc.adv.ascend_antiquant -> z (half, or bfloat16
travelling as uint16 and reinterpreted in the kernel)."""
from __future__ import annotations

import asc_trace as asc
from adv_kernels import UbTensors

N = 1024


def antiquant_kernel(dst_dt: str = "float16", offset=0.5, scale=0.25, with_tmp: bool = True, tmp_bytes: int = 4096,
                     k: int = 32, transpose: bool = False, backend: str = "sim", src_dt=None, alias: bool = False):
    dst_asc = asc.float16 if dst_dt == "float16" else asc.uint16

    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = lt(src_dt or asc.int8, asc.TPosition.VECIN, 0, N)
        zl = lt(dst_asc, asc.TPosition.VECOUT, 4096, N)
        asc.data_copy(xl, xg, N)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8192, tmp_bytes) if with_tmp else None
        zd = zl.reinterpret_cast(asc.bfloat16) if dst_dt == "bfloat16" else zl
        if alias:
            zd = xl
        asc.adv.ascend_antiquant(zd, xl, offset, scale, k, tmp, is_transpose=transpose)
        asc.data_copy(zg, zl, N)
    kernel.__name__ = kernel.__qualname__ = f"adv_antiquant_{dst_dt}_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(kernel, backend=backend)
