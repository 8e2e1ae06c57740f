"""Issue 25: misuse of the tuning and profiling API and of launch arguments is an asc_trace error at the
user's line (or a correct run), the same on every backend. Each test failed before its fix: a raw
TypeError / ZeroDivisionError / OSError, a silent acceptance, or backends that disagreed."""
from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest

import asc_trace as asc

T = 256


@asc.jit
def copy_plus_one(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    base = asc.get_block_idx() * n * T         # each core its own n tiles
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, n * T)
    zg.set_global_buffer(z + base, n * T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    for i in range(n):
        asc.data_copy(a, xg[i * T:], T)
        asc.adds(a, a, 1.0, T)
        asc.data_copy(zg[i * T:], a, T)


@asc.jit
def tiled(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, tile)
    for i in range(n // tile):
        asc.data_copy(a, xg[i * tile:], tile)
        asc.data_copy(zg[i * tile:], a, tile)


def _here(e: asc.AscTraceError) -> bool:
    return e.loc is not None and e.loc.file == __file__


# -- asc.Config and asc.autotune -----------------------------------------------------------------------------

@pytest.mark.parametrize("value", [5, [("tile", 4)], "tile", (1, 2), {1: 2}])
def test_config_with_a_positional_that_is_not_a_dict_is_a_trace_error(value):
    with pytest.raises(asc.TraceError, match="asc.Config") as info:
        asc.Config(value)
    assert _here(info.value)


@pytest.mark.parametrize("core_num", ["4", 0, -1, 65536, 1.5, True, [4]])
def test_config_core_num_out_of_range_or_kind_is_refused_where_written(core_num):
    with pytest.raises(asc.TraceError, match=f"core_num must be an int from 1 to 65535.*got {type(core_num).__name__}") \
            as info:
        asc.Config(core_num=core_num, tile=64)
    assert _here(info.value)
    assert repr(core_num) in str(info.value)        # "4" shows as '4', not as the int 4


def test_config_core_num_may_be_a_numpy_integer():
    c = asc.Config(core_num=np.int64(4), tile=64)
    assert c.core_num == 4 and type(c.core_num) is int and c == asc.Config(core_num=4, tile=64)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_autotune_skips_a_config_whose_tile_divides_by_zero():
    x = np.arange(1024, dtype=np.float32)
    z = np.zeros_like(x)
    tuned = asc.autotune(tiled, configs=[asc.Config(core_num=1, tile=0), asc.Config(core_num=1, tile=256)],
                         key=["n"], cache_results=False)
    tuned(x, z, 1024)
    assert tuned.best_config == asc.Config(core_num=1, tile=256)
    assert "ScalarError" in tuned.skipped[asc.Config(core_num=1, tile=0)]
    assert np.array_equal(z, x)


@pytest.mark.parametrize("options, name", [
    ({"warmup": -1}, "warmup"), ({"warmup": 1.5}, "warmup"), ({"warmup": "3"}, "warmup"),
    ({"rep": 0}, "rep"), ({"rep": "x"}, "rep"), ({"rep": None}, "rep"), ({"rep": True}, "rep"),
    ({"cache_results": "no"}, "cache_results"),
])
def test_autotune_counts_and_flags_are_checked(options, name):
    with pytest.raises(asc.OptionError, match=f"asc.autotune {name}=") as info:
        asc.autotune(tiled, configs=[asc.Config(core_num=1, tile=256)], key=["n"], **options)
    assert _here(info.value)


def test_autotune_counts_may_be_numpy_integers():
    tuned = asc.autotune(tiled, configs=[asc.Config(core_num=1, tile=256)], key=["n"], warmup=np.int32(0),
                         rep=np.int64(2))
    assert (tuned.warmup, tuned.rep) == (0, 2)


# -- Profile.retimed, save_chrome_trace, save_png --------------------------------------------------------------

@pytest.fixture(scope="module")
def prof():
    x = np.ones(4 * T, np.float32)
    return asc.profile(copy_plus_one, x, np.zeros_like(x), 4, core_num=1)


@pytest.mark.parametrize("overrides, message", [
    ({"warp_speed": 5}, "'warp_speed' is not a timing-model parameter"),
    ({"hbm_gbytes_per_s": 0}, "hbm_gbytes_per_s must be a finite number above 0"),
    ({"hbm_gbytes_per_s": -5}, "hbm_gbytes_per_s must be a finite number above 0"),
    ({"hbm_gbytes_per_s": math.nan}, "hbm_gbytes_per_s must be a finite number above 0"),
    ({"clock_mhz": math.inf}, "clock_mhz must be a finite number above 0"),
    ({"mte2_bytes_per_cycle": 0}, "mte2_bytes_per_cycle must be"),
    ({"copy_best_efficiency": 1.5}, r"copy_best_efficiency must be a number in \(0, 1\]"),
    ({"launch_us": -1}, "launch_us must be a finite number of at least 0"),
    ({"aiv_cores": 2.5}, "aiv_cores must be an int of at least 1"),
    ({"aiv_cores": 0}, "aiv_cores must be an int of at least 1"),
    ({"flag_latency": "10"}, "flag_latency must be a finite number"),
    ({"flag_latency": True}, "flag_latency must be a finite number"),
])
def test_retimed_refuses_unknown_names_and_values_out_of_range(prof, overrides, message):
    with pytest.raises(asc.OptionError, match=message) as info:
        prof.retimed(**overrides).time_us
    assert _here(info.value)


def test_retimed_takes_zero_where_zero_means_free_and_numpy_numbers(prof):
    free = prof.retimed(launch_us=0, wave_us=0.0, flag_latency=np.float32(0))
    assert math.isfinite(free.time_us) and free.time_us < prof.time_us
    assert prof.retimed(hbm_gbytes_per_s=np.int64(1400)).platform.hbm_gbytes_per_s == 1400.0
    assert prof.retimed(aiv_cores=np.int32(8)).platform.aiv_cores == 8


@pytest.mark.parametrize("platform", [5, ["Ascend910B2"], "Ascend999"])
def test_retimed_with_a_platform_that_is_not_a_preset_is_a_launch_error(prof, platform):
    with pytest.raises(asc.LaunchError, match="unknown platform"):
        prof.retimed(platform=platform)


@pytest.mark.parametrize("save", ["save_chrome_trace", "save_png"])
@pytest.mark.parametrize("case", ["folder", "no folder", "empty", "not a path", "read-only"])
def test_saving_a_profile_where_it_cannot_be_written_is_a_path_error(prof, tmp_path, save, case):
    if case == "read-only" and os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    path = {"folder": tmp_path, "no folder": tmp_path / "nope" / "t.out", "empty": "", "not a path": 5,
            "read-only": ro / "t.out"}[case]
    with pytest.raises(asc.PathError, match=save) as info:
        getattr(prof, save)(path)
    assert _here(info.value)
    assert not (tmp_path / "nope").exists()


def test_save_png_refuses_a_core_count_below_one(prof, tmp_path):
    with pytest.raises(asc.OptionError, match="max_cores"):
        prof.save_png(tmp_path / "t.png", max_cores=0)
    assert not (tmp_path / "t.png").exists()


def test_saving_a_profile_still_works(prof, tmp_path):
    assert prof.save_chrome_trace(str(tmp_path / "t.json")).stat().st_size > 0


# -- launch arguments ---------------------------------------------------------------------------------------

BACKENDS = ["sim", "eager", "cpp"]


def _launch(backend: str, cores, x, z) -> str:
    try:
        asc.jit(copy_plus_one, backend=backend)[cores](x, z, 4)
    except asc.AscTraceError as e:
        return type(e).__name__
    return "ok"


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
@pytest.mark.parametrize("where", ["x", "z"])
def test_a_numpy_matrix_argument_runs_the_same_on_every_backend(where):
    got = {}
    for b in BACKENDS:
        base = np.arange(4 * T, dtype=np.float32)
        x = np.asmatrix(base.copy()) if where == "x" else base.copy()
        z = np.asmatrix(np.zeros(4 * T, np.float32)) if where == "z" else np.zeros(4 * T, np.float32)
        got[b] = _launch(b, 1, x, z)
        assert got[b] == "ok", (b, got)
        assert np.array_equal(np.asarray(z).ravel(), base + 1), b


def test_a_memmap_output_is_written(tmp_path):
    for b in BACKENDS:
        x = np.arange(4 * T, dtype=np.float32)
        z = np.memmap(tmp_path / f"{b}.bin", dtype=np.float32, mode="w+", shape=(4 * T,))
        assert _launch(b, 1, x, z) == "ok"
        assert np.array_equal(np.asarray(z), x + 1), b


def test_a_masked_array_is_refused_alike_everywhere():
    got = {b: _launch(b, 1, np.ma.masked_array(np.ones(4 * T, np.float32), mask=False), np.zeros(4 * T, np.float32))
           for b in BACKENDS}
    assert set(got.values()) == {"LaunchError"}, got


@pytest.mark.parametrize("cores", [np.int64(2), np.int32(1), np.uint8(3)])
def test_a_numpy_integer_core_count_launches_like_an_int(cores):
    for b in BACKENDS:
        x = np.arange(int(cores) * 4 * T, dtype=np.float32)
        z = np.zeros_like(x)
        assert _launch(b, cores, x, z) == "ok", b
        assert np.array_equal(z, x + 1), b          # every core ran its part


@pytest.mark.parametrize("cores", [np.int64(0), np.int64(70000), np.float32(2.0), np.bool_(True)])
def test_a_numpy_core_count_out_of_range_is_a_launch_error(cores):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = {b: _launch(b, cores, np.ones(4 * T, np.float32), np.zeros(4 * T, np.float32)) for b in BACKENDS}
    assert set(got.values()) == {"LaunchError"}, got


# -- found by the adversary sweep (tests/test_error_fuzz_api.py) --------------------------------------------

def test_a_platform_that_is_an_array_is_refused_without_a_truth_test():
    x = np.ones(4 * T, np.float32)
    with pytest.raises(asc.LaunchError, match="unknown platform"):
        asc.profile(copy_plus_one, x, np.zeros_like(x), 4, platform=np.ones(3))
    with pytest.raises(asc.OptionError, match="timing_only= must be True or False"):
        asc.profile(copy_plus_one, x, np.zeros_like(x), 4, timing_only=np.ones(3))
    with pytest.raises(asc.OptionError, match="timing_only"):
        asc.profile(copy_plus_one, x, np.zeros_like(x), 4, timing_only="no")


def test_retimed_with_an_int_beyond_any_float_is_an_option_error(prof):
    with pytest.raises(asc.OptionError, match="launch_us must be a finite number"):
        prof.retimed(launch_us=10 ** 400)


def test_iterating_a_kernel_is_an_error_not_an_endless_loop():
    with pytest.raises(asc.LaunchError, match="not a sequence"):
        tuple(copy_plus_one)
    x = np.ones(4 * T, np.float32)
    ck = asc.compile(copy_plus_one, (x, np.zeros_like(x), 4))
    with pytest.raises(asc.LaunchError, match="not a sequence"):
        list(ck)


@asc.jit
def _iterates_a_tensor(x: asc.GlobalAddress, which: asc.ConstExpr[str]):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x, T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    for _ in (a if which == "local" else xg):
        pass


@pytest.mark.parametrize("which, cls", [("local", "LocalTensor"), ("global", "GlobalTensor")])
def test_iterating_a_tensor_in_a_kernel_is_a_trace_error_at_that_line(which, cls):
    with pytest.raises(asc.TraceError, match=f"a {cls} is not iterable") as info:
        _iterates_a_tensor[1](np.ones(T, np.float32), which)
    assert _here(info.value) and "for _ in" in info.value.loc.code


@pytest.mark.parametrize("call", [lambda: asc.static_range(1.5), lambda: asc.static_range("4"),
                                  lambda: asc.static_range(0, 4, 0), lambda: asc.ShapeInfo(5),
                                  lambda: asc.ShapeInfo(copy_plus_one), lambda: asc.array(asc.uint32, 5)])
def test_static_range_shape_info_and_array_refuse_what_they_cannot_take(call):
    with pytest.raises(asc.TraceError) as info:
        call()
    assert _here(info.value)


# -- cpu_debug sorts the API's "larger than data len" into OutOfBoundsError, as the others report it ----------

@pytest.mark.parametrize("text", ["offset is 256, which can not be larger than data len 256",
                                  "index is 257, which can not be larger than data len 256"])
def test_the_api_index_past_a_tensor_message_is_out_of_bounds(text):
    from asc_trace.runtime.cpu_debug import _api_error_class
    assert _api_error_class(text, "kernel_tensor.h:100 GetValue") is asc.OutOfBoundsError


@asc.jit
def _element_at(x: asc.GlobalAddress, z: asc.GlobalAddress, i: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, T)
    zg.set_global_buffer(z, T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * T, T)
    asc.data_copy(a, xg, T)
    asc.data_copy(c, zg, T)
    c.set_value(0, a.get_value(i))
    asc.data_copy(zg, c, T)


def _backends():
    from helpers import every_backend
    return every_backend()


@pytest.mark.parametrize("backend", _backends())
def test_get_value_past_the_tensor_is_out_of_bounds_on_every_backend(backend):
    x = np.arange(T, dtype=np.float32)
    with pytest.raises(asc.OutOfBoundsError) as info:
        asc.jit(_element_at, backend=backend)[1](x, np.zeros_like(x), T)
    assert "][" not in str(info.value).splitlines()[0]        # the API's tag is not left in the message
    z = np.zeros_like(x)
    asc.jit(_element_at, backend=backend)[1](x, z, 5)
    assert z[0] == 5.0


@asc.jit
def _at_address(x: asc.GlobalAddress, addr: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, addr, 8)
    asc.duplicate(a, 1.0, 8)


@pytest.mark.parametrize("addr", [-32, -1, 2 ** 40])
def test_a_local_tensor_address_outside_the_ub_is_an_overflow_on_every_backend(addr):
    got = {}
    for b in BACKENDS:
        with pytest.raises(asc.UBOverflowError, match=f"address is {addr}, outside") as info:
            asc.jit(_at_address, backend=b)[1](np.zeros(8, np.float32), addr)
        got[b] = type(info.value).__name__
    assert set(got.values()) == {"UBOverflowError"}
