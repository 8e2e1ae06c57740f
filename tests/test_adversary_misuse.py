"""An adversary's misuse kernels (issue #25): each is refused with the same asc_trace error class on sim, eager,
cpp and cpu_debug, never a raw exception. Negative / huge counts, repeats, masks and
strides, mixed dtypes, negative slices and GM offsets, GM and UB overflows, a ReduceSum count of 0, event ids."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import AscTraceError
from asc_trace.toolchain.real_api import headers_if_configured
from op_cases import gm

CPU_DEBUG = pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))

K = {}


def kern(f):
    K[f.__name__] = f
    return f


@kern
def neg_count(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, gm(x), 256)
    asc.add(a, a, a, n)
    asc.data_copy(gm(z), a, 256)


@kern
def huge_repeat(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, gm(x), 256)
    asc.add(a, a, a, 64, n, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.data_copy(gm(z), a, 256)


@kern
def neg_mask(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, gm(x), 256)
    asc.add(a, a, a, n, 1, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.data_copy(gm(z), a, 256)


@kern
def mask_too_wide(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, gm(x), 256)
    asc.add(a, a, a, 65, 1, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.data_copy(gm(z), a, 256)


@kern
def neg_stride(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, gm(x), 256)
    asc.add(a, a, a, 64, 1, asc.BinaryRepeatParams(1, 1, 1, n, 8, 8))
    asc.data_copy(gm(z), a, 256)


@kern
def big_stride(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, gm(x), 256)
    asc.add(a, a, a, 64, 1, asc.BinaryRepeatParams(n, 1, 1, 8, 8, 8))
    asc.data_copy(gm(z), a, 256)


@kern
def mixed_dtypes(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 2048, 256)
    asc.add(a, a, b, 64)


@kern
def neg_offset_slice(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 256)
    asc.data_copy(a[n:], gm(x), 64)


@kern
def gm_past(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 4096)
    asc.data_copy(a, gm(x), n)


@kern
def gm_neg_offset(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    g = asc.GlobalTensor()
    g.set_global_buffer(x + n, 64)
    asc.data_copy(a, g, 64)


@kern
def ub_overflow(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 196352 - 128, 64)
    asc.data_copy(a, gm(x), 64)


@kern
def dup_mask_past(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 64)
    b = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 4096, 64)
    asc.duplicate(a, 7, 64, n, 1, 8)
    asc.data_copy(gm(z), a, 64)


@kern
def muls_mask_past(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 128)
    d = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 4096, 128)
    asc.data_copy(a, gm(x), 128)
    asc.muls(d, a, 3, [0xFFFF, 0], n, asc.UnaryRepeatParams(1, 1, 4, 4))
    asc.data_copy(gm(z), d, 128)


@kern
def div_zero(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, gm(x), 256 // n * 8)             # an integer division by zero in a count


@kern
def reduce_count0(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 2048, 256)
    d = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4096, 8)
    asc.data_copy(a, gm(x), 256)
    asc.reduce_sum(d, a, t, n)


@kern
def event_id_big(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    asc.set_flag(asc.HardEvent.MTE2_V, n)
    asc.wait_flag(asc.HardEvent.MTE2_V, n)


@kern
def unwaited_flag(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    asc.set_flag(asc.HardEvent.MTE2_V, n)


# (kernel, its int argument, the class every backend raises)
CASES = [("neg_count", -64, "OutOfBoundsError"), ("huge_repeat", 256, "OutOfBoundsError"),
         ("neg_mask", -1, "OutOfBoundsError"), ("neg_stride", -1, "OutOfBoundsError"),
         ("big_stride", 300, "OutOfBoundsError"), ("mixed_dtypes", 0, "DTypeError"),
         ("neg_offset_slice", -8, "OutOfBoundsError"), ("gm_past", 2048, "OutOfBoundsError"),
         ("gm_neg_offset", -64, "OutOfBoundsError"), ("ub_overflow", 0, "UBOverflowError"),
         ("dup_mask_past", 2, "OutOfBoundsError"), ("muls_mask_past", 3, "OutOfBoundsError"),
         ("div_zero", 0, "ScalarError"), ("reduce_count0", 0, "OutOfBoundsError"), ("event_id_big", 9, "SyncError"),
         ("unwaited_flag", 1, "SyncError")]


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp", CPU_DEBUG])
@pytest.mark.parametrize("name, n, cls", CASES)
def test_misuse_is_one_error_class_on_every_backend(name, n, cls, backend):
    dt = {"muls_mask_past": np.int16, "dup_mask_past": np.int32}.get(name, np.float32)
    x, z = np.ones(1024, dt), np.zeros(1024, dt)
    launch = asc.jit(K[name], backend=backend)[1]
    with pytest.raises(AscTraceError) as info:
        launch(x, z, n)
    assert type(info.value).__name__ == cls, str(info.value)
