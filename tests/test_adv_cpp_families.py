"""The cpp backend's model of the asc.adv calls the example families use (toolchain/include/asc_trace_adv.h):
SwiGLU, GeGLU and AscendQuant give the simulator's bits (the vendor's steps, each rounded as the simulator
rounds it), on half and float, edge values included, in each overload; and the examples run on cpp."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

import asc_trace as asc
from adv_kernels import N, activation_kernel, quant_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

EDGE = np.array([0.0, -0.0, 1e-3, -1e-3, 5.0, -5.0, 10.0, -10.0, 30.0, -30.0, 1e4, -1e4, np.inf, -np.inf, np.nan])


def _inputs(dt, seed: int, lo: float = -8.0, hi: float = 8.0) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(lo, hi, N)
    x[seed % 7:seed % 7 + EDGE.size] = EDGE
    return x.astype(dt)


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.tobytes() == want.tobytes(), f"{np.sum(got.view(np.uint8) != want.view(np.uint8))} bytes differ"


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("name, with_tmp", [("swiglu", True), ("swiglu", False), ("geglu", True), ("geglu", False)])
def test_gated_activations_cpp_equal_sim_to_the_bit(name, with_tmp, dt):
    x, y = _inputs(dt, 3), _inputs(dt, 5)
    out = {}
    for backend in ("sim", "cpp"):
        z = np.full_like(x, 3)
        with np.errstate(all="ignore"):
            activation_kernel(name, with_tmp, backend=backend)[1](x, y, z, N - 32)   # not a whole count of repeats
        out[backend] = z
    _same_bits(out["cpp"], out["sim"])


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("with_tmp, config", [(True, None), (False, None), (True, (32, 0, 0, 512))])
def test_quant_cpp_equals_sim_to_the_bit(dt, with_tmp, config):
    # +-70 reaches int8's saturation (x * 2 + 0.9), the half steps' ties and the edge values included
    x = _inputs(dt, 11, -70.0, 70.0)
    cfg = asc.adv.QuantConfig(*config) if config else None
    out = {}
    for backend in ("sim", "cpp"):
        z = np.zeros(N, np.int8)
        with np.errstate(all="ignore"):
            quant_kernel(N, with_tmp=with_tmp, config=cfg, backend=backend)[1](x, z)
        out[backend] = z
    _same_bits(out["cpp"], out["sim"])
    assert out["cpp"].min() == -128 and out["cpp"].max() == 127


CPP_EXAMPLES = ["adv_swiglu", "adv_quant"]


def _tuple(v):
    return v if isinstance(v, tuple) else (v,)


@pytest.mark.parametrize("name", CPP_EXAMPLES)
def test_example_on_cpp_equals_sim(name):
    mod = importlib.import_module(name)
    want, _ = mod.run("sim")
    got, _ = mod.run("cpp")
    for g, w in zip(_tuple(got), _tuple(want)):
        _same_bits(g, w)
