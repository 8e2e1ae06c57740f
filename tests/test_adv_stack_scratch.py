"""An asc.adv call without temp_buffer takes the UB after the TPipe's buffers as its scratch (the vendor's
PopStackBuffer): sim and eager know that area, so a raw LocalTensor in it is a clear error at the call's line
before anything is written, too little room for the call's minimum is a UBOverflowError, and a correct kernel
gives the same bytes with and without temp_buffer (and on cpu_debug, when the headers are at hand)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import cpu_debug_ready, needs_headers

TILE = 1024


def _kernel(raw_at: int | None = None, with_tmp: bool = False, pad: int = 0, raw_after: bool = False):
    """x -> asc.adv.tanh -> z through TPipe queues; optionally a raw LocalTensor at UB byte `raw_at` (written by
    the kernel, before or after the call), a TBuf for the temporary buffer, `pad` bytes of an unused TBuf."""
    @asc.jit
    def stack_tanh(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        in_q, out_q = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(in_q, 1, TILE * 2)
        pipe.init_buffer(out_q, 1, TILE * 2)
        if pad:
            pad_buf = asc.TBuf(asc.TPosition.VECCALC)
            pipe.init_buffer(pad_buf, pad)
        if with_tmp:
            tbuf = asc.TBuf(asc.TPosition.VECCALC)
            pipe.init_buffer(tbuf, asc.adv.get_tanh_max_min_tmp_size([TILE], 2)[0])
        if raw_at is not None and not raw_after:
            raw = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, raw_at, 64)
            asc.duplicate(raw, 1.0, 64)
        src = in_q.alloc_tensor(asc.float16)
        asc.data_copy(src, xg, TILE)
        in_q.enque(src)
        src = in_q.deque(asc.float16)
        dst = out_q.alloc_tensor(asc.float16)
        if with_tmp:
            asc.adv.tanh(dst, src, TILE, tbuf.get(asc.uint8))
        else:
            asc.adv.tanh(dst, src, TILE)
        if raw_at is not None and raw_after:
            raw = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, raw_at, 64)
            asc.duplicate(raw, 1.0, 64)
        out_q.enque(dst)
        in_q.free_tensor(src)
        dst = out_q.deque(asc.float16)
        asc.data_copy(zg, dst, TILE)
        out_q.free_tensor(dst)
    return stack_tanh


BACKENDS = ["sim", "eager"] + (["cpu_debug"] if cpu_debug_ready() else [])


def _x():
    return np.random.default_rng(7).uniform(-4, 4, TILE).astype(np.float16)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_without_temp_buffer_equals_with_it(backend):
    x = _x()
    a, b = np.zeros_like(x), np.zeros_like(x)
    asc.jit(_kernel(), backend=backend)[1](x, a)
    asc.jit(_kernel(with_tmp=True), backend=backend)[1](x, b)
    assert a.tobytes() == b.tobytes()
    np.testing.assert_allclose(a.astype(np.float64), np.tanh(x.astype(np.float64)), rtol=4e-3, atol=1e-3)


@pytest.mark.parametrize("backend", ["sim", "eager"])     # cpu_debug: the vendor overwrites it silently
def test_a_raw_tensor_in_the_scratch_is_refused_at_the_call(backend):
    z = np.zeros(TILE, np.float16)
    # the queues end at 4096; tanh's scratch on 1024 halves is [4096, 4096 + 8192)
    with pytest.raises(asc.OutOfBoundsError, match=r"without temp_buffer overwrites UB bytes \[4096, ") as ei:
        asc.jit(_kernel(raw_at=4096 + 4096), backend=backend)[1](_x(), z)
    assert "asc.adv.tanh(dst, src, TILE)" in str(ei.value)
    assert not z.any()                          # refused before anything was written back


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_a_raw_tensor_beyond_the_scratch_or_below_it_is_fine(backend):
    x = _x()
    want, z = np.zeros_like(x), np.zeros_like(x)
    asc.jit(_kernel(), backend=backend)[1](x, want)
    most = asc.adv.get_tanh_max_min_tmp_size([TILE], 2)[0]
    asc.jit(_kernel(raw_at=4096 + most), backend=backend)[1](x, z)
    assert z.tobytes() == want.tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
def test_too_little_room_after_the_pipe_is_a_ub_overflow(backend):
    from asc_trace import config
    lo = asc.adv.get_tanh_max_min_tmp_size([TILE], 2)[1]
    pad = config.UB_USABLE - 4096 - (lo - 32)
    # cpu_debug: the same class, from the vendor's own bounds on the call's operands
    with pytest.raises(asc.UBOverflowError, match="bytes are left, the call needs at least" if backend != "cpu_debug"
                       else "outside the usable"):
        asc.jit(_kernel(pad=pad), backend=backend)[1](_x(), np.zeros(TILE, np.float16))
    asc.jit(_kernel(pad=config.UB_USABLE - 4096 - lo), backend=backend)[1](_x(), np.zeros(TILE, np.float16))


def test_the_scratch_is_the_calls_write_for_the_race_checker():
    """A raw tensor placed in the scratch after the call did not exist at the call, so the call does not refuse
    it; the simulator's race checker sees the call's scratch write, so the unordered later write of the same
    bytes is a RaceError naming both lines, not a silent overlap. (auto_sync's scheduler does not know the
    scratch yet, so it inserts no barrier here: docs/adv.md.)"""
    with pytest.raises(asc.RaceError, match=r"WAW\) on UB bytes \[8192, 8320\)") as ei:
        asc.jit(_kernel(raw_at=4096 + 4096, raw_after=True), backend="sim")[1](_x(), np.zeros(TILE, np.float16))
    assert "asc.adv.tanh(dst, src, TILE)" in str(ei.value)


@needs_headers
def test_the_vendors_stack_form_agrees():
    x = _x()
    a, b = np.zeros_like(x), np.zeros_like(x)
    asc.jit(_kernel(), backend="sim")[1](x, a)
    asc.jit(_kernel(), backend="cpu_debug")[1](x, b)
    assert a.tobytes() == b.tobytes()


def test_a_backend_name_in_the_launch_brackets_is_refused():
    """k[1, "eager"] passes a stream: it would run on the default backend without a word (it did, in this file's
    first version)."""
    with pytest.raises(asc.LaunchError, match="the second item is a stream, not a backend name") as ei:
        _kernel()[1, "eager"](_x(), np.zeros(TILE, np.float16))
    assert "test_adv_stack_scratch.py" in str(ei.value)
