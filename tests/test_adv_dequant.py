"""asc.adv.dequant (Ascend C AscendDequant): the vendor's steps against a float64 NumPy reading of its
algorithm (hypothesis), sim == eager byte for byte, bit-exact with the vendor's implementation on cpu_debug,
the host helper's sizes, and each misuse a clear error at the user's line before anything is written."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels_quant_reduce import _pitch, dequant_kernel
from asc_trace.dtypes import f32_to_bf16, bf16_to_f32
from helpers import needs_headers

def _scale_array(v: np.ndarray, scale_dt: str) -> np.ndarray:
    if scale_dt == "float32":
        return v.astype(np.float32)
    if scale_dt == "bfloat16":
        return f32_to_bf16(v.astype(np.float32))
    # uint64: the float's bits in the low word, something in the high word the vendor ignores
    return v.astype(np.float32).view(np.uint32).astype(np.uint64) | (np.uint64(0x5A5A) << np.uint64(40))


def _scale_values(arr: np.ndarray, scale_dt: str) -> np.ndarray:
    if scale_dt == "bfloat16":
        return bf16_to_f32(arr).astype(np.float64)
    if scale_dt == "uint64":
        return (arr & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32).astype(np.float64)
    return arr.astype(np.float64)


def _store(dst_dt: str, v: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):      # a half overflows to inf, as the vendor's Cast does
        return f32_to_bf16(v.astype(np.float32)) if dst_dt == "bfloat16" else v.astype(dst_dt)


def _zeros(dst_dt: str, k: int) -> np.ndarray:
    return np.full(k, 0x7777 if dst_dt == "bfloat16" else 7, np.uint16 if dst_dt == "bfloat16" else dst_dt)


def _run(m, n, cal, dst_dt, scale_dt, x, s, **kw):
    pitch = _pitch(n, np.float16 if dst_dt != "float32" else np.float32)
    z = _zeros(dst_dt, m * pitch)
    per = 32 // s.dtype.itemsize
    s = np.concatenate([s, np.zeros(-len(s) % per, s.dtype)])
    dequant_kernel(m, n, cal, dst_dt, scale_dt, **kw)[1](x, s, z)
    return z


def _reference(m, n, cal, dst_dt, x, scale, z0):
    """A float64 reading of the vendor's steps: int -> float, the first cal of each row of n times its scale
    (a product of two 24-bit significands is exact in float64, so rounding it to float is the float Mul),
    every element rounded to dst, rows at dst's pitch, padding untouched."""
    pitch = _pitch(n, np.float16 if dst_dt != "float32" else np.float32)
    f = x.astype(np.float32).astype(np.float64).reshape(m, n)
    f[:, :cal] = f[:, :cal] * scale[:cal]
    f = f.astype(np.float32)          # the vendor's float Mul rounds once; the float64 product is exact
    out = z0.copy()
    rows = _store(dst_dt, f.astype(np.float64) + (0.0 if dst_dt == "float32" else -0.0))   # float: Adds(x, 0)
    for r in range(m):
        out[r * pitch:r * pitch + n] = rows[r]
    return out


COMBOS = [("float32", "float32"), ("float16", "uint64"), ("float32", "bfloat16"), ("bfloat16", "bfloat16"),
          ("bfloat16", "float32")]


@pytest.mark.parametrize("dst_dt,scale_dt", COMBOS)
@settings(max_examples=examples(6), deadline=None)
@given(data=st.data())
def test_matches_the_vendor_steps_read_in_float64(dst_dt, scale_dt, data):
    m = data.draw(st.integers(1, 5))
    n = data.draw(st.sampled_from([8, 16, 64, 72, 200]))
    cal = data.draw(st.integers(1, n))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    x = rng.integers(-2**20, 2**20, m * n, dtype=np.int32)
    x[:3] = [2**31 - 1, -2**31, 0]
    sv = rng.uniform(-2e-3, 2e-3, n)
    s = _scale_array(sv, scale_dt)
    mode = asc.adv.DeQuantMode.DEQUANT_WITH_MULTI_ROW
    z = _run(m, n, cal, dst_dt, scale_dt, x, s, mode=mode)
    ref = _reference(m, n, cal, dst_dt, x, _scale_values(s, scale_dt), _zeros(dst_dt, len(z)))
    assert z.tobytes() == ref.tobytes()


def test_single_row_mode_reuses_the_scales_for_each_row_and_multi_row_does_not():
    x = np.arange(1, 33, dtype=np.int32)
    s = np.array([0.5] * 8 + [9.0] * 24, np.float32)
    single = _run(1, 32, 8, "float32", "float32", x, s)
    multi = _run(1, 32, 8, "float32", "float32", x, s, mode=asc.adv.DeQuantMode.DEQUANT_WITH_MULTI_ROW)
    np.testing.assert_array_equal(single, x * np.float32(0.5))
    np.testing.assert_array_equal(multi, np.concatenate([x[:8] * np.float32(0.5), x[8:].astype(np.float32)]))


def test_forms_scalar_count_and_size():
    rng = np.random.default_rng(5)
    x = rng.integers(-1000, 1000, 4 * 16, dtype=np.int32)
    s = rng.uniform(0.5, 2, 16).astype(np.float32)
    want = (x.reshape(4, 16).astype(np.float32) * s).reshape(-1)
    np.testing.assert_array_equal(_run(4, 16, 16, "float32", "float32", x, s, form="count"), want)
    np.testing.assert_array_equal(_run(4, 16, 16, "float32", "float32", x, s, form="size"), want)
    np.testing.assert_array_equal(_run(4, 16, 16, "float32", "float32", x, s, form="size", with_tmp=False), want)
    part = _run(4, 16, 16, "float32", "float32", x, s, form="count", count=40)   # 2.5 rows
    np.testing.assert_array_equal(part[:40], want[:40])
    assert (part[40:] == 7).all()
    z = _run(4, 16, 16, "float32", "float32", x, s, scalar=0.25)
    np.testing.assert_array_equal(z, x.astype(np.float32) * np.float32(0.25))


def test_sim_and_eager_agree_byte_for_byte():
    rng = np.random.default_rng(6)
    x = rng.integers(-2**24, 2**24, 3 * 24, dtype=np.int32)
    s = _scale_array(rng.uniform(-1, 1, 24), "uint64")
    assert _run(3, 24, 20, "float16", "uint64", x, s).tobytes() == \
        _run(3, 24, 20, "float16", "uint64", x, s, backend="eager").tobytes()


def test_host_helper_is_the_vendors_formula():
    # (64 + m n + n + 8) x 4 and (64 + 2 n + 8) x 4 (ascend_dequant_tiling_impl.cpp)
    assert asc.adv.get_ascend_dequant_max_min_tmp_size([4, 64], 4) == ((64 + 256 + 72) * 4, (64 + 128 + 8) * 4)
    assert asc.adv.GetAscendDequantMaxMinTmpSize([96], 4) == ((64 + 96 + 104) * 4, (64 + 192 + 8) * 4)
    with pytest.raises(asc.errors.TraceError):
        asc.adv.get_ascend_dequant_max_min_tmp_size([4, 64], 2)


# -- misuse: the same error class on every backend, at the user's line, nothing written ---------------

@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_small_temporary_buffer_is_refused_before_any_write(backend):
    x = np.ones(64, np.int32)
    s = np.ones(16, np.float32)
    z = np.full(64, 7, np.float32)
    k = dequant_kernel(4, 16, 16, "float32", "float32", tmp_bytes=256, backend=backend)
    with pytest.raises(asc.errors.UBOverflowError) as e:
        k[1](x, s, z)
    assert "adv_kernels_quant_reduce.py" in str(e.value)   # the call's line
    assert (z == 7).all()


@pytest.mark.parametrize("kw,err", [
    (dict(m=2, n=12, cal=12), "multiple of 8"),
    (dict(m=2, n=16, cal=17), "calCount 17"),
    (dict(m=2, n=16, cal=0), "calCount 0"),
])
def test_bad_params_are_trace_errors(kw, err):
    k = dequant_kernel(kw["m"], kw["n"], kw["cal"], "float32", "float32")
    with pytest.raises(asc.errors.TraceError, match=err):
        k[1](np.ones(kw["m"] * kw["n"], np.int32), np.ones(kw["n"], np.float32), np.zeros(kw["m"] * 16, np.float32))


def test_wrong_scale_type_is_a_dtype_error():
    k = dequant_kernel(2, 16, 16, "float16", "float32")
    with pytest.raises(asc.errors.DTypeError, match="uint64"):
        k[1](np.ones(32, np.int32), np.ones(16, np.float32), np.zeros(32, np.float16))


def test_emitted_call_is_the_vendors():
    k = dequant_kernel(3, 24, 20, "float16", "uint64", mode=asc.adv.DeQuantMode.DEQUANT_WITH_MULTI_ROW)
    src = asc.compile(k, (np.ones(72, np.int32), np.ones(24, np.uint64), np.zeros(96, np.float16))).source
    assert "AscendC::AscendDequant<half, uint64_t, AscendC::DeQuantMode::DEQUANT_WITH_MULTI_ROW>(" in src
    assert "{3, 24, 20});" in src


# -- the vendor's own implementation (cpu_debug) ------------------------------------------------------


@pytest.mark.slow
@needs_headers
@pytest.mark.parametrize("m,n,cal,dst_dt,scale_dt,form", [
    (3, 72, 70, "float32", "float32", "params"),
    (2, 24, 24, "bfloat16", "bfloat16", "params"),
    (4, 16, 16, "float32", "bfloat16", "size"),
    (1, 64, 16, "float32", "float32", "params"),      # SINGLE_ROW: {1, 64, 16} -> {4, 16, 16}
])
def test_bit_exact_with_the_vendor_implementation(m, n, cal, dst_dt, scale_dt, form):
    rng = np.random.default_rng(7)
    x = rng.integers(-2**26, 2**26, m * n, dtype=np.int32)
    s = _scale_array(rng.uniform(-1e-3, 1e-3, n), scale_dt)
    sim = _run(m, n, cal, dst_dt, scale_dt, x, s, form=form)
    cpu = _run(m, n, cal, dst_dt, scale_dt, x, s, form=form, backend="cpu_debug")
    assert sim.tobytes() == cpu.tobytes()
