"""Kernels of the pyasc-parity ops (issue #21) for the suite's emission checks (tests/suite_kernels.py): every
record emitted, every symbol listed for both CANN generations, the real-header check."""
from __future__ import annotations

import numpy as np

import asc_trace as asc


def suite() -> list:
    from test_fused_cast import every_form
    from test_reduce_mask_form import reduce_mask_kernel
    x = np.zeros(4096, np.float16)
    z = np.zeros(16, np.float16)
    out = [asc.compile(every_form, (np.zeros(8, np.int8),))]
    for op, mask, ci in (("reduce_sum", 128, False), ("reduce_max", (2**64 - 1, 3), True), ("reduce_min", 7, False)):
        out.append(asc.compile(reduce_mask_kernel, (x, z, op, mask, 3, 8, ci)))
    from test_sort32 import sort32_kernel
    from test_transpose import transpose_kernel
    out.append(asc.compile(transpose_kernel, (np.zeros(256, np.int16), np.zeros(256, np.int16))))
    for dt in (np.float16, np.float32):
        out.append(asc.compile(sort32_kernel, (np.zeros(64, dt), np.zeros(64, np.uint32),
                                               np.zeros(64 * 8 // np.dtype(dt).itemsize, dt), 64, 2)))
    from test_cmpmask import cmp_dst_kernel, reg_kernel, sel_kernel, set_scalar_kernel
    h, u = np.zeros(128, np.float16), np.zeros(32, np.uint8)
    out.append(asc.compile(reg_kernel, (h, h, h, h, h, u, 0, 2**64 - 1, 3, 1)))
    out.append(asc.compile(sel_kernel, (np.zeros(128, np.uint8), *(np.zeros(512, np.float16),) * 3, u, 0, 0,
                                        255, 2, 0.0)))
    out.append(asc.compile(set_scalar_kernel, (np.zeros(64, np.uint8), np.zeros(256, np.float32), u,
                                               np.zeros(256, np.float32))))
    out.append(asc.compile(cmp_dst_kernel, (np.zeros(2048, np.float16), np.zeros(512, np.float16), np.zeros(64, np.uint8),
                                            2, 2, 8)))
    from test_mrg_sort import mrg_kernel, mrg_repeat_kernel, sort_kernel
    for dt, valid, exhausted, info in ((np.float16, 7, 0, 1), (np.float32, 15, 1, 0), (np.float32, 3, 0, 0)):
        x = np.zeros(4 * 32 * 8 // np.dtype(dt).itemsize, dt)
        out.append(asc.compile(mrg_kernel, (x, x, 5, 7, 3, 1, valid, exhausted, info)))
    out.append(asc.compile(mrg_repeat_kernel, (np.zeros(256, np.float32), np.zeros(256, np.float32), 8, 4)))
    for dt, full in ((np.float16, 1), (np.float32, 0)):
        out.append(asc.compile(sort_kernel, (np.zeros(128, dt), np.zeros(128, np.uint32),
                                             np.zeros(128 * 8 // np.dtype(dt).itemsize, dt),
                                             np.zeros(128 * 8 // np.dtype(dt).itemsize, dt), 128, 4, full)))
    return out
