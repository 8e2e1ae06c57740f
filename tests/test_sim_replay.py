"""The warm launch (runtime/replay.py, runtime/args.py `ArgBinder`): a launch key that passed its checks
runs again as the batched loops it recorded. Only the time may change: the same bytes as the slow path
(program order, iteration by iteration, and the full pipe model), and every error still raised on a warm
kernel: bounds, races, bad arguments, a changed global."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from lane import examples

import asc_trace as asc
from asc_trace.runtime import batch, get_runtime, replay
from helpers import rand
from test_schedule_props import _data, make_kernel, programs

F32 = asc.float32
VECIN = asc.TPosition.VECIN
HE = asc.HardEvent


def _gm(addr, n=None):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, n)
    return g


def _replays(kernel, args) -> dict:
    """The replays the sim artifact of `kernel` compiled for `args` holds, by launch key."""
    ck = kernel.compiled(kernel._bind(tuple(args), {}, None).signature)
    return ck.artifact(get_runtime("sim")).replays


def _slow(kernel, args, cores: int) -> None:
    """The launch with neither a replay nor a batch: program order, iteration by iteration."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batch.LoopBatch, "plan", lambda self, m, v, b: (_ for _ in ()).throw(batch.NotBatchable))
        mp.setattr(replay.Recorder, "replay", lambda self: None)
        asc.jit(kernel, always_compile=True)[cores](*args)


def _piped(kernel, args, cores: int) -> None:
    """The launch through the full pipe model with its data effects (the path before any fast path)."""
    from asc_trace.runtime.base import LaunchJob
    from asc_trace.runtime.platform import platform
    from asc_trace.runtime.sim import SimArtifact, simulate
    k = asc.jit(kernel, always_compile=True)
    bound = k._bind(tuple(args), {}, None)
    ck = k.compiled(bound.signature)
    simulate(SimArtifact(ck.graph), LaunchJob(k.name, k.fn, ck.graph, bound, cores, None, None, k.options),
             platform(None), True, False, timing=False)


def test_the_seed_vadd_replays_with_the_bytes_of_every_slower_path():
    import vadd
    k = vadd.vadd_kernel
    x, y = rand(8 * 2048, np.float32, 1), rand(8 * 2048, np.float32, 2)
    z = np.zeros_like(x)
    k[8](x, y, z, 2048)                       # the check, then the recorded run
    assert any(r is not None for r in _replays(k, (x, y, z, 2048)).values())
    for seed in (3, 4):                       # new arrays of the same key: the replay, on their memory
        x2, y2 = rand(8 * 2048, np.float32, seed), rand(8 * 2048, np.float32, seed + 10)
        z2, z_slow, z_piped = (np.full_like(x2, 7.0) for _ in range(3))
        k[8](x2, y2, z2, 2048)
        _slow(k, (x2, y2, z_slow, 2048), 8)
        _piped(k, (x2, y2, z_piped, 2048), 8)
        assert z2.tobytes() == z_slow.tobytes() == z_piped.tobytes() == (x2 + y2).tobytes()


@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prog=programs())
def test_a_replayed_launch_gives_the_bytes_of_program_order(prog):
    k = make_kernel(prog)
    x, z = _data(prog)
    z_ref = z.copy()
    k[1](x, z.copy())                         # checked and recorded
    k[1](x, z)                                # replayed when it could be recorded
    _slow(k, (x, z_ref), 1)
    assert z.tobytes() == z_ref.tobytes()


@asc.jit
def two_loops(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """The second loop reads what the first left in the UB (and bytes nothing wrote: the poison)."""
    xg, zg = _gm(x), _gm(z)
    a = asc.LocalTensor(F32, VECIN, 0, 64)
    b = asc.LocalTensor(F32, VECIN, 256, 64)
    never = asc.LocalTensor(F32, VECIN, 512, 64)
    for i in range(n):
        asc.data_copy(a, xg[i * 64:], 64)
        asc.muls(a, a, 2.0, 64)
    for i in range(n):
        asc.data_copy(b, xg[i * 64:], 64)
        asc.add(b, b, a, 64)
        asc.data_copy(zg[i * 64:], b, 64)
    for i in range(2):
        asc.data_copy(zg[(n + i) * 64:], never, 64)


def test_a_loop_reading_another_loops_ub_bytes_replays_them():
    x = rand(64 * 4, np.float32, 5)
    for _ in range(3):
        z = np.zeros(64 * 6, np.float32)
        two_loops[1](x, z, 4)
        z_ref = np.zeros_like(z)
        _slow(two_loops, (x, z_ref, 4), 1)
        assert z.tobytes() == z_ref.tobytes()
    rep = [r for r in _replays(two_loops, (x, z, 4)).values() if r is not None]
    assert rep and rep[0].uses_ub
    np.testing.assert_array_equal(z[:256].reshape(4, 64), x.reshape(4, 64) + 2 * x[192:256])
    assert z[256:].view(np.uint8).tolist() == [0xFF] * 512           # the poison, as the slow path reads it


@asc.jit
def loaded_first(x: asc.GlobalAddress, w: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """A copy before the loop: a data effect outside a batch, on the tape as its own entry."""
    xg, wg, zg = _gm(x), _gm(w), _gm(z)
    wt = asc.LocalTensor(F32, VECIN, 0, 64)
    t = asc.LocalTensor(F32, VECIN, 256, 64)
    asc.data_copy(wt, wg, 64)
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.mul(t, t, wt, 64)
        asc.data_copy(zg[i * 64:], t, 64)


def test_a_launch_with_work_outside_its_loops_replays_it():
    x, w = rand(64 * 3, np.float32, 6), rand(64, np.float32, 7)
    for seed in (8, 9, 10):                   # new weights each time: the tape reads the new array
        w = rand(64, np.float32, seed)
        z = np.zeros_like(x)
        loaded_first[1](x, w, z, 3)
        np.testing.assert_array_equal(z, x * np.tile(w, 3))
    (rep,) = _replays(loaded_first, (x, w, z, 3)).values()
    assert rep is not None and len(rep.entries) == 2      # the copy of w, then the batched loop


def test_a_warm_kernel_still_refuses_out_of_bounds_and_leaves_the_outputs():
    import vadd
    k = vadd.vadd_kernel
    x, y, z = rand(8 * 2048, np.float32, 1), rand(8 * 2048, np.float32, 2), np.zeros(8 * 2048, np.float32)
    for _ in range(3):
        k[8](x, y, z, 2048)
    z[:] = 5.0
    with pytest.raises(asc.OutOfBoundsError):
        k[8](x, y, z, 4096)                   # another block length: another key, checked, refused
    assert np.all(z == 5.0)
    with pytest.raises(asc.OutOfBoundsError):
        k[16](x, y, z, 2048)                  # more cores than the arrays hold
    assert np.all(z == 5.0)
    k[8](x, y, z, 2048)                       # the warm key is still good
    np.testing.assert_array_equal(z, x + y)


def test_a_warm_kernel_still_refuses_bad_arguments():
    import vadd
    k = vadd.vadd_kernel
    x, y, z = rand(8 * 2048, np.float32, 1), rand(8 * 2048, np.float32, 2), np.zeros(8 * 2048, np.float32)
    k[8](x, y, z, 2048)
    k[8](x, y, z, 2048)
    with pytest.raises(asc.LaunchError, match="not C-contiguous"):
        k[8](x, y, np.zeros(2 * 8 * 2048, np.float32)[::2], 2048)
    ro = z.copy()
    ro.flags.writeable = False
    with pytest.raises(asc.LaunchError, match="read-only"):
        k[8](x, y, ro, 2048)
    with pytest.raises(asc.LaunchError, match="declared int"):
        k[8](x, y, z, 2048.0)
    with pytest.raises(asc.LaunchError, match="argument"):
        k[8](x, y, z)
    with pytest.raises(asc.LaunchError, match="must be a NumPy array"):
        k[8](x, y, [0.0] * 16, 2048)
    with pytest.raises(asc.LaunchError):
        k[8](x, y, z, 2 ** 70)
    z16 = np.zeros(8 * 2048, np.float16)      # another dtype: another signature, traced for it
    with pytest.raises(asc.AscTraceError):
        k[8](x, y, z16, 2048)
    x16, y16 = x.astype(np.float16), y.astype(np.float16)
    for _ in range(2):                        # all float16: checked, recorded, then replayed
        k[8](x16, y16, z16, 2048)
        assert z16.tobytes() == (x16 + y16).tobytes()
    k[8](x, y, z, 2048)                       # and the float32 replay is still the float32 one
    np.testing.assert_array_equal(z, x + y)


def test_a_warm_kernel_still_finds_a_race_that_another_value_makes():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, d: int, n: int):
        xg, zg = _gm(x), _gm(z)
        a = asc.LocalTensor(F32, VECIN, 0, 128)
        for i in range(n):
            asc.data_copy(a, xg, 64)
            asc.data_copy(a[d:], xg[64:], 64)       # overlaps the first copy unless d >= 64
            asc.set_flag(HE.MTE2_MTE3, 0)
            asc.wait_flag(HE.MTE2_MTE3, 0)
            asc.data_copy(zg[i * 128:], a, 128)
            asc.set_flag(HE.MTE3_MTE2, 0)
            asc.wait_flag(HE.MTE3_MTE2, 0)

    x, z = rand(128, np.float32, 8), np.zeros(128 * 2, np.float32)
    for _ in range(3):
        k[1](x, z, 64, 2)
        np.testing.assert_array_equal(z, np.tile(x, 2))
    with pytest.raises(asc.RaceError, match="MTE2 pipe hazard"):
        k[1](x, z, 32, 2)
    k[1](x, z, 64, 2)


COEF = 2.0


@asc.jit
def scaled_by_global(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, COEF, 64)
        asc.data_copy(zg[i * 64:], t, 64)


def test_a_warm_kernel_sees_a_changed_global():
    global COEF
    x, z = rand(64 * 4, np.float32, 9), np.zeros(64 * 4, np.float32)
    scaled_by_global[1](x, z, 4)
    scaled_by_global[1](x, z, 4)
    np.testing.assert_array_equal(z, x * np.float32(2.0))
    COEF = 3.0
    try:
        scaled_by_global[1](x, z, 4)
        np.testing.assert_array_equal(z, x * np.float32(3.0))
    finally:
        COEF = 2.0


def test_aliased_arguments_after_a_replay_run_in_program_order():
    import vadd
    k = vadd.vadd_kernel
    x, y = rand(8 * 2048, np.float32, 6), rand(8 * 2048, np.float32, 7)
    z = np.zeros_like(x)
    k[8](x, y, z, 2048)
    k[8](x, y, z, 2048)
    want = x + y
    k[8](x, y, x, 2048)                       # z is x: another key (aliased), not the replay
    np.testing.assert_array_equal(x, want)


def test_an_empty_kernel_replays_as_nothing():
    @asc.jit
    def empty(x: asc.GlobalAddress):
        pass

    x = np.zeros(8, np.float32)
    for _ in range(3):
        empty[8](x)
    (rep,) = _replays(empty, (x,)).values()
    assert rep is not None and rep.empty and rep.entries == [] and not rep.uses_ub


def test_constants_bind_by_value_and_type():
    @asc.jit
    def k(z: asc.GlobalAddress, c: asc.ConstExpr[float]):
        t = asc.LocalTensor(F32, VECIN, 0, 8)
        asc.duplicate(t, c, 8)
        asc.data_copy(_gm(z), t, 8)

    z = np.zeros(8, np.float32)
    for c in (1.0, 1, 1.5, 1.0, 1.5):
        k[1](z, c)
        np.testing.assert_array_equal(z, np.full(8, c, np.float32))
    assert sorted(str(ck.signature) for _, ck in k._cache.values()) == [
        "(z: gm f32*, c: const = 1)", "(z: gm f32*, c: const = 1.0)", "(z: gm f32*, c: const = 1.5)"]


def _fused(kernel) -> list:
    """The fused (element-wise -> store) pairs of every plan the kernel's artifacts made."""
    import gc
    arts = [o for o in gc.get_objects() if type(o).__name__ == "SimArtifact" and o.graph.name == kernel.name]
    return [p.fused for a in arts if a._fast is not None for lb in a._fast.batches.values() if lb
            for p in lb.plans.values() if p is not None]


def test_an_add_computed_into_its_store_keeps_the_first_operands_nan():
    import vadd
    k = vadd.vadd_kernel
    x, y = rand(8 * 2048, np.float32, 1), rand(8 * 2048, np.float32, 2)
    bits_x, bits_y = x.view(np.uint32), y.view(np.uint32)
    bits_x[::7] = 0x7F800001          # signalling NaNs with payloads: the result is x's, quieted
    bits_y[::5] = 0x7FC00ABC
    for _ in range(2):
        z = np.zeros_like(x)
        k[8](x, y, z, 2048)
    z_ref = np.zeros_like(x)
    _slow(k, (x, y, z_ref, 2048), 8)
    assert z.tobytes() == z_ref.tobytes()
    assert z.view(np.uint32)[0] == 0x7FC00001 and z.view(np.uint32)[35] == 0x7FC00001
    assert any(f for f in _fused(k))


@asc.jit
def sum_then_reuse(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, w: asc.GlobalAddress,
                   n: int):
    """The loop's add goes straight to z; after the loop its UB result (the last tile) is copied to w."""
    xg, yg, zg, wg = _gm(x), _gm(y), _gm(z), _gm(w)
    a = asc.LocalTensor(F32, VECIN, 0, 64)
    b = asc.LocalTensor(F32, VECIN, 256, 64)
    c = asc.LocalTensor(F32, VECIN, 512, 64)
    for i in range(n):
        asc.data_copy(a, xg[i * 64:], 64)
        asc.data_copy(b, yg[i * 64:], 64)
        asc.add(c, a, b, 64)
        asc.data_copy(zg[i * 64:], c, 64)
    asc.data_copy(wg, c, 64)


def test_a_result_computed_into_gm_is_left_in_the_ub_too():
    x, y = rand(64 * 5, np.float32, 3), rand(64 * 5, np.float32, 4)
    for _ in range(2):
        z, w = np.zeros_like(x), np.zeros(64, np.float32)
        sum_then_reuse[1](x, y, z, w, 5)
        np.testing.assert_array_equal(z, x + y)
        np.testing.assert_array_equal(w, (x + y)[-64:])
    assert any(f for f in _fused(sum_then_reuse))


def test_into_fixes_the_nan_as_the_op_does():
    """`first_nan(fn).into` writes what `first_nan(fn)` returns, even for a ufunc that picks the second
    operand's NaN (here: the operands swapped)."""
    from asc_trace.graph.scalar_ops import first_nan
    op = first_nan(lambda a, b, out=None: np.add(b, a, out=out))
    a = np.array([0x7F800001, 0x3F800000, 0x7FC00002], np.uint32).view(np.float32)
    b = np.array([0x7FC00ABC, 0x7FC00ABC, 0x3F800000], np.uint32).view(np.float32)
    out = np.zeros(3, np.float32)
    with np.errstate(invalid="ignore"):
        op.into(a, b, out)
        assert out.tobytes() == op(a, b).tobytes()
    assert out.view(np.uint32).tolist() == [0x7FC00001, 0x7FC00ABC, 0x7FC00002]


def _artifact(kernel, args):
    ck = kernel.compiled(kernel._bind(tuple(args), {}, None).signature)
    return ck.artifact(get_runtime("sim"))


def test_values_read_from_the_ub_that_only_feed_values_are_checked_once():
    from softmax_rows import reference, softmax_rows
    k = asc.jit(softmax_rows, backend="sim")
    for seed in (1, 2, 3):                     # other data each time: the row maxima and sums change
        x = (3 * np.random.default_rng(seed).standard_normal((4 * 2, 4 * 256))).astype(np.float32)
        z = np.zeros_like(x)
        k[4](x, z, 2, 4)
        np.testing.assert_allclose(z, reference(x), rtol=1e-5, atol=1e-7)
    art = _artifact(k, (x, z, 2, 4))
    assert not art.data_dependent and len(art.checked) == 1


@asc.jit
def divide_by_read(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """An integer division by a value read from the UB: it fails for some data only."""
    I32 = asc.int32
    t = asc.LocalTensor(I32, VECIN, 0, 8)
    u = asc.LocalTensor(I32, VECIN, 256, 8)
    asc.data_copy(t, _gm(x), 8)
    asc.adds(u, t, 100 // t.get_value(0), 8)
    asc.data_copy(_gm(z), u, 8)


def test_a_value_read_from_the_ub_that_can_fail_is_checked_at_every_launch():
    x, z = np.full(8, 5, np.int32), np.zeros(8, np.int32)
    for _ in range(2):
        divide_by_read[1](x, z)
        np.testing.assert_array_equal(z, x + 20)
    assert _artifact(divide_by_read, (x, z)).data_dependent
    x[0] = 0
    z[:] = -1
    with pytest.raises(asc.ScalarError):
        divide_by_read[1](x, z)
    assert np.all(z == -1)


@asc.jit
def running_max(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    """An accumulator over a multi-buffered tile (max keeps NaN and -0.0 < +0.0), then stored."""
    xg, zg = _gm(x), _gm(z)
    acc = asc.LocalTensor(F32, VECIN, 1024, 64)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    asc.duplicate(acc, -3.0e38, 64)
    for i in range(tiles):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.max(acc, acc, t, 64)
    asc.data_copy(zg, acc, 64)


@pytest.mark.parametrize("chunk_bytes", [1 << 20, 512])
def test_an_accumulator_runs_in_order_across_chunks(monkeypatch, chunk_bytes):
    monkeypatch.setattr(batch, "CHUNK_BYTES", chunk_bytes)
    x = rand(64 * 9, np.float32, 11)
    x[5] = np.nan
    x[7::64] = -0.0
    x[64 * 4 + 7] = 0.0                 # max(-0.0, +0.0) is +0.0 whatever the order
    z, z_ref = np.zeros(64, np.float32), np.zeros(64, np.float32)
    k = asc.jit(running_max, always_compile=True)
    k[1](x, z, 9)
    _slow(running_max, (x, z_ref, 9), 1)
    assert z.tobytes() == z_ref.tobytes()
    assert np.isnan(z[5]) and z.view(np.uint32)[7] == 0
    plans = [p for p in _fused_plans(k) if p.carried]      # (an earlier case's artifact may still be alive)
    assert plans and (chunk_bytes > 512 or min(p.chunk for p in plans) < 9)


def _fused_plans(kernel) -> list:
    import gc
    arts = [o for o in gc.get_objects() if type(o).__name__ == "SimArtifact" and o.graph.name == kernel.name]
    return [p for a in arts if a._fast is not None for lb in a._fast.batches.values() if lb
            for p in lb.plans.values() if p is not None]


SCALES = [2.0]


@asc.jit
def scaled_by_list(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    asc.data_copy(t, xg, 64)
    asc.muls(t, t, SCALES[0], 64)
    asc.data_copy(zg, t, 64)


@asc.jit
def scaled_by_coef(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Reads only numbers, a dtype, an enum and the asc module: its fingerprint is reused while they stay."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, COEF, 64)
        asc.data_copy(zg[i * 64:], t, 64)


def test_a_warm_kernel_sees_a_global_changed_in_place_and_a_rebinding():
    from asc_trace.fingerprint import _SNAPSHOTS
    global COEF
    x, z = rand(64, np.float32, 12), np.zeros(64, np.float32)
    for _ in range(2):
        scaled_by_list[1](x, z)
    assert scaled_by_list.fn not in _SNAPSHOTS            # a list: fingerprinted in full at every launch
    SCALES[0] = 5.0
    try:
        scaled_by_list[1](x, z)
        np.testing.assert_array_equal(z, x * np.float32(5.0))
    finally:
        SCALES[0] = 2.0
    z4 = np.zeros(64 * 4, np.float32)
    x4 = rand(64 * 4, np.float32, 13)
    scaled_by_coef[1](x4, z4, 4)
    assert scaled_by_coef.fn in _SNAPSHOTS                # numbers, a dtype, an enum, the asc module
    COEF = float("nan")
    try:
        scaled_by_coef[1](x4, z4, 4)
        assert np.isnan(z4).all()
    finally:
        COEF = 2.0
    scaled_by_coef[1](x4, z4, 4)
    np.testing.assert_array_equal(z4, x4 * np.float32(2.0))


@pytest.mark.parametrize("per_core,tile", [(256, 256), (1024, 256)])
def test_the_flag_free_vadd_replays_one_iteration_and_several(per_core, tile):
    """auto_sync's double buffering and events, a loop of one iteration (batched only to be replayed)."""
    from vadd_noflags import vadd_noflags
    k = vadd_noflags
    for seed in (1, 2, 3):
        x, y = rand(8 * per_core, np.float32, seed), rand(8 * per_core, np.float32, seed + 5)
        z, z_ref = np.zeros_like(x), np.zeros_like(x)
        k[8](x, y, z, per_core, tile)
        _slow(k, (x, y, z_ref, per_core, tile), 8)
        assert z.tobytes() == z_ref.tobytes() == (x + y).tobytes()
    reps = [r for r in _replays(k, (x, y, z, per_core, tile)).values() if r is not None]
    assert any(r.loop_counts == [per_core // tile] for r in reps)


def test_softmax_rows_replays_its_row_values_with_the_bytes_of_program_order():
    """get_value feeds the row's max and sum into later ops' scalars: the tape binds them again."""
    from softmax_rows import reference, softmax_rows
    for rows in (1, 3):
        for seed in (1, 2, 3):
            x = (3 * rand(8 * rows * 512, np.float32, seed)).reshape(8 * rows, 512)
            if seed == 3:                                   # NaN payloads ride through the replay too
                x.view(np.uint32)[0, 5] = 0x7FC00123
                x.view(np.uint32)[-1, 7] = 0xFFA00001
            z, z_ref = np.zeros_like(x), np.zeros_like(x)
            softmax_rows[8](x, z, rows, 2)
            _slow(softmax_rows, (x, z_ref, rows, 2), 8)
            assert z.tobytes() == z_ref.tobytes()
            if seed != 3:
                np.testing.assert_allclose(z, reference(x), rtol=1e-5, atol=1e-7)
        assert all(r is not None for r in _replays(softmax_rows, (x, z, rows, 2)).values())


@asc.jit
def poison_outside(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """A store of UB bytes nothing wrote (the poison), then a load and a store over them."""
    xg, zg = _gm(x), _gm(z)
    a = asc.LocalTensor(F32, VECIN, 0, 64)
    asc.data_copy(zg, a, 64)
    asc.data_copy(a, xg, 64)
    asc.data_copy(zg[64:], a, 64)


def test_bytes_read_before_any_write_are_the_poison_at_every_replay():
    for seed in (1, 2, 3):
        x = rand(64, np.float32, seed)
        z = np.zeros(128, np.float32)
        poison_outside[1](x, z)
        assert z[:64].view(np.uint8).tolist() == [0xFF] * 256
        assert z[64:].tobytes() == x.tobytes()
    (rep,) = _replays(poison_outside, (x, z)).values()
    assert rep is not None and rep.poison


@asc.jit
def printing(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = _gm(x), _gm(z)
    a = asc.LocalTensor(F32, VECIN, 0, 64)
    asc.data_copy(a, xg, 64)
    asc.printf("v=%f\n", a.get_value(0))
    asc.data_copy(zg, a, 64)


def test_a_launch_that_prints_is_not_replayed(capsys):
    x = rand(64, np.float32, 4)
    for _ in range(2):
        z = np.zeros_like(x)
        printing[1](x, z)
        assert z.tobytes() == x.tobytes()
    assert capsys.readouterr().out.count("v=") == 2
    assert list(_replays(printing, (x, z)).values()) == [None]


# -- loops whose iterations are independent: one run over a stacked axis (runtime/tape_vector.py) -----------

def test_softmax_rows_run_as_one_stacked_loop_when_there_are_several():
    from softmax_rows import softmax_rows
    x = rand(8 * 4 * 512, np.float32, 11).reshape(32, 512)
    for _ in range(2):
        z, z_ref = np.zeros_like(x), np.zeros_like(x)
        softmax_rows[8](x, z, 4, 2)
        _slow(softmax_rows, (x, z_ref, 4, 2), 8)
        assert z.tobytes() == z_ref.tobytes()
    assert any(r is not None and r.rows == [4] for r in _replays(softmax_rows, (x, z, 4, 2)).values())


@asc.jit
def carried_ub(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """acc carries from row to row (and get_value keeps the loop from batching): never stacked."""
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    acc = asc.LocalTensor(F32, VECIN, 256, 64)
    o = asc.LocalTensor(F32, VECIN, 512, 64)
    asc.duplicate(acc, 0.0, 64)
    for r in range(n):
        asc.data_copy(t, xg[r * 64:], 64)
        asc.add(acc, acc, t, 64)
        asc.adds(o, acc, acc.get_value(1), 64)
        asc.data_copy(zg[r * 64:], o, 64)


@asc.jit
def carried_gm(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Row r reads the row r - 1 wrote into z: never stacked."""
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    p = asc.LocalTensor(F32, VECIN, 256, 64)
    for r in range(n):
        asc.data_copy(t, xg[r * 64:], 64)
        asc.data_copy(p, zg[r * 64:], 64)
        asc.muls(t, t, p.get_value(0), 64)
        asc.add(t, t, p, 64)
        asc.data_copy(zg[(r + 1) * 64:], t, 64)


@pytest.mark.parametrize("kernel", [carried_ub, carried_gm])
def test_a_loop_with_a_carried_dependence_is_not_stacked(kernel):
    for seed in (1, 2):
        x = rand(64 * 5, np.float32, seed)
        z, z_ref = np.full(64 * 6, 0.5, np.float32), np.full(64 * 6, 0.5, np.float32)
        kernel[1](x, z, 5)
        _slow(kernel, (x, z_ref, 5), 1)
        assert z.tobytes() == z_ref.tobytes()
    (rep,) = _replays(kernel, (x, z, 5)).values()
    assert rep is not None and rep.rows == []


@asc.jit
def rows_of(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    for r in range(n):
        asc.data_copy(t, xg[r * 64:], 64)
        asc.muls(t, t, t.get_value(3), 64)
        asc.data_copy(zg[r * 64:], t, 64)


def test_a_stacked_loop_out_of_bounds_on_its_last_iteration_only_is_refused():
    x = rand(64 * 3, np.float32, 5)
    z = np.zeros(64 * 3, np.float32)
    rows_of[1](x, z, 3)
    rows_of[1](x, z, 3)
    np.testing.assert_array_equal(z, (x.reshape(3, 64) * x.reshape(3, 64)[:, 3:4]).reshape(-1))
    assert [r.rows for r in _replays(rows_of, (x, z, 3)).values()] == [[3]]
    z2 = np.full(64 * 3, 7.0, np.float32)
    with pytest.raises(asc.OutOfBoundsError, match="index 3"):
        rows_of[1](x, z2, 4)                   # the fourth row lies past x and z
    assert (z2 == 7.0).all()


@asc.jit
def running(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """A sum, a max and a min carried across the iterations (ufunc.accumulate when that is exact)."""
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    s = asc.LocalTensor(F32, VECIN, 256, 64)
    hi = asc.LocalTensor(F32, VECIN, 512, 64)
    lo = asc.LocalTensor(F32, VECIN, 768, 64)
    asc.duplicate(s, 0.0, 64)
    asc.duplicate(hi, -0.0, 64)
    asc.duplicate(lo, 0.0, 64)
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.add(s, s, t, 64)
        asc.max(hi, t, hi, 64)
        asc.min(lo, lo, t, 64)
    asc.data_copy(zg, s, 64)
    asc.data_copy(zg[64:], hi, 64)
    asc.data_copy(zg[128:], lo, 64)


@pytest.mark.parametrize("case", ["plain", "zeros", "nan", "inf"])
def test_running_sums_and_extremes_keep_program_orders_bits(case):
    for seed in (1, 2):
        x = rand(64 * 6, np.float32, seed)
        if case == "zeros":
            x[::3] = 0.0
            x[1::3] = -0.0
        elif case == "nan":
            x.view(np.uint32)[5] = 0x7FC00042
            x.view(np.uint32)[64 + 5] = 0xFFC00007
        elif case == "inf":
            x[7], x[64 + 7] = np.inf, -np.inf
        z, z_ref = np.zeros(192, np.float32), np.zeros(192, np.float32)
        running[1](x, z, 6)
        _slow(running, (x, z_ref, 6), 1)
        assert z.tobytes() == z_ref.tobytes()
