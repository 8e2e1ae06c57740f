"""Cube kernels on the cpp backend: the emitted Ascend C compiled against asc_trace's C++ model of the cube
(toolchain/include/asc_trace_cube.h) agrees with the cube simulator (runtime/cube_exec.py) - to the bit on
integer-valued inputs (every partial sum exact in float32), and within float32's summation bound otherwise
(the model sums K in order, the simulator asks BLAS: the only numerical difference)."""
from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.runtime.cpp import CppRuntime

_DEFAULT_RNG = np.random.default_rng
EXAMPLES = pathlib.Path(__file__).parent.parent / "examples"
CUBE_EXAMPLES = [("matmul_cube", "matmul_cube", {}), ("matmul_bias_relu", "matmul_bias_relu", {}),
                 ("matmul_adv", "matmul_kernel", {}),
                 ("matmul_vendor_tiling", "matmul_vendor_tiling", {"m": 256, "n": 512, "k": 512})]


def load(name: str):
    sys.path.insert(0, str(EXAMPLES))          # matmul_bias_relu imports matmul_cube
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_cpp_test", EXAMPLES / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(EXAMPLES))
    return mod


class IntegerRng:
    """The examples' generator with every draw an integer in [-4, 4]: each partial sum is then exact in
    float32, so any difference between backends is a real one, not rounding order."""

    def __init__(self, seed: int) -> None:
        self.rng = _DEFAULT_RNG(seed)

    def standard_normal(self, shape):
        return self.rng.integers(-4, 5, shape).astype(np.float64)

    def integers(self, lo, hi, shape):
        return self.rng.integers(lo, hi, shape)


def on_both(name: str, kernel: str, kwargs: dict, monkeypatch, integer: bool):
    mod = load(name)
    if integer:
        monkeypatch.setattr(mod.np.random, "default_rng", IntegerRng)
    sim_out, want = mod.run(**kwargs)
    launches = []
    real = CppRuntime.launch
    monkeypatch.setattr(CppRuntime, "launch", lambda self, art, job: (launches.append(art.cube), real(self, art, job)))
    setattr(mod, kernel, asc.jit(getattr(mod, kernel), backend="cpp"))
    cpp_out, _ = mod.run(**kwargs)
    assert launches and all(launches)              # it ran on cpp, as a cube kernel
    return sim_out, cpp_out, want


@pytest.mark.parametrize("name,kernel,kwargs", CUBE_EXAMPLES)
def test_cpp_equals_sim_to_the_bit_on_integer_inputs(name, kernel, kwargs, monkeypatch):
    sim_out, cpp_out, want = on_both(name, kernel, kwargs, monkeypatch, integer=True)
    np.testing.assert_array_equal(cpp_out, sim_out)
    np.testing.assert_array_equal(cpp_out.astype(np.float32), want.astype(np.float32))


def ulps16(x: np.ndarray) -> np.ndarray:
    """One float16 ulp at each value of x."""
    return np.spacing(np.abs(x).astype(np.float16)).astype(np.float64)


def test_cpp_fp16_random_within_the_summation_bound(monkeypatch):
    """Random fp16 inputs: the two fp32 accumulations differ by at most 2 K 2**-24 sum|a||b| (each order's
    error bound), and after Fixpipe's rounding to fp16 by that plus one fp16 ulp; most outputs are equal."""
    mod = load("matmul_cube")
    m, n, k = 96, 80, 200
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    out = {}
    for backend in ("sim", "cpp"):
        c = np.zeros((m, n), np.float16)
        asc.jit(mod.matmul_cube, backend=backend)[2](a.ravel(), b.ravel(), c.ravel(), m, n, k)
        out[backend] = c.astype(np.float64)
    bound = 2 * k * 2.0 ** -24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + ulps16(out["sim"])
    diff = np.abs(out["cpp"] - out["sim"])
    assert (diff <= bound).all(), float((diff - bound).max())
    assert (diff == 0).mean() > 0.99
    assert (diff[np.abs(out["sim"]) >= 1] <= ulps16(out["sim"])[np.abs(out["sim"]) >= 1]).all()   # <= 1 ulp there


def test_cpp_reports_stale_k_padding_as_the_simulator_does(monkeypatch):
    """Padding is memory on cpp too: a K tail without zeroed padding multiplies the poison (NaN) in."""
    mod = load("matmul_cube")
    m, n, k = 32, 32, 40
    a = np.ones((m, k), np.float16)
    b = np.ones((k, n), np.float16)
    real_init = asc.init_const_value
    monkeypatch.setattr(asc, "init_const_value", lambda *args, **kw: None)
    try:
        got = {}
        for backend in ("sim", "cpp"):
            c = np.zeros((m, n), np.float16)
            asc.jit(mod.matmul_cube, backend=backend)[1](a.ravel(), b.ravel(), c.ravel(), m, n, k)
            got[backend] = c
    finally:
        monkeypatch.setattr(asc, "init_const_value", real_init)
    assert np.isnan(got["sim"]).all() and np.isnan(got["cpp"]).all()


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_l0c_overflow_is_the_same_error_on_every_backend(backend):
    @asc.jit(backend=backend)
    def too_big(a: asc.GlobalAddress, c: asc.GlobalAddress):
        ga, gc = asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gc.set_global_buffer(c)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 16 * 16)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 16 * 16)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 16 * 16)
        asc.init_const_value(a2, asc.InitConstValueParams(1, 1, 0, 1.0))
        asc.init_const_value(b2, asc.InitConstValueParams(1, 1, 0, 1.0))
        asc.mmad(c1, a2, b2, asc.MmadParams(32, 16, 16, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.NoQuant))

    c = np.zeros(256, np.float32)
    with pytest.raises((asc.UBOverflowError, asc.OutOfBoundsError)) as e:
        too_big[1](np.zeros(256, np.float16), c)
    assert e.value.loc is not None and e.value.loc.file.endswith("test_cube_cpp.py")
    assert not c.any()


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_nd2nz_into_the_unified_buffer_is_refused_with_the_vendors_reason(backend):
    @asc.jit(backend=backend)
    def nz_into_ub(x: asc.GlobalAddress, y: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        u = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        asc.data_copy(u, g, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))

    x = np.zeros(1024, np.float16)
    with pytest.raises(asc.NotProvidedError, match="kernel_operator_data_copy_impl.h:868-893") as e:
        nz_into_ub[1](x, x.copy())
    assert e.value.loc.file.endswith("test_cube_cpp.py")


def test_the_cpp_build_cache_key_covers_every_model_header(tmp_path, monkeypatch):
    """An edit to any header of the C++ model (not only kernel_operator.h) must rebuild the kernels."""
    import shutil
    from asc_trace.runtime import cpp
    from asc_trace.toolchain.sources import INCLUDE_DIR
    inc = tmp_path / "include"
    shutil.copytree(INCLUDE_DIR, inc)
    monkeypatch.setattr(cpp, "INCLUDE_DIR", inc)
    digests = []
    for name in (None, "asc_trace_cube.h", "asc_trace_mix.h"):
        if name is not None:
            (inc / name).write_text((inc / name).read_text() + "\n// edited\n")
        cpp.header_digest.cache_clear()
        digests.append(cpp.header_digest())
    cpp.header_digest.cache_clear()
    assert len(set(digests)) == 3
