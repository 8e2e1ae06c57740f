"""Two cores writing the same GM elements with nothing ordering them: a race, unless both wrote identical
bytes (pyasc's generalization/adv/test_matmul_iterate_all.py: in MIX mode clients n..2n-1 recompute blocks
0..n-1 via `block_idx % n`). Then the memory ends up the same whichever lands last, as on the NPU: an
AscTraceWarning at the second writer's line, not a RaceError. Different bytes, or another core reading
those bytes, stay RaceErrors."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import asc_trace as asc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import matmul_cube  # noqa: E402

HERE = Path(__file__).name
ND = asc.CubeFormat.ND
GM = asc.TPosition.GM


def tile_kernel(backend: str, row_per_core: bool, read_back: bool = False):
    """Every core writes C's tile 0 from A's rows 32 * block (`row_per_core`: the cores' bytes differ) or
    rows 0 (all equal); `read_back`: then each core also reads the tile back from C."""
    def same_tile(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, k: int):
        t = matmul_cube.Tiles(a, b, c)
        t.n = n
        row = 32 * asc.get_block_idx() if row_per_core else 0
        t.k_step(k, 0, 32, 32, 32, row, 0, True)
        asc.fixpipe(t.gc, t.c1, asc.FixpipeParamsV220(32, 32, 32, n, asc.QuantModes.F322F16))
        if read_back:
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
            asc.data_copy(t.a1, t.gc, asc.Nd2NzParams(1, 32, 32, 0, n, 32, 1, 0))
    return asc.jit(same_tile, backend=backend)


def _data():
    rng = np.random.default_rng(5)
    a = rng.standard_normal(64 * 64).astype(np.float16)
    b = rng.standard_normal(64 * 64).astype(np.float16)
    return a, b, np.zeros(64 * 64, np.float16)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_equal_bytes_from_two_cores_warn_and_run(backend):
    a, b, c = _data()
    with pytest.warns(asc.AscTraceWarning, match="identical bytes") as rec:
        tile_kernel(backend, row_per_core=False)[2](a, b, c, 64, 64, 64)
    assert any(Path(w.filename).name == HERE for w in rec)
    want = a.reshape(64, 64)[:32, :32].astype(np.float32) @ b.reshape(64, 64)[:32, :32].astype(np.float32)  # one K step
    np.testing.assert_allclose(c.reshape(64, 64)[:32, :32].astype(np.float32), want, rtol=4e-3, atol=4e-2)
    assert (c.reshape(64, 64)[32:] == 0).all()


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_different_bytes_from_two_cores_are_a_race(backend):
    a, b, c = _data()
    with pytest.raises(asc.RaceError, match="cores 0 and 1 both touch GM argument 'c'.*different bytes"):
        tile_kernel(backend, row_per_core=True)[2](a, b, c, 64, 64, 64)
    assert (c == 0).all()           # refused before anything is written back


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_reading_equal_bytes_another_core_wrote_is_a_race(backend):
    a, b, c = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", asc.AscTraceWarning)
        with pytest.raises(asc.RaceError, match="both touch GM argument 'c'"):
            tile_kernel(backend, row_per_core=False, read_back=True)[2](a, b, c, 64, 64, 64)


def pyasc_iterate_all_kernel(backend: str):
    """pyasc's test_matmul_iterate_all kernel: calc_offsets takes block_idx % (used_core_num // k blocks)."""
    def matmul_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                      workspace: asc.GlobalAddress):
        block_idx = asc.get_block_idx()
        temp0 = tiling.m.ceildiv(tiling.single_core_m)
        temp1 = tiling.k_a.ceildiv(tiling.single_core_k)
        temp2 = tiling.used_core_num // temp1
        m_index = (block_idx % temp2) % temp0
        n_index = (block_idx % temp2) // temp0
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a + m_index * tiling.k_a * tiling.single_core_m)
        gb.set_global_buffer(b + n_index * tiling.single_core_n)
        gc.set_global_buffer(c + m_index * tiling.n * tiling.single_core_m + n_index * tiling.single_core_n)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(GM, ND, asc.float32))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.iterate_all(gc)
        mm.end()
    return asc.jit(matmul_kernel, backend=backend)


@pytest.mark.parametrize("backend", ["sim", "eager", pytest.param("cpp", marks=pytest.mark.slow)])
def test_pyasc_iterate_all_launch_with_duplicate_clients(backend):
    """used_core_num = 4 blocks of C launched on 4 blocks = 8 MIX clients: clients 4..7 redo blocks 0..3."""
    m, n, k = 64, 64, 64
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), -9.0, np.float32)
    t = asc.adv.TCubeTiling(used_core_num=4, m=m, n=n, k_a=k, k_b=k, single_core_m=32, single_core_n=32,
                            single_core_k=k, base_m=32, base_n=32, base_k=32)
    with pytest.warns(asc.AscTraceWarning, match="identical bytes"):
        pyasc_iterate_all_kernel(backend)[4](a, b, c, t, np.zeros(64, np.uint8))
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-3)
