"""A vector op whose destination partly overlaps a source is refused on every backend (issue 18); the
exact in-place form (dst is src: same offset, same count) and disjoint ranges of one tensor compute."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, every_backend

BACKENDS = every_backend()


@asc.jit
def shifted_add(x: asc.GlobalAddress, z: asc.GlobalAddress, k: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
    asc.data_copy(t, xg, 128)
    asc.add(t[k:], t, t[64:], 64)  # MARK-overlap
    asc.data_copy(zg, t, 128)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [8, 56])
def test_partial_overlap_is_refused(backend, k):
    x = np.arange(128, dtype=np.float32)
    z = np.zeros_like(x)
    with pytest.raises(asc.OutOfBoundsError) as ei:
        asc.jit(shifted_add, backend=backend)[1](x, z, k)
    assert_points_at(ei.value, "MARK-overlap")
    assert "may not partly overlap a source" in str(ei.value)
    assert not z.any()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [0, 64])
def test_exact_in_place_and_disjoint_compute(backend, k):
    """k = 0: dst is src0 exactly (in-place); k = 64: dst is src1 exactly."""
    x = np.arange(128, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(shifted_add, backend=backend)[1](x, z, k)
    want = x.copy()
    want[k:k + 64] = x[:64] + x[64:]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("backend", ["sim", "cpp"])
def test_constant_partial_overlap_is_refused(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
        asc.data_copy(t, xg, 128)
        asc.muls(t[8:], t, 2.0, 64)  # MARK-const
        asc.data_copy(zg, t, 128)

    x = np.arange(128, dtype=np.float32)
    with pytest.raises(asc.OutOfBoundsError) as ei:
        asc.jit(k, backend=backend)[1](x, np.zeros_like(x))
    assert_points_at(ei.value, "MARK-const")
    assert "dst starts 8 elements from src0" in str(ei.value)
