"""ReduceSum / ReduceMax / ReduceMin's mask form is bounded by its three LocalTensors on every backend.

src by the mask's lanes of every repeat, dst by the result (two elements with cal_index), and the shared tmp
(work) tensor by what the vendor's A2 steps touch (graph/ops/reduce_work.py, read from asc-devkit
dav_c220/kernel_operator_vec_reduce_impl.h). sim / eager bound it in the executor, cpu_debug in the API hook
before the vendor's instructions run (toolchain/stub/src/api_hooks.cpp); the cpp backend refuses the mask form
by name. Here the footprint itself is checked against the vendor's code on cpu_debug: a work tensor of exactly
that size, inside a guard region, has its last element written and nothing past it touched; one element less
is refused (OutOfBoundsError at the user's line) on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import OutOfBoundsError
from asc_trace.graph.ops.reduce_work import work_elements
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm

CPU_DEBUG = pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))
BACKENDS = ["sim", "eager", CPU_DEBUG]
GUARD = 1024            # elements of the guard region the work tensor starts
SENTINEL = -777


@asc.jit
def reduce_in_guard(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], with_index: asc.ConstExpr[bool],
                    repeat: asc.ConstExpr[int], work_n: asc.ConstExpr[int], src_n: asc.ConstExpr[int]):
    big = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 32768 // x.dtype.sizeof() * 4)
    asc.data_copy(big, gm(x), 32768 // x.dtype.sizeof() * 4)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, src_n)
    guard = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 139264, GUARD)
    asc.duplicate(guard, SENTINEL, GUARD)
    work = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 139264, work_n)
    out = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 135168, 16)
    asc.duplicate(out, 0, 16)
    if op == "reduce_sum":
        asc.reduce_sum(out, src, shared_tmp_buffer=work, mask=40, repeat_time=repeat, src_rep_stride=8)  # MARK-rw-sum
    else:
        reduce = getattr(asc, op)
        reduce(out, src, shared_tmp_buffer=work, mask=40, repeat_time=repeat, src_rep_stride=8, cal_index=with_index)  # MARK-rw-mm
    asc.data_copy(gm(z), guard, GUARD)


def _run(backend, dtype, op, with_index, repeat, work_n, src_n=None):
    per = 256 // np.dtype(dtype).itemsize
    src_n = src_n if src_n is not None else (repeat - 1) * per + 40
    x = (np.arange(32768 // np.dtype(dtype).itemsize * 4) % 61 + 1).astype(dtype)
    z = np.zeros(GUARD, dtype)
    asc.jit(reduce_in_guard, backend=backend)[1](x, z, op, with_index, repeat, work_n, src_n)
    return z


# (dtype, op, cal_index, repeat): one and several repeats, pairs crossing a repeat, the deepest index levels
CASES = [("float32", "reduce_sum", False, 5), ("float16", "reduce_sum", False, 200),
         ("float16", "reduce_max", False, 40), ("float32", "reduce_min", True, 2),
         ("float32", "reduce_max", True, 40), ("float16", "reduce_min", True, 255)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, op, with_index, repeat", CASES)
def test_the_work_footprint_is_the_vendors(backend, dtype, op, with_index, repeat):
    n = work_elements(op, with_index, repeat, np.dtype(dtype).itemsize)
    z = _run(backend, dtype, op, with_index, repeat, n)
    assert (z[n:] == SENTINEL).all()                 # nothing past the work tensor is touched
    if backend == "cpu_debug":                       # the vendor's steps reach its last element
        assert z[n - 1] != SENTINEL


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, op, with_index, repeat", CASES[:4])
def test_a_work_tensor_one_element_short_is_refused(backend, dtype, op, with_index, repeat):
    n = work_elements(op, with_index, repeat, np.dtype(dtype).itemsize)
    with pytest.raises(OutOfBoundsError, match="tmp") as info:
        _run(backend, dtype, op, with_index, repeat, n - 1)
    assert_points_at(info.value, "MARK-rw-sum" if op == "reduce_sum" else "MARK-rw-mm")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_source_short_of_the_last_repeats_lanes_is_refused(backend):
    with pytest.raises(OutOfBoundsError, match="src") as info:
        _run(backend, "float32", "reduce_max", True, 3, 16, src_n=2 * 64 + 39)
    assert_points_at(info.value, "MARK-rw-mm")
