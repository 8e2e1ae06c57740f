"""A Python `if` / `elif` / `else` on a runtime value (issue 21, pyasc parity: pyasc's `scf.if`):
tail clamps, elif chains, `if` in runtime loops, vector ops on the sides, nested ifs, on every
backend against NumPy and to the byte between backends; the scheduler synchronises the sides (no
flags of the kernel's own); the C code has a real `if`; what is not supported is a clear TraceError."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured

HAVE_HEADERS = headers_if_configured() is not None
BACKENDS = ["sim", "eager", "cpp", pytest.param("cpu_debug", marks=pytest.mark.skipif(
    not HAVE_HEADERS, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))]
TILE = 64
F32 = asc.float32


@asc.jit
def calc_tail(n: int, single: int, blk):
    """pyasc's tutorial 03/04 pattern in an @asc.jit helper: clamp the tail."""
    tail = n - blk * single
    if tail >= single:
        tail = single
    return tail


@asc.jit
def tail_clamp(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Each core scales its TILE elements by 3; the last core only what is left of n."""
    blk = asc.get_block_idx()
    count = calc_tail(n, TILE, blk)
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * TILE, count)
    zg.set_global_buffer(z + blk * TILE, count)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, count)
    asc.muls(t, t, 3.0, count)
    asc.data_copy(zg, t, count)


@asc.jit
def elif_chain(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """Core k picks a factor by an elif chain on its index, and a float scalar merged after it."""
    blk = asc.get_block_idx()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * TILE, TILE)
    zg.set_global_buffer(z + blk * TILE, TILE)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, TILE)
    if blk == 0:
        f = 2.0
    elif blk == 1:
        f = 3.0
    elif blk < 4:
        scratch = blk * 2          # a name of one side only: fine while unused after the if
        f = 0.5 + 0.0 * scratch
    else:
        f = -1.0
    asc.muls(t, t, f, TILE)
    asc.data_copy(zg, t, TILE)


@asc.jit
def ops_on_sides(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, flip: int):
    """A runtime loop whose body branches on the tile index: vector ops differ per side, and a
    nested `if` on a parameter inside the `else` side."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, tiles * TILE)
    zg.set_global_buffer(z, tiles * TILE)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    for i in range(tiles):
        asc.data_copy(t, xg[i * TILE:], TILE)
        if i % 2 == 0:
            asc.adds(t, t, 1.0, TILE)
        else:
            asc.muls(t, t, 2.0, TILE)
            if flip > 0:
                asc.abs(t, t, TILE)
        asc.data_copy(zg[i * TILE:], t, TILE)


def _tail_want(x: np.ndarray, n: int) -> np.ndarray:
    z = np.zeros_like(x)
    z[:n] = x[:n] * np.float32(3.0)
    return z


def _elif_want(x: np.ndarray, cores: int) -> np.ndarray:
    f = [2.0, 3.0, 0.5, 0.5] + [-1.0] * max(0, cores - 4)
    return (x.reshape(cores, TILE) * np.array(f[:cores], np.float32)[:, None]).reshape(-1)


def _ops_want(x: np.ndarray, tiles: int, flip: int) -> np.ndarray:
    z = np.zeros_like(x)
    for i in range(tiles):
        s = x[i * TILE:(i + 1) * TILE]
        if i % 2 == 0:
            z[i * TILE:(i + 1) * TILE] = s + np.float32(1.0)
        else:
            v = s * np.float32(2.0)
            z[i * TILE:(i + 1) * TILE] = np.abs(v) if flip > 0 else v
    return z


def _vec(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [4 * TILE, 3 * TILE + 8])
def test_tail_clamp_in_a_helper(backend, n):
    x = _vec(4 * TILE)
    z = np.zeros_like(x)
    asc.jit(tail_clamp, backend=backend)[4](x, z, n)
    np.testing.assert_array_equal(z, _tail_want(x, n))


@pytest.mark.parametrize("backend", BACKENDS)
def test_elif_chain_merges_a_float(backend):
    x = _vec(6 * TILE, 1)
    z = np.zeros_like(x)
    asc.jit(elif_chain, backend=backend)[6](x, z)
    np.testing.assert_array_equal(z, _elif_want(x, 6))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tiles,flip", [(0, 0), (1, 1), (5, 0), (5, 1)])
def test_if_in_a_runtime_loop_with_vector_ops(backend, tiles, flip):
    x = _vec(5 * TILE, 2)
    z = np.zeros_like(x)
    asc.jit(ops_on_sides, backend=backend)[1](x, z, tiles, flip)
    np.testing.assert_array_equal(z, _ops_want(x, tiles, flip))


def test_the_backends_agree_to_the_byte():
    x = _vec(5 * TILE, 3)
    got = set()
    for backend in ("sim", "eager", "cpp"):
        z = np.zeros_like(x)
        asc.jit(ops_on_sides, backend=backend)[1](x, z, 5, 1)
        got.add(z.tobytes())
    assert len(got) == 1


def test_the_cpp_has_a_real_if_and_the_scheduler_syncs_the_sides():
    ck = asc.compile(ops_on_sides, (_vec(5 * TILE), np.zeros(5 * TILE, np.float32), 5, 1), core_num=1)
    src = ck.source
    assert "if ((asct_i0 % 2) == 0) {" in src and "if (flip > 0) {" in src
    assert "SetFlag<AscendC::HardEvent::V_MTE3>" in src      # the kernel has no flags of its own


def test_an_elif_chain_is_nested_ifs_with_a_merged_local():
    ck = asc.compile(elif_chain, (_vec(6 * TILE), np.zeros(6 * TILE, np.float32)), core_num=6)
    assert ck.source.count("if (asct_block_idx") == 3
    assert "asct_l2 = asct_l1;" in ck.source


def test_a_python_if_stays_python():
    """An `if` on a Python value records only its taken side (nothing new in the graph)."""
    @asc.jit
    def k(z: asc.GlobalAddress, mode: asc.ConstExpr[int]):
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z, TILE)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.duplicate(t, 1.0, TILE)
        if mode == 1:
            asc.muls(t, t, 5.0, TILE)
        else:
            asc.adds(t, t, 5.0, TILE)
        asc.data_copy(zg, t, TILE)
    z = np.zeros(TILE, np.float32)
    k[1](z, 1)
    assert (z == 5.0).all()
    k[1](z, 0)
    assert (z == 6.0).all()


def test_a_tensor_rebound_on_one_side_is_refused():
    @asc.jit
    def k(z: asc.GlobalAddress, n: int):
        a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        b = asc.LocalTensor(F32, asc.TPosition.VECIN, 4 * TILE, TILE)
        if n > 1:
            a = b
        asc.duplicate(a, 1.0, TILE)
    with pytest.raises(asc.TraceError, match="`a` is rebound to a LocalTensor on the `if` side"):
        k[1](np.zeros(TILE, np.float32), 3)


def test_kinds_must_agree():
    @asc.jit
    def k(z: asc.GlobalAddress, n: int):
        if n > 1:
            s = 1
        else:
            s = 0.5
        asc.duplicate(asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE), s, TILE)
    with pytest.raises(asc.TraceError, match="`s` is an int after the `if` side and a float"):
        k[1](np.zeros(TILE, np.float32), 3)


def test_a_name_of_one_side_used_after_is_refused():
    @asc.jit
    def k(z: asc.GlobalAddress, n: int):
        if n > 1:
            s = 2.0
        asc.duplicate(asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE), s * 1.0, TILE)
    with pytest.raises(asc.TraceError, match="`s` has no value after the runtime `if`"):
        k[1](np.zeros(TILE, np.float32), 3)


def test_return_inside_a_runtime_if_keeps_the_old_error():
    @asc.jit
    def k(z: asc.GlobalAddress, n: int):
        if n > 1:
            return
        asc.duplicate(asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE), 1.0, TILE)
    with pytest.raises(asc.TraceError, match="Python needs a True/False here"):
        k[1](np.zeros(TILE, np.float32), 3)


@asc.jit
def clamp_or(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, single: int):
    """pyasc's tutorial 04 pattern: `or` of runtime comparisons, and `not`, in `if` tests."""
    blk = asc.get_block_idx()
    tail = n - blk * single
    if tail <= 0 or tail >= single:
        tail = single
    scale = 1.0
    if not (blk % 2 == 0) and n > 0:
        scale = 2.0
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * single, tail)
    zg.set_global_buffer(z + blk * single, tail)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, tail)
    asc.muls(t, t, scale, tail)
    asc.data_copy(zg, t, tail)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [4 * TILE, 2 * TILE + 16])
def test_or_and_not_in_an_if_test(backend, n):
    """Core k copies min(TILE, n - k*TILE) elements, or TILE when nothing is left (the tutorial's
    clamp), times 2 on odd cores."""
    x = _vec(8 * TILE, 4)
    z = np.zeros_like(x)
    asc.jit(clamp_or, backend=backend)[4](x, z, n, TILE)
    want = np.zeros_like(x)
    for k in range(4):
        tail = n - k * TILE
        tail = TILE if tail <= 0 or tail >= TILE else tail
        want[k * TILE:k * TILE + tail] = x[k * TILE:k * TILE + tail] * np.float32(2.0 if k % 2 else 1.0)
    np.testing.assert_array_equal(z, want)


def test_and_or_keep_python_values_on_python_operands():
    """With Python operands the rewritten `and` / `or` are Python's (values, short circuit)."""
    from asc_trace.proxies import runtime_if as rif
    calls = []
    assert rif.or_(lambda: 0, lambda: calls.append(1) or "x") == "x"
    assert rif.and_(lambda: 0, lambda: calls.append(2)) == 0 and calls == [1]
    assert rif.not_([]) is True


def test_a_carried_name_rebound_in_an_if_in_a_runtime_loop_is_refused():
    """`s` is carried by the loop (read, then rebound in its body): refused as for any runtime loop."""
    @asc.jit
    def k(z: asc.GlobalAddress, n: int):
        s = 0
        for i in range(n):
            if i > 2:
                s = s + 1
        asc.duplicate(asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE), s * 1.0, TILE)
    with pytest.raises(asc.TraceError, match="`s`"):
        k[1](np.zeros(TILE, np.float32), 5)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_an_if_inside_an_if_with_copies_on_the_sides(backend):
    """Nested runtime ifs whose sides copy different halves (the scheduler syncs each path)."""
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, a: int, b: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, 2 * TILE)
        zg.set_global_buffer(z, 2 * TILE)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        if a > 0:
            if b > 0:
                asc.data_copy(t, xg[TILE:], TILE)
            else:
                asc.data_copy(t, xg, TILE)
                asc.adds(t, t, 10.0, TILE)
        else:
            asc.duplicate(t, -1.0, TILE)
        asc.data_copy(zg, t, TILE)
    x = _vec(2 * TILE, 5)
    for a, b, want in ((1, 1, x[TILE:]), (1, 0, x[:TILE] + np.float32(10.0)), (0, 1, np.full(TILE, -1.0, np.float32))):
        z = np.zeros_like(x)
        k_ = asc.jit(k, backend=backend)
        k_[1](x, z, a, b)
        np.testing.assert_array_equal(z[:TILE], want, err_msg=f"a={a} b={b}")


def test_only_the_taken_side_prints(capfd):
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        if n > 4:
            asc.printf("big %d\n", n)
        else:
            asc.printf("small %d\n", n)
    for backend in ("sim", "eager"):
        for n in (3, 5):
            asc.jit(k, backend=backend)[1](np.zeros(8, np.float32), n)
            out = capfd.readouterr().out
            assert ("big 5" in out) == (n == 5) and ("small 3" in out) == (n == 3), (backend, n, out)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_a_chained_comparison_in_an_if_test(backend):
    @asc.jit
    def k(z: asc.GlobalAddress, lo: int, hi: int):
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z, TILE)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        blk = asc.get_block_idx()
        v = 0.0
        if lo <= blk < hi:
            v = 1.0
        asc.duplicate(t, v, TILE)
        asc.data_copy(zg[blk * 8:], t, 8)
    z = np.zeros(TILE, np.float32)
    asc.jit(k, backend=backend)[4](z, 1, 3)
    np.testing.assert_array_equal(z[:32].reshape(4, 8)[:, 0], [0.0, 1.0, 1.0, 0.0])


def test_a_scalar_only_if_in_a_cube_kernel_with_auto_sync():
    """The tutorials' clamp in a flag-free cube kernel: the cube scheduler passes over a branch of
    scalar code only (examples/matmul_cube.py with `if` clamps instead of its smin)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    import matmul_cube as mc

    @asc.jit
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, kk_: int):
        t = mc.Tiles(a, b, c)
        t.n = n
        m_tiles = (m + mc.BASE_M - 1) // mc.BASE_M
        n_tiles = (n + mc.BASE_N - 1) // mc.BASE_N
        full_k = kk_ // mc.BASE_K
        tail_k = kk_ - full_k * mc.BASE_K
        for tile in range(asc.get_block_idx(), m_tiles * n_tiles, asc.get_block_num()):
            row = tile // n_tiles * mc.BASE_M
            col = tile % n_tiles * mc.BASE_N
            cur_m = m - row
            if cur_m > mc.BASE_M:
                cur_m = mc.BASE_M
            cur_n = n - col
            if cur_n >= mc.BASE_N or cur_n <= 0:
                cur_n = mc.BASE_N
            for kk in range(full_k):
                t.k_step(kk_, kk, cur_m, cur_n, mc.BASE_K, row, col, kk == 0)
            for _ in range((tail_k + mc.BASE_K - 1) // mc.BASE_K):
                t.k_step(kk_, full_k, cur_m, cur_n, tail_k, row, col, full_k == 0, zero_pad=True)
            asc.fixpipe(t.gc[row * n + col:], t.c1,
                        asc.FixpipeParamsV220(cur_n, cur_m, mc.up16(cur_m), n, asc.QuantModes.F322F16))

    rng = np.random.default_rng(0)
    m, n, kd = 300, 200, 150
    a = rng.standard_normal((m, kd)).astype(np.float16)
    b = rng.standard_normal((kd, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    k[4](a.ravel(), b.ravel(), c.ravel(), m, n, kd)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=4e-3, atol=4e-2)
