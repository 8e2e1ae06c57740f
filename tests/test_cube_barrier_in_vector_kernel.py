"""Issue 25: `asc.pipe_barrier` on a cube pipe (PIPE_MTE1 / PIPE_M / PIPE_FIX) in a kernel with no cube work.
It made the vector kernel a mixed one: sim / eager / cpp ran it as such (and here reported a GM race between
the two vector cores of the AI core), cpu_debug refused it as a cube kernel (NotProvidedError). Now every
backend raises the same TraceError at the barrier's line, before any backend runs."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import TraceError
from helpers import assert_points_at, cpu_debug_ready
from op_cases import gm

CPU_DEBUG = pytest.param("cpu_debug", marks=[pytest.mark.toolchain,
                                             pytest.mark.skipif(not cpu_debug_ready(), reason="no Ascend C headers")])
BACKENDS = ["sim", "eager", "cpp", CPU_DEBUG]


@asc.jit
def barrier_on(x: asc.GlobalAddress, z: asc.GlobalAddress, pipe: asc.ConstExpr[str]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a, gm(x), 64)
    asc.pipe_barrier(getattr(asc.PipeID, pipe))  # MARK-cube-barrier
    asc.data_copy(gm(z), a, 64)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pipe", ["PIPE_MTE1", "PIPE_M", "PIPE_FIX"])
def test_a_cube_pipe_barrier_in_a_vector_kernel_is_the_same_trace_error_everywhere(backend, pipe):
    with pytest.raises(TraceError) as info:
        asc.jit(barrier_on, backend=backend)[1](np.ones(64, np.float32), np.zeros(64, np.float32), pipe)
    assert type(info.value) is TraceError, type(info.value)      # not a NotProvidedError (a TraceError subclass)
    assert f"pipe_barrier({pipe})" in str(info.value) and "no cube work" in str(info.value)
    assert_points_at(info.value, "MARK-cube-barrier")


@pytest.mark.parametrize("pipe", ["PIPE_V", "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL"])
def test_a_vector_pipe_barrier_still_runs(pipe):
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    asc.jit(barrier_on, backend="sim")[1](x, z, pipe)
    assert np.array_equal(z, x)
