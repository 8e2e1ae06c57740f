"""Issue #25's parity bullets re-checked with kernels written for that purpose (not the earlier tests' ones), on
sim, eager, cpp and cpu_debug: each misuse is the same asc_trace class everywhere at the user's line, and each
allowed use gives the same bytes as the simulator.

- a runtime count of 0 for ReduceMin's count form (the API: "valid range is 1 ~ ...");
- Select's count form with a count that is not whole 256 bytes (the API runs it in counter mode: exactly
  `count` elements);
- a data_copy_pad byte length that is not whole elements (AlignmentError);
- a LocalTensor past the usable UB (UBOverflowError);
- a Python int past float64 for a `float` parameter (LaunchError at the launch);
- the dropped-remainder lint (a warning naming the loop's line, the same on every backend)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import AlignmentError, LaunchError, OutOfBoundsError, UBOverflowError
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm

CPU_DEBUG = pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))
BACKENDS = ["sim", "eager", "cpp", CPU_DEBUG]


@asc.jit
def min_of_prefix(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
    w = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 2048, 512)
    d = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 16)
    asc.data_copy(a, gm(x), 512)
    asc.duplicate(d, 9, 16)
    asc.reduce_min(d, a, w, n, True)  # MARK-r25-min
    asc.data_copy(gm(z), d, 16)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_min_of_zero_elements_is_refused(backend):
    x = (np.arange(512) % 17 + 3).astype(np.float16)
    z = np.zeros(16, np.float16)
    asc.jit(min_of_prefix, backend=backend)[1](x, z, 300)        # a count that runs: the min and its index
    assert z[0] == 3 and z[1:2].view(np.uint16)[0] == 0
    with pytest.raises(OutOfBoundsError) as info:
        asc.jit(min_of_prefix, backend=backend)[1](x, z, 0)
    assert_points_at(info.value, "MARK-r25-min")


@asc.jit
def pick_by_bits(x: asc.GlobalAddress, y: asc.GlobalAddress, bits: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 256)
    m = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 2048, 32)
    d = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 256)
    asc.data_copy(a, gm(x), 256)
    asc.data_copy(b, gm(y), 256)
    asc.data_copy(m, gm(bits), 32)
    asc.duplicate(d, -1, 256)
    asc.select(d, m, a, b, asc.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
    asc.data_copy(gm(z), d, 256)


@pytest.mark.parametrize("backend", BACKENDS)
def test_select_count_form_takes_a_count_that_is_not_whole_repeats(backend):
    rng = np.random.default_rng(25)
    x = rng.integers(0, 50, 256).astype(np.float16)
    y = rng.integers(100, 150, 256).astype(np.float16)
    bits = rng.integers(0, 256, 32).astype(np.uint8)
    z = np.zeros(256, np.float16)
    asc.jit(pick_by_bits, backend=backend)[1](x, y, bits, z, 77)
    on = np.unpackbits(bits, bitorder="little").astype(bool)
    want = np.full(256, -1, np.float16)
    want[:77] = np.where(on[:77], x[:77], y[:77])
    assert z.tobytes() == want.tobytes()


@asc.jit
def pad_rows_out(x: asc.GlobalAddress, z: asc.GlobalAddress, row_bytes: int):
    a = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 0, 64)
    asc.data_copy(a, gm(x), 64)
    asc.data_copy_pad(gm(z), a, asc.DataCopyExtParams(2, row_bytes, 0, 0, 0))  # MARK-r25-pad


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_pad_length_of_half_an_element_is_an_alignment_error(backend):
    x = np.arange(64, dtype=np.int16)
    z = np.zeros(64, np.int16)
    asc.jit(pad_rows_out, backend=backend)[1](x, z, 6)
    assert z[:6].tolist() == [0, 1, 2, 16, 17, 18] and not z[6:].any()
    with pytest.raises(AlignmentError) as info:
        asc.jit(pad_rows_out, backend=backend)[1](x, z, 7)
    assert_points_at(info.value, "MARK-r25-pad")


@asc.jit
def tail_of_ub(x: asc.GlobalAddress, z: asc.GlobalAddress, at: asc.ConstExpr[int]):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, at, 64)  # MARK-r25-ub
    asc.data_copy(a, gm(x), 64)
    asc.data_copy(gm(z), a, 64)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tensor_past_the_usable_ub_is_an_overflow(backend):
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    usable = 192 * 1024 - 256
    asc.jit(tail_of_ub, backend=backend)[1](x, z, usable - 256)     # the last 256 usable bytes
    assert z.tobytes() == x.tobytes()
    with pytest.raises(UBOverflowError) as info:
        asc.jit(tail_of_ub, backend=backend)[1](x, z, usable - 224)
    assert_points_at(info.value, "MARK-r25-ub")


@asc.jit
def scale_by(x: asc.GlobalAddress, z: asc.GlobalAddress, f: float):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a, gm(x), 64)
    asc.muls(a, a, f, 64)
    asc.data_copy(gm(z), a, 64)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_int_past_float64_for_a_float_parameter_is_a_launch_error(backend):
    x = np.ones(64, np.float32)
    z = np.zeros(64, np.float32)
    with pytest.raises(LaunchError, match="float"):
        asc.jit(scale_by, backend=backend)[1](x, z, -(7 ** 400))
    assert not z.any()


@asc.jit
def halves(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 32)
    for i in range(n // 32):  # MARK-r25-lint
        asc.data_copy(a, gm(x)[i * 32:], 32)
        asc.data_copy(gm(z)[i * 32:], a, 32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dropped_remainder_warns_at_the_loop(backend):
    x = np.arange(80, dtype=np.float32)
    z = np.zeros(80, np.float32)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        asc.jit(halves, backend=backend)[1](x, z, 80)
    hits = [w for w in seen if issubclass(w.category, asc.AscTraceWarning)]
    assert hits and all(w.lineno == _line("MARK-r25-lint") for w in hits)
    assert z[:64].tobytes() == x[:64].tobytes() and not z[64:].any()


def _line(marker: str) -> int:
    from helpers import line_of
    return line_of(marker, __file__)
