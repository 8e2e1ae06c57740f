"""asc.sort32 (Ascend C Sort32): against a NumPy reference written from the API's documentation on sim and eager
(stable descending sort of each repeat's 32 scores; 8-byte (score, index) structures); the emission checked against
the real headers; NaN and mixed signed zeros refused (not documented); misuse refused at the user's line."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from asc_trace.lower.api_symbols import unlisted
from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm
import lane  # the fast lane leaves the g++ header checks to `make test`


@asc.jit
def sort32_kernel(s: asc.GlobalAddress, i: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int],
                  repeat: asc.ConstExpr[int]):
    per = 8 // s.dtype.sizeof()
    a = asc.LocalTensor(s.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 8192, n)
    o = asc.LocalTensor(s.dtype, asc.TPosition.VECOUT, 16384, n * per)
    asc.data_copy(a, gm(s), n)
    asc.data_copy(b, gm(i), n)
    asc.data_copy(o, gm(z), n * per)
    asc.sort32(o, a, b, repeat)
    asc.data_copy(gm(z), o, n * per)


def reference(scores: np.ndarray, idx: np.ndarray, z0: np.ndarray, repeat: int) -> np.ndarray:
    z = z0.copy()
    raw = z.view(np.uint8)
    for r in range(repeat):
        group = list(range(r * 32, r * 32 + 32))
        # largest first; of equal scores the earlier one first (a stable sort on the negated key)
        group.sort(key=lambda k: -float(scores[k]))
        for pos, k in enumerate(group):
            at = (r * 32 + pos) * 8
            raw[at:at + scores.itemsize] = np.frombuffer(scores[k:k + 1].tobytes(), np.uint8)
            raw[at + 4:at + 8] = np.frombuffer(idx[k:k + 1].tobytes(), np.uint8)
    return z


@settings(max_examples=examples(25), deadline=None)
@given(st.sampled_from(["float16", "float32"]), st.integers(1, 4), st.integers(0, 999), st.booleans(),
       st.sampled_from(["sim", "eager"]))
def test_sort32_matches_the_documented_order(dtype, repeat, seed, ties, backend):
    rng = np.random.default_rng(seed)
    n = 128
    scores = (rng.integers(-4, 4, n) if ties else rng.random(n) * 200 - 100).astype(dtype)
    scores[scores == 0] = 0          # +0 only: mixed signed zeros are refused (below)
    idx = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    per = 8 // np.dtype(dtype).itemsize
    z0 = rng.integers(-9, 9, n * per).astype(dtype)
    z = z0.copy()
    asc.jit(sort32_kernel, backend=backend)[1](scores, idx, z, n, repeat)
    assert z.tobytes() == reference(scores, idx, z0, repeat).tobytes()


@pytest.mark.parametrize("bad", ["nan", "zeros"])
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_undocumented_scores_are_refused(bad, backend):
    scores = np.arange(64, dtype=np.float32)
    if bad == "nan":
        scores[5] = np.nan
    else:
        scores[3], scores[9] = 0.0, -0.0
    z = np.zeros(128, np.float32)
    with pytest.raises(asc.NotProvidedError, match="NaN" if bad == "nan" else "-0"):
        asc.jit(sort32_kernel, backend=backend)[1](scores, np.arange(64, dtype=np.uint32), z, 64, 1)


def test_emission_and_the_real_headers():
    src = asc.compile(sort32_kernel, (np.zeros(64, np.float16), np.zeros(64, np.uint32), np.zeros(256, np.float16),
                                      64, 2)).source
    assert "AscendC::Sort32(" in src
    assert unlisted(src, "asc-devkit") == [] and unlisted(src, "cann-8.1") == []
    if headers_if_configured() is not None and not lane.FAST:
        assert not check_kernels([Kernel("sort32", src)])
        if os.environ.get("ASC_TRACE_CANN81_HOME"):
            tree = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": os.environ["ASC_TRACE_CANN81_HOME"]})
            assert not check_kernels([Kernel("sort32", src)], tree)


def test_misuse_is_refused_at_the_users_line():
    @asc.jit
    def wrong_index(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)
        b = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 1024, 64)
        asc.sort32(a, a, b, 1)  # index-type

    @asc.jit
    def too_many(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        b = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 1024, 64)
        asc.sort32(a, a, b, 256)  # repeat

    with pytest.raises(asc.DTypeError, match="uint32") as e:
        asc.compile(wrong_index, (np.zeros(8, np.float16),))
    assert_points_at(e.value, "index-type")
    with pytest.raises(asc.TraceError, match="255") as e:
        asc.compile(too_many, (np.zeros(8, np.float16),))
    assert_points_at(e.value, "repeat")


# -- cpu_debug: the stub layer's vbitsort (asc_trace/toolchain/stub/src/sort.cpp) under the vendor's
# own Sort32 give the bytes of sim
@pytest.mark.slow
@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
@pytest.mark.parametrize("dtype,ties", [("float16", True), ("float32", False), ("float32", True)])
def test_sort32_on_cpu_debug_gives_the_bytes_of_sim(dtype, ties):
    rng = np.random.default_rng(7)
    n, repeat = 128, 4
    scores = (rng.integers(-4, 4, n) if ties else rng.random(n) * 200 - 100).astype(dtype)
    scores[scores == 0] = 0
    idx = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    per = 8 // np.dtype(dtype).itemsize
    z0 = rng.integers(-9, 9, n * per).astype(dtype)
    out = {}
    for backend in ("sim", "cpu_debug"):
        z = z0.copy()
        asc.jit(sort32_kernel, backend=backend)[1](scores, idx, z, n, repeat)
        out[backend] = z.tobytes()
    assert out["sim"] == out["cpu_debug"] == reference(scores, idx, z0, repeat).tobytes()


@pytest.mark.slow
@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
def test_sort32_refusal_is_the_same_on_cpu_debug():
    scores = np.arange(64, dtype=np.float32)
    scores[5] = np.nan
    for backend in ("sim", "cpu_debug"):
        with pytest.raises(asc.NotProvidedError, match="NaN"):
            asc.jit(sort32_kernel, backend=backend)[1](scores, np.arange(64, dtype=np.uint32),
                                                       np.zeros(128, np.float32), 64, 1)
