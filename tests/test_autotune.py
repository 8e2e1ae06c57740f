"""asc.autotune: configs timed on the model, the fastest launched, the choice cached per key value in
memory and on disk; configs that do not fit skipped; clear errors for bad configs."""
import numpy as np
import pytest

import asc_trace as asc
import asc_trace.tuning as at
import autotune_silu
from helpers import rand

F32 = asc.float32


@asc.jit
def scale_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int],
                 alpha: asc.ConstExpr[float]):
    per_core = n // asc.get_block_num()
    base = asc.get_block_idx() * per_core
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, per_core)
    zg.set_global_buffer(z + base, per_core)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    for i in range(per_core // tile):
        asc.data_copy(t, xg[i * tile:], tile)
        asc.muls(t, t, alpha, tile)
        asc.data_copy(zg[i * tile:], t, tile)


class Counter:
    """Counts the model runs autotune makes."""

    def __init__(self, monkeypatch):
        self.calls = []
        real = at.profile

        def counting(kernel, *args, **kw):
            self.calls.append(kw["core_num"])
            return real(kernel, *args, **kw)
        monkeypatch.setattr(at, "profile", counting)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_example_picks_the_least_modeled_time_and_is_exact(cache_dir):
    silu = asc.autotune(autotune_silu.silu_kernel, configs=autotune_silu.CONFIGS, key=["n"])
    n = 48 * 4096
    x = rand(n, np.float32)
    z = np.zeros_like(x)
    with pytest.warns(UserWarning) as notes:
        silu(x, z, n)
    assert len(notes) == 4 and all("tile=16384): it does not fit (UBOverflowError" in str(w.message) for w in notes)
    np.testing.assert_allclose(z, autotune_silu.reference(x), rtol=1e-5, atol=1e-6)
    fits = [c for c in autotune_silu.CONFIGS if c.kwargs["tile"] <= 8192]
    assert set(silu.timings) == set(fits)
    assert set(silu.skipped) == set(autotune_silu.CONFIGS) - set(fits)
    assert all("UBOverflowError" in why for why in silu.skipped.values())
    best = silu.best_config
    assert silu.timings[best] == min(silu.timings.values())
    # the timings are the model's: profiling the chosen config again gives the same time
    again = asc.profile(autotune_silu.silu_kernel, x, z, n, best.kwargs["tile"], core_num=best.core_num)
    assert again.time_us == pytest.approx(silu.timings[best])
    slowest = max(silu.timings, key=silu.timings.get)
    assert slowest.core_num == 8       # a sixth of the cores is the slowest on the model


def test_cached_per_key_in_memory_and_on_disk(cache_dir, monkeypatch):
    configs = [asc.Config(core_num=c, tile=t, alpha=2.0) for c in (4, 8) for t in (256, 1024)]
    counter = Counter(monkeypatch)
    tuned = asc.autotune(scale_kernel, configs=configs, key=["n"])
    x = rand(8 * 4096, np.float32)
    z = np.zeros_like(x)
    tuned(x, z, x.size)
    np.testing.assert_array_equal(z, x * np.float32(2.0))
    assert len(counter.calls) == 4
    first = tuned.best_config
    tuned(x, z, x.size)                              # same key: no tuning
    assert len(counter.calls) == 4 and tuned.best_config == first
    x2 = rand(8 * 8192, np.float32)
    z2 = np.zeros_like(x2)
    tuned(x2, z2, x2.size)                           # new key value: tuned again
    assert len(counter.calls) == 8 and len(tuned.cache) == 2
    np.testing.assert_array_equal(z2, x2 * np.float32(2.0))
    # a new tuner (or a new process) finds the choices on disk
    fresh = asc.autotune(scale_kernel, configs=configs, key=["n"])
    z[:] = 0
    fresh(x, z, x.size)
    assert len(counter.calls) == 8 and fresh.best_config == first
    assert fresh.timings and min(fresh.timings.values()) == fresh.timings[first]
    np.testing.assert_array_equal(z, x * np.float32(2.0))
    assert list(cache_dir.rglob("autotune.json"))
    # without the disk cache it tunes again
    asc.autotune(scale_kernel, configs=configs, key=["n"], cache_results=False)(x, z, x.size)
    assert len(counter.calls) == 12


def test_none_fits_is_an_error_naming_each_config(cache_dir):
    configs = [asc.Config(core_num=8, tile=t, alpha=1.0) for t in (65536, 131072)]
    tuned = asc.autotune(scale_kernel, configs=configs, key=["n"])
    x = rand(8 * 65536, np.float32)
    with pytest.warns(UserWarning), pytest.raises(asc.LaunchError, match="none of the 2 configs fits") as ei:
        tuned(x, np.zeros_like(x), x.size)
    assert "tile=65536" in str(ei.value) and "tile=131072" in str(ei.value)
    assert isinstance(ei.value.__cause__, asc.UBOverflowError)


def test_misaligned_config_is_skipped(cache_dir):
    configs = [asc.Config(core_num=8, tile=t, alpha=1.0) for t in (100, 256)]   # 100 x 4 B: not 32 B
    tuned = asc.autotune(scale_kernel, configs=configs, key=["n"])
    x = rand(8 * 25600, np.float32)
    z = np.zeros_like(x)
    with pytest.warns(UserWarning, match="AlignmentError"):
        tuned(x, z, x.size)
    assert tuned.best_config == configs[1] and list(tuned.skipped) == [configs[0]]
    np.testing.assert_array_equal(z, x)


def test_data_dependent_kernel_tunes_on_scratch_copies(cache_dir, monkeypatch):
    @asc.jit
    def bump(z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z + asc.get_block_idx() * 64, 64)
        t = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, zg, 64)
        reps = t.get_value(0)                   # a trip count read from the data: no timing-only run
        asc.adds(t, t, 1, 64)
        for i in range(reps):
            asc.data_copy(zg[i * tile:], t[i * tile:], tile)

    counter = Counter(monkeypatch)
    z = np.zeros(128, np.int32)
    z[0] = z[64] = 4
    tuned = asc.autotune(bump, configs=[asc.Config(core_num=2, tile=t) for t in (8, 16)], key=["n"])
    tuned(z, 128)
    assert len(counter.calls) == 2
    # tuning ran on copies: the caller's array was bumped once, by the launch of the best config
    assert z[0] == 5 and z[64] == 5
    assert set(tuned.timings) == set(tuned.configs)
    assert tuned.timings[tuned.best_config] == min(tuned.timings.values())


def test_config_and_key_errors():
    with pytest.raises(asc.TraceError, match="not asc.ConstExpr parameter"):
        asc.autotune(scale_kernel, configs=[asc.Config(core_num=8, n=4)], key=["n"])
    with pytest.raises(asc.TraceError, match="key 'tile' is not a parameter"):
        asc.autotune(scale_kernel, configs=[asc.Config(core_num=8, tile=256, alpha=1.0)], key=["tile"])
    with pytest.raises(asc.TraceError, match="the same ConstExprs"):
        asc.autotune(scale_kernel, configs=[asc.Config(core_num=8, tile=256, alpha=1.0),
                                            asc.Config(core_num=8, tile=256)], key=["n"])
    with pytest.raises(asc.TraceError, match="non-empty list"):
        asc.autotune(scale_kernel, configs=[], key=["n"])
    tuned = asc.autotune(scale_kernel, configs=[asc.Config({"tile": 256, "alpha": 1.0}, core_num=8)], key="n")
    x = rand(8 * 256, np.float32)
    with pytest.raises(asc.LaunchError, match="tuned by asc.autotune"):
        tuned(x, np.zeros_like(x), x.size, tile=256)
    assert repr(asc.Config(core_num=8, tile=256)) == "Config(core_num=8, tile=256)"
    assert asc.Config({"tile": 256}, core_num=8) == asc.Config(core_num=8, tile=256)


def test_decorator_form_default_cores_and_progress(cache_dir, monkeypatch, capsys):
    monkeypatch.setattr(at, "PROGRESS_AFTER_S", 0.0)

    @asc.autotune(configs=[asc.Config(tile=t) for t in (256, 512)], key=["n"])
    @asc.jit
    def double(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
        per_core = n // asc.get_block_num()
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + asc.get_block_idx() * per_core, per_core)
        zg.set_global_buffer(z + asc.get_block_idx() * per_core, per_core)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, tile)
        for i in range(per_core // tile):
            asc.data_copy(t, xg[i * tile:], tile)
            asc.adds(t, t, 1.0, tile)
            asc.data_copy(zg[i * tile:], t, tile)

    x = rand(48 * 1024, np.float32)
    z = np.zeros_like(x)
    double(x, z, x.size)
    np.testing.assert_array_equal(z, x + np.float32(1.0))
    err = capsys.readouterr().err
    assert "asc.autotune(double): 1/2 configs timed" in err and "finished after" in err
    assert double.best_config.core_num is None            # every vector core of the preset: 48
