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
    zg.set_value(4, xg[16:].get_size())                 # 64: a GM view keeps the window's size
    zg.set_value(5, xg.get_value(5) + xg(6))            # scalar GM reads, both spellings
    zg.set_value(6, t(7))
    t.set_size(32)
    zg.set_value(7, t.get_size())


@pytest.mark.parametrize("backend", BACKENDS)
def test_metadata_values(backend):
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(16, np.float32)
    asc.jit(metadata, backend=backend)[1](x, z)
    np.testing.assert_array_equal(z[:8], [56, 224, 288, 1, 64, 11, 7, 32])


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


@pytest.mark.parametrize("backend", ["sim", "cpp"])
def test_local_mem_allocator_bumps_without_rounding(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        alloc = asc.LocalMemAllocator(hard=asc.Hardware.UB)
        a = alloc.alloc(asc.TPosition.VECIN, asc.float32, n)
        zg.set_value(n, alloc.get_cur_addr())              # n * 4 bytes after the first tensor
        b = alloc.alloc(asc.TPosition.VECOUT, asc.float32, n)
        asc.data_copy(a, xg, n)
        asc.muls(b, a, 5.0, n)
        asc.data_copy(zg, b, n)
        zg.set_value(n + 1, b.get_phy_addr())
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(72, np.float32)
    asc.jit(k, backend=backend)[1](x, z, 64)
    np.testing.assert_array_equal(z[:64], 5 * x)
    assert list(z[64:66]) == [256, 256]


def test_local_mem_allocator_misaligned_head_and_cube_memory_are_refused():
    @asc.jit
    def k(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        alloc = asc.LocalMemAllocator()
        alloc.alloc(asc.TPosition.VECIN, asc.float32, 10)          # 40 bytes: the next head is not 32-aligned
        b = alloc.alloc(asc.TPosition.VECIN, asc.float32, 8)
        asc.data_copy(b, xg, 8)
    with pytest.raises(asc.AlignmentError):
        k[1](np.zeros(8, np.float32))

    @asc.jit
    def l1():
        asc.LocalMemAllocator(asc.Hardware.L1)
    with pytest.raises(asc.NotProvidedError, match="Hardware.L1"):
        l1[1]()


def test_queue_counts_follow_ascend_c_and_refuse_inside_loops():
    seen = []

    @asc.jit
    def k(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 2)
        seen.append((q.vacant_in_que(), q.has_tensor_in_que(), q.get_tensor_count_in_que(), q.has_idle_buffer()))
        pipe.init_buffer(q, 2, 256)
        a = q.alloc_tensor(asc.float32)
        asc.data_copy(a, xg, 64)
        q.enque(a)
        b = q.alloc_tensor(asc.float32)
        asc.data_copy(b, xg, 64)
        q.enque(b)
        seen.append((q.vacant_in_que(), q.has_tensor_in_que(), q.get_tensor_count_in_que(), q.has_idle_buffer()))
        for _ in range(2):
            t = q.deque(asc.float32)
            q.free_tensor(t)
        q.get_tensor_count_in_que()
    with pytest.raises(asc.TraceError, match="straight-line code"):
        k[1](np.zeros(64, np.float32))
    assert seen == [(True, False, 0, False), (False, True, 2, False)]


@pytest.mark.parametrize("method, err", [("init", asc.TraceError), ("destroy", asc.NotProvidedError),
                                         ("reset", asc.NotProvidedError)])
def test_tpipe_lifecycle_calls_are_clear_errors(method, err):
    @asc.jit
    def k():
        pipe = asc.TPipe()
        getattr(pipe, method)()
    with pytest.raises(err, match=f"TPipe.{method}") as e:
        k[1]()
    assert "test_pyasc_tensor_methods.py" in str(e.value)


def test_shape_info_travels_with_the_tensor_and_its_views():
    got = []

    @asc.jit
    def k(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        got.append(t.get_shape_info().shape)                   # Ascend C's default: no shape
        t.set_shape_info(asc.ShapeInfo([8, 8]))
        xg.set_shape_info(asc.ShapeInfo([4, 16]))
        got.extend([t[8:].get_shape_info().shape, xg[16:].get_shape_info().shape])
        t.set_shape_info([8, 8])
    with pytest.raises(asc.TraceError, match="takes an asc.ShapeInfo"):
        k[1](np.zeros(64, np.float32))
    assert got == [(), (8, 8), (4, 16)]


def test_user_tags_are_refused_with_the_reason():
    @asc.jit
    def static():
        asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64).set_user_tag(10)
    with pytest.raises(asc.TraceError, match="static LocalTensor has no TPipe buffer"):
        static[1]()

    @asc.jit
    def queued():
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 256)
        q.alloc_tensor(asc.float32).get_user_tag()
    with pytest.raises(asc.NotProvidedError, match="get_user_tag is not provided"):
        queued[1]()
