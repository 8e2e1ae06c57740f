"""ReduceSum / ReduceMax / ReduceMin's count form bounds its work tensor as the vendor's dav_c220 code uses it.

asc-devkit kernel_operator_vec_reduce_intf_impl.h: ReduceSum's count form is one counter-mode vcadd into dst and
never touches the work tensor; ReduceMax / Min run the mask form's steps over max(1, count // per) whole repeats
and, with a tail, a one-repeat step plus SetValue at work[0] and work[1] (graph/ops/reduce_work.py
count_form_work_elements). sim, eager, cpp and the CPU-debug API hook apply that size: a work tensor of exactly
it runs with the right result, one element less is OutOfBoundsError at the user's line on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import OutOfBoundsError
from asc_trace.graph.ops.reduce_work import count_form_work_elements
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm

CPU_DEBUG = pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))
BACKENDS = ["sim", "eager", "cpp", CPU_DEBUG]


@asc.jit
def reduce_count(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], with_index: asc.ConstExpr[bool],
                 count: asc.ConstExpr[int], work_n: asc.ConstExpr[int]):
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2048)
    asc.data_copy(src, gm(x), 2048)
    work = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 65536, work_n)
    out = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 98304, 16)
    asc.duplicate(out, 0, 16)
    if op == "reduce_sum":
        asc.reduce_sum(out, src, work, count)  # MARK-sum-rc
    else:
        getattr(asc, op)(out, src, work, count, with_index)  # MARK-rc
    asc.data_copy(gm(z), out, 16)


def _run(backend, dtype, op, with_index, count, work_n):
    x = (np.arange(2048) % 61 + 1).astype(dtype)
    x[count // 3] = 100 if op == "reduce_max" else -5
    z = np.zeros(16, dtype)
    asc.jit(reduce_count, backend=backend)[1](x, z, op, with_index, count, work_n)
    return x, z


# (dtype, op, cal_index, count): body only, body + tail, one short repeat, the index levels
CASES = [("float32", "reduce_max", False, 200), ("float16", "reduce_min", False, 1000),
         ("float32", "reduce_min", True, 100), ("float32", "reduce_max", True, 200),
         ("float16", "reduce_max", True, 1024)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, op, with_index, count", CASES)
def test_max_min_at_the_vendor_size_run_and_one_less_is_refused(backend, dtype, op, with_index, count):
    need = count_form_work_elements(op, with_index, count, np.dtype(dtype).itemsize)
    x, z = _run(backend, dtype, op, with_index, count, need)
    want = x[:count].max() if op == "reduce_max" else x[:count].min()
    assert z[0] == want
    if need == 0:
        return
    with pytest.raises(OutOfBoundsError) as info:
        _run(backend, dtype, op, with_index, count, need - 1)
    assert_points_at(info.value, "MARK-rc")


def test_the_sizes_read_from_the_vendor_code():
    assert count_form_work_elements("reduce_sum", False, 2000, 4) == 0
    assert count_form_work_elements("reduce_max", False, 200, 4) == 6          # 3 repeats' pairs
    assert count_form_work_elements("reduce_min", True, 100, 4) == 2           # one repeat: dst only, then the tail
    assert count_form_work_elements("reduce_min", True, 64, 4) == 0            # one whole repeat writes dst only
    assert count_form_work_elements("reduce_max", True, 200, 4) == 10


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_sum_never_needs_the_work_tensor(backend):
    x, z = _run(backend, "float32", "reduce_sum", False, 2000, 8)   # 8 elements: was refused below 64
    assert abs(float(z[0]) - float(x[:2000].astype(np.float64).sum())) < 1e-2
