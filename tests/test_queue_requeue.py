"""A pyasc-style kernel that enqueues one VECOUT buffer twice per tile (copy_in enqueues z, compute
dequeues it, computes and enqueues it again) is refused on every backend with what to write instead;
the form the hint describes computes the right bytes everywhere (issue 18)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, every_backend

BACKENDS = every_backend()
TILE = 64


def _setup(x, y, z):
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qx, 2, TILE * 4)
    pipe.init_buffer(qz, 2, TILE * 4)
    gms = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    for g, a in zip(gms, (x, y, z)):
        g.set_global_buffer(a)
    return (qx, qz, *gms)


@asc.jit
def requeued(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    qx, qz, xg, yg, zg = _setup(x, y, z)
    for i in range(tiles):
        xl = qx.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[i * TILE:], TILE)
        qx.enque(xl)
        zl = qz.alloc_tensor(asc.float32)
        asc.data_copy(zl, yg[i * TILE:], TILE)
        qz.enque(zl)
        xa = qx.deque(asc.float32)
        za = qz.deque(asc.float32)  # MARK-first-deque
        asc.add(za, xa, za, TILE)
        qz.enque(za)  # MARK-second-enque
        qx.free_tensor(xa)
        zo = qz.deque(asc.float32)
        asc.data_copy(zg[i * TILE:], zo, TILE)
        qz.free_tensor(zo)


@asc.jit
def enqueued_once(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    """The hint's first form: the copied-into VECOUT tensor is used without the first enque / deque."""
    qx, qz, xg, yg, zg = _setup(x, y, z)
    for i in range(tiles):
        xl = qx.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[i * TILE:], TILE)
        qx.enque(xl)
        zl = qz.alloc_tensor(asc.float32)
        asc.data_copy(zl, yg[i * TILE:], TILE)
        xa = qx.deque(asc.float32)
        asc.add(zl, xa, zl, TILE)
        qz.enque(zl)
        qx.free_tensor(xa)
        zo = qz.deque(asc.float32)
        asc.data_copy(zg[i * TILE:], zo, TILE)
        qz.free_tensor(zo)


def _args():
    n = 4 * TILE
    return np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32), np.zeros(n, np.float32), 4


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_second_enque_of_a_dequeued_buffer_says_what_to_write(backend):
    x, y, z, tiles = _args()
    with pytest.raises(asc.SyncError) as ei:
        asc.jit(requeued, backend=backend)[1](x, y, z, tiles)
    text = str(ei.value)
    assert_points_at(ei.value, "MARK-second-enque")
    assert_points_at(ei.value, "MARK-first-deque")
    assert "back after its deque without free_tensor" in text and "auto_sync does not reorder" in text
    assert "drop the first enque / deque pair" in text and "VECIN" in text
    assert not z.any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_hinted_form_computes(backend):
    x, y, z, tiles = _args()
    asc.jit(enqueued_once, backend=backend)[1](x, y, z, tiles)
    np.testing.assert_array_equal(z, x + y)
