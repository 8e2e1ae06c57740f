"""Flags that come before `asc.TPipe()` in program order (the user's own, or the ones auto_sync derives for
flag-free code before it) take their event ids from the table the TPipe's declaration fills: the lowering
declares that TPipe at the kernel's top, so the emitted C compiles and every backend gives NumPy's bytes
(an adversary's kernels: before the fix cpp / cpu_debug failed with "'asct_ev_...' was not declared")."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import every_backend

T = 64


@asc.jit
def loop_then_tque(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, (n + 1) * T)
    zg.set_global_buffer(z, (n + 1) * T)
    p = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 32 * 1024, T)
    for i in range(n):                      # flag-free: the scheduler's flags come before the TPipe
        asc.data_copy(p, xg[i * T:], T)
        asc.muls(p, p, 2.0, T)
        asc.data_copy(zg[i * T:], p, T)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, T * 4)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg[n * T:], T)
    q.enque(t)
    t = q.deque(asc.float32)
    asc.adds(t, t, 1.0, T)
    asc.data_copy(zg[n * T:], t, T)
    q.free_tensor(t)


@asc.jit(auto_sync=False)
def own_flags_then_tque(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 2 * T)
    zg.set_global_buffer(z, 2 * T)
    p = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 32 * 1024, T)
    asc.data_copy(p, xg, T)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(p, p, 2.0, T)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, p, T)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, T * 4)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg[T:], T)
    q.enque(t)
    t = q.deque(asc.float32)
    asc.set_flag(asc.HardEvent.MTE2_V, 1)    # ordered by the queue already; an extra pair is harmless
    asc.wait_flag(asc.HardEvent.MTE2_V, 1)
    asc.adds(t, t, 1.0, T)
    asc.set_flag(asc.HardEvent.V_MTE3, 1)
    asc.wait_flag(asc.HardEvent.V_MTE3, 1)
    asc.data_copy(zg[T:], t, T)
    q.free_tensor(t)


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("n", [0, 3])
def test_flag_free_loop_before_the_tpipe(backend, n):
    x = np.arange((n + 1) * T, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(loop_then_tque, backend=backend)[1](x, z, n)
    np.testing.assert_array_equal(z, np.concatenate([x[:n * T] * 2, x[n * T:] + 1]))


@pytest.mark.parametrize("backend", every_backend())
def test_own_flags_before_the_tpipe(backend):
    x = np.arange(2 * T, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(own_flags_then_tque, backend=backend)[1](x, z)
    np.testing.assert_array_equal(z, np.concatenate([x[:T] * 2, x[T:] + 1]))


def test_the_tpipe_is_declared_before_the_first_flag():
    src = asc.compile(loop_then_tque, (np.zeros(4 * T, np.float32), np.zeros(4 * T, np.float32), 3)).source
    assert src.index("AscendC::TPipe ") < src.index("AscendC::SetFlag")


@asc.jit
def tpipe_in_a_loop(x: asc.GlobalAddress, n: int):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x, 64)
    for i in range(n):
        pipe = asc.TPipe()  # MARK-pipe-in-loop
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 256)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_tpipe_in_a_runtime_loop_is_refused_whatever_the_trip_count(backend, n):
    """One TPipe per kernel: made in a runtime loop it is a second one from the second trip on (an adversary
    saw n = 0 and 1 run and n = 3 refused only when it ran)."""
    from helpers import assert_points_at
    with pytest.raises(asc.TraceError, match=r"asc.TPipe\(\) inside a runtime loop") as e:
        asc.jit(tpipe_in_a_loop, backend=backend)[1](np.zeros(64, np.float32), n)
    assert_points_at(e.value, "MARK-pipe-in-loop")
