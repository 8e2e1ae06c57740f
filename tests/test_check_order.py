"""Issue 25's parity items: every backend refuses a bad operand with the same error class, in the order
the vendor API's checks imply (cpu_debug runs the API's own checks; the others must agree with it)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import every_backend

F32 = asc.float32
N = 64


@asc.jit
def misaligned_past_the_tensor(x: asc.GlobalAddress, z: asc.GlobalAddress, store: asc.ConstExpr[bool]):
    """A copy whose UB side starts 4 bytes into its tensor (not 32-byte aligned) and runs one element
    past its end: the API checks the tensor's size when called, the instruction the address after."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 4 * N)
    zg.set_global_buffer(z, 4 * N)
    a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, N)
    if store:
        asc.data_copy(a, xg, N)
        asc.data_copy(zg, a[1:], N)
    else:
        asc.data_copy(a[1:], xg, N)


@asc.jit
def misaligned_only(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x, 4 * N)
    a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, N)
    asc.data_copy(a[1:], xg, 8)


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("store", [False, True])
def test_a_misaligned_copy_past_its_tensor_is_out_of_bounds_on_every_backend(backend, store):
    x, z = np.ones(4 * N, np.float32), np.zeros(4 * N, np.float32)
    with pytest.raises(asc.AscTraceError) as info:
        asc.jit(misaligned_past_the_tensor, backend=backend)[1](x, z, store)
    assert type(info.value) is asc.OutOfBoundsError, str(info.value)
    assert not z.any()


@pytest.mark.parametrize("backend", every_backend())
def test_a_misaligned_copy_inside_its_tensor_is_an_alignment_error_on_every_backend(backend):
    with pytest.raises(asc.AscTraceError) as info:
        asc.jit(misaligned_only, backend=backend)[1](np.ones(4 * N, np.float32), np.zeros(4 * N, np.float32))
    assert type(info.value) is asc.AlignmentError, str(info.value)


@asc.jit
def reduce_past_its_source(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], n: int):
    """A reduction of `n` elements from a tensor of N: past it, the UB bytes after it still exist (a
    second tensor lies there), so only a check of the source tensor's size refuses it."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 8 * N)
    zg.set_global_buffer(z, N)
    src = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, N)
    after = asc.LocalTensor(F32, asc.TPosition.VECIN, 4 * N, 4 * N)
    dst = asc.LocalTensor(F32, asc.TPosition.VECOUT, 32 * N, N)
    tmp = asc.LocalTensor(F32, asc.TPosition.VECCALC, 64 * N, 4 * N)
    asc.data_copy(src, xg, N)
    asc.data_copy(after, xg, 4 * N)
    asc.duplicate(dst, 0.0, N)
    getattr(asc, op)(dst, src, tmp, n)
    asc.data_copy(zg, dst, N)


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_min"])
def test_a_reduce_past_its_source_tensor_is_out_of_bounds_on_every_backend(backend, op):
    x = np.arange(8 * N, dtype=np.float32)
    for n in (N + 36, 2 * N):                   # a partial repeat past the end, and whole repeats
        z = np.zeros(N, np.float32)
        with pytest.raises(asc.AscTraceError) as info:
            asc.jit(reduce_past_its_source, backend=backend)[1](x, z, op, n)
        assert type(info.value) is asc.OutOfBoundsError, str(info.value)
    z = np.zeros(N, np.float32)
    asc.jit(reduce_past_its_source, backend=backend)[1](x, z, op, N)      # the whole tensor: fine
    want = {"reduce_sum": x[:N].sum(), "reduce_max": x[N - 1], "reduce_min": 0.0}[op]
    assert z[0] == want
