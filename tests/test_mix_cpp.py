"""Mixed cube + vector kernels on the backends that run them in program order: the cpp backend (per AI core one
cube core and two vector cores as threads taking turns at cross-core waits, toolchain/include/asc_trace_mix.h)
and the same errors as the mixed simulator's, at the user's line."""
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

HERE = pathlib.Path(__file__).name
HALF = BASE_M // 2
TILE = BASE_M * BASE_N


def smax0(a):
    return a * (a > 0)


def matmul_bias_relu_mix(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                         ws: asc.GlobalAddress, m: int, n: int, k: int):
    """relu(A @ B + bias): the cube's fp32 tile through a GM workspace slot per AI core, each vector core adds
    the bias row to its half of the rows and applies ReLU (examples/matmul_bias_gelu_mix.py with asc.relu)."""
    t = Tiles(a, b, ws)
    t.n = n
    gbias, gc = asc.GlobalTensor(), asc.GlobalTensor()
    gbias.set_global_buffer(bias)
    gc.set_global_buffer(c)
    x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, HALF * BASE_N)
    y = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, HALF * BASE_N * 4, HALF * BASE_N)
    brow = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 2 * HALF * BASE_N * 4, BASE_N)
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
                                                              asc.QuantModes.NoQuant))
        r0 = asc.get_sub_block_idx() * HALF
        rows = smax0(smin(cur_m - r0, HALF))
        for _ in range(smin(rows, 1)):
            asc.data_copy(x, t.gc[slot + r0 * BASE_N:], rows * BASE_N)
            asc.data_copy_pad(brow, gbias[col:], asc.DataCopyExtParams(1, cur_n * 4, 0, 0, 0),
                              asc.DataCopyPadExtParams(False, 0, 0, 0))
            for r in range(rows):
                asc.add(x[r * BASE_N:], x[r * BASE_N:], brow, BASE_N)
            asc.relu(y, x, rows * BASE_N)
            gap = (BASE_N * 4 - (cur_n * 4 + 31) // 32 * 32) // 32
            asc.data_copy_pad(gc[(row + r0) * n + col:], y, asc.DataCopyExtParams(rows, cur_n * 4, gap,
                                                                                  (n - cur_n) * 4, 0))


def run_mix(backend: str, m: int, n: int, k: int, cores: int, integer: bool):
    rng = np.random.default_rng(m * 7 + n * 3 + k)
    if integer:
        a = rng.integers(-4, 5, (m, k)).astype(np.float16)
        b = rng.integers(-4, 5, (k, n)).astype(np.float16)
        bias = rng.integers(-20, 20, n).astype(np.float32)
    else:
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        bias = rng.standard_normal(n).astype(np.float32)
    c = np.full((m, n), -7.0, np.float32)
    ws = np.zeros(cores * TILE, np.float32)
    asc.jit(matmul_bias_relu_mix, backend=backend)[cores](a.ravel(), b.ravel(), bias, c.ravel(), ws, m, n, k)
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0)
    return c, want


@pytest.mark.parametrize("m,n,k,cores", [(200, 150, 100, 2), (40, 300, 30, 3), (16, 16, 16, 1)])
def test_cpp_runs_a_mixed_kernel_equal_to_sim(m, n, k, cores):
    sim, want = run_mix("sim", m, n, k, cores, integer=True)
    cpp, _ = run_mix("cpp", m, n, k, cores, integer=True)
    np.testing.assert_array_equal(cpp, sim)
    np.testing.assert_array_equal(cpp, want)
    sim, want = run_mix("sim", m, n, k, cores, integer=False)
    cpp, _ = run_mix("cpp", m, n, k, cores, integer=False)
    np.testing.assert_allclose(cpp, sim, rtol=1e-5, atol=1e-5)      # fp32 outputs: the K sums' order only
    np.testing.assert_allclose(cpp, want, rtol=1e-4, atol=1e-4)


def test_cpp_runs_hand_written_flags():
    got, want = _run(asc.jit(_mix_kernel(), backend="cpp"))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("sanitize", ["1", "0"])
@pytest.mark.parametrize("kw,error,match", [
    ({"wait_id": 3}, asc.SyncError, "never satisfied"),
    ({"extra_set": True}, asc.SyncError, "never waited for"),
    ({"sets": 16, "ack": False}, asc.SyncError, "holds 15 sets"),
])
def test_cpp_flag_errors_at_the_users_line(kw, error, match, sanitize, monkeypatch):
    """With the simulator's check (sanitize 1) and without it (0: the C++ model's own counters find them)."""
    monkeypatch.setenv("ASC_TRACE_SANITIZE", sanitize)
    with pytest.raises(error, match=match) as ei:
        _run(asc.jit(_mix_kernel(**kw), backend="cpp"), tiles=1 if "sets" in kw else 3)
    assert "test_mix.py:" in str(ei.value)


def test_cpp_reports_the_workspace_race_and_leaves_outputs_unchanged():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    c = np.full((64, 32), 7.0, np.float32)
    with pytest.raises(asc.RaceError, match="GM argument 'ws'"):
        asc.jit(_mix_kernel(ack=False), backend="cpp")[1](a.ravel(), a[:32].ravel(), np.zeros(1024, np.float32),
                                                          c.ravel(), 2)
    assert (c == 7.0).all()


# `if asc.ascend_is_aic():` / `if asc.ascend_is_aiv():` blocks in a mixed kernel, as pyasc's mixed tutorials write it
def core_type_blocks(else_branch=False, wrong=False):
    @asc.jit
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress, c: asc.GlobalAddress, tiles: int):
        ga, gb, gws, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        gws.set_global_buffer(ws)
        gc.set_global_buffer(c)
        for t in range(tiles):
            if asc.ascend_is_aic():
                a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 32 * 32)
                b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 4096, 32 * 32)
                a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 32 * 32)
                b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 32 * 32)
                c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 32 * 32)
                asc.data_copy(a1, ga[t * 1024:], asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
                asc.data_copy(b1, gb, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
                for i in asc.static_range(2):
                    asc.load_data(a2[i * 512:], a1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, False, 0))
                    asc.load_data(b2[i * 512:], b1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, True, 0))
                asc.mmad(c1, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False,
                                                    cmatrix_init_val=True))
                asc.fixpipe(gws, c1, asc.FixpipeParamsV220(32, 32, 32, 32, asc.QuantModes.NoQuant))
                if wrong:
                    x0 = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, 16 * 32)
                    asc.duplicate(x0, 0.0, 16 * 32)
            elif else_branch:
                x0 = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, 16 * 32)
                asc.duplicate(x0, 0.0, 16 * 32)
            if asc.ascend_is_aiv():
                x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 16 * 32)
                half = asc.get_sub_block_idx() * 16 * 32
                asc.data_copy(x, gws[half:], 16 * 32)
                asc.adds(x, x, 1.0, 16 * 32)
                asc.data_copy(gc[t * 1024 + half:], x, 16 * 32)
    return k


@pytest.mark.parametrize("backend", ["sim", "cpp"])
def test_core_type_blocks_are_traced_once_per_core_type(backend):
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, 2048).astype(np.float16)
    b = rng.integers(-3, 4, 1024).astype(np.float16)
    want = np.concatenate([(a[i * 1024:(i + 1) * 1024].reshape(32, 32).astype(np.float32)
                            @ b.reshape(32, 32)).ravel() for i in range(2)]) + 1
    o = np.zeros(2048, np.float32)
    asc.jit(core_type_blocks(), backend=backend)[1](a, b, np.zeros(1024, np.float32), o, 2)
    np.testing.assert_array_equal(o, want)


@pytest.mark.parametrize("kw", [{"else_branch": True}, {"wrong": True}])
@pytest.mark.parametrize("backend", ["sim", "cpp"])
def test_an_else_branch_or_the_other_cores_work_in_a_core_type_block_is_refused(kw, backend):
    o = np.zeros(2048, np.float32)
    with pytest.raises(asc.NotProvidedError, match="traced for the vector cores alone") as e:
        asc.jit(core_type_blocks(**kw), backend=backend)[1](np.zeros(2048, np.float16), np.zeros(1024, np.float16),
                                                            np.zeros(1024, np.float32), o, 2)
    assert e.value.loc.file.endswith("test_mix_cpp.py")
    assert not o.any()


def test_eager_runs_a_mixed_kernel_as_cpp_and_sim_do():
    """(Refused until runtime/mix_eager.py; tests/test_mix_eager.py tests it further.)"""
    sim, want = run_mix("sim", 40, 40, 30, 1, integer=True)
    eager, _ = run_mix("eager", 40, 40, 30, 1, integer=True)
    np.testing.assert_array_equal(eager, sim)
    np.testing.assert_array_equal(eager, want)
