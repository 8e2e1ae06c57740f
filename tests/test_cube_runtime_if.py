"""Cube work inside a runtime `if` (issue #23): the cube scheduler fences the branch (PIPE_ALL barriers at
its entry and exit) and schedules each side as straight-line code. The simulator's race and flag checks
judge; results are compared with NumPy on cores that take the branch and cores that do not."""
import sys
from pathlib import Path

import numpy as np
import pytest

import asc_trace as asc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import matmul_cube as mc  # noqa: E402


def _tile(t, kk_, n, tile, n_tiles, m):
    """One output tile of examples/matmul_cube.py (K loop, K tail, Fixpipe)."""
    row = tile // n_tiles * mc.BASE_M
    col = tile % n_tiles * mc.BASE_N
    cur_m = mc.smin(m - row, mc.BASE_M)
    cur_n = mc.smin(n - col, mc.BASE_N)
    full_k = kk_ // mc.BASE_K
    tail_k = kk_ - full_k * mc.BASE_K
    for kk in asc.range(full_k):
        t.k_step(kk_, kk, cur_m, cur_n, mc.BASE_K, row, col, kk == 0)
    for _ in asc.range((tail_k + mc.BASE_K - 1) // mc.BASE_K):
        t.k_step(kk_, full_k, cur_m, cur_n, tail_k, row, col, full_k == 0, zero_pad=True)
    asc.fixpipe(t.gc[row * n + col:], t.c1, asc.FixpipeParamsV220(cur_n, cur_m, mc.up16(cur_m), n,
                                                                 asc.QuantModes.F322F16))


def top_level(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, kd: int,
              used: int):
    """The tutorials' shape: `if block_idx < used_core_num:` around all the cube work."""
    t = mc.Tiles(a, b, c)
    t.n = n
    m_tiles = (m + mc.BASE_M - 1) // mc.BASE_M
    n_tiles = (n + mc.BASE_N - 1) // mc.BASE_N
    if asc.get_block_idx() < used:
        for tile in range(asc.get_block_idx(), m_tiles * n_tiles, used):
            _tile(t, kd, n, tile, n_tiles, m)


def in_loop(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, kd: int,
            used: int):
    """A branch inside the tile loop, with cube work before it (a K step of a tile computed twice) and
    an else side holding cube work too; every core walks every tile slot, only some compute."""
    t = mc.Tiles(a, b, c)
    t.n = n
    m_tiles = (m + mc.BASE_M - 1) // mc.BASE_M
    n_tiles = (n + mc.BASE_N - 1) // mc.BASE_N
    for slot in range(0, m_tiles * n_tiles, 1):
        tile = slot
        if slot % asc.get_block_num() == asc.get_block_idx():
            _tile(t, kd, n, tile, n_tiles, m)
        else:       # cube work on a side that writes nothing to GM: L1 / L0 traffic only
            t.k_step(kd, 0, 16, 16, mc.BASE_K, 0, 0, True)


def in_k_loop(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, kd: int,
              used: int):
    """The branch in the innermost loop: a full K step or the zero-padded K tail, chosen per step."""
    t = mc.Tiles(a, b, c)
    t.n = n
    m_tiles = (m + mc.BASE_M - 1) // mc.BASE_M
    n_tiles = (n + mc.BASE_N - 1) // mc.BASE_N
    full_k = kd // mc.BASE_K
    for tile in range(asc.get_block_idx(), m_tiles * n_tiles, asc.get_block_num()):
        row = tile // n_tiles * mc.BASE_M
        col = tile % n_tiles * mc.BASE_N
        cur_m = mc.smin(m - row, mc.BASE_M)
        cur_n = mc.smin(n - col, mc.BASE_N)
        for kk in range((kd + mc.BASE_K - 1) // mc.BASE_K):
            if kk < full_k:
                t.k_step(kd, kk, cur_m, cur_n, mc.BASE_K, row, col, kk == 0)
            else:
                t.k_step(kd, kk, cur_m, cur_n, kd - full_k * mc.BASE_K, row, col, kk == 0, zero_pad=True)
        asc.fixpipe(t.gc[row * n + col:], t.c1, asc.FixpipeParamsV220(cur_n, cur_m, mc.up16(cur_m), n,
                                                                     asc.QuantModes.F322F16))


KERNELS = {"top_level": top_level, "in_loop": in_loop, "in_k_loop": in_k_loop}


def _run(kernel, backend, cores, used, m=300, n=200, kd=150, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, kd)).astype(np.float16)
    b = rng.standard_normal((kd, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    asc.jit(kernel, backend=backend)[cores](a.ravel(), b.ravel(), c.ravel(), m, n, kd, used)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    return c, want


@pytest.mark.parametrize("name", sorted(KERNELS))
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_cube_work_in_a_runtime_if_matches_numpy(name, backend):
    c, want = _run(KERNELS[name], backend, cores=4, used=3)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=4e-3, atol=4e-2)


@asc.jit(matmul_cube_only=True)
def adv_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
               tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """pyasc's tutorial 04 as written: Python `if`s clamp the tails, and the whole Matmul sits in
    `if get_block_idx() < used_core_num` (launched on more cores than that)."""
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_index = asc.get_block_idx() % m_blocks
    n_index = asc.get_block_idx() // m_blocks
    a_global, b_global = asc.GlobalTensor(), asc.GlobalTensor()
    c_global, bias_global = asc.GlobalTensor(), asc.GlobalTensor()
    a_global.set_global_buffer(a + m_index * tiling.k_a * tiling.single_core_m)
    b_global.set_global_buffer(b + n_index * tiling.single_core_n)
    c_global.set_global_buffer(c + m_index * tiling.n * tiling.single_core_m + n_index * tiling.single_core_n)
    bias_global.set_global_buffer(bias + n_index * tiling.single_core_n)
    tail_m = tiling.m - m_index * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - n_index * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    if asc.get_block_idx() < tiling.used_core_num:
        pipe = asc.TPipe()
        matmul = asc.adv.Matmul(
            a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype),
            bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bias_global.dtype),
        )
        asc.adv.register_matmul(pipe, workspace, matmul, tiling)
        matmul.set_tensor_a(a_global)
        matmul.set_tensor_b(b_global)
        matmul.set_bias(bias_global)
        matmul.set_tail(tail_m, tail_n, tiling.k_a)
        matmul.iterate_all(c_global)
        matmul.end()


def _run_adv(backend, extra_cores=2, m=200, n=300, k=120, seed=0):
    import matmul_adv
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 5, (m, k)).astype(np.float16)
    b = rng.integers(-5, 5, (k, n)).astype(np.float16)
    bv = rng.integers(-5, 5, (1, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tiling = matmul_adv.generate_tiling(m, n, k, 4, True)
    kernel = adv_matmul if backend == "sim" else adv_matmul.with_options(backend=backend)
    kernel[tiling.used_core_num + extra_cores](a, b, c, bv, tiling, np.zeros(1024, np.uint8))
    return c, a.astype(np.float32) @ b.astype(np.float32) + bv


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_adv_matmul_in_a_runtime_if_on_more_cores_than_used(backend):
    got, want = _run_adv(backend)
    np.testing.assert_array_equal(got, want)     # integer inputs: every sum exact in float32


def test_cpp_runs_the_fenced_branches_as_the_simulator_does():
    """The emitted Ascend C (PipeBarrier<PIPE_ALL> fences, flags inside each side) on the cpp backend:
    integer inputs, so the sim and cpp results agree to the bit, with NumPy too."""
    def integer_run(kernel, backend):
        rng = np.random.default_rng(1)
        m, n, kd = 300, 200, 150
        a = rng.integers(-4, 5, (m, kd)).astype(np.float16)
        b = rng.integers(-4, 5, (kd, n)).astype(np.float16)
        c = np.zeros((m, n), np.float16)
        asc.jit(kernel, backend=backend)[4](a.ravel(), b.ravel(), c.ravel(), m, n, kd, 3)
        return c, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    for kernel in KERNELS.values():
        sim, want = integer_run(kernel, "sim")
        cpp, _ = integer_run(kernel, "cpp")
        np.testing.assert_array_equal(cpp, sim)
        np.testing.assert_array_equal(sim, want)
    got, want = _run_adv("cpp")
    np.testing.assert_array_equal(got, want)


def test_the_fence_is_what_makes_the_branch_race_free(monkeypatch):
    """Without its PIPE_ALL fences (the flags inside each side kept), the simulator reports the race
    between a side's cube work and the cube work around the branch: the fences are needed, and judged."""
    from asc_trace.errors import RaceError
    from asc_trace.graph import cube_sync
    real = cube_sync._Cube.build

    def unfenced(self, edges):
        self.fences = []
        return real(self, edges)
    monkeypatch.setattr(cube_sync._Cube, "build", unfenced)
    with pytest.raises(RaceError, match="nothing orders"):
        _run(in_loop, "sim", cores=4, used=3)


def test_every_fenced_branch_gets_a_barrier_at_entry_and_exit_and_balanced_flags():
    for name, kernel in KERNELS.items():
        a = np.zeros(300 * 150, np.float16)
        dump = str(asc.compile(asc.jit(kernel), (a, a, a, 300, 200, 150, 3), core_num=4).graph)
        lines = dump.splitlines()
        fences = [i for i, line in enumerate(lines) if "pipe_barrier PIPE_ALL" in line and "fence" in line]
        ifs = [i for i, line in enumerate(lines) if " = if " in line]
        ends = [i for i, line in enumerate(lines) if " = end_if " in line]
        assert len(ifs) == len(ends) == 1 and fences == [ifs[0] - 1, ends[0] + 1], name
        # each side sets exactly what it waits (the side not taken leaves no flag behind)
        else_at = next(i for i, line in enumerate(lines) if " = else " in line)
        for side in (lines[ifs[0]:else_at], lines[else_at:ends[0]]):
            text = "\n".join(side)
            assert text.count("set_flag") == text.count("wait_flag"), name


# -- mixed kernels (examples/matmul_bias_gelu_mix.py): the cube side's branch fenced, the vector side's
#    scheduled by the vector scheduler, the cross-core flags inside the branch

def _mix_setup(a, b, ws, bias, c, n):
    import matmul_bias_gelu_mix as mx
    t = mc.Tiles(a, b, ws)
    t.n = n
    gbias, gc = asc.GlobalTensor(), asc.GlobalTensor()
    gbias.set_global_buffer(bias)
    gc.set_global_buffer(c)
    x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, mx.HALF * mc.BASE_N)
    y = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, mx.HALF * mc.BASE_N * 4, mx.HALF * mc.BASE_N)
    brow = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 2 * mx.HALF * mc.BASE_N * 4, mc.BASE_N)
    tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, (2 * mx.HALF + 1) * mc.BASE_N * 4, mx.GELU_TMP)
    return t, gbias, gc, (x, y, brow, tmp)


def _mix_tile(t, gbias, gc, bufs, tile, slot, m, n, k):
    """One tile of examples/matmul_bias_gelu_mix.py: the cube's K loop and Fixpipe into the workspace
    slot, then each vector core's half of the rows + bias, GELU, out to C."""
    import matmul_bias_gelu_mix as mx
    x, y, brow, tmp = bufs
    n_tiles = (n + mc.BASE_N - 1) // mc.BASE_N
    full_k = k // mc.BASE_K
    tail_k = k - full_k * mc.BASE_K
    row = tile // n_tiles * mc.BASE_M
    col = tile % n_tiles * mc.BASE_N
    cur_m = mc.smin(m - row, mc.BASE_M)
    cur_n = mc.smin(n - col, mc.BASE_N)
    for kk in asc.range(full_k):
        t.k_step(k, kk, cur_m, cur_n, mc.BASE_K, row, col, kk == 0)
    for _ in asc.range((tail_k + mc.BASE_K - 1) // mc.BASE_K):
        t.k_step(k, full_k, cur_m, cur_n, tail_k, row, col, full_k == 0, zero_pad=True)
    asc.fixpipe(t.gc[slot:], t.c1, asc.FixpipeParamsV220(cur_n, cur_m, mc.up16(cur_m), mc.BASE_N,
                                                          asc.QuantModes.NoQuant))
    r0 = asc.get_sub_block_idx() * mx.HALF
    rows = mx.smax0(mc.smin(cur_m - r0, mx.HALF))
    for _ in asc.range(mc.smin(rows, 1)):
        asc.data_copy(x, t.gc[slot + r0 * mc.BASE_N:], rows * mc.BASE_N)
        asc.data_copy_pad(brow, gbias[col:], asc.DataCopyExtParams(1, cur_n * 4, 0, 0, 0),
                          asc.DataCopyPadExtParams(False, 0, 0, 0))
        for r in asc.range(rows):
            asc.add(x[r * mc.BASE_N:], x[r * mc.BASE_N:], brow, mc.BASE_N)
        asc.adv.gelu(y, x, rows * mc.BASE_N, temp_buffer=tmp)
        gap = (mc.BASE_N * 4 - (cur_n * 4 + 31) // 32 * 32) // 32
        asc.data_copy_pad(gc[(row + r0) * n + col:], y, asc.DataCopyExtParams(rows, cur_n * 4, gap,
                                                                              (n - cur_n) * 4, 0))


def mix_top_level(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                  ws: asc.GlobalAddress, m: int, n: int, k: int, used: int):
    t, gbias, gc, bufs = _mix_setup(a, b, ws, bias, c, n)
    tiles = (m + mc.BASE_M - 1) // mc.BASE_M * ((n + mc.BASE_N - 1) // mc.BASE_N)
    ai_core = asc.get_block_idx() // asc.get_task_ratio()
    if ai_core < used:
        for tile in range(ai_core, tiles, used):
            _mix_tile(t, gbias, gc, bufs, tile, ai_core * 128 * 128, m, n, k)


def mix_in_loop(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                ws: asc.GlobalAddress, m: int, n: int, k: int, used: int):
    """Every AI core walks `used` more tile slots than there are tiles; the branch skips the extra ones."""
    t, gbias, gc, bufs = _mix_setup(a, b, ws, bias, c, n)
    tiles = (m + mc.BASE_M - 1) // mc.BASE_M * ((n + mc.BASE_N - 1) // mc.BASE_N)
    ai_core = asc.get_block_idx() // asc.get_task_ratio()
    for tile in range(ai_core, tiles + used, asc.get_block_num()):
        if tile < tiles:
            _mix_tile(t, gbias, gc, bufs, tile, ai_core * 128 * 128, m, n, k)


@pytest.mark.parametrize("backend", ["sim", "cpp"])
@pytest.mark.parametrize("kernel", [mix_top_level, mix_in_loop], ids=["top_level", "in_loop"])
def test_mixed_kernel_with_its_work_in_a_runtime_if(kernel, backend):
    import matmul_bias_gelu_mix as mx
    m, n, k, cores, used = 200, 150, 100, 3, 2
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(cores * mx.TILE, np.float32)
    asc.jit(kernel, backend=backend)[cores](a.ravel(), b.ravel(), bias, c.ravel(), ws, m, n, k, used)
    want = mx.gelu_ref(a.astype(np.float32) @ b.astype(np.float32) + bias)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)
