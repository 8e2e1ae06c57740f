"""The cpp backend's model of the element-wise asc.adv activations (toolchain/include/asc_trace_adv.h): Gelu,
FasterGelu, Silu, Sigmoid give the simulator's bits (the same vendor steps, each rounded to the element type),
on fp16 and fp32, edge values included; and examples/matmul_bias_gelu_mix.py runs on cpp."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from adv_kernels import ACTIVATIONS, N, activation_kernel
from asc_trace.runtime.cpp import CppRuntime

_K: dict = {}
_DEFAULT_RNG = np.random.default_rng


def _run(name, x, backend, with_tmp, n=N):
    key = (name, backend, with_tmp)
    if key not in _K:
        _K[key] = activation_kernel(name, with_tmp, backend=backend)
    z = np.full_like(x, 3)
    _K[key][1](x, x, z, n)
    return z


def _inputs(dt):
    rng = np.random.default_rng(7)
    edge = np.array([0.0, -0.0, 1e-3, -1e-3, 5.0, -5.0, 10.0, -10.0, 30.0, -30.0, 1e4, -1e4, np.inf, -np.inf, np.nan],
                    np.float64)
    x = rng.uniform(-8, 8, N)
    x[:edge.size] = edge
    return x.astype(dt)


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_cpp_equals_sim_to_the_bit(name, dt):
    x = _inputs(dt)
    with_tmp = name != "silu"                  # Silu has no temporary-buffer overload
    with np.errstate(all="ignore"):
        want = _run(name, x, "sim", with_tmp)
    got = _run(name, x, "cpp", with_tmp)
    np.testing.assert_array_equal(got, want)   # NaN where sim has NaN, the same bits elsewhere
    assert got.tobytes() == want.tobytes() or np.isnan(want).any()


def test_a_partial_count_leaves_the_rest_and_the_form_without_tmp_works():
    x = _inputs(np.float32)
    n = 200                                     # not a multiple of a repeat
    z_sim, z_cpp = (np.full_like(x, 3), np.full_like(x, 3))
    with np.errstate(all="ignore"):
        activation_kernel("gelu", False, backend="sim")[1](x, x, z_sim, n)
    activation_kernel("gelu", False, backend="cpp")[1](x, x, z_cpp, n)
    np.testing.assert_array_equal(z_cpp, z_sim)
    assert (z_cpp[n:] == 3).all()              # untouched past the count


class _IntegerRng:
    """Integer draws in [-3, 3]: the matmul's partial sums are exact, so cpp and sim must agree to the bit."""

    def __init__(self, seed: int) -> None:
        self.rng = _DEFAULT_RNG(seed)

    def standard_normal(self, shape):
        return self.rng.integers(-3, 4, shape).astype(np.float64)


@pytest.mark.parametrize("m, n, k, cores", [(200, 150, 100, 2), (33, 40, 70, 1)])
def test_the_gelu_mix_example_runs_on_cpp(m, n, k, cores, monkeypatch):
    import matmul_bias_gelu_mix as M
    monkeypatch.setattr(M.np.random, "default_rng", _IntegerRng)
    sim, want = M.run(m, n, k, cores, kernel=asc.jit(M.matmul_bias_gelu_mix, backend="sim"))
    launched = []
    real = CppRuntime.launch
    monkeypatch.setattr(CppRuntime, "launch", lambda self, art, job: (launched.append(1), real(self, art, job)))
    got, _ = M.run(m, n, k, cores, kernel=asc.jit(M.matmul_bias_gelu_mix, backend="cpp"))
    assert launched
    np.testing.assert_array_equal(got, sim)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
