"""The fused convert ops and the deq-scale register (graph/ops/vec_fused_cast.py): pyasc's calls trace and emit the
vendor's calls (checked against the real headers of both CANN generations where configured); a launch on any
backend is the same NotProvidedError at the op's line (their conversion is not defined by the vendor's headers);
misuse is refused at the user's line."""
from __future__ import annotations

import os

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.lower.api_symbols import unlisted
from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at, every_backend

ALL = [(2**64 - 1), (2**64 - 1)]


@asc.jit
def every_form(x: asc.GlobalAddress):
    a = asc.LocalTensor(dtype=asc.int16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
    b = asc.LocalTensor(dtype=asc.int16, pos=asc.TPosition.VECIN, addr=2048, tile_size=512)
    z = asc.LocalTensor(dtype=asc.int8, pos=asc.TPosition.VECOUT, addr=4096, tile_size=1024)
    h = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECOUT, addr=8192, tile_size=512)
    f = asc.LocalTensor(dtype=asc.float32, pos=asc.TPosition.VECIN, addr=12288, tile_size=256)
    i32 = asc.LocalTensor(dtype=asc.int32, pos=asc.TPosition.VECIN, addr=16384, tile_size=512)
    params = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    asc.set_deq_scale(1.0)
    asc.add_relu_cast(z, a, b, count=512)
    asc.add_relu_cast(h, f, f, mask=64, repeat_times=1, repeat_params=params)
    asc.sub_relu_cast(z, h, h, mask=[2**64 - 1, 2**64 - 1], repeat_times=1, repeat_params=params)
    asc.sub_relu_cast(h, f, f, 256)
    asc.set_deq_scale(0.5, 5, False)
    asc.add_deq_relu(h, i32, i32, count=512)
    asc.add_deq_relu(h, i32, i32, mask=[2**64 - 1, 0], repeat_times=1, repeat_params=params)
    asc.mul_cast(z, h, h, count=512)
    asc.mul_cast(z, h, h, mask=128, repeat_times=1, repeat_params=params)
    v = asc.LocalTensor(dtype=asc.uint64, pos=asc.TPosition.VECIN, addr=32768, tile_size=16)
    asc.set_deq_scale(v, asc.VdeqInfo([1.0] * 16, [5] * 16, [False] * 16))
    asc.cast_deq(z, a, count=512)
    asc.cast_deq(z, a, mask=[2**64 - 1, 2**64 - 1], repeat_times=1, repeat_params=asc.UnaryRepeatParams(1, 1, 8, 8),
                 is_vec_deq=False, half_block=False)


X = np.zeros(8, np.int8)


def test_every_form_traces_and_emits_the_vendors_call():
    src = asc.compile(every_form, (X,)).source
    for call in ("AscendC::AddReluCast(", "AscendC::SubReluCast(", "AscendC::AddDeqRelu(", "AscendC::MulCast(",
                 "AscendC::CastDeq<int8_t, int16_t, true, true>(", "AscendC::CastDeq<int8_t, int16_t, true, false, false>(",
"AscendC::SetDeqScale(static_cast<half>(1.0f));",
                 "AscendC::SetDeqScale(static_cast<float>(0.5f), static_cast<int16_t>(5), false);",
                 "AscendC::VdeqInfo(asct_vdeq"):
        assert call in src, call
    assert unlisted(src, "asc-devkit") == [] and unlisted(src, "cann-8.1") == []


@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
def test_the_emission_passes_the_real_header_check():
    kernels = [Kernel("every_form", asc.compile(every_form, (X,)).source)]
    errors = check_kernels(kernels)
    assert not errors, "\n\n".join(str(e) for e in errors[:3])
    if os.environ.get("ASC_TRACE_CANN81_HOME"):
        tree = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": os.environ["ASC_TRACE_CANN81_HOME"]})
        errors = check_kernels(kernels, tree)
        assert not errors, "\n\n".join(str(e) for e in errors[:3])


@pytest.mark.parametrize("backend", every_backend())
def test_no_backend_runs_them_and_each_says_so_at_the_ops_line(backend):
    @asc.jit(backend=backend)
    def k(x: asc.GlobalAddress):
        h = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=128)
        z = asc.LocalTensor(dtype=asc.int8, pos=asc.TPosition.VECOUT, addr=1024, tile_size=128)
        asc.mul_cast(z, h, h, count=128)  # mul_cast
        asc.data_copy(asc_gm(x), z, 128)

    x = np.zeros(128, np.int8)
    with pytest.raises(asc.NotProvidedError, match="vmulconv") as e:
        k[1](x)
    assert_points_at(e.value, "mul_cast")
    assert (x == 0).all()


def asc_gm(addr):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr)
    return g


@pytest.mark.parametrize("backend", ["sim", "cpp"])
def test_set_deq_scale_alone_is_refused_too(backend):
    @asc.jit(backend=backend)
    def k(x: asc.GlobalAddress):
        asc.set_deq_scale(1.0, 3, True)  # deq

    with pytest.raises(asc.NotProvidedError, match="dequantising ops") as e:
        k[1](np.zeros(8, np.int8))
    assert_points_at(e.value, "deq")


def test_misuse_is_refused_at_the_users_line():
    def run(body):
        @asc.jit
        def k(x: asc.GlobalAddress):
            body()
        with pytest.raises(asc.AscTraceError) as e:
            asc.compile(k, (X,))
        return e.value

    def t(dt, addr=0):
        return asc.LocalTensor(dtype=dt, pos=asc.TPosition.VECIN, addr=addr, tile_size=256)

    e = run(lambda: asc.add_relu_cast(t(asc.int8), t(asc.float32, 1024), t(asc.float32, 2048), 64))  # pair
    assert isinstance(e, asc.DTypeError) and "float32 -> float16" in str(e)
    assert_points_at(e, "pair")
    e = run(lambda: asc.mul_cast(t(asc.int8), t(asc.float16, 1024), t(asc.float32, 2048), 64))  # mixed
    assert isinstance(e, asc.DTypeError)
    assert_points_at(e, "mixed")
    e = run(lambda: asc.cast_deq(t(asc.float16), t(asc.int32, 1024), 64))  # rint
    assert isinstance(e, asc.DTypeError) and "CAST_RINT" in str(e)
    assert_points_at(e, "rint")
    e = run(lambda: asc.cast_deq(t(asc.int8), t(asc.int16, 1024), 64, half_block=1))  # flag
    assert "half_block" in str(e)
    assert_points_at(e, "flag")
    e = run(lambda: asc.set_deq_scale(t(asc.uint64), asc.VdeqInfo([1.0] * 15, [0] * 16, [True] * 16)))  # vdeq
    assert "16" in str(e)
    assert_points_at(e, "vdeq")
    e = run(lambda: asc.set_deq_scale(t(asc.int32), asc.VdeqInfo([1.0] * 16, [0] * 16, [True] * 16)))  # u64
    assert isinstance(e, asc.DTypeError) and "uint64" in str(e)
    assert_points_at(e, "u64")
    e = run(lambda: asc.add_deq_relu(t(asc.float16), t(asc.int32, 1024), t(asc.int32, 2048), mask=64,  # isset
                                     repeat_times=1, repeat_params=asc.BinaryRepeatParams(), is_set_mask=False))
    assert "is_set_mask=False" in str(e)
    assert_points_at(e, "isset")
