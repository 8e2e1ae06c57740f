"""asc.adv.ascend_antiquant (Ascend C AscendAntiQuant, per-tensor form): within tolerance of float64 NumPy
(hypothesis), exact against the float64 reading of the vendor's steps, sim == eager == the stack form,
bit-exact with the vendor on cpu_debug, the host helper's sizes, misuse refused at the call's line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels_antiquant import N, antiquant_kernel
from helpers import needs_headers


def _bf16(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _run(x, dst_dt="float16", **kw):
    z = np.zeros(N, np.float16 if dst_dt == "float16" else np.uint16)
    antiquant_kernel(dst_dt, **kw)[1](x, z)
    return z


def _values(z, dst_dt):
    return z.astype(np.float64) if dst_dt == "float16" else _bf16(z)


def _rne_bf16(f):
    """float32 values rounded to bfloat16 (nearest even), as bits; written here, apart from asc_trace's code."""
    bits = np.asarray(f, np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _as_param(v, dst_dt):
    """A float parameter as an OutputDataType parameter receives it."""
    if dst_dt == "float16":
        return float(np.float16(v))
    return float(_bf16(_rne_bf16(np.float32(v))))


def _int8(rng):
    return rng.integers(-128, 128, N).astype(np.int8)


@pytest.mark.parametrize("dst_dt", ["float16", "bfloat16"])
@settings(max_examples=examples(8), deadline=None)
@given(data=st.data())
def test_within_tolerance_of_float64(dst_dt, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    offset = data.draw(st.floats(-8, 8, allow_nan=False, width=16))
    scale = data.draw(st.floats(-4, 4, allow_nan=False, width=16))
    with_offset = data.draw(st.booleans())
    x = _int8(rng)
    z = _values(_run(x, dst_dt, offset=offset if with_offset else None, scale=scale), dst_dt)
    # offset and scale are OutputDataType parameters: the reference takes them as the call receives them
    off, sc = _as_param(offset, dst_dt), _as_param(scale, dst_dt)
    ref = (x.astype(np.float64) + (off if with_offset else 0.0)) * sc
    # half: two half roundings (Adds, Muls); bfloat16: float steps and one rounding to 8 mantissa bits
    rtol = 2 * 2.0 ** -11 if dst_dt == "float16" else 2.0 ** -8 + 2.0 ** -22
    np.testing.assert_allclose(z, ref, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("dst_dt", ["float16", "bfloat16"])
def test_exact_against_the_steps_in_float64(dst_dt):
    x = _int8(np.random.default_rng(1))
    z = _values(_run(x, dst_dt, offset=0.3, scale=1.7), dst_dt)
    if dst_dt == "float16":
        off, sc = np.float16(0.3), np.float16(1.7)
        ref = ((x.astype(np.float16) + off).astype(np.float16) * sc).astype(np.float16).astype(np.float64)
    else:
        off, sc = np.float32(_as_param(0.3, dst_dt)), np.float32(_as_param(1.7, dst_dt))
        ref = _bf16(_rne_bf16(((x.astype(np.float32) + off) * sc).astype(np.float32)))
    assert (z == ref).all()


@pytest.mark.parametrize("dst_dt", ["float16", "bfloat16"])
def test_sim_eager_stack_and_transpose_agree(dst_dt):
    x = _int8(np.random.default_rng(2))
    z = _run(x, dst_dt)
    assert z.tobytes() == _run(x, dst_dt, backend="eager").tobytes()
    assert z.tobytes() == _run(x, dst_dt, with_tmp=False).tobytes()
    assert z.tobytes() == _run(x, dst_dt, transpose=True).tobytes()
    if dst_dt == "bfloat16":
        assert z.tobytes() == _run(x, dst_dt, tmp_bytes=1024).tobytes(), "the split changes no value"


def test_host_helper_is_the_vendors_formula():
    assert asc.adv.get_ascend_antiquant_max_min_tmp_size([64, 32], [1], False, asc.int8, asc.float16) == (0, 0)
    assert asc.adv.GetAscendAntiQuantMaxMinTmpSize([64, 32], [1], True, asc.int8, asc.bfloat16) == (8192, 1024)
    with pytest.raises(asc.errors.NotProvidedError):
        asc.adv.get_ascend_antiquant_max_min_tmp_size([64, 32], [32], False, asc.int8, asc.float16)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_small_temporary_buffer_refused_before_any_write(backend):
    z = np.full(N, 7, np.uint16)
    with pytest.raises(asc.errors.UBOverflowError) as e:
        antiquant_kernel("bfloat16", tmp_bytes=512, backend=backend)[1](np.ones(N, np.int8), z)
    assert "adv_kernels_antiquant.py" in str(e.value)
    assert (z == 7).all()


@pytest.mark.parametrize("kw,err", [
    ({"src_dt": asc.int16}, asc.errors.DTypeError),
    ({"dst_dt": "float32"}, asc.errors.DTypeError),
    ({"k": 0}, asc.errors.TraceError),
    ({"k": 16, "transpose": True}, asc.errors.TraceError),
    ({"offset": None, "with_tmp": False}, asc.errors.TraceError),
])
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_misuse_refused_at_the_call(kw, err, backend):
    kw = dict(kw)
    dst_dt = kw.pop("dst_dt", "float16")
    src = np.ones(N, np.int16 if "src_dt" in kw else np.int8)
    z = np.zeros(N, np.float32 if dst_dt == "float32" else np.float16)
    if dst_dt == "float32":
        # a float dst: the kernel's dst is half-typed, so build it by hand
        def k(x: asc.GlobalAddress, zz: asc.GlobalAddress):
            xl = asc.LocalTensor(asc.int8, asc.TPosition.VECIN, 0, N)
            zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, N)
            asc.adv.ascend_antiquant(zl, xl, 0.5, 0.25, 32, asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC,
                                                                            12288, 4096))
        with pytest.raises(err) as e:
            asc.jit(k, backend=backend)[1](src, z)
        assert "test_adv_antiquant.py" in str(e.value)
        return
    with pytest.raises(err) as e:
        antiquant_kernel(dst_dt, backend=backend, **kw)[1](src, z)
    assert "adv_kernels_antiquant.py" in str(e.value)


def test_per_channel_tensors_are_refused_by_name():
    def k(x: asc.GlobalAddress, zz: asc.GlobalAddress):
        xl = asc.LocalTensor(asc.int8, asc.TPosition.VECIN, 0, N)
        zl = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, N)
        sl = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 8192, 32)
        asc.adv.ascend_antiquant(zl, xl, sl, sl, 32)
    with pytest.raises(asc.errors.NotProvidedError, match="per-channel") as e:
        asc.jit(k)[1](np.ones(N, np.int8), np.zeros(N, np.float16))
    assert "test_adv_antiquant.py" in str(e.value)


def test_dst_equal_to_src_is_refused():
    with pytest.raises(asc.errors.AscTraceError):
        _run(np.ones(N, np.int8), alias=True)


def test_emitted_call_is_the_vendors():
    args = (np.ones(N, np.int8), np.zeros(N, np.float16))
    src = asc.compile(antiquant_kernel(), args).source
    assert "AscendC::AscendAntiQuant<int8_t, half, false>(" in src
    src = asc.compile(antiquant_kernel(offset=None, transpose=True), args).source
    assert "AscendC::AscendAntiQuant<int8_t, half, true>(" in src


def test_cpp_refuses_by_name():
    with pytest.raises(asc.errors.ToolchainError, match="AntiQuant|antiquant"):
        _run(np.ones(N, np.int8), backend="cpp")


@pytest.mark.slow
@needs_headers
@pytest.mark.parametrize("dst_dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("form", ["offset", "scale_only", "stack"])
def test_bit_exact_with_the_vendor_implementation(dst_dt, form):
    x = _int8(np.random.default_rng(5))
    kw = {"offset": 0.3, "scale": -1.7}
    if form == "scale_only":
        kw["offset"] = None
    if form == "stack":
        kw["with_tmp"] = False
    assert _run(x, dst_dt, **kw).tobytes() == _run(x, dst_dt, backend="cpu_debug", **kw).tobytes()
