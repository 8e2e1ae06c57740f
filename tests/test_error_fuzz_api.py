"""Issue 25, the adversary's second pass: every public host function of docs/api-reference.md called with
wrong types, out-of-range values, NaN / inf, huge ints, arrays where scalars go and kernels where data
goes; and every vector op, copy, slice and get_value / set_value with a runtime count or index from 0 past
the UB, on several dtypes, compared across backends. Nothing but an asc_trace error may leave the package,
nothing may hang, and every backend must answer alike (bytes included when it runs).

What this sweep found, each fixed and pinned in tests/test_api_misuse.py: `tuple(kernel)` and
`for v in local_tensor` looped forever (a `__getitem__` without `__iter__`); an array as `platform=` or
`timing_only=` died in a truth test; `retimed(launch_us=10**400)` overflowed; `static_range(1.5)`,
`ShapeInfo(5)` and `asc.array(dtype, 5)` were raw TypeErrors.

The default run is a fixed sample (suite-fast); `pytest -m fuzz tests/test_error_fuzz_api.py` runs all of it,
with the cpp backend too."""
from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

import asc_trace as asc
from asc_trace import config as asc_config
from asc_trace.errors import AscTraceError

pytestmark = pytest.mark.fuzz
T = 256


def _full(request) -> bool:
    return "fuzz" in (request.config.getoption("-m") or "")


@asc.jit
def _copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, T)
    for i in range(n // T):
        asc.data_copy(a, xg[i * T:], T)
        asc.data_copy(zg[i * T:], a, T)


BAD = [None, 0, -1, 1.5, math.nan, math.inf, 10 ** 400, "", "x", [], [1], {}, {"a": 1}, (1,), object(),
       np.ones(3), np.float64("nan"), np.int64(-5), True, b"x", complex(1, 1), slice(1), Ellipsis, _copy]


def _host_calls() -> dict:
    x = np.ones(1024, np.float32)
    z = np.zeros_like(x)
    prof = asc.profile(_copy, x, z, 1024)
    ck = asc.compile(_copy, (x, z, 1024), core_num=1)
    one = [asc.Config(core_num=1)]
    return {
        "compile(fn)": lambda v: asc.compile(v, (x, z, 1024)),
        "compile(inputs)": lambda v: asc.compile(_copy, v),
        "compile(core_num)": lambda v: asc.compile(_copy, (x, z, 1024), core_num=v),
        "compile(option)": lambda v: asc.compile(_copy, (x, z, 1024), auto_sync=v),
        "ck(x)": lambda v: ck(v, z, 1024),
        "ck(n)": lambda v: ck(x, z, v),
        "profile(fn)": lambda v: asc.profile(v, x, z, 1024),
        "profile(core_num)": lambda v: asc.profile(_copy, x, z, 1024, core_num=v),
        "profile(platform)": lambda v: asc.profile(_copy, x, z, 1024, platform=v),
        "profile(timing_only)": lambda v: asc.profile(_copy, x, z, 1024, timing_only=v),
        "profile(n=)": lambda v: asc.profile(_copy, x, z, n=v),
        "jit(fn)": lambda v: asc.jit(v),
        "jit(platform)": lambda v: asc.jit(_copy, platform=v),
        "jit(opt_level)": lambda v: asc.jit(_copy, opt_level=v),
        "jit(kernel_type)": lambda v: asc.jit(_copy, kernel_type=v),
        "jit(insert_sync)": lambda v: asc.jit(_copy, insert_sync=v),
        "jit(record_overflow)": lambda v: asc.jit(_copy, record_overflow=v),
        "with_options(multi_buffer)": lambda v: _copy.with_options(multi_buffer=v),
        "k[v]": lambda v: _copy[v](x, z, 1024),
        "k[1, v]": lambda v: _copy[1, v](x, z, 1024),
        "k[1](n=v)": lambda v: _copy[1](x, z, n=v),
        "k[1](bogus=v)": lambda v: _copy[1](x, z, 1024, bogus=v),
        "k(v)": lambda v: _copy(v),
        "tuple(k)": lambda v: tuple(_copy),
        "Config(v)": lambda v: asc.Config(v),
        "Config(core_num)": lambda v: asc.Config(core_num=v),
        "autotune(configs)": lambda v: asc.autotune(_copy, configs=v, key=["n"]),
        "autotune(key)": lambda v: asc.autotune(_copy, configs=one, key=v),
        "autotune(platform)": lambda v: asc.autotune(_copy, configs=one, key=["n"], platform=v)(x, z, 1024),
        "autotune(rep)": lambda v: asc.autotune(_copy, configs=one, key=["n"], rep=v),
        "tuned(n)": lambda v: asc.autotune(_copy, configs=one, key=["n"], cache_results=False)(x, z, v),
        "retimed(platform)": lambda v: prof.retimed(platform=v),
        "retimed(launch_us)": lambda v: prof.retimed(launch_us=v),
        "retimed(hbm_gbytes_per_s)": lambda v: prof.retimed(hbm_gbytes_per_s=v).time_us,
        "save_chrome_trace": lambda v: prof.save_chrome_trace(v),
        "save_png": lambda v: prof.save_png(v),
        "set_platform": lambda v: asc.runtime.config.set_platform(v),
        "set_platform(soc)": lambda v: asc.runtime.config.set_platform(asc.runtime.config.Backend.Model, v),
        "static_range": lambda v: asc.static_range(v),
        "GlobalTensor.set_global_buffer": lambda v: asc.GlobalTensor().set_global_buffer(v, 8),
        "LocalTensor(dtype)": lambda v: asc.LocalTensor(v, asc.TPosition.VECIN, 0, 8),
        "LocalTensor(position)": lambda v: asc.LocalTensor(asc.float32, v, 0, 8),
        "TQue(depth)": lambda v: asc.TQue(asc.TPosition.VECIN, v),
        "TQue(position)": lambda v: asc.TQue(v, 2),
        "TBuf": lambda v: asc.TBuf(v),
        "DataCopyParams": lambda v: asc.DataCopyParams(v, 1, 0, 0),
        "DataCopyExtParams": lambda v: asc.DataCopyExtParams(v, 1, 0, 0, 0),
        "BinaryRepeatParams": lambda v: asc.BinaryRepeatParams(v),
        "ShapeInfo": lambda v: asc.ShapeInfo(v),
        "array": lambda v: asc.array(asc.uint32, v),
        "array(dtype)": lambda v: asc.array(v, [1]),
        "cond": lambda v: asc.cond(v, lambda: None, lambda: None),
        "while_loop": lambda v: asc.while_loop(v, lambda c: c, 0),
        "printf": lambda v: asc.printf(v),
        "set_flag": lambda v: asc.set_flag(v, 0),
        "data_copy": lambda v: asc.data_copy(v, v, 8),
        # the host helpers and parameter structs of the calls added since (sum / mean, dequant, the softmax
        # variants, gatherb): NumPy arrays and non-numbers in them were raw TypeError / ValueError
        "adv.SumParams": lambda v: asc.adv.SumParams(2, 64, v),
        "adv.DequantParams": lambda v: asc.adv.DequantParams(v, 64, 64),
        "GatherRepeatParams": lambda v: asc.GatherRepeatParams(v, 8),
        "adv.get_sum_max_min_tmp_size": lambda v: asc.adv.get_sum_max_min_tmp_size(v, 2),
        "adv.get_sum_max_min_tmp_size(ts)": lambda v: asc.adv.get_sum_max_min_tmp_size(64, v),
        "adv.get_mean_max_min_tmp_size": lambda v: asc.adv.get_mean_max_min_tmp_size(64, 2, v),
        "adv.get_ascend_dequant_max_min_tmp_size": lambda v: asc.adv.get_ascend_dequant_max_min_tmp_size(v, 4),
        "adv.get_ascend_dequant_max_min_tmp_size(ts)":
            lambda v: asc.adv.get_ascend_dequant_max_min_tmp_size([2, 64], v),
        "adv.get_log10_max_min_tmp_size(ts)": lambda v: asc.adv.get_log10_max_min_tmp_size([64], v),
        "adv.softmax_tiling_func(ts)": lambda v: asc.adv.softmax_tiling_func([8, 64], v, 32768),
        "adv.softmax_flash_v2_tiling_func(ts2)": lambda v: asc.adv.softmax_flash_v2_tiling_func([8, 64], 2, v, 32768),
        "adv.softmax_flash_v2_tiling_func(ws)": lambda v: asc.adv.softmax_flash_v2_tiling_func([8, 64], 2, 2, v),
        "adv.get_softmax_flash_v2_min_tmp_size": lambda v: asc.adv.get_softmax_flash_v2_min_tmp_size(v, 2, 2),
    }


FOUND = {"tuple(k)", "profile(platform)", "profile(timing_only)", "autotune(platform)", "autotune(rep)", "Config(v)",
         "retimed(platform)", "retimed(launch_us)", "retimed(hbm_gbytes_per_s)", "save_chrome_trace", "save_png",
         "static_range", "ShapeInfo", "array", "adv.get_sum_max_min_tmp_size", "adv.get_sum_max_min_tmp_size(ts)",
         "adv.get_mean_max_min_tmp_size", "adv.get_ascend_dequant_max_min_tmp_size",
         "adv.get_ascend_dequant_max_min_tmp_size(ts)", "adv.get_log10_max_min_tmp_size(ts)",
         "adv.softmax_tiling_func(ts)", "adv.softmax_flash_v2_tiling_func(ts2)", "adv.softmax_flash_v2_tiling_func(ws)"}


@pytest.mark.filterwarnings("ignore")
def test_every_host_function_with_bad_values_raises_only_our_errors(request, tmp_path, monkeypatch):
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)                    # a bad path that is writable lands here, not in the checkout
    calls = _host_calls()
    cases = list(itertools.product(calls, range(len(BAD))))
    if not _full(request):       # a sample, and every value for the functions this sweep found raw errors in
        cases = sorted(set(random.Random(25).sample(cases, 300)) | {c for c in cases if c[0] in FOUND},
                       key=cases.index)
    try:
        for name, i in cases:
            v = BAD[i]
            try:
                calls[name](v)
            except AscTraceError:
                pass
            except Exception as e:  # noqa: BLE001 - the point of the sweep
                pytest.fail(f"{name} with {v!r:.40}: raw {type(e).__name__}: {e}")
    finally:
        asc_config.set_process_target(None, None)   # a set_platform that went through must not leak


# -- runtime counts and indices, compared across backends --------------------------------------------------

@asc.jit
def _runtime_count(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, s: float, op: asc.ConstExpr[str]):
    dt = x.dtype
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, T)
    zg.set_global_buffer(z, T)
    size = T * dt.sizeof()
    a = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, T)
    b = asc.LocalTensor(dt, asc.TPosition.VECIN, size, T)
    c = asc.LocalTensor(dt, asc.TPosition.VECOUT, 2 * size, T)
    tmp = asc.LocalTensor(dt, asc.TPosition.VECCALC, 3 * size, T)
    asc.data_copy(a, xg, T)
    asc.data_copy(b, xg, T)
    asc.data_copy(c, zg, T)
    family, name = op.split(":")
    if family == "binary":
        getattr(asc, name)(c, a, b, n)
    elif family == "unary":
        getattr(asc, name)(c, a, n)
    elif family == "scalar":
        getattr(asc, name)(c, a, s, n)
    elif family == "duplicate":
        asc.duplicate(c, s, n)
    elif family == "reduce":
        getattr(asc, name)(c, a, tmp, n)
    elif family == "reduce_small":
        # a work tensor of 4 elements: the count form's bound is the vendor's footprint (reduce_work.py)
        small = asc.LocalTensor(dt, asc.TPosition.VECCALC, 3 * size, 4)
        if name == "reduce_sum":                     # the vendor's count-form ReduceSum never touches it
            asc.reduce_sum(c, a, small, n)
        else:
            getattr(asc, name)(c, a, small, n, True)
    elif family == "copy_pad_out":
        asc.data_copy_pad(zg, a, asc.DataCopyExtParams(1, n, 0, 0, 0))
    elif family == "copy_in":
        asc.data_copy(c, xg, n)
    elif family == "copy_out":
        asc.data_copy(zg, a, n)
    elif family == "get_value":
        c.set_value(0, a.get_value(n))
    elif family == "set_value":
        c.set_value(n, s)
    elif family == "ub_slice":
        asc.adds(c[n:], a, s, 8)
    elif family == "gm_slice":
        asc.data_copy(c, xg[n:], 8)
    asc.data_copy(zg, c, T)


OPS = ["binary:add", "binary:div", "binary:max", "binary:add_relu", "binary:bitwise_and", "unary:exp", "unary:relu",
       "unary:sqrt", "unary:bitwise_not", "scalar:adds", "scalar:leaky_relu", "scalar:axpy", "duplicate:",
       "reduce:reduce_sum", "reduce:reduce_max", "reduce:reduce_min", "reduce_small:reduce_max",
       "reduce_small:reduce_sum", "copy_pad_out:", "copy_in:", "copy_out:", "get_value:", "set_value:", "ub_slice:",
       "gm_slice:"]
COUNTS = [0, -1, 1, 7, 8, 64, 256, 257, 4096, 2 ** 31, 2 ** 40]
DTYPES = [np.float32, np.float16, np.int32, np.int16]


def _run(backend: str, op: str, dt, n: int) -> tuple[str, bytes | None]:
    x = (np.arange(T) % 7 + 1).astype(dt)
    z = np.zeros(T, dt)
    try:
        asc.jit(_runtime_count, backend=backend)[1](x, z, n, 1.5, op)
    except AscTraceError as e:
        return type(e).__name__, None
    except Exception as e:  # noqa: BLE001 - the point of the sweep
        pytest.fail(f"{backend}: raw {type(e).__name__} for {op} {dt.__name__} n={n}: {e}")
    return "ok", z.tobytes()


@pytest.mark.filterwarnings("ignore")
def test_runtime_counts_and_indices_are_one_answer_on_every_backend(request):
    full = _full(request)
    backends = ["sim", "eager"] + (["cpp"] if full else [])
    cases = list(itertools.product(OPS, DTYPES, COUNTS))
    if not full:
        cases = random.Random(18).sample(cases, 150)
    outcomes = set()
    for op, dt, n in cases:
        got = {b: _run(b, op, dt, n) for b in backends}
        kinds = {k for k, _ in got.values()}
        assert len(kinds) == 1, f"{op} {dt.__name__} n={n}: {({b: k for b, (k, _) in got.items()})}"
        if kinds == {"ok"}:
            outs = [np.frombuffer(v, dt) for _, v in got.values()]
            for b, o in zip(got, outs):
                assert np.allclose(o.astype(np.float64), outs[0].astype(np.float64), rtol=1e-3, equal_nan=True), \
                    f"{op} {dt.__name__} n={n}: {b} differs from {backends[0]}"
        outcomes |= kinds
    # the sweep reached runs, range errors, alignment errors and dtype refusals, not one of them only
    assert {"ok", "OutOfBoundsError", "AlignmentError", "DTypeError"} <= outcomes, outcomes


# -- array arguments of every kind, compared across backends ------------------------------------------------

def _read_only() -> np.ndarray:
    a = np.ones(1024, np.float32)
    a.setflags(write=False)
    return a


ARRAYS = {
    "big-endian": (lambda: np.ones(1024, ">f4"), "LaunchError"),
    "explicit little-endian": (lambda: np.ones(1024, "<f4"), "ok"),
    "read-only": (_read_only, "LaunchError"),
    "0-d": (lambda: np.array(1.0, np.float32), "OutOfBoundsError"),
    "empty": (lambda: np.ones(0, np.float32), "OutOfBoundsError"),
    "strided": (lambda: np.ones(2048, np.float32)[::2], "LaunchError"),
    "negative stride": (lambda: np.ones(1024, np.float32)[::-1], "LaunchError"),
    "broadcast": (lambda: np.broadcast_to(np.float32(1), (1024,)), "LaunchError"),
    "Fortran 2-D": (lambda: np.asfortranarray(np.ones((32, 32), np.float32)), "LaunchError"),
    "C 2-D": (lambda: np.ones((4, 256), np.float32), "ok"),
    "unaligned buffer": (lambda: np.frombuffer(bytearray(4097), np.float32, 1024, 1).copy(), "ok"),
    "object": (lambda: np.ones(1024, object), "LaunchError"),
    "float64": (lambda: np.ones(1024), "LaunchError"),
    "structured": (lambda: np.zeros(1024, [("a", np.float32)]), "LaunchError"),
    "datetime": (lambda: np.zeros(1024, "M8[s]"), "LaunchError"),
    "bytes": (lambda: np.zeros(1024, "S4"), "LaunchError"),
    "float16 into float32": (lambda: np.ones(1024, np.float16), "DTypeError"),
}


@asc.jit
def _scale(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, s: float):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, T)
    c = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 4 * T, T)
    for i in range(n // T):
        asc.data_copy(a, xg[i * T:], T)
        asc.muls(a, a, s, T)
        asc.data_copy(c, a, T)
        asc.data_copy(zg[i * T:], c, T)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("kind", list(ARRAYS))
def test_an_array_argument_of_every_kind_is_one_answer_on_every_backend(request, kind):
    make, want = ARRAYS[kind]
    got = {}
    for b in ["sim", "eager"] + (["cpp"] if _full(request) else []):
        x, z = make(), np.zeros(1024, np.float32)
        try:
            asc.jit(_scale, backend=b)[1](x, z, 1024, 2.0)
            got[b] = "ok"
            assert np.array_equal(z, np.asarray(x, np.float32).reshape(-1) * 2), b
        except AscTraceError as e:
            got[b] = type(e).__name__
    assert set(got.values()) == {want}, got


def test_a_big_endian_array_says_to_swap_its_bytes():
    with pytest.raises(asc.LaunchError, match="other order") as info:
        _scale[1](np.ones(1024, ">f4"), np.zeros(1024, np.float32), 1024, 2.0)
    assert "newbyteorder" in str(info.value)
