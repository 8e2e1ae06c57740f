"""asc.profile of mixed cube + vector kernels (runtime/mix_timing.py): one cube core and two vector cores per
AI core, each timed by its own model, coupled by the cross-core flags (a core is held at a wait until the
set it takes arrives, the set's time plus the cross-core latency)."""
from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.runtime import mix_timing

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_mix_eager import TILE, scaled_matmul_mix  # noqa: E402


def _args(m, n, k, cores, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.full((m, n), 9.0, np.float32)
    ws = np.zeros(cores * TILE, np.float16)
    return a, b, c, ws


def _profile(m, n, k, cores, **kw):
    a, b, c, ws = _args(m, n, k, cores)
    prof = asc.profile(scaled_matmul_mix, a.ravel(), b.ravel(), c.ravel(), ws, m, n, k, 0.5, core_num=cores, **kw)
    return prof, a, b, c


def _slices(prof, core, row=None, what=None):
    c = next(x for x in prof.cores if x.name == core)
    return [s for s in c.slices if (row is None or s[0] == row) and (what is None or s[3] == what)]


@pytest.mark.parametrize("m, n, k, cores", [(200, 150, 100, 2), (40, 30, 70, 1), (300, 260, 64, 4)])
def test_the_kernel_runs_and_every_core_is_timed(m, n, k, cores):
    prof, a, b, c = _profile(m, n, k, cores)
    p = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16).astype(np.float32) * np.float32(0.5)
    np.testing.assert_array_equal(c, np.where(p >= 0, p, p * np.float32(0.25)))      # it ran for real
    assert len(prof.cores) == 3 * cores
    assert prof.time_us == pytest.approx(max(x.end_us for x in prof.cores))
    assert prof.slowest_core in {x.name for x in prof.cores}
    assert prof.cycles == pytest.approx(prof.time_us * 1.85e3)
    assert "cross-core flag latency" in prof.summary()


def test_a_vector_core_reads_the_workspace_only_after_the_cube_wrote_it():
    """Causality through the flags: the first workspace read of each vector core starts after the cube core's
    first Fixpipe ends plus the latency; before that the vector core is held (a `cross-core` slice)."""
    prof, *_ = _profile(200, 150, 100, 1)
    fix_end = min(s[2] for s in _slices(prof, "AI core 0 cube", "FIX", "fixpipe"))
    for v in ("AI core 0 vector 0", "AI core 0 vector 1"):
        first_read = min(s[1] for s in _slices(prof, v, "MTE2", "data_copy"))
        assert first_read >= fix_end + prof.latency_us - 1e-9
        held = _slices(prof, v, "cross-core")
        assert held and held[0][2] == pytest.approx(fix_end + prof.latency_us + 1 / 1800, rel=1e-6)


def test_the_cube_waits_for_the_acknowledgement_before_reusing_the_slot():
    """Two tiles through one workspace slot: the cube's second Fixpipe may start only once both vector cores
    read the first tile (mode 2: the later of the pair)."""
    prof, *_ = _profile(256, 128, 64, 1)          # 2 tiles, one AI core
    fixes = sorted(s[1] for s in _slices(prof, "AI core 0 cube", "FIX", "fixpipe"))
    assert len(fixes) == 2
    reads = [min(s[2] for s in _slices(prof, v, "MTE2", "data_copy")) for v in ("AI core 0 vector 0",
                                                                                 "AI core 0 vector 1")]
    assert fixes[1] >= max(reads) + prof.latency_us - 1e-9


def test_the_latency_is_on_the_critical_path(monkeypatch):
    base, *_ = _profile(256, 128, 64, 1)
    monkeypatch.setattr(mix_timing, "cross_core_latency_us", lambda plat: 2.0)
    slow, *_ = _profile(256, 128, 64, 1)
    # cube -> vector (tile 1), vector -> cube (ack), cube -> vector (tile 2): at least three hops in a chain
    assert slow.time_us >= base.time_us + 3 * (2.0 - base.latency_us) - 1e-6


def test_timing_only_leaves_the_arrays_alone_and_gives_the_same_time():
    full, *_ = _profile(200, 150, 100, 2)
    a, b, c, ws = _args(200, 150, 100, 2)
    quick = asc.profile(scaled_matmul_mix, a.ravel(), b.ravel(), c.ravel(), ws, 200, 150, 100, 0.5, core_num=2,
                        timing_only=True)
    assert (c == 9.0).all() and not ws.any()
    assert quick.time_us == pytest.approx(full.time_us)


def test_the_chrome_trace_shows_every_core_and_the_holds(tmp_path):
    prof, *_ = _profile(200, 150, 100, 2)
    ev = json.loads(prof.save_chrome_trace(tmp_path / "mix.json").read_text())["traceEvents"]
    names = {e["args"]["name"] for e in ev if e.get("ph") == "M"}
    assert names == {x.name for x in prof.cores}
    assert any(e.get("tid") == "cross-core" for e in ev)
    assert {e.get("tid") for e in ev} >= {"MTE2", "MTE1", "M", "FIX", "V", "MTE3"}


def test_the_gelu_example_profiles():
    import matmul_bias_gelu_mix as M
    m, n, k, cores = 200, 150, 100, 2
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
    bias, c = rng.standard_normal(n).astype(np.float32), np.zeros((m, n), np.float32)
    prof = asc.profile(M.matmul_bias_gelu_mix, a.ravel(), b.ravel(), bias, c.ravel(), np.zeros(cores * M.TILE,
                       np.float32), m, n, k, core_num=cores)
    np.testing.assert_allclose(c, M.gelu_ref(a.astype(np.float32) @ b.astype(np.float32) + bias), rtol=1e-4, atol=1e-4)
    assert prof.time_us > 0 and prof.bound
