"""The timing model's physics (issue 24): bounds that hold for any kernel, buffering that comes out of
the per-core pipeline sharing the chip, fixed costs counted once, and a validation that predicts what
the model was not fitted to."""
import numpy as np
import pytest

import asc_trace as asc
import cann_elementwise as cann
import double_buffer
import softmax
import vadd
from asc_trace.runtime import core_timing
from asc_trace.runtime.calibrate import Case, fit, leave_one_out
from asc_trace.runtime.platform import platform, with_overrides
from helpers import rand

B2 = platform("Ascend910B2")
VECTOR_BYTES_PER_CYCLE = 256     # docs/facts.md#facts-10: the simplest vector ops, 64 floats / 128 halves a cycle
VECTOR_OPS = {"add", "adds", "muls", "exp", "relu", "abs"}


@asc.jit
def stream(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, per_core: int,
           tile: asc.ConstExpr[int], ops: asc.ConstExpr[str], binary: asc.ConstExpr[bool]):
    """A flag-free streaming kernel: z = ops(x [+ y]) per tile (the scheduler buffers and syncs it)."""
    offset = asc.get_block_idx() * per_core
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + offset, per_core)
    yg.set_global_buffer(y + offset, per_core)
    zg.set_global_buffer(z + offset, per_core)
    nbytes = tile * x.dtype.sizeof()
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nbytes, tile)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nbytes, tile)
    for i in range(per_core // tile):
        asc.data_copy(xl, xg[i * tile:], tile)
        if binary:
            asc.data_copy(yl, yg[i * tile:], tile)
            asc.add(zl, xl, yl, tile)
        else:
            asc.muls(zl, xl, 0.5, tile)
        for op in ops.split(","):
            if op in ("adds", "muls"):
                getattr(asc, op)(zl, zl, 0.5, tile)
            else:
                getattr(asc, op)(zl, zl, tile)
        asc.data_copy(zg[i * tile:], zl, tile)


def _random_launches(seed: int, count: int):
    """(profile, itemsize, tile, inputs) of random streaming kernels: dtype, tile (some not 512 B
    multiples, so copies start unaligned), ops, buffering, tiles per core and blocks (waves too)."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        dtype = np.dtype(rng.choice(["float16", "float32"]))
        tile = [800, 2048, 8192, 16384][i % 4] // dtype.itemsize
        ops = ",".join(str(o) for o in rng.choice(["adds", "muls", "exp", "relu", "abs"], size=int(rng.integers(1, 5))))
        binary = bool(rng.integers(0, 2))
        buffering = [False, "auto", 3][int(rng.integers(0, 3))]     # single, double, triple
        per_core = tile * int(rng.integers(1, 33))
        blocks = [3, 48, 96, 1, 50, 8][i % 6]
        n = per_core * blocks
        arrays = [np.empty(n, dtype) for _ in range(3)]
        k = asc.jit(stream, multi_buffer=buffering)
        prof = asc.profile(k, *arrays, per_core, tile, ops, binary, core_num=blocks, timing_only=True)
        yield prof, dtype.itemsize, tile, 2 if binary else 1


def _check_bounds(prof, itemsize: int, tile: int, inputs: int) -> None:
    plat, lt = prof.platform, prof.launch
    lv, body = lt.levels, lt.body_cycles
    per_cycle = 1e3 / plat.clock_mhz                      # GB/s -> bytes per cycle
    tol = 1 + 1e-9
    # the GM traffic never moves faster than the level it lives in allows ...
    assert plat.hbm_gbytes_per_s <= plat.hbm_peak_gbytes_per_s
    assert lv.traffic <= body * plat.l2_gbytes_per_s * per_cycle * tol
    assert lv.hbm_traffic <= body * plat.hbm_gbytes_per_s * per_cycle * tol
    # ... and which level serves it is the physics': cold reads from the HBM, write-backs of the part
    # of the working set the L2 cannot hold
    reads, writes = inputs * lv.moved / (inputs + 1), lv.moved / (inputs + 1)
    l2 = plat.l2_mib * (1 << 20)
    lost = lv.traffic / lv.moved
    assert lv.hbm_traffic == pytest.approx(lost * (reads + min(writes, max(0.0, lv.working_set - l2))))
    assert (lv.bound == "HBM") == (lv.hbm_cycles > lv.l2_cycles)
    # each wave's blocks together stay within the launch's sustained rate
    per_wave = int(plat.aiv_cores)
    for w, cycles in enumerate(lt.wave_cycles):
        moved = sum(sum(c.gm_bytes) for c in prof.cores if c.core // per_wave == w)
        assert moved <= cycles * lv.rate * tol
    rates = {1: plat.mte2_bytes_per_cycle, 3: plat.mte3_bytes_per_cycle}
    nbytes = tile * itemsize
    for c in prof.cores[::per_wave // 2 or 1]:
        assert c.share <= lv.rate * tol
        moving = 0.0
        for p, start, end, item in c.slices:
            op = getattr(item, "op", "")
            if op == "data_copy":     # a copy's bytes never move faster than its pipe's published peak
                setup = plat.copy_start_cycles(rates[p])
                assert nbytes <= (end - start - setup) * rates[p] * tol
                moving += end - start - setup
            elif op in VECTOR_OPS:     # nor the vector unit's
                assert nbytes <= (end - start) * VECTOR_BYTES_PER_CYCLE * tol
        # the two MTE pipes of a core together never beyond its share (over the time they moved bytes)
        assert sum(c.gm_bytes) <= moving * c.share * tol
        # a core is never faster than its busiest pipe
        assert c.cycles >= max(c.busy) / tol
    # nor the launch than its busiest pipe, or its level's bound, after the floor
    assert prof.cycles >= (lt.floor_cycles + max(prof.pipe_busy.values())) / tol
    assert prof.cycles >= (lt.floor_cycles + lv.cycles) / tol
    assert prof.bound == "launch floor" or lt.overhead_cycles < body


def test_bounds_hold_for_random_kernels_sizes_and_levels():
    rng = np.random.default_rng(24)
    checked = 0
    for prof, itemsize, tile, inputs in _random_launches(seed=24, count=16):
        _check_bounds(prof, itemsize, tile, inputs)
        # the same launches with the working set in or far beyond an L2 of another size, at other rates
        for _ in range(3):
            l2_mib = float(rng.choice([0.01, 0.5, 4.0, 192.0]))
            hbm = float(rng.uniform(300, B2.hbm_peak_gbytes_per_s))
            l2 = float(rng.uniform(hbm, 4000))
            _check_bounds(prof.retimed(l2_mib=l2_mib, hbm_gbytes_per_s=hbm, l2_gbytes_per_s=l2), itemsize, tile, inputs)
            checked += 1
    assert checked == 48


def test_shared_replay_is_the_plain_replay_when_the_share_never_binds():
    x, y = rand(8 * 2048, np.float32, 1), rand(8 * 2048, np.float32, 2)
    xs = rand(8 * 16 * 256, np.float32).reshape(-1, 256)
    profs = [asc.profile(vadd.vadd_kernel, x, y, np.zeros_like(x), 2048, core_num=8),
             asc.profile(softmax.softmax_kernel, xs, np.zeros_like(xs), 16, 256, core_num=8),
             cann.profile("gelu", 256, 2048, "float32")]
    for prof in profs:
        costs = core_timing._Costs(prof.platform)
        for g in prof.record.groups[:2]:
            plain = core_timing._time_unshared(g.log, costs, g.nodes)
            shared = core_timing._SharedCore(g.log, costs, 1e18, g.nodes).run()
            assert shared.cycles == pytest.approx(plain.cycles) and shared.busy == pytest.approx(plain.busy)
            a, b = (np.array(sorted((p, s, e) for p, s, e, _ in t.slices)) for t in (shared, plain))
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9)


def test_double_buffering_beats_single_by_the_vector_time_it_hides():
    profs = double_buffer.profiles()             # 48 cores x 1 Mi float32: 400 MB, twice the L2
    one, two = profs[1], profs[2]
    assert one.bound == two.bound == "HBM bandwidth"
    assert one.launch.levels == two.launch.levels            # the same traffic at the same level ...
    core = two.cores[0]
    link = sum(core.gm_bytes) / core.share                   # ... and each core's share of it
    latency = B2.us_to_cycles(B2.first_copy_latency_us)
    # two buffers: the copies keep the share busy, the vector unit works in their shadow
    assert two.core_cycles == pytest.approx(latency + link, rel=0.01)
    # one buffer: the copies of a tile wait for its compute, which waits for them: V adds to the link time
    assert one.core_cycles == pytest.approx(latency + link + one.pipe_busy["V"], rel=0.02)
    assert one.core_cycles - two.core_cycles == pytest.approx(one.pipe_busy["V"], rel=0.05)
    assert two.time_us < 0.9 * one.time_us
    assert one.roofline_efficiency < 0.9 < 0.99 < two.roofline_efficiency


def test_autotune_picks_double_buffering_on_a_large_streaming_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path / "cache"))
    per_core = 1 << 18                          # 48 cores x 256 Ki float32: 100 MB moved
    tuned = asc.autotune(double_buffer.sigmoid_buffered, key=["per_core"],
                         configs=[asc.Config(core_num=48, tile=double_buffer.TILE, buffers=b) for b in (1, 2)])
    x = rand(48 * per_core, np.float32)
    z = np.zeros_like(x)
    tuned(x, z, per_core)
    assert tuned.best_config.kwargs["buffers"] == 2
    single, double = (tuned.timings[c] for c in tuned.configs)
    assert double < 0.95 * single
    np.testing.assert_allclose(z, cann.reference("sigmoid", x), rtol=1e-5, atol=1e-6)


def _tiny_kernel():
    @asc.jit
    def tiny(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + asc.get_block_idx() * n, n)
        zg.set_global_buffer(z + asc.get_block_idx() * n, n)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        asc.data_copy(t, xg, n)
        asc.relu(t, t, n)
        asc.data_copy(zg, t, n)
    return tiny


def test_a_short_kernel_is_the_floor_plus_its_critical_path_each_fixed_cost_once():
    x = rand(48 * 256, np.float32)
    prof = asc.profile(_tiny_kernel(), x, np.zeros_like(x), 256, core_num=48)
    lt = prof.launch
    assert prof.bound == "launch floor" and lt.core_cycles > lt.gm_bound_cycles
    assert prof.cycles == pytest.approx(lt.floor_cycles + lt.core_cycles)
    # the facts' 'device-side floor of about 3 us' of a tiny kernel holds the floor and the latency
    assert 2.9 <= prof.time_us <= 3.3
    # the first copy's latency comes once per launch, not once per copy or per core
    latency = B2.us_to_cycles(B2.first_copy_latency_us)
    assert prof.cycles - prof.retimed(first_copy_latency_us=0).cycles == pytest.approx(latency)
    # the rest of the critical path is the chain copy-in -> relu -> copy-out and the events between them
    core = prof.cores[0]
    ops = [(p, s, e) for p, s, e, item in core.slices if p != 0 and getattr(item, "op", "") in ("data_copy", "relu")]
    assert [p for p, _, _ in ops] == [1, 2, 3]
    chain = sum(e - s for _, s, e in ops)
    assert chain < core.cycles - latency <= chain + 4 * (B2.flag_latency + B2.flag_cycles) + 20 * B2.issue_cycles


@pytest.fixture(scope="module")
def measured_cases():
    return [Case(f"{name} {rows}x{cols} {dtype}", cann.profile(name, rows, cols, dtype), us)
            for name, rows, cols, dtype, us in cann.MEASURED]


def test_leave_one_out_predicts_each_measured_kernel_within_25_percent(measured_cases):
    loo = leave_one_out(measured_cases, B2)
    for p in loo:
        print(f"\n{p.case.name}: predicted {p.modeled_us:.2f} us from the other five, measured "
              f"{p.case.measured_us:.2f} us ({p.error:+.1%})")
    assert max(abs(p.error) for p in loo) <= 0.25
    # the platform's two fitted figures are what the fit over all six gives
    best = fit(measured_cases, B2)
    assert (best.l2_gbytes_per_s, best.hbm_gbytes_per_s) == pytest.approx((B2.l2_gbytes_per_s, B2.hbm_gbytes_per_s))


def test_leave_one_out_can_fail(measured_cases):
    # a launch floor twice the facts' (counting the pipeline fill twice, as a fitted intercept would):
    # the bandwidths cannot make up for it and the small kernels come out well above their times
    loo = leave_one_out(measured_cases, with_overrides(B2, launch_us=2 * B2.launch_us))
    assert max(abs(p.error) for p in loo) > 0.25
