"""Every bad input gets an asc.AscTraceError subclass naming the user's file:line, showing the line,
and a refused kernel writes nothing into the caller's outputs."""
import re

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, rand

F32 = asc.float32


def _gm(addr, n=None):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, n)
    return g


@pytest.fixture(params=["sim", "eager"])
def backend(request):
    return request.param


def launch(kernel, backend, cores, *args):
    asc.jit(kernel, backend=backend)[cores](*args)


def test_ub_allocation_past_usable_ub(backend):
    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 48 * 1024)  # MARK-ub-overflow

    with pytest.raises(asc.UBOverflowError) as ei:
        launch(k, backend, 1, np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-ub-overflow")
    assert "196352" in str(ei.value)


def test_init_buffer_past_usable_ub(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 2)
        pipe.init_buffer(q, 2, n * 4)  # MARK-initbuf-overflow

    with pytest.raises(asc.UBOverflowError) as ei:
        launch(k, backend, 1, np.zeros(8, np.float32), 30000)
    assert_points_at(ei.value, "MARK-initbuf-overflow")


def test_unaligned_ub_address(backend):
    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.LocalTensor(F32, asc.TPosition.VECIN, 16, 64)  # MARK-unaligned-tensor

    with pytest.raises(asc.AlignmentError) as ei:
        launch(k, backend, 1, np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-unaligned-tensor")


def test_unaligned_slice_in_an_operation(backend):
    @asc.jit
    def k(x: asc.GlobalAddress):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.adds(t[3:], t[16:], 1.0, 8)  # MARK-unaligned-slice

    with pytest.raises(asc.AlignmentError) as ei:
        launch(k, backend, 1, np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-unaligned-slice")
    assert "32-byte" in str(ei.value)


def test_data_copy_not_32_byte_multiple_constant():
    @asc.jit
    def k(x: asc.GlobalAddress):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, _gm(x), 7)  # MARK-copy-7

    with pytest.raises(asc.AlignmentError) as ei:
        k[1](np.zeros(64, np.float32))
    assert_points_at(ei.value, "MARK-copy-7")
    assert "data_copy_pad" in str(ei.value)


def test_data_copy_not_32_byte_multiple_runtime(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, _gm(x), n)  # MARK-copy-n

    with pytest.raises(asc.AlignmentError) as ei:
        launch(k, backend, 1, np.zeros(64, np.float32), 12)
    assert_points_at(ei.value, "MARK-copy-n")
    assert "data_copy_pad" in str(ei.value)


def test_gm_access_outside_window(backend):
    @asc.jit
    def k(x: asc.GlobalAddress):
        g = _gm(x, 8)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, g[8:], 8)  # MARK-window

    with pytest.raises(asc.OutOfBoundsError) as ei:
        launch(k, backend, 1, np.zeros(64, np.float32))
    assert_points_at(ei.value, "MARK-window")
    assert "window" in str(ei.value)


def test_gm_access_outside_array(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        g = _gm(x + asc.get_block_idx() * n)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, g, n)  # MARK-array

    with pytest.raises(asc.OutOfBoundsError) as ei:
        launch(k, backend, 4, np.zeros(64, np.float32), 24)
    assert_points_at(ei.value, "MARK-array")
    # the first core whose part leaves the array, the argument and the range are named
    assert "on core 2 touches elements [48, 72) of argument 'x', which has 64 elements" in str(ei.value)


def test_operand_dtype_mismatch():
    @asc.jit
    def k(x: asc.GlobalAddress):
        a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        b = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 256, 64)
        asc.add(a, a, b, 64)  # MARK-dtype

    with pytest.raises(asc.DTypeError) as ei:
        k[1](np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-dtype")
    assert "float16" in str(ei.value) and "float32" in str(ei.value)


def test_vector_op_on_global_tensor():
    @asc.jit
    def k(x: asc.GlobalAddress):
        g = _gm(x)
        asc.exp(g, g, 8)  # MARK-vec-gm

    with pytest.raises(asc.TraceError) as ei:
        k[1](np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-vec-gm")
    assert "data_copy" in str(ei.value)


def test_count_larger_than_tensor(backend):
    @asc.jit
    def k(x: asc.GlobalAddress):
        a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.duplicate(a, 1.0, 72)  # MARK-count

    with pytest.raises(asc.OutOfBoundsError) as ei:
        launch(k, backend, 1, np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-count")
    assert "72" in str(ei.value)


def _simple(x: asc.GlobalAddress, n: int):
    pass


@pytest.mark.parametrize("args,match", [
    ((np.zeros(8, np.float32),), "missing: n"),
    ((np.zeros(8, np.float32), 1, 2), "but 3 were given"),
    ((np.zeros(16, np.float32)[::2], 1), "not C-contiguous"),
    ((np.zeros(8, np.float64), 1), "float64"),
    ((np.zeros(8, np.complex64), 1), "complex64"),
    (([1.0, 2.0], 1), "NumPy array or a torch tensor"),
    ((np.zeros(8, np.float32), 1.5), "declared int"),
])
def test_bad_kernel_arguments(args, match):
    k = asc.jit(_simple)
    with pytest.raises(asc.LaunchError, match=match) as ei:
        k[1](*args)  # MARK-bad-args
    assert_points_at(ei.value, "MARK-bad-args")


def test_bad_core_count():
    k = asc.jit(_simple)
    with pytest.raises(asc.LaunchError, match="core_num"):
        k[0](np.zeros(8, np.float32), 1)


def test_calling_a_kernel_without_cores():
    k = asc.jit(_simple)
    with pytest.raises(asc.LaunchError, match=r"_simple\[core_num\]"):
        k(np.zeros(8, np.float32), 1)


def test_event_id_out_of_range_constant():
    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.set_flag(asc.HardEvent.MTE2_V, 8)  # MARK-event-8

    with pytest.raises(asc.SyncError) as ei:
        k[1](np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-event-8")


def test_event_id_out_of_range_runtime(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, e: int):
        asc.set_flag(asc.HardEvent.MTE2_V, e)  # MARK-event-e

    with pytest.raises(asc.SyncError) as ei:
        launch(k, backend, 1, np.zeros(8, np.float32), 9)
    assert_points_at(ei.value, "MARK-event-e")


def test_refused_kernel_writes_nothing(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
        xg = _gm(x)
        zg = _gm(z)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        for i in range(tiles):
            asc.data_copy(t, xg[i * 64:], 64)  # MARK-late-oob
            asc.data_copy(zg[i * 64:], t, 64)

    x = rand(256, np.float32)
    z = np.full(256, 7.0, np.float32)
    with pytest.raises(asc.OutOfBoundsError) as ei:
        launch(k, backend, 1, x, z, 5)   # tiles 0-3 are fine, tile 4 is out of bounds
    assert_points_at(ei.value, "MARK-late-oob")
    if backend == "sim":    # the simulator names the failing iteration of the runtime loop
        assert re.search(r"in loop at test_errors.py:\d+: index 4\n", str(ei.value)), str(ei.value)
    assert np.all(z == 7.0)


def test_error_shows_caret_and_node():
    @asc.jit
    def k(x: asc.GlobalAddress):
        a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.duplicate(a, 1.0, 72)

    with pytest.raises(asc.OutOfBoundsError) as ei:
        k[1](np.zeros(8, np.float32))
    text = str(ei.value)
    assert "^^^" in text
    assert "while running %1 = duplicate %0 <- 1.0, 72" in text


def test_api_outside_a_kernel():
    with pytest.raises(asc.TraceError, match="inside an @asc.jit kernel"):
        asc.get_block_idx()
