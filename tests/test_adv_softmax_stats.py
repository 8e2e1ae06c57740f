"""asc.adv.softmax with half src and float sum / max: how many floats each row's statistics fill. A tiling from
the host's SoftMaxTilingFunc has reduceK = 32 / sizeof(half) = 16; a zero tiling is recomputed in the kernel by
the kernel-side SoftMaxTilingFunc with sizeof(T2) (softmax_base_impl.h), so 8 floats a row. Measured on cpu_debug:
the vendor's rows of a zero-tiling call are 8 floats apart (n22's suspicion, confirmed)."""
from __future__ import annotations

import numpy as np
import pytest

from adv_kernels import softmax_kernel
from helpers import needs_headers

M, K = 4, 64


def _run(host_tiling: bool, backend: str = "sim"):
    x = np.random.default_rng(0).standard_normal(M * K).astype(np.float16)
    z = np.zeros_like(x)
    mx, sm = np.full(M * 16, -7.0, np.float32), np.full(M * 16, -7.0, np.float32)
    softmax_kernel(M, K, float_stats=True, host_tiling=host_tiling, backend=backend)[1](x, z, mx, sm)
    return x, z, mx, sm


@pytest.mark.parametrize("host_tiling,width", [(True, 16), (False, 8)])
def test_rows_of_statistics_are_reduce_k_floats_apart(host_tiling, width):
    x, _z, mx, sm = _run(host_tiling)
    rows = x.reshape(M, K).astype(np.float32)
    want = np.repeat(rows.max(1), width)
    assert (mx[:M * width] == want).all()
    np.testing.assert_allclose(sm[:M * width], np.repeat(np.exp(rows - rows.max(1)[:, None]).sum(1), width),
                               rtol=2e-3)


@needs_headers
@pytest.mark.slow
@pytest.mark.parametrize("host_tiling", [True, False])
def test_the_vendor_writes_the_same_floats(host_tiling):
    a, c = _run(host_tiling), _run(host_tiling, "cpu_debug")
    n = M * (16 if host_tiling else 8)
    assert a[1].tobytes() == c[1].tobytes()
    assert a[2][:n].tobytes() == c[2][:n].tobytes() and a[3][:n].tobytes() == c[3][:n].tobytes()
