"""asc.adv math functions: the vendor's results within the stated tolerance of float64 NumPy on every
dtype (hypothesis), sim == eager byte for byte, the steps bit-exact with the vendor's own implementation
run by cpu_debug, the temporary buffer's checks, the emitted call and its cost."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels import N, binary_kernel, unary_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.graph.ops.adv_common import instruction_costs
from asc_trace.graph.ops.adv_math import STEP_FAITHFUL, UNARY
from asc_trace.lower.api_symbols import emitted_symbols, unlisted
from helpers import needs_headers

# input domain of each function (inside its mathematical domain, where half does not overflow)
DOMAIN = {"acos": (-0.99, 0.99), "asin": (-0.99, 0.99), "atanh": (-0.9, 0.9), "acosh": (1.0, 10.0),
          "log": (0.01, 100.0), "lgamma": (0.1, 8.0), "digamma": (0.1, 8.0), "tan": (-1.4, 1.4),
          "sinh": (-5.0, 5.0), "cosh": (-5.0, 5.0), "exp": (-5.0, 5.0)}
F64 = {"acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan,
       "atanh": np.arctanh, "ceil": np.ceil, "cos": np.cos, "cosh": np.cosh, "erf": np.vectorize(math.erf),
       "erfc": np.vectorize(math.erfc), "floor": np.floor, "frac": lambda v: v - np.trunc(v),
       "lgamma": np.vectorize(math.lgamma), "log": np.log, "round": np.rint, "sign": np.sign, "sin": np.sin,
       "sinh": np.sinh, "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc, "exp": np.exp}
NAMES = sorted(F64) + ["digamma"]
_K: dict = {}


def _kernel(name: str, with_tmp: bool = True, backend: str = "sim"):
    key = (name, with_tmp, backend)
    if key not in _K:
        _K[key] = unary_kernel(name, with_tmp, backend=backend)
    return _K[key]


def _digamma64(v: np.ndarray) -> np.ndarray:
    # psi(v) = d/dv lgamma(v), by a central difference of math.lgamma in float64 (accurate to ~1e-7)
    h = 1e-5
    return np.vectorize(lambda t: (math.lgamma(t + h) - math.lgamma(t - h)) / (2 * h))(v)


def _run(name: str, x: np.ndarray, backend: str = "sim", with_tmp: bool = True, n: int = N) -> np.ndarray:
    z = np.zeros_like(x)
    _kernel(name, with_tmp, backend)[1](x, z, n)
    return z


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(8), deadline=None)
@given(data=st.data())
def test_within_tolerance_of_float64(name, dtype, data):
    lo, hi = DOMAIN.get(name, (-10.0, 10.0))
    seed = data.draw(st.integers(0, 2**31))
    n = data.draw(st.sampled_from([32, 256, 1000 // 16 * 16, N]))
    x = np.random.default_rng(seed).uniform(lo, hi, N).astype(dtype)
    x[n:] = 0
    z = _run(name, x, n=n)
    ref = (_digamma64 if name == "digamma" else F64[name])(x[:n].astype(np.float64))
    rtol, atol = REGISTRY[f"adv_{name}"].tolerance(np.dtype(dtype).name)
    if name in ("digamma", "lgamma"):
        atol = max(atol, 2e-3 if dtype == np.float16 else 1e-5)
    np.testing.assert_allclose(z[:n].astype(np.float64), ref, rtol=rtol, atol=atol + 1e-300)
    assert not z[n:].any(), "nothing past count is written"


@pytest.mark.parametrize("name", ["tanh", "sin", "log", "round"])
def test_sim_and_eager_agree_byte_for_byte(name):
    lo, hi = DOMAIN.get(name, (-10.0, 10.0))
    x = np.random.default_rng(1).uniform(lo, hi, N).astype(np.float16)
    assert _run(name, x).tobytes() == _run(name, x, "eager").tobytes()


def test_the_forms_without_a_temporary_buffer_compute_the_same():
    x = np.random.default_rng(2).uniform(-3, 3, N).astype(np.float32)
    assert _run("tanh", x).tobytes() == _run("tanh", x, with_tmp=False).tobytes()


def test_power_xor_axpy():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.5, 2, N).astype(np.float32), rng.uniform(-2, 2, N).astype(np.float32)
    z = np.zeros(N, np.float32)
    binary_kernel("power", True)[1](a, b, z, N)
    np.testing.assert_allclose(z, a.astype(np.float64) ** b, rtol=1e-6)
    i, j = rng.integers(-2**15, 2**15, N, dtype=np.int16), rng.integers(-2**15, 2**15, N, dtype=np.int16)
    zi = np.zeros(N, np.int16)
    binary_kernel("xor", False)[1](i, j, zi, N)
    assert (zi == (i ^ j)).all()
    d = rng.uniform(-1, 1, N).astype(np.float32)
    z = d.copy()
    binary_kernel("axpy", True)[1](a, a, z, N)
    np.testing.assert_allclose(z, d + a * np.float32(0.5), rtol=1e-6)


# -- the steps are the vendor's: cpu_debug runs its implementation over asc_trace's instruction layer ----


@needs_headers
@pytest.mark.parametrize("name", ["tanh", "atanh"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_step_faithful_functions_are_bit_exact_with_the_vendor_implementation(name, dtype):
    lo, hi = DOMAIN.get(name, (-4.0, 4.0))
    x = np.random.default_rng(4).uniform(lo, hi, N).astype(dtype)
    assert _run(name, x).tobytes() == _run(name, x, "cpu_debug").tobytes()


# -- checks ---------------------------------------------------------------------------------------

def test_a_temporary_buffer_below_the_minimum_is_refused_before_any_write():
    @asc.jit
    def small(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
        yl = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4096, 512)
        asc.data_copy(xl, xg, n)
        asc.adv.tanh(yl, xl, count=n, temp_buffer=tmp)
        asc.data_copy(zg, yl, n)
    x = np.ones(256, np.float16)
    z = np.full(256, 7, np.float16)
    for backend in ("sim", "eager"):
        with pytest.raises(asc.UBOverflowError, match=r"holds 512 bytes; the call needs at least 1024") as ei:
            asc.jit(small, backend=backend)[1](x, z, 256)
        assert ei.value.loc.short.endswith(f":{small.fn.__code__.co_firstlineno + 9}") if hasattr(small, "fn") \
            else "test_adv_math.py" in str(ei.value)
        assert (z == 7).all()


def test_dtype_errors_name_the_users_line():
    @asc.jit
    def bad(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 256)
        asc.adv.tanh(a, a, count=256)
    with pytest.raises(asc.DTypeError, match=r"asc.adv.tanh does not support int32") as ei:
        bad[1](np.zeros(256, np.int32))
    assert "test_adv_math.py" in str(ei.value)

    @asc.jit
    def bad_tmp(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 256)
        asc.adv.sin(a, a, count=256, temp_buffer=t)
    with pytest.raises(asc.DTypeError, match="LocalTensor<uint8_t>"):
        bad_tmp[1](np.zeros(256, np.float32))

    @asc.jit
    def no_tmp(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        asc.adv.axpy(a, a, 2.0, 256)
    with pytest.raises(asc.TraceError, match="needs temp_buffer="):
        no_tmp[1](np.zeros(256, np.float32))


# -- emission, scheduling, cost -------------------------------------------------------------------

def test_emitted_as_the_vendors_call_declared_in_both_generations():
    x, z = np.zeros(N, np.float16), np.zeros(N, np.float16)
    ck = asc.compile(unary_kernel("tanh", True), (x, z, N))
    assert "AscendC::Tanh(asct_t" in ck.source and '#include "adv_api/math/tanh.h"' in ck.source
    assert "Tanh/4" in emitted_symbols(ck.source)
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []
    ck0 = asc.compile(unary_kernel("exp", False), (x, z, N))
    assert "AscendC::Exp<half, 0>(" in ck0.source


def test_flag_free_kernels_are_scheduled_and_races_reported():
    x = np.random.default_rng(5).uniform(-2, 2, N).astype(np.float32)
    z = np.zeros_like(x)
    ck = asc.compile(unary_kernel("tanh", True), (x, z, N))
    assert "WaitFlag<AscendC::HardEvent::MTE2_V>" in ck.source and "WaitFlag<AscendC::HardEvent::V_MTE3>" in ck.source
    with pytest.raises(asc.RaceError):
        unary_kernel("tanh", True, auto_sync=False)[1](x, z, N)


def test_the_cost_is_the_instructions_it_issues():
    """Tanh on half: 2 casts + mins, maxs, muls, exp, adds, adds, div = 9 instructions, each at its own
    record's cost; the profile's vector time holds them."""
    x, z = np.zeros(N, np.float16), np.zeros(N, np.float16)
    ck = asc.compile(unary_kernel("tanh", True), (x, z, N))
    node = next(n for n in ck.graph if n.op == "adv_tanh")
    costs = instruction_costs(node.op, node.attrs, N)
    assert [op for op, _c in costs] == ["cast", "mins", "maxs", "muls", "exp", "adds", "adds", "div", "cast"]
    prof = asc.profile(unary_kernel("tanh", True), x, z, N, core_num=1)
    assert prof.pipe_busy["V"] >= sum(c for _op, c in costs) > REGISTRY["div"].cost.cycles("float32", N, 4)


def test_every_math_function_pyasc_has_exists():
    pyasc = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "digamma", "erf", "erfc",
             "exp", "floor", "frac", "lgamma", "log", "round", "sign", "sin", "sinh", "tan", "tanh", "trunc",
             "power", "xor", "axpy"]
    assert all(callable(getattr(asc.adv, n)) for n in pyasc) and len(pyasc) == 27
    assert {f"adv_{n}" for n, *_ in UNARY} >= STEP_FAITHFUL - {"adv_exp"}


MATH_TESTED = set(NAMES) | {"power", "xor", "axpy"}


def test_every_math_record_is_tested_here():
    from asc_trace.graph.ops.adv_math import UNARY as U
    math_ops = {n for n, *_ in U} | {"exp", "power", "xor", "axpy"}
    assert {f"adv_{n}" for n in math_ops} <= set(REGISTRY) and math_ops == MATH_TESTED


def test_a_temporary_buffer_overlapping_an_operand_is_refused():
    @asc.jit
    def overlap(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 256)
        asc.data_copy(xl, xg, 256)
        asc.adv.tanh(zl, xl, count=256, temp_buffer=zl.reinterpret_cast(asc.uint8))
        asc.data_copy(zg, zl, 256)
    z = np.full(256, 5, np.float32)
    with pytest.raises(asc.OutOfBoundsError, match="overlaps dst"):
        overlap[1](np.ones(256, np.float32), z)
    assert (z == 5).all()


def test_without_a_count_the_source_size_is_the_count():
    """The vendor's Log(dst, src) is Log(dst, src, src.GetSize()) (pyasc's test_log_kernel calls it so); a
    source whose size is not known is refused at the call."""
    @asc.jit
    def log_all(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 256)
        asc.data_copy(xl, xg, 256)
        asc.duplicate(zl, 7.0, 256)
        asc.adv.log(zl, xl[64:])          # GetSize of the view: 192 elements
        asc.data_copy(zg, zl, 256)
    x = np.linspace(0.5, 4.0, 256).astype(np.float32)
    z = np.full_like(x, -1.0)
    log_all[1](x, z)
    np.testing.assert_allclose(z[:192], np.log(x[64:].astype(np.float64)), rtol=2e-6)
    assert (z[192:] == 7.0).all()                 # past the source's size: not written
    src = asc.compile(log_all, (x, z)).source
    assert "AscendC::Log(" in src and "192" in src.split("AscendC::Log(")[1].split(";")[0]
