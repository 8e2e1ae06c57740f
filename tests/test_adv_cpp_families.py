"""The cpp backend's model of the asc.adv calls the example families use (toolchain/include/asc_trace_adv.h):
SwiGLU, GeGLU, ReGlu, Swish, AscendQuant, AscendDequant, Sum, Mean, SoftMax, LogSoftMax, SimpleSoftMax, RmsNorm
and LayerNorm give the simulator's bits (the vendor's steps, each rounded as the simulator rounds it, the row
sums in the vendor's order), on half and float, in each overload and each of SoftMax's row-sum paths (the examples on cpp: tests/test_adv_examples.py)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from adv_kernels import N, activation_kernel, quant_kernel, rmsnorm_kernel
from test_adv_layernorm import _run as layernorm_run
from test_adv_norm import _softmax

EDGE = np.array([0.0, -0.0, 1e-3, -1e-3, 5.0, -5.0, 10.0, -10.0, 30.0, -30.0, 1e4, -1e4, np.inf, -np.inf, np.nan])


def _inputs(dt, seed: int, lo: float = -8.0, hi: float = 8.0) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(lo, hi, N)
    x[seed % 7:seed % 7 + EDGE.size] = EDGE
    return x.astype(dt)


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.tobytes() == want.tobytes(), f"{np.sum(got.view(np.uint8) != want.view(np.uint8))} bytes differ"


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("name, with_tmp", [("swiglu", True), ("swiglu", False), ("geglu", True), ("geglu", False),
                                            ("reglu", True), ("reglu", False), ("swish", False)])
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


# k below 64 (one tree), 64..511 with a tail (blocks onto the first, then 64 -> 8 -> 1), 512 on (one tree)
@pytest.mark.parametrize("m, k, dt", [(3, 48, np.float16), (5, 200, np.float32), (4, 208, np.float16),
                                      (2, 64, np.float32), (2, 1040, np.float16), (3, 520, np.float32)])
@pytest.mark.parametrize("host_tiling, float_stats, with_tmp", [(True, False, True), (False, True, True),
                                                                (True, True, False)])
def test_softmax_cpp_equals_sim_to_the_bit(m, k, dt, host_tiling, float_stats, with_tmp):
    if with_tmp is False and m * k > 2048:
        pytest.skip("the form without a buffer takes its scratch from the UB the TPipe leaves: small shapes")
    float_stats = float_stats and dt == np.float16
    kw = dict(host_tiling=host_tiling, float_stats=float_stats)
    outs = {}
    for backend in ("sim", "cpp"):
        if with_tmp:
            outs[backend] = _softmax(m, k, dt, backend=backend, seed=m + k, **kw)[1:]
        else:
            outs[backend] = _softmax_stack(m, k, dt, backend, float_stats)
    for got, want in zip(outs["cpp"], outs["sim"]):
        _same_bits(got, want)


def _softmax_stack(m, k, dt, backend, float_stats):
    from adv_kernels import softmax_kernel
    x = (np.random.default_rng(k).standard_normal((m, k)) * 3).astype(dt)
    per = 32 // np.dtype(dt).itemsize
    sdt = np.float32 if float_stats else dt
    z, mx, sm = np.zeros_like(x), np.zeros(m * per, sdt), np.zeros(m * per, sdt)
    softmax_kernel(m, k, float_stats, with_tmp=False, type_size=np.dtype(dt).itemsize, backend=backend)[1](x, z, mx, sm)
    return z, mx, sm


@pytest.mark.parametrize("dt", [np.float16, np.float32])
def test_softmax_cpp_equals_sim_with_inf_and_nan_rows(dt):
    from adv_kernels import softmax_kernel
    m, k = 4, 64
    x = np.random.default_rng(1).standard_normal((m, k)).astype(dt)
    x[0, 5], x[1, 7], x[2, 9] = np.inf, np.nan, -np.inf
    per = 32 // np.dtype(dt).itemsize
    outs = {}
    for backend in ("sim", "cpp"):
        z, mx, sm = np.zeros_like(x), np.zeros(m * per, dt), np.zeros(m * per, dt)
        with np.errstate(all="ignore"):
            softmax_kernel(m, k, type_size=np.dtype(dt).itemsize, backend=backend)[1](x, z, mx, sm)
        outs[backend] = (z, mx, sm)
    for got, want in zip(outs["cpp"], outs["sim"]):
        _same_bits(got, want)
    assert np.isnan(outs["cpp"][0][0]).all() and np.isfinite(outs["cpp"][0][3]).all()


@pytest.mark.parametrize("m, k, dt", [(3, 48, np.float16), (5, 200, np.float32), (2, 1040, np.float16),
                                      (4, 64, np.float32)])
def test_log_softmax_cpp_equals_sim_to_the_bit(m, k, dt):
    from test_adv_log_softmax import _run
    _x, want = _run(m, k, dt, seed=k)
    _x, got = _run(m, k, dt, backend="cpp", seed=k)
    for g, w in zip(got, want):
        _same_bits(g, w)


# statistics that differ lane by lane (each lane reads its row's block at j % 8), and a small buffer whose
# split makes the half-src / float-stat path read the vendor's inter-split offsets
@pytest.mark.parametrize("m, k, dt, float_stats, host_tiling, tmp_bytes, with_tmp", [
    (4, 64, np.float16, False, True, 32 * 1024, True), (6, 128, np.float16, True, True, 4096, True),
    (3, 40, np.float32, False, False, 32 * 1024, True), (5, 96, np.float16, True, False, 32 * 1024, True),
    (2, 32, np.float32, False, True, 32 * 1024, False)])
def test_simple_softmax_cpp_equals_sim_to_the_bit(m, k, dt, float_stats, host_tiling, tmp_bytes, with_tmp):
    from test_adv_simple_softmax import N_STAT, _run
    rng = np.random.default_rng(m * k)
    x = (rng.standard_normal((m, k)) * 3).astype(dt)
    sdt = np.float32 if float_stats else dt
    S = rng.uniform(0.5, 40, N_STAT).astype(sdt)
    M = rng.uniform(-2, 6, N_STAT).astype(sdt)
    kw = dict(float_stats=float_stats, tmp_bytes=tmp_bytes, host_tiling=host_tiling, with_tmp=with_tmp)
    want = _run(x, S, M, **kw)
    got = _run(x, S, M, backend="cpp", **kw)
    _same_bits(got, want)


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("bs, h, oh, with_tmp", [(6, 64, 60, True), (3, 160, 160, True), (2, 48, 41, False),
                                                 (12, 16, 16, True)])
def test_rmsnorm_cpp_equals_sim_to_the_bit(dt, bs, h, oh, with_tmp):
    rng = np.random.default_rng(bs * h)
    x, g = (rng.standard_normal(bs * h) * 4).astype(dt), rng.standard_normal(h).astype(dt)
    outs = {}
    for backend in ("sim", "cpp"):
        z = np.zeros_like(x)
        rmsnorm_kernel(bs, 1, h, oh, 16 * 1024, np.dtype(dt).itemsize, with_tmp=with_tmp, backend=backend)[1](x, g, z)
        outs[backend] = z
    _same_bits(outs["cpp"], outs["sim"])


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("b, s, h, with_tmp", [(2, 3, 80, True), (1, 4, 64, True), (2, 2, 208, True),
                                               (1, 3, 32, False)])
def test_layernorm_cpp_equals_sim_to_the_bit(dt, b, s, h, with_tmp):
    _ins, want = layernorm_run(b, s, h, dt, 16 * 1024, backend="sim", seed=h, with_tmp=with_tmp)
    _ins, got = layernorm_run(b, s, h, dt, 16 * 1024, backend="cpp", seed=h, with_tmp=with_tmp)
    for g, w in zip(got, want):
        _same_bits(g, w)


# AscendDequant: each form (params, calCount, all of src, a scalar scale), each dst / scale type pair A2 takes,
# single-row folding ({1, k c, c} -> {k, c, c}) and the multi-row mode, a calCount below n, padded dst rows
@pytest.mark.parametrize("m, n, cal, dst_dt, scale_dt, kw", [
    (3, 24, 20, "float32", "float32", {}),
    (1, 64, 16, "float16", "uint64", {}),
    (3, 24, 20, "float16", "uint64", {"mode": "multi"}),
    (2, 40, 40, "bfloat16", "bfloat16", {}),
    (2, 32, 32, "bfloat16", "float32", {"form": "count", "count": 48}),
    (4, 16, 16, "float32", "bfloat16", {"form": "size"}),
    (2, 16, 16, "float32", "float32", {"form": "size", "with_tmp": False}),
    (2, 24, 24, "float16", "uint64", {"form": "count"}),
    (2, 16, 12, "float32", "float32", {"scalar": 0.37}),
    (1, 32, 16, "bfloat16", "float32", {"scalar": -1.5, "with_tmp": False}),
])
def test_dequant_cpp_equals_sim_to_the_bit(m, n, cal, dst_dt, scale_dt, kw):
    from test_adv_dequant import _run, _scale_array
    kw = dict(kw)
    if kw.get("mode") == "multi":
        kw["mode"] = asc.adv.DeQuantMode.DEQUANT_WITH_MULTI_ROW
    rng = np.random.default_rng(m * n + cal)
    x = rng.integers(-2 ** 31, 2 ** 31 - 1, m * n, dtype=np.int64).astype(np.int32)
    x[:4] = [0, -1, 2 ** 31 - 1, -2 ** 31]
    s = _scale_array(rng.uniform(-2, 2, n) * np.float32(2.0) ** rng.integers(-20, 10, n), scale_dt)
    with np.errstate(all="ignore"):
        want = _run(m, n, cal, dst_dt, scale_dt, x, s, **kw)
        got = _run(m, n, cal, dst_dt, scale_dt, x, s, backend="cpp", **kw)
    _same_bits(got, want)


@pytest.mark.parametrize("name", ["sum", "mean"])
@pytest.mark.parametrize("outter, inner, n, dt, acc, with_tmp", [
    (3, 48, 40, np.float16, None, True), (5, 320, 300, np.float32, None, True), (4, 2048, 2000, np.float16, None, True),
    (2, 160, 160, np.float16, "float", True), (6, 16, 16, np.float32, None, False), (3, 64, 64, np.float16, None, False)])
def test_sum_and_mean_cpp_equal_sim_to_the_bit(name, outter, inner, n, dt, acc, with_tmp):
    from adv_kernels_quant_reduce import reduce_kernel
    if acc and name == "sum":
        pytest.skip("Sum has no accumulator type")
    acc_dt = asc.float32 if acc else None
    x = (np.random.default_rng(outter * n).standard_normal(outter * inner) * 4).astype(dt)
    per = 32 // np.dtype(dt).itemsize
    outs = {}
    for backend in ("sim", "cpp"):
        z = np.full(-(-outter // per) * per, 7, dt)
        with np.errstate(all="ignore"):
            reduce_kernel(name, outter, inner, n, dt, with_tmp=with_tmp, acc=acc_dt, backend=backend)[1](x, z)
        outs[backend] = z
    _same_bits(outs["cpp"], outs["sim"])


@pytest.mark.parametrize("make, args", [  # SoftMax without a count (its extent), AscendQuant with one
    (lambda b: __import__("adv_kernels").softmax_kernel(8, 256, tmp_bytes=1024, host_tiling=False, backend=b),
     lambda: (np.ones((8, 256), np.float16), np.zeros((8, 256), np.float16), np.zeros(128, np.float16),
              np.zeros(128, np.float16))),
    (lambda b: quant_kernel(N, tmp_bytes=256, backend=b), lambda: (np.ones(N, np.float16), np.zeros(N, np.int8))),
])
def test_a_temporary_buffer_below_the_minimum_is_refused_on_cpp_as_on_sim(make, args):
    """The cpp model checks the buffer against the vendor's minimum (known when tracing) before any write: the
    same UBOverflowError as sim, nothing written."""
    msgs = {}
    for backend in ("sim", "cpp"):
        a = args()
        before = [x.copy() for x in a]
        with pytest.raises(asc.UBOverflowError) as e:
            make(backend)[1](*a)
        assert all(x.tobytes() == y.tobytes() for x, y in zip(a, before))
        msgs[backend] = str(e.value).splitlines()[0]
    assert msgs["cpp"].startswith(msgs["sim"])       # cpp adds "(core 0, cpp backend)"
    assert "the call needs at least" in msgs["cpp"]
