"""asc.transpose (Ascend C Transpose(dst, src), one 16 x 16 matrix of 2-byte elements): the one-file op of the
family "vec_record" (graph/ops/vec_transpose.py, docs/adding-an-op.md). Bits against NumPy on sim and eager,
misuse at the user's line on both, the emitted call against both CANN generations' symbol lists and the real
headers, and the cpp backend's refusal with the record's reason."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm
import lane  # the fast lane leaves the g++ header checks to `make test`

BACKENDS = ["sim", "eager"]


@asc.jit
def transpose_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    o = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 1024, 256)
    asc.data_copy(a, gm(x), 256)
    asc.transpose(o, a)
    asc.data_copy(gm(z), o, 256)


@asc.jit
def offset_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, k: asc.ConstExpr[int]):
    """Matrix k of four, transposed in place through a view at an offset (in place is allowed: every region
    is read before any is written)."""
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 1024)
    asc.data_copy(a, gm(x), 1024)
    asc.transpose(a[256 * k:], a[256 * k:])
    asc.data_copy(gm(z), a, 1024)


@settings(max_examples=examples(15), deadline=None)
@given(st.sampled_from(["float16", "int16", "uint16"]), st.sampled_from(BACKENDS), st.integers(0, 2**32 - 1))
def test_transpose_moves_every_bit(dtype, backend, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2**16, 256, dtype=np.uint32).astype(np.uint16).view(dtype)   # NaN payloads, -0 included
    z = np.zeros(256, dtype)
    asc.jit(transpose_kernel, backend=backend)[1](x, z)
    assert z.view(np.uint16).tobytes() == x.view(np.uint16).reshape(16, 16).T.tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [0, 3])
def test_in_place_at_an_offset_leaves_the_other_matrices(backend, k):
    x = np.arange(1024, dtype=np.int16)
    z = np.zeros(1024, np.int16)
    asc.jit(offset_kernel, backend=backend)[1](x, z, k)
    want = x.copy()
    want[256 * k:256 * (k + 1)] = x[256 * k:256 * (k + 1)].reshape(16, 16).T.ravel()
    assert np.array_equal(z, want)


@asc.jit
def short_dst(x: asc.GlobalAddress, z: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    o = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 1024, 200)
    asc.data_copy(a, gm(x), 256)
    asc.transpose(o, a)  # short
    asc.data_copy(gm(z), o, 192)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_matrix_past_the_tensor_is_out_of_bounds_at_the_call(backend):
    with pytest.raises(asc.OutOfBoundsError, match="256") as e:
        asc.jit(short_dst, backend=backend)[1](np.zeros(256, np.float16), np.zeros(256, np.float16))
    assert_points_at(e.value, "short")


def test_other_forms_and_dtypes_are_refused_at_the_call():
    @asc.jit
    def extended(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
        t = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 1024, 512)
        asc.transpose(a, a, t, asc.TransposeParamsExt(n_size=1, c_size=16, h_size=4, w_size=4))  # ext

    @asc.jit
    def wide(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        asc.transpose(a, a)  # f32

    @asc.jit
    def mixed(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
        b = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 1024, 256)
        asc.transpose(a, b)  # mixed

    with pytest.raises(asc.NotProvidedError, match="extended form") as e:
        asc.compile(extended, (np.zeros(8, np.float16),))
    assert_points_at(e.value, "ext")
    with pytest.raises(asc.DTypeError, match="float32") as e:
        asc.compile(wide, (np.zeros(8, np.float16),))
    assert_points_at(e.value, "f32")
    with pytest.raises(asc.DTypeError) as e:
        asc.compile(mixed, (np.zeros(8, np.float16),))
    assert_points_at(e.value, "mixed")


def test_the_emitted_call_is_declared_by_both_generations():
    src = asc.compile(transpose_kernel, (np.zeros(256, np.float16), np.zeros(256, np.float16))).source
    assert "AscendC::Transpose(" in src
    assert unlisted(src, "asc-devkit") == [] and unlisted(src, "cann-8.1") == []
    if headers_if_configured() is not None and not lane.FAST:
        assert not check_kernels([Kernel("transpose", src)])


def test_cpp_refuses_with_the_records_reason():
    reason = REGISTRY["transpose"].cpp_model.reason
    with pytest.raises(asc.ToolchainError, match="no model of Ascend C Transpose") as e:
        asc.jit(transpose_kernel, backend="cpp")[1](np.zeros(256, np.float16), np.zeros(256, np.float16))
    assert reason in str(e.value)


# cpu_debug: the stub layer's vtranspose (asc_trace/toolchain/stub/src/sort.cpp) under the vendor's own Transpose
@pytest.mark.slow
@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
@pytest.mark.parametrize("dtype", ["float16", "int16", "uint16"])
def test_transpose_on_cpu_debug_gives_the_bytes_of_sim(dtype):
    x = np.random.default_rng(3).integers(0, 2**16, 512, dtype=np.uint32).astype(np.uint16).view(dtype)
    out = {}
    for backend in ("sim", "cpu_debug"):
        z = np.zeros(256, dtype)
        asc.jit(transpose_kernel, backend=backend)[1](x, z)
        out[backend] = z.tobytes()
    assert out["sim"] == out["cpu_debug"]
