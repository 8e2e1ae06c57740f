"""A mask form's count mask is 1..(one repeat's lanes) in NORMAL mask mode on every backend.

The vendor API refuses a count past one repeat of a 2-, 4- or 8-byte type in NORMAL mode (asc-devkit
impl/basic_api/kernel_npu_debug.h CheckMaskValue: "mask when sizeof(T) == 4", valid range 0..64), and takes
any count in COUNTER mode (after SetMaskCount), where the count means something else: tests/test_mask_counter_mode.py. cpu_debug runs that check; sim, eager and cpp follow the mode
at run time (set_mask_count / set_mask_norm) and apply the same rule with one helper (runtime/executors_ops.py
check_mask_count; the cpp model's detail::mask_of), for every op with a count mask: binary, unary, scalar form,
duplicate, the whole reductions; Compare with dst and Select check no count (vendor's cmpsel_intf_impl.h) and
run a count past the repeat as the whole repeat on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import OutOfBoundsError
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm

CPU_DEBUG = pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))
BACKENDS = ["sim", "eager", "cpp", CPU_DEBUG]
# (block_reduce_sum / pair_reduce_sum refuse a constant count past the repeat while tracing, TraceError on every
# backend, whatever the mode: not tested here)
OPS = ["add", "exp", "adds", "duplicate", "compare", "select", "whole_reduce_sum"]
UNCHECKED = {"compare", "select"}   # the API checks no count range for Compare with dst, nor for Select
NO_CPP = {"compare", "select"}    # the cpp backend's API model refuses their mask forms at their line (runtime/cpp.py)


@asc.jit
def one_repeat(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], n: asc.ConstExpr[int],
               counter: asc.ConstExpr[bool]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, 256)
    bits = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8192, 256)
    asc.data_copy(a, gm(x), 256)
    asc.duplicate(d, 0, 256)
    asc.duplicate(bits.reinterpret_cast(asc.int16), 0x5555, 128)
    if counter:
        asc.set_mask_count()
    bp = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    up = asc.UnaryRepeatParams(1, 1, 8, 8)
    if op == "add":
        asc.add(d, a, a, n, 1, bp)  # MARK-mask-count-add-call
    elif op == "exp":
        asc.exp(d, a, n, 1, up)  # MARK-mask-count-exp-call
    elif op == "adds":
        asc.adds(d, a, 1.0, n, 1, up)  # MARK-mask-count-adds-call
    elif op == "duplicate":
        asc.duplicate(d, 2.0, n, 1, 1, 8)  # MARK-mask-count-duplicate-call
    elif op == "compare":
        asc.compare(bits, a, a, asc.CMPMODE.LE, n, 1, bp)  # MARK-mask-count-compare-call
    elif op == "select":
        asc.select(d, bits, a, a, asc.SELMODE.VSEL_TENSOR_TENSOR_MODE, n, 1, bp)  # MARK-mask-count-select-call
    else:
        asc.whole_reduce_sum(d, a, n, 1, 1, 1, 8)  # MARK-mask-count-whole_reduce_sum-call
    if counter:
        asc.set_mask_norm()
    asc.data_copy(gm(z), d, 256)


def _runs() -> list:
    runs = []
    for op in OPS:
        for b in BACKENDS:
            name, marks = (b, ()) if isinstance(b, str) else (b.values[0], b.marks)
            if not (name == "cpp" and op in NO_CPP):
                for dtype in ("float16", "float32"):
                    runs.append(pytest.param(name, op, dtype, marks=marks, id=f"{op}-{dtype}-{name}"))
    return runs


def _run(backend, op, dtype, n, counter=False, z=None):
    x = (np.arange(256) % 13 + 1).astype(dtype)
    z = np.full(256, 5, dtype) if z is None else z
    asc.jit(one_repeat, backend=backend)[1](x, z, op, n, counter)
    return z


@pytest.mark.parametrize("backend, op, dtype", _runs())
def test_a_count_of_one_repeat_runs_and_one_more_is_refused_in_normal_mode(backend, op, dtype):
    per = 256 // np.dtype(dtype).itemsize
    got = _run(backend, op, dtype, per)
    if backend != "sim":
        assert got.tobytes() == _run("sim", op, dtype, per).tobytes()
    if op in UNCHECKED:       # the count past the repeat runs as the whole repeat, as the vendor's runs it
        assert _run(backend, op, dtype, per + 1).tobytes() == got.tobytes()
        return
    z = np.full(256, 5, dtype)
    with pytest.raises(OutOfBoundsError, match=rf"mask.*\b{per}\b") as info:
        _run(backend, op, dtype, per + 1, z=z)
    assert_points_at(info.value, f"MARK-mask-count-{op}-call")
    assert (z == 5).all()                                       # nothing reached global memory
