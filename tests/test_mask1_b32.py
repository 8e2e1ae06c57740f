"""A 32-bit op's mask1 (lanes 64-127 of a repeat) selects nothing: a float32 / int32 repeat has 64 lanes, and
A2 ignores the word (asc-devkit kernel_utils_base.h SetMask asserts maskHigh == 0 only on the 3510 / 5102
cores). So [mask0, anything] computes what [mask0, 0] does, on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import every_backend
from op_cases import gm


@asc.jit
def add_bits_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, m0: asc.ConstExpr[int],
                    m1: asc.ConstExpr[int]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 128)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 1024, 128)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2048, 128)
    asc.data_copy(a, gm(x), 128)
    asc.data_copy(b, gm(y), 128)
    asc.data_copy(c, gm(z), 128)
    asc.add(c, a, b, mask=[m0, m1], repeat_times=2, repeat_params=asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.data_copy(gm(z), c, 128)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("backend", every_backend())
def test_mask1_of_a_32_bit_op_is_ignored(backend, dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(-100, 100, 128).astype(dtype)
    y = rng.integers(-100, 100, 128).astype(dtype)
    z0 = rng.integers(-100, 100, 128).astype(dtype)
    m0 = 0xF0F0_0000_FFFF_0001
    z = z0.copy()
    asc.jit(add_bits_kernel, backend=backend)[1](x, y, z, m0, 2**64 - 1)
    want = z0.copy()
    for r in range(2):
        for e in range(64):
            if (m0 >> e) & 1:
                want[r * 64 + e] = x[r * 64 + e] + y[r * 64 + e]
    assert z.tobytes() == want.tobytes()
