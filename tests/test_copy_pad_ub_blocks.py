"""data_copy_pad from the UB reads whole 32-byte blocks: the source LocalTensor must hold the block-rounded extent.

The vendor's API refuses a smaller source ("tensor size needs to be at least N bytes": asc-devkit
kernel_check_data_copy_overflow.h, block_count * AlignUp(block_len, 32) + (block_count - 1) * src_stride * 32
bytes); sim, eager and cpp apply the same rule, and every backend raises OutOfBoundsError at the user's line
without writing global memory. At exactly the rounded extent the copy runs and writes only block_len bytes
per block."""
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


@asc.jit
def pad_out(x: asc.GlobalAddress, z: asc.GlobalAddress, size: asc.ConstExpr[int], rows: int, row_bytes: int,
            gap_blocks: int):
    big = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 512)
    asc.data_copy(big, gm(x), 512)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 0, size)     # a smaller view of the same bytes
    asc.data_copy_pad(gm(z), src, asc.DataCopyExtParams(rows, row_bytes, gap_blocks, 0, 0))  # MARK-pad-out


def _run(backend, dtype, size, rows, row_bytes, gap_blocks=0, z=None):
    x = (np.arange(512) % 50 + 1).astype(dtype)
    z = np.zeros(512, dtype) if z is None else z
    asc.jit(pad_out, backend=backend)[1](x, z, size, rows, row_bytes, gap_blocks)
    return x, z


def _rounded(itemsize, rows, row_bytes, gap_blocks):
    return (rows * -(-row_bytes // 32) * 32 + (rows - 1) * gap_blocks * 32) // itemsize


# (dtype, rows, row bytes, source gap in blocks): one short row, rows not a whole block, a gap between rows
CASES = [("float32", 1, 16, 0), ("float16", 3, 40, 0), ("int32", 2, 12, 1), ("float16", 1, 64, 0)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, rows, row_bytes, gap", CASES)
def test_a_source_of_the_rounded_extent_runs(backend, dtype, rows, row_bytes, gap):
    size = _rounded(np.dtype(dtype).itemsize, rows, row_bytes, gap)
    x, z = _run(backend, dtype, size, rows, row_bytes, gap)
    n = row_bytes // x.itemsize
    step = (-(-row_bytes // 32) * 32 + gap * 32) // x.itemsize
    want = np.zeros(512, dtype)
    for r in range(rows):
        want[r * n:(r + 1) * n] = x[r * step:r * step + n]
    assert z.tobytes() == want.tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, rows, row_bytes, gap", [c for c in CASES if c[2] % 32])
def test_a_source_short_of_the_rounded_extent_is_refused(backend, dtype, rows, row_bytes, gap):
    itemsize = np.dtype(dtype).itemsize
    size = _rounded(itemsize, rows, row_bytes, gap) - 32 // itemsize + row_bytes % 32 // itemsize
    z = np.zeros(512, dtype)
    with pytest.raises(OutOfBoundsError) as info:
        _run(backend, dtype, size, rows, row_bytes, gap, z=z)
    assert_points_at(info.value, "MARK-pad-out")
    assert not z.any()                                  # nothing reached global memory


@asc.jit
def pad_out_of_view(x: asc.GlobalAddress, z: asc.GlobalAddress, size: asc.ConstExpr[int], off: asc.ConstExpr[int],
                    row_bytes: int):
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, size)
    asc.data_copy(src, gm(x), size // 8 * 8)                           # whole 32-byte blocks
    # the vendor's LocalTensor::operator[] shortens the view's dataLen by the offset: the view holds size - off
    asc.data_copy_pad(gm(z), src[off], asc.DataCopyExtParams(1, row_bytes, 0, 0, 0))  # MARK-pad-view


# float32: a 16-byte row reads one whole 32-byte block (8 floats) from the view src[off]
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("size, ok", [(72, True), (71, False)])
def test_a_view_is_bounded_by_its_own_size(backend, size, ok):
    x = (np.arange(size) % 50 + 1).astype(np.float32)
    z = np.zeros(64, np.float32)
    run = asc.jit(pad_out_of_view, backend=backend)[1]
    if ok:
        run(x, z, size, 64, 16)
        assert z.tobytes() == np.concatenate([x[64:68], np.zeros(60, np.float32)]).tobytes()
        return
    with pytest.raises(OutOfBoundsError) as info:
        run(x, z, size, 64, 16)
    assert_points_at(info.value, "MARK-pad-view")
    assert not z.any()
