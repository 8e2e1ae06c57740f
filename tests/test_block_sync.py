"""asc.sync_all / asc.ib_set / asc.ib_wait: the vector cores of a launch ordered through GM (issue 21).

The sim backend runs such a launch's cores as threads taking turns at the barriers (runtime/block_sync_sim.py):
results against NumPy for several core counts, races across cores found where a barrier is missing and not
where one orders them, hangs reported at the call, misuse refused at the user's line, the other backends
refusing with their reason, and the emitted calls checked against the vendor's headers (test_header_check.py
via tests/block_sync_kernels.py suite())."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import DTypeError, NotProvidedError, OutOfBoundsError, RaceError, SyncError, TraceError
from block_sync_kernels import N, neighbour, neighbour_unsynced, prefix_chain, ring_flags, two_stage_sum

HERE = __file__.rsplit("/", 1)[-1]


def _x(cores: int, seed: int = 0) -> np.ndarray:
    # small integers: every sum is exact in float32, whatever order the reduction takes
    return np.random.default_rng(seed).integers(-8, 9, cores * N).astype(np.float32)


def _neighbour_ref(x: np.ndarray, cores: int) -> np.ndarray:
    y = 2 * x.reshape(cores, N)
    return (y + np.roll(y, -1, axis=0)).ravel()


BACKENDS = ["sim", "cpp"]      # eager and cpu_debug refuse (test_other_backends_refuse_with_the_reason)


def _on(kernel, backend: str):
    return asc.jit(kernel, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cores", [1, 2, 5, 8])
def test_hardware_barrier_orders_a_neighbour_exchange(cores, backend):
    x = _x(cores, cores)
    ws, z = np.zeros_like(x), np.zeros_like(x)
    _on(neighbour, backend)[cores](x, ws, z, N)
    np.testing.assert_array_equal(z, _neighbour_ref(x, cores))
    np.testing.assert_array_equal(ws, 2 * x)


@pytest.mark.parametrize("cores", [2, 3, 8])
def test_missing_barrier_is_a_race_at_the_read(cores):
    x = _x(cores)
    z = np.full_like(x, 7.0)
    with pytest.raises(RaceError) as e:
        neighbour_unsynced[cores](x, np.zeros_like(x), z, N)
    assert "block_sync_kernels.py" in str(e.value) and "sync_all" in str(e.value)
    assert (z == 7.0).all()        # a refused launch leaves the outputs as they were


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("soft", [False, True])
@pytest.mark.parametrize("cores,rounds", [(1, 1), (3, 2), (8, 3)])
def test_two_stage_reduction_across_cores(cores, rounds, soft, backend):
    x = _x(cores, 10 + cores)
    part, sync_ws = np.zeros(cores * 8, np.float32), np.zeros(cores * 8, np.int32)
    out = np.full(cores * 8, -1.0, np.float32)
    _on(two_stage_sum, backend)[cores](x, part, sync_ws, out, N, rounds, soft)
    got = out.reshape(cores, 8)
    np.testing.assert_array_equal(got[:, 0], np.full(cores, rounds * x.sum(), np.float32))
    np.testing.assert_array_equal(got[:, 1:], 0)
    # the software barrier's counters: two barriers per round on every core
    np.testing.assert_array_equal(sync_ws.reshape(cores, 8)[:, 0], 2 * rounds if soft else 0)


def test_software_barrier_counters_carry_over_to_the_next_launch():
    """The vendor counts on from the workspace's values: a second launch over the same workspace works."""
    cores = 4
    x = _x(cores)
    part, sync_ws, out = np.zeros(cores * 8, np.float32), np.zeros(cores * 8, np.int32), np.zeros(cores * 8, np.float32)
    two_stage_sum[cores](x, part, sync_ws, out, N, 1, True)
    two_stage_sum[cores](x, part, sync_ws, out, N, 2, True)
    assert (sync_ws.reshape(cores, 8)[:, 0] == 6).all()
    assert (out.reshape(cores, 8)[:, 0] == 2 * x.sum()).all()


@asc.jit
def _soft_barrier_only(sync_ws: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(sync_ws)
    asc.sync_all(g, asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 128))  # MARK-soft


def test_software_barrier_over_an_unzeroed_workspace_hangs_or_passes_early():
    """The counters are the caller's array, read as the vendor's loop reads them: a core whose counter is far
    ahead waits for a sum the others never reach (a hang); a core behind it passes before the others arrive,
    and what it then reads races the other cores' writes."""
    cores = 3
    sync_ws = np.zeros(cores * 8, np.int32)
    sync_ws[8] = 100
    with pytest.raises(SyncError) as e:
        _soft_barrier_only[cores](sync_ws)
    assert "core 1 waits at a software sync_all" in str(e.value) and "MARK-soft" in str(e.value)
    assert sync_ws[8] == 100 and sync_ws[0] == 0      # refused: the counters are restored
    sync_ws[8] = 5
    out = np.zeros(cores * 8, np.float32)
    with pytest.raises(RaceError) as e:
        two_stage_sum[cores](_x(cores), np.zeros(cores * 8, np.float32), sync_ws, out, N, 1, True)
    assert "race on GM argument 'part'" in str(e.value)
    assert sync_ws[8] == 5 and (out == 0).all()


@asc.jit
def _one_round_single_barrier(x: asc.GlobalAddress, part: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    """two_stage_sum's loop with only the first barrier: round r+1's write of `part` races round r's reads."""
    blk = asc.get_block_idx()
    nb = asc.get_block_num()
    xg, pg, og = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * n, n)
    pg.set_global_buffer(part)
    og.set_global_buffer(out + blk * 8, 8)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    s = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 8)
    tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192, n)
    allp = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 12288, 128)
    for r in range(2):
        asc.data_copy(a, xg, n)
        asc.duplicate(s, 0.0, 8)
        asc.reduce_sum(s, a, tmp, n)
        asc.data_copy(pg[blk * 8:], s, 8)  # MARK-rewrite
        asc.sync_all()
        asc.data_copy(allp, pg, nb * 8)
        asc.reduce_sum(s, allp, tmp, nb * 8)
        asc.data_copy(og, s, 8)


def test_barrier_orders_only_what_is_on_its_two_sides():
    """Write-after-read across loop trips: without a second barrier, a fast core's next partial sum may
    overwrite `part` before a slow core has read it."""
    cores = 2
    with pytest.raises(RaceError) as e:
        _one_round_single_barrier[cores](_x(cores), np.zeros(16, np.float32), np.zeros(16, np.float32), N)
    assert "MARK-rewrite" in str(e.value) or "data_copy(allp" in str(e.value)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cores", [1, 2, 6])
def test_ib_flags_order_a_ring(cores, backend):
    x = _x(cores, 3)
    flags = np.zeros(cores * 8, np.int32)
    z = np.zeros_like(x)
    _on(ring_flags, backend)[cores](x, np.zeros_like(x), flags, z, N)
    np.testing.assert_array_equal(z, _neighbour_ref(x, cores))
    assert (flags == 0).all()          # every flag raised was taken


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cores", [1, 2, 4, 7])
def test_ib_flags_pipeline_across_blocks(cores, backend):
    """A prefix sum handed from core to core: each waits for the previous one's flag."""
    x = _x(cores, 5)
    flags, z = np.zeros(cores * 16, np.int32), np.zeros_like(x)
    _on(prefix_chain, backend)[cores](x, flags, z, N)
    np.testing.assert_array_equal(z, np.cumsum(x.reshape(cores, N), axis=0).ravel())


def _u(n: int = 8):
    return asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 4096, n)


@asc.jit
def _barrier_on_core0_only(x: asc.GlobalAddress, z: asc.GlobalAddress):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z + asc.get_block_idx() * 8, 8)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 8)
    asc.duplicate(t, 1.0, 8)
    asc.cond(asc.get_block_idx() == 0, lambda: asc.sync_all(), lambda: None)  # MARK-lonely
    asc.data_copy(zg, t, 8)


@asc.jit
def _wait_for_nobody(flags: asc.GlobalAddress, z: asc.GlobalAddress):
    fg = asc.GlobalTensor()
    fg.set_global_buffer(flags)
    asc.ib_wait(fg, _u(), (asc.get_block_idx() + 1) % asc.get_block_num(), 0)  # MARK-wait


@asc.jit
def _set_twice(flags: asc.GlobalAddress, z: asc.GlobalAddress):
    fg = asc.GlobalTensor()
    fg.set_global_buffer(flags)
    u = _u()
    asc.ib_set(fg, u, asc.get_block_idx(), 0)
    asc.ib_set(fg, u, asc.get_block_idx(), 0)  # MARK-twice


@asc.jit
def _set_unwaited(flags: asc.GlobalAddress, z: asc.GlobalAddress):
    fg = asc.GlobalTensor()
    fg.set_global_buffer(flags)
    asc.ib_set(fg, _u(), asc.get_block_idx(), 0)  # MARK-left


def _line(fn, mark: str) -> str:
    import inspect
    src, first = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    return f"{HERE}:{first + next(i for i, l in enumerate(src) if mark in l)}"


@pytest.mark.parametrize("kernel,mark,words", [
    (_barrier_on_core0_only, "MARK-lonely", "ended the kernel after 0 sync_all"),
    (_wait_for_nobody, "MARK-wait", "is never set"),
    (_set_twice, "MARK-twice", "is never cleared"),
    (_set_unwaited, "MARK-left", "flag raised"),
])
@pytest.mark.parametrize("backend", BACKENDS)
def test_hangs_are_sync_errors_at_the_call(kernel, mark, words, backend):
    z = np.full(16, 3.0, np.float32)
    flags = np.zeros(16, np.int32)
    args = (np.zeros(16, np.float32), z) if kernel is _barrier_on_core0_only else (flags, z)
    with pytest.raises(SyncError) as e:
        _on(kernel, backend)[2](*args)
    msg = str(e.value)
    assert words in msg and mark in msg, msg
    assert (z == 3.0).all() and (flags == 0).all()


@asc.jit
def _misuse(ws: asc.GlobalAddress, what: asc.ConstExpr[str]):
    g = asc.GlobalTensor()
    g.set_global_buffer(ws)
    u = _u()
    f = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192, 64)
    if what == "one_workspace":
        asc.sync_all(g)
    elif what == "float_ub":
        asc.sync_all(g, f)
    elif what == "aic":
        asc.sync_all(is_aiv_only=False)
    elif what == "aic_positional":
        asc.sync_all(False)         # pyasc's first overload: sync_all(is_aiv_only)
    elif what == "core_out_of_range":
        asc.ib_set(g, u, asc.get_block_num(), 0)
    elif what == "small_ub":
        asc.sync_all(g, u)          # 8 words: room for one core's slot only
    elif what == "not_a_tensor":
        asc.ib_wait(g, 5, 0, 0)
    elif what == "used_cores_without_workspace":
        asc.sync_all(used_cores=2)


@pytest.mark.parametrize("what,err", [
    ("one_workspace", TraceError), ("float_ub", DTypeError), ("aic", NotProvidedError),
    ("aic_positional", NotProvidedError),
    ("core_out_of_range", OutOfBoundsError), ("small_ub", OutOfBoundsError), ("not_a_tensor", TraceError),
    ("used_cores_without_workspace", TraceError)])
def test_misuse_is_refused_at_the_users_line(what, err):
    ws = np.zeros(64, np.int32)
    with pytest.raises(err) as e:
        _misuse[2](ws, what)
    assert f"{HERE}:" in str(e.value)


@pytest.mark.parametrize("mark,words", [("MARK-lonely", "ended the kernel after 0 sync_all"),
                                        ("MARK-wait", "is never set"), ("MARK-twice", "is never cleared")])
def test_cpp_model_finds_the_hang_itself(mark, words, monkeypatch):
    """With the simulator's checks off (ASC_TRACE_SANITIZE=0) the cpp backend's C++ model, whose cores take the
    same turns, reports the hang at the same call."""
    monkeypatch.setenv("ASC_TRACE_SANITIZE", "0")
    kernel = {"MARK-lonely": _barrier_on_core0_only, "MARK-wait": _wait_for_nobody, "MARK-twice": _set_twice}[mark]
    z = np.full(16, 3.0, np.float32)
    args = (np.zeros(16, np.float32), z) if kernel is _barrier_on_core0_only else (np.zeros(16, np.int32), z)
    with pytest.raises(SyncError) as e:
        _on(kernel, "cpp")[2](*args)
    assert words in str(e.value) and mark in str(e.value), str(e.value)
    assert (z == 3.0).all()


@pytest.mark.parametrize("backend", ["eager", "cpu_debug"])
def test_other_backends_refuse_with_the_reason(backend):
    cores = 2
    x = _x(cores)
    z = np.zeros_like(x)
    with pytest.raises(NotProvidedError) as e:
        asc.jit(neighbour, backend=backend)[cores](x, np.zeros_like(x), z, N)
    assert "block_sync_kernels.py" in str(e.value) and "asc.sync_all" in str(e.value)
    assert (z == 0).all()


def test_profile_is_not_provided_yet():
    x = _x(2)
    with pytest.raises(NotProvidedError):
        asc.profile(neighbour, x, np.zeros_like(x), np.zeros_like(x), N, core_num=2)


def test_emission_uses_the_vendor_signatures():
    x = _x(2)
    src = asc.compile(two_stage_sum, (x, np.zeros(16, np.float32), np.zeros(16, np.int32), np.zeros(16, np.float32),
                                      N, 1, True), core_num=2).source
    assert "AscendC::SyncAll<true>(asct_t" in src and "static_cast<int32_t>(0));" in src
    src = asc.compile(neighbour, (x, x, x, N), core_num=2).source
    assert "AscendC::SyncAll<true>();" in src
    # the scheduler knows the call orders the core's pipes (its PipeBarrier<PIPE_ALL>): no flag pair around it
    # for the copy out before and the copy in after
    assert "MTE3_MTE2" not in src
    src = asc.compile(ring_flags, (x, x, np.zeros(16, np.int32), x, N), core_num=2).source
    assert "AscendC::IBSet<true>(" in src and "AscendC::IBWait<true>(" in src
    assert "AscendC::TPipe" in src         # IBSet / IBWait fetch their event ids from the TPipe (GetTPipePtr)


@asc.jit
def _atomic_then_read(x: asc.GlobalAddress, acc: asc.GlobalAddress, z: asc.GlobalAddress):
    blk = asc.get_block_idx()
    xg, ag, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * 8, 8)
    ag.set_global_buffer(acc, 8)
    zg.set_global_buffer(z + blk * 8, 8)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
    asc.data_copy(a, xg, 8)
    asc.set_atomic_add(asc.float32)
    asc.data_copy(ag, a, 8)
    asc.set_atomic_none()
    asc.sync_all()
    asc.data_copy(a, ag, 8)
    asc.data_copy(zg, a, 8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_atomic_adds_of_all_cores_then_a_barrier(backend):
    """The cores' atomic adds into one GM row commute (no race between them); the barrier orders them before
    every core reads the total."""
    cores = 5
    x = np.arange(cores * 8, dtype=np.float32)
    acc, z = np.zeros(8, np.float32), np.zeros(cores * 8, np.float32)
    _on(_atomic_then_read, backend)[cores](x, acc, z)
    np.testing.assert_array_equal(z, np.tile(x.reshape(cores, 8).sum(0), cores))
