"""pyasc's compiler-managed tensors: `asc.LocalTensorAuto` gets a UB address by liveness
(graph/auto_place.py) and the scheduler derives the sync (pyasc's insert_sync)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import asc_trace as asc

TILE = 256


@asc.jit(insert_sync=True)
def chain(x: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int]):
    off = asc.get_block_idx() * tile * tiles
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + off, tile * tiles)
    zg.set_global_buffer(z + off, tile * tiles)
    for i in range(tiles):
        a = asc.LocalTensorAuto(x.dtype, tile)
        asc.data_copy(a, xg[i * tile:], tile)
        b = asc.LocalTensorAuto(x.dtype, tile)
        asc.muls(b, a, 2.0, tile)          # a's last use
        c = asc.LocalTensorAuto(x.dtype, [2, tile // 2])   # pyasc's shape form: may take a's bytes
        asc.adds(c, b, 1.0, tile)
        asc.data_copy(zg[i * tile:], c, tile)


def _addresses(ck) -> list[int]:
    return [int(m) for m in re.findall(r"local_tensor VECCALC @(\d+)", str(ck.graph))]


@pytest.mark.parametrize("backend", ["sim", "cpp"])
def test_auto_tensors_run_and_reuse_dead_bytes(backend):
    x = np.random.default_rng(1).random(4 * 3 * TILE, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(chain, backend=backend)[4](x, z, TILE, 3)
    np.testing.assert_allclose(z, x * 2 + 1, rtol=1e-6)
    addrs = _addresses(asc.compile(chain, (x, z, TILE, 3), core_num=4))
    assert addrs[0] == addrs[2] != addrs[1]      # c reuses a (dead), never b (live)
    assert all(a % 32 == 0 for a in addrs)


def test_live_across_a_loop_is_not_reused():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        acc = asc.LocalTensorAuto(asc.float32, 64)
        asc.duplicate(acc, 0.0, 64)
        for i in range(4):
            t = asc.LocalTensorAuto(asc.float32, 64)   # made inside, acc is live for the whole loop
            asc.data_copy(t, xg[i * 64:], 64)
            asc.add(acc, acc, t, 64)
        asc.data_copy(zg, acc, 64)
    x = np.arange(256, dtype=np.float32)
    z = np.zeros(64, np.float32)
    k[1](x, z)
    np.testing.assert_array_equal(z, x.reshape(4, 64).sum(0))
    a, t = _addresses(asc.compile(k, (x, z), core_num=1))
    assert a != t


def test_overflow_names_the_live_tensors():
    @asc.jit
    def k(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        big = asc.LocalTensorAuto(asc.float32, 30000)
        asc.data_copy(big, xg, 30000)
        big2 = asc.LocalTensorAuto(asc.float32, 30000)
        asc.adds(big2, big, 1.0, 30000)                        # both live: 240000 bytes
        asc.data_copy(xg, big2, 30000)
    with pytest.raises(asc.UBOverflowError, match="live with this one") as e:
        k[1](np.zeros(30000, np.float32))
    msg = str(e.value)
    assert "test_local_tensor_auto.py:74" in msg      # big2's line, and big's as a live tensor
    assert "test_local_tensor_auto.py:72" in msg


def test_runtime_length_and_mixing_with_tpipe_are_refused():
    @asc.jit
    def runtime_len(x: asc.GlobalAddress, n: int):
        asc.LocalTensorAuto(asc.float32, n)
    with pytest.raises(asc.TraceError, match="known while tracing"):
        runtime_len[1](np.zeros(8, np.float32), 8)

    @asc.jit
    def mixed(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        pipe = asc.TPipe()
        tb = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tb, 256)
        b = tb.get(asc.float32)
        a = asc.LocalTensorAuto(asc.float32, 64)
        asc.data_copy(a, xg, 64)
        asc.adds(b, a, 1.0, 64)
        asc.data_copy(xg, b, 64)
    with pytest.raises(asc.TraceError, match="cannot share the UB with a TPipe"):
        mixed[1](np.zeros(64, np.float32))


def test_eager_uses_the_planned_addresses():
    x = np.random.default_rng(2).random(2 * 3 * TILE, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(chain, backend="eager")[2](x, z, TILE, 3)
    np.testing.assert_allclose(z, x * 2 + 1, rtol=1e-6)


def test_eager_refuses_a_call_site_with_two_addresses():
    @asc.jit
    def stage(xg: asc.GlobalTensor, zg: asc.GlobalTensor, keep: asc.LocalTensor):
        t = asc.LocalTensorAuto(asc.float32, 64)
        asc.data_copy(t, xg, 64)
        asc.add(t, t, keep, 64)
        asc.data_copy(zg, t, 64)

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        keep = asc.LocalTensorAuto(asc.float32, 64)
        asc.duplicate(keep, 1.0, 64)
        stage(xg, zg, keep)
        keep2 = asc.LocalTensorAuto(asc.float32, 64)   # live with the second stage's t: t moves
        asc.duplicate(keep2, 2.0, 64)
        stage(xg, zg[64:], keep2)
        asc.add(keep, keep, keep2, 64)
    x = np.zeros(128, np.float32)
    z = np.zeros(128, np.float32)
    k[1](x, z)                                  # sim: fine
    np.testing.assert_array_equal(z, np.repeat([1.0, 2.0], 64))
    with pytest.raises(asc.NotProvidedError, match="one address per call site") as e:
        asc.jit(k, backend="eager")[1](x, z)
    assert "test_local_tensor_auto.py" in str(e.value)

