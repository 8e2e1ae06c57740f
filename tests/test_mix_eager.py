"""Mixed cube + vector kernels on the eager backend (runtime/mix_eager.py): each AI core's cube core and two
vector cores run the kernel function on turn-taking threads, executing their own side's calls, with the
cross-core flags auto_sync placed in the scheduled kernel taken at the calls they sit between. Equal to sim to
the bit (the same executors), the same errors at the user's line, with and without the simulator's check."""
from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

import asc_trace as asc

EXAMPLES = pathlib.Path(__file__).parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
from matmul_cube import BASE_K, BASE_M, BASE_N, Tiles, smin, up16  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_mix import _mix_kernel, _run  # noqa: E402

THIRD = 48                       # rows of a tile per vector core: 2 x 48 < 128, the last 32 rows on core 1 too
TILE = BASE_M * BASE_N


@asc.jit
def scaled_matmul_mix(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, ws: asc.GlobalAddress,
                      m: int, n: int, k: int, scale: float):
    """leaky_relu(scale * (A @ B)) with the product handed over in fp16 (Fixpipe F322F16 into the workspace),
    widened to fp32 on the vector cores; vector core 0 takes rows [0, 48) of a tile, core 1 the rest."""
    t = Tiles(a, b, ws)
    t.n = n
    gc = asc.GlobalTensor()
    gc.set_global_buffer(c)
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, (BASE_M - THIRD) * BASE_N)
    x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 32768, (BASE_M - THIRD) * BASE_N)
    m_tiles = (m + BASE_M - 1) // BASE_M
    n_tiles = (n + BASE_N - 1) // BASE_N
    full_k = k // BASE_K
    tail_k = k - full_k * BASE_K
    ai_core = asc.get_block_idx() // asc.get_task_ratio()
    slot = ai_core * TILE
    for tile in range(ai_core, m_tiles * n_tiles, asc.get_block_num()):
        row = tile // n_tiles * BASE_M
        col = tile % n_tiles * BASE_N
        cur_m = smin(m - row, BASE_M)
        cur_n = smin(n - col, BASE_N)
        for kk in range(full_k):
            t.k_step(k, kk, cur_m, cur_n, BASE_K, row, col, kk == 0)
        for _ in range((tail_k + BASE_K - 1) // BASE_K):
            t.k_step(k, full_k, cur_m, cur_n, tail_k, row, col, full_k == 0, zero_pad=True)
        asc.fixpipe(t.gc[slot:], t.c1, asc.FixpipeParamsV220(cur_n, cur_m, up16(cur_m), BASE_N,
                                                              asc.QuantModes.F322F16))
        sub = asc.get_sub_block_idx()
        r0 = sub * THIRD
        rows = smin(cur_m - r0, THIRD + sub * (BASE_M - 2 * THIRD))
        rows = rows * (rows > 0)
        for _ in range(smin(rows, 1)):
            asc.data_copy(h, t.gc[slot + r0 * BASE_N:], rows * BASE_N)
            asc.cast(x, h, asc.RoundMode.CAST_NONE, rows * BASE_N)
            asc.muls(x, x, scale, rows * BASE_N)
            asc.leaky_relu(x, x, 0.25, rows * BASE_N)
            gap = (BASE_N * 4 - (cur_n * 4 + 31) // 32 * 32) // 32
            asc.data_copy_pad(gc[(row + r0) * n + col:], x, asc.DataCopyExtParams(rows, cur_n * 4, gap,
                                                                                  (n - cur_n) * 4, 0))


def _scaled(backend, m, n, k, cores, seed=0, kernel=scaled_matmul_mix):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.full((m, n), 9.0, np.float32)
    ws = np.zeros(cores * TILE, np.float16)
    asc.jit(kernel, backend=backend)[cores](a.ravel(), b.ravel(), c.ravel(), ws, m, n, k, 0.5)
    p = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16).astype(np.float32) * np.float32(0.5)
    return c, np.where(p >= 0, p, p * np.float32(0.25)).astype(np.float32)


@pytest.mark.parametrize("m, n, k, cores", [
    (200, 150, 100, 2),          # M / N / K tails, 4 tiles on 2 AI cores
    (40, 30, 70, 1),             # one AI core, one tile: vector core 1 has no rows
    (300, 260, 64, 5),           # more AI cores than tiles need on the last round; N not a multiple of 16
    (16, 16, 16, 3),             # one 16 x 16 tile, two AI cores with nothing to do
])
def test_eager_equals_sim_and_numpy(m, n, k, cores):
    sim, want = _scaled("sim", m, n, k, cores)
    eager, _ = _scaled("eager", m, n, k, cores)
    np.testing.assert_array_equal(eager, sim)
    np.testing.assert_array_equal(eager, want)


@pytest.mark.parametrize("m, n, k, cores", [(200, 150, 100, 2), (33, 40, 70, 1)])
def test_the_gelu_example_on_eager_equals_sim(m, n, k, cores):
    import matmul_bias_gelu_mix as M
    sim, want = M.run(m, n, k, cores, kernel=asc.jit(M.matmul_bias_gelu_mix, backend="sim"))
    eager, _ = M.run(m, n, k, cores, kernel=asc.jit(M.matmul_bias_gelu_mix, backend="eager"))
    np.testing.assert_array_equal(eager, sim)
    np.testing.assert_allclose(eager, want, rtol=1e-4, atol=1e-4)


def test_the_derived_flags_are_what_orders_the_cores(monkeypatch):
    """Without the scheduled flags the cube core would run every tile before a vector core reads one (a core
    gives its turn away only at a wait): the result must then be wrong, so the flags are really taken."""
    from asc_trace.runtime import mix_eager
    monkeypatch.setenv("ASC_TRACE_SANITIZE", "0")
    monkeypatch.setattr(mix_eager.MixEagerContext, "_flags", lambda self, key: None)
    got, want = _scaled("eager", 300, 260, 64, 1)
    assert not np.array_equal(got, want)


def test_hand_written_flags_run_on_eager():
    got, want = _run(asc.jit(_mix_kernel(), backend="eager"))
    sim, _ = _run(asc.jit(_mix_kernel(), backend="sim"))
    np.testing.assert_array_equal(got, sim)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("sanitize", ["1", "0"])
@pytest.mark.parametrize("kw,match", [({"wait_id": 3}, "never satisfied"), ({"extra_set": True}, "never waited for"),
                                      ({"sets": 16, "ack": False}, "holds 15 sets")])
def test_flag_errors_at_the_users_line(kw, match, sanitize, monkeypatch):
    """With the simulator's check first (1) and without it (0: eager's own counters find them)."""
    monkeypatch.setenv("ASC_TRACE_SANITIZE", sanitize)
    with pytest.raises(asc.SyncError, match=match) as ei:
        _run(asc.jit(_mix_kernel(**kw), backend="eager"), tiles=1 if "sets" in kw else 3)
    assert "test_mix.py:" in str(ei.value)


def test_the_workspace_race_is_reported_and_outputs_stay():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    c = np.full((64, 32), 7.0, np.float32)
    with pytest.raises(asc.RaceError, match="GM argument 'ws'"):
        asc.jit(_mix_kernel(ack=False), backend="eager")[1](a.ravel(), a[:32].ravel(), np.zeros(1024, np.float32),
                                                            c.ravel(), 2)
    assert (c == 7.0).all()


def test_printf_of_every_core_in_the_simulators_order(capfd):
    inner = _mix_kernel()

    @asc.jit
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress, c: asc.GlobalAddress, tiles: int):
        asc.printf("block %d\n", asc.get_block_idx())
        inner(a, b, ws, c, tiles)

    outs = {}
    for backend in ("sim", "eager"):
        _run(asc.jit(k, backend=backend), tiles=2)
        outs[backend] = capfd.readouterr().out
    assert outs["eager"] == outs["sim"] and outs["sim"].count("] block ") == 3


def test_asc_cond_in_a_mixed_kernel_is_refused_on_eager():
    inner = _mix_kernel()

    @asc.jit
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress, c: asc.GlobalAddress, tiles: int):
        inner(a, b, ws, c, tiles)
        gc = asc.GlobalTensor()
        gc.set_global_buffer(c)
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        asc.cond(tiles > 1, lambda: asc.data_copy(x, gc, 64), lambda: None)    # the refused line
    with pytest.raises(asc.NotProvidedError, match="asc.cond in a mixed kernel") as ei:
        _run(asc.jit(k, backend="eager", auto_sync=False), tiles=2)     # (auto_sync refuses asc.cond in the cube)
    assert ei.value.loc.file == __file__


def test_core_type_blocks_on_eager():
    """`if asc.ascend_is_aic():` / `ascend_is_aiv()` blocks: eager answers as the trace did (both kept), each core
    runs its side; the refused form (an else branch with work) is refused on eager too."""
    from test_mix_cpp import core_type_blocks
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 32)).astype(np.float16), rng.standard_normal((32, 32)).astype(np.float16)
    outs = {}
    for backend in ("sim", "eager"):
        c = np.zeros(2048, np.float32)
        asc.jit(core_type_blocks(), backend=backend)[1](a.ravel(), b.ravel(), np.zeros(1024, np.float32), c, 2)
        outs[backend] = c
    np.testing.assert_array_equal(outs["eager"], outs["sim"])
    np.testing.assert_allclose(outs["eager"].reshape(64, 32), a.astype(np.float32) @ b.astype(np.float32) + 1,
                               rtol=1e-5, atol=1e-4)
    with pytest.raises(asc.NotProvidedError, match="traced for the vector cores"):
        asc.jit(core_type_blocks(else_branch=True), backend="eager")[1](a.ravel(), b.ravel(),
                                                                          np.zeros(1024, np.float32),
                                                                          np.zeros(2048, np.float32), 2)
