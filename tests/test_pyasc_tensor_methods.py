"""pyasc's LocalTensor / GlobalTensor / TBuf methods: metadata known while tracing (size, length,
position, UB address), resizing and re-pointing a static tensor, scalar GM access, TBuf.get_with_offset."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc

BACKENDS = ["sim", "eager", "cpp"]


@asc.jit
def metadata(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 64)
    zg.set_global_buffer(z, 16)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 256, 64)
    asc.data_copy(t, xg, 64)
    # every value below is written into z, so the test sees what the kernel saw
    zg.set_value(0, t[8:].get_size())                   # 56 elements from element 8
    zg.set_value(1, t[8:].get_length())                 # 224 bytes
    zg.set_value(2, t.get_phy_addr(8))                  # UB byte 256 + 32
    zg.set_value(3, 1 if t.get_position() == asc.TPosition.VECIN else 0)
    zg.set_value(4, xg[16:].get_size())                 # 48 elements of the window
    zg.set_value(5, xg.get_value(5) + xg(6))            # scalar GM reads, both spellings
    zg.set_value(6, t(7))
    t.set_size(32)
    zg.set_value(7, t.get_size())


@pytest.mark.parametrize("backend", BACKENDS)
def test_metadata_values(backend):
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(16, np.float32)
    asc.jit(metadata, backend=backend)[1](x, z)
    np.testing.assert_array_equal(z[:8], [56, 224, 288, 1, 48, 11, 7, 32])


def test_set_size_is_checked_and_queue_tensors_refuse_it():
    @asc.jit
    def past(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        t.set_size(8)
        asc.data_copy(t, xg, 64)        # 64 elements into an 8-element tensor
    with pytest.raises(asc.OutOfBoundsError):
        past[1](np.zeros(64, np.float32))

    @asc.jit
    def queue():
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 256)
        a = q.alloc_tensor(asc.float32)
        assert a.get_size() == 64 and a.get_length() == 256 and a.get_position() == asc.TPosition.VECIN
        a.set_size(8)
    with pytest.raises(asc.TraceError, match="static LocalTensor") as e:
        queue[1]()
    assert "test_pyasc_tensor_methods.py" in str(e.value)


@pytest.mark.parametrize("backend", ["sim", "cpp"])
def test_tbuf_get_with_offset_and_set_addr_with_offset(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf=buf, num=1024)
        hi = buf.get_with_offset(size=64, buf_offset=256, dtype=asc.float32)   # bytes 256..512
        asc.data_copy(hi, xg, 64)
        lo = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 2048, 64)
        lo.set_addr_with_offset(hi, 0)       # the same bytes, seen through another tensor
        asc.muls(lo, lo, 2.0, 64)
        asc.data_copy(zg, hi, 64)
    x = np.arange(64, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(k, backend=backend)[1](x, z)
    np.testing.assert_array_equal(z, 2 * x)


def test_get_with_offset_past_the_buffer_is_refused():
    @asc.jit
    def k(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, 256)
        t = buf.get_with_offset(64, 128, asc.float32)     # bytes 128..384 of a 256-byte buffer
        asc.data_copy(t, xg, 64)
    with pytest.raises(asc.AscTraceError):
        k[1](np.zeros(64, np.float32))


def test_tbuf_alloc_tensor_is_get_and_free_tensor_does_nothing():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, 256)
        a = buf.alloc_tensor(asc.float32)
        asc.data_copy(a, xg, 64)
        asc.adds(a, a, 1.0, 64)
        asc.data_copy(zg, a, 64)
        buf.free_tensor(a)
    x = np.arange(64, dtype=np.float32)
    z = np.zeros_like(x)
    k[1](x, z)
    np.testing.assert_array_equal(z, x + 1)
    assert ".Get<float>()" in asc.compile(k, (x, z), core_num=1).source
