"""A raw LocalTensor over UB bytes that pipe.init_buffer gives a TQue or TBuf is refused while
compiling, on every backend (the scheduler keeps queue / TBuf buffers apart from raw tensors, so the
flags between the two would be missing; issue 18); one placed after the TPipe's buffers runs."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, every_backend

BACKENDS = every_backend()
T = 64


@asc.jit
def scratch(x: asc.GlobalAddress, z: asc.GlobalAddress, raw_at: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, T * 4)  # MARK-init
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = buf.get(asc.float32)
    raw = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, raw_at, T)  # MARK-raw
    asc.data_copy(t, xg, T)
    asc.muls(raw, t, 2.0, T)
    asc.data_copy(zg, raw, T)


@pytest.mark.parametrize("backend", BACKENDS)
def test_raw_tensor_over_a_tbuf_is_refused(backend):
    x = np.arange(T, dtype=np.float32)
    with pytest.raises(asc.QueueError) as ei:
        asc.jit(scratch, backend=backend)[1](x, np.zeros_like(x), 128)
    assert_points_at(ei.value, "MARK-raw")
    assert_points_at(ei.value, "MARK-init")
    assert "overlap bytes 0..256 that pipe.init_buffer gives a TBuf" in str(ei.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_raw_tensor_after_the_pipe_buffers_runs(backend):
    x = np.arange(T, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(scratch, backend=backend)[1](x, z, 256)
    np.testing.assert_array_equal(z, 2 * x)
