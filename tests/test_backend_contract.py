"""The backend contract, defect by defect: adversarial kernels that used to crash the cpp backend
(SIGFPE), run differently on eager, or compute different numbers on different backends. Every
backend must give the same bytes, or the same AscTraceError subclass naming the user's line, and
leave the outputs untouched when it refuses."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.graph import scalar_ops as S
from helpers import assert_points_at

BACKENDS = ("sim", "eager", "cpp")
F32 = asc.float32
I32 = asc.int32


def _run_all(kernel, make_args, cores: int = 1) -> dict:
    """backend -> the output arrays after a launch, or the error it raised."""
    out = {}
    for b in BACKENDS:
        args = make_args()
        try:
            asc.jit(kernel, backend=b)[cores](*args)
            out[b] = [a.copy() for a in args if isinstance(a, np.ndarray)]
        except asc.AscTraceError as e:
            out[b] = e
    return out


def assert_refused(kernel, make_args, cls, marker: str, cores: int = 1) -> None:
    """Every backend raises `cls` naming the marked line, and writes nothing."""
    for b in BACKENDS:
        args = make_args()
        before = [a.copy() for a in args if isinstance(a, np.ndarray)]
        with pytest.raises(asc.AscTraceError) as ei:
            asc.jit(kernel, backend=b)[cores](*args)
        assert type(ei.value) is cls, f"{b}: {type(ei.value).__name__}: {ei.value}"
        assert_points_at(ei.value, marker)
        after = [a for a in args if isinstance(a, np.ndarray)]
        assert all(x.tobytes() == y.tobytes() for x, y in zip(before, after)), f"{b} wrote into a refused launch"


def assert_same_bytes(kernel, make_args, cores: int = 1) -> list:
    got = _run_all(kernel, make_args, cores)
    for b in BACKENDS:
        assert not isinstance(got[b], Exception), f"{b} raised {got[b]!r}"
    for b in BACKENDS[1:]:
        assert [a.tobytes() for a in got[b]] == [a.tobytes() for a in got["sim"]], f"{b} != sim"
    return got["sim"]


def _io(n=64, dt=np.float32, *extra):
    return lambda: (np.arange(n).astype(dt), np.full(n, 7, dt), *extra)


def _bind(*addrs):
    """A GlobalTensor over the whole of each argument."""
    out = []
    for a in addrs:
        g = asc.GlobalTensor()
        g.set_global_buffer(a)
        out.append(g)
    return out


# -- the scalar unit: nothing may kill the process ---------------------------------------------------

@asc.jit
def _div_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, a: int, b: int, op: asc.ConstExpr[str]):
    xg, zg = _bind(x, z)
    t = asc.LocalTensor(I32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, xg, 64)
    v = a // b if op == "//" else a % b if op == "%" else a << b
    asc.adds(t, t, v, 64)  # MARK-div
    asc.data_copy(zg, t, 64)


@pytest.mark.parametrize("op,b", [("//", 0), ("%", 0), ("<<", 64), ("<<", -1)])
def test_division_by_zero_and_bad_shifts_are_scalar_errors(op, b):
    assert_refused(_div_kernel, _io(64, np.int32, 5, b, op), asc.ScalarError, "MARK-div")


def test_int64_min_floordiv_minus_one_wraps():
    got = assert_same_bytes(_div_kernel, _io(64, np.int32, S.INT64_MIN, -1, "//"))
    # INT64_MIN // -1 wraps to INT64_MIN, whose low 32 bits (the int32 scalar of adds) are 0
    assert np.array_equal(got[1], np.arange(64, dtype=np.int32))


@asc.jit
def _loop_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, start: int, stop: int, step: int):
    xg, zg = _bind(x, z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, xg, 64)
    for i in range(start, stop, step):  # MARK-loop
        asc.adds(t, t, 1.0, 64)
    asc.data_copy(zg, t, 64)


def test_zero_loop_step_is_refused_even_when_the_loop_would_be_empty():
    for start, stop in ((0, 4), (4, 0), (0, 0)):
        assert_refused(_loop_kernel, _io(64, np.float32, start, stop, 0), asc.OutOfBoundsError, "MARK-loop")


def test_loops_near_the_int64_limits_stop_where_python_stops():
    big = S.INT64_MAX
    got = assert_same_bytes(_loop_kernel, _io(64, np.float32, 0, big, 2**62))   # 0, 2**62 (the index would wrap)
    assert np.array_equal(got[1], np.arange(64, dtype=np.float32) + 2)
    got = assert_same_bytes(_loop_kernel, _io(64, np.float32, big, big - 3, -1))
    assert np.array_equal(got[1], np.arange(64, dtype=np.float32) + 3)


@asc.jit
def _count_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, which: asc.ConstExpr[str]):
    xg, zg = _bind(x, z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
    tmp = asc.LocalTensor(F32, asc.TPosition.VECCALC, 256, 64)
    asc.data_copy(t, xg, 64)
    if which == "adds":
        asc.adds(t, t, 1.0, n)  # MARK-count-adds
    elif which == "duplicate":
        asc.duplicate(t, 2.0, n)  # MARK-count-duplicate
    else:
        asc.reduce_sum(t, t, tmp, n)  # MARK-count-reduce_sum
    asc.data_copy(zg, t, 64)


@pytest.mark.parametrize("which", ["adds", "duplicate", "reduce_sum"])
@pytest.mark.parametrize("n", [-3, 2**32 + 8])
def test_negative_or_oversized_counts_are_refused(which, n):
    assert_refused(_count_kernel, _io(64, np.float32, n, which), asc.OutOfBoundsError, f"MARK-count-{which}")


@asc.jit
def _repeat_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, r: int, stride: int):
    xg, zg = _bind(x, z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, xg, 64)
    asc.adds(t, t, 1.0, 64, r, asc.UnaryRepeatParams(1, 1, stride, stride))  # MARK-repeat
    asc.data_copy(zg, t, 64)


@pytest.mark.parametrize("r,stride", [(256, 0), (-1, 0), (300, 0), (1, 256), (1, -1)])
def test_repeat_time_and_strides_must_fit_their_fields(r, stride):
    assert_refused(_repeat_kernel, _io(64, np.float32, r, stride), asc.OutOfBoundsError, "MARK-repeat")


def test_repeat_time_in_range_runs_the_same_everywhere():
    got = assert_same_bytes(_repeat_kernel, _io(64, np.float32, 3, 0))
    assert np.array_equal(got[1], np.arange(64, dtype=np.float32) + 3)   # 3 repeats over the same 64 floats


@asc.jit
def _offset_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, start: int, off: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, xg[off:], 64)  # MARK-offset
    asc.data_copy(zg, t, 64)


@pytest.mark.parametrize("start,off", [(0, 2**62), (0, 2**62 + 2**61), (0, -8), (2**61 - 1, 2**61 - 1), (0, 2**61 - 1)])
def test_gm_offsets_that_would_wrap_around_2_64_are_out_of_bounds(start, off):
    # xg[2**62:] of float32 is 2**64 bytes further on: it used to wrap around and read x[0:] on cpp
    assert_refused(_offset_kernel, _io(64, np.float32, start, off), asc.OutOfBoundsError, "MARK-offset")


# -- eager: the same errors, the same float32 math ------------------------------------------------

def test_python_errors_in_a_kernel_are_trace_errors_everywhere():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        for i in range(n, 5, 1.5):  # MARK-py-float-range
            pass

    assert_refused(k, lambda: (np.zeros(8, np.float32), 3), asc.TraceError, "MARK-py-float-range")

    def deep(n):
        return deep(n)  # MARK-py-recursion

    @asc.jit
    def k2(x: asc.GlobalAddress, n: int):
        deep(n)

    assert_refused(k2, lambda: (np.zeros(8, np.float32), 3), asc.TraceError, "MARK-py-recursion")


def test_scalar_float_math_is_float32_on_every_backend():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = _bind(x, z)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.duplicate(t, n * 1.0 + 0.5 - n, 64)
        asc.data_copy(zg, t, 64)

    # float32: 16777217 rounds to 16777216, + 0.5 rounds back, - n = 0 (float64 would give 0.5)
    got = assert_same_bytes(k, _io(64, np.float32, 16777217))
    assert np.all(got[1] == 0.0)


def test_int64_scalar_arithmetic_wraps_on_every_backend():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = _bind(x, z)
        t = asc.LocalTensor(I32, asc.TPosition.VECIN, 0, 64)
        asc.duplicate(t, (n * n) // 2**40, 64)
        asc.data_copy(zg, t, 64)

    n = 2**40 + 12345
    want = S.floordiv(S.wrap(n * n), 2**40)
    got = assert_same_bytes(k, _io(64, np.int32, n))
    assert np.all(got[1] == np.int64(want).astype(np.int32))


# -- numerics --------------------------------------------------------------------------------------

def test_float_to_int64_cast_saturates_and_maps_nan_to_zero():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = _bind(x, z)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        o = asc.LocalTensor(asc.int64, asc.TPosition.VECOUT, 256, 64)
        asc.data_copy(t, xg, 64)
        asc.cast(o, t, asc.RoundMode.CAST_RINT, 64)
        asc.data_copy(zg, o, 64)

    def args():
        x = np.zeros(64, np.float32)
        x[:7] = [2.0**63, np.inf, -np.inf, np.nan, -2.0**64, 3.5, -2.0**63]
        return x, np.zeros(64, np.int64)
    got = assert_same_bytes(k, args)
    assert got[1][:7].tolist() == [S.INT64_MAX, S.INT64_MAX, S.INT64_MIN, 0, S.INT64_MIN, 4, S.INT64_MIN]


@asc.jit
def _adds_const(x: asc.GlobalAddress, z: asc.GlobalAddress, c: asc.ConstExpr[float]):
    xg, zg = _bind(x, z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, xg, 64)
    asc.adds(t, t, c, 64)
    asc.data_copy(zg, t, 64)


@pytest.mark.parametrize("order", [(0.0, -0.0), (-0.0, 0.0)])
def test_signed_zero_constants_do_not_share_compiled_code(order):
    # -0.0 + (-0.0) is -0.0, -0.0 + 0.0 is +0.0: the result must not depend on which ran first
    for c in order:
        got = assert_same_bytes(_adds_const, lambda: (np.full(64, -0.0, np.float32), np.zeros(64, np.float32), c))
        assert np.all(np.signbit(got[1]) == np.signbit(np.float32(c)))


def test_max_min_relu_follow_ieee_signed_zeros_and_nan():
    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, yg, zg = _bind(x, y, z)
        a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        b = asc.LocalTensor(F32, asc.TPosition.VECIN, 256, 64)
        o = asc.LocalTensor(F32, asc.TPosition.VECOUT, 512, 320)
        asc.data_copy(a, xg, 64)
        asc.data_copy(b, yg, 64)
        asc.max(o, a, b, 64)
        asc.min(o[64:], a, b, 64)
        asc.relu(o[128:], a, 64)
        asc.maxs(o[192:], a, 0.0, 64)
        asc.mins(o[256:], a, -0.0, 64)
        asc.data_copy(zg, o, 320)

    def args():
        x = np.zeros(64, np.float32)
        y = np.zeros(64, np.float32)
        x[:4] = [-0.0, 0.0, np.nan, 1.0]
        y[:4] = [0.0, -0.0, 1.0, np.nan]
        return x, y, np.zeros(320, np.float32)
    z = assert_same_bytes(k, args)[2]
    mx, mn, relu, maxs, mins = (z[i * 64:i * 64 + 4] for i in range(5))
    assert list(np.signbit(mx[:2])) == [False, False] and np.isnan(mx[2:]).all()
    assert list(np.signbit(mn[:2])) == [True, True] and np.isnan(mn[2:]).all()
    assert not np.signbit(relu[0]) and not np.signbit(maxs[0]) and np.signbit(mins[1])


def test_scalar_semantics_unit():
    assert S.wrap(2**63) == S.INT64_MIN and S.floordiv(S.INT64_MIN, -1) == S.INT64_MIN
    assert S.mod(S.INT64_MIN, -1) == 0 and S.floordiv(-7, 2) == -4 and S.mod(-7, 2) == 1
    with pytest.raises(S.ScalarFault):
        S.floordiv(np.array([1, 2]), np.array([1, 0]))       # per-core values too (NumPy would give 0)
    v = 2**60 + 2**36 + 1                                      # NumPy's float32(int) rounds twice here
    assert float(S.to_f32(v)) == 2.0**60 + 2.0**37
    assert float(S.to_f32(v)) == float(np.array([v]).astype(np.float32)[0])


# -- hazards are found before any backend runs ---------------------------------------------------------

@asc.jit(auto_sync=False)
def _sync_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, defect: asc.ConstExpr[str]):
    xg, zg = _bind(x, z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
    if defect == "wait":
        asc.wait_flag(asc.HardEvent.MTE2_V, 3)  # MARK-sync-wait
    asc.data_copy(t, xg, 64)
    if defect != "race":
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(t, t, 2.0, 64)  # MARK-sync-race
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, t, 64)
    if defect == "left-set":
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 5)  # MARK-sync-left-set


@pytest.mark.parametrize("defect,cls", [("race", asc.RaceError), ("wait", asc.SyncError),
                                        ("left-set", asc.SyncError)])
def test_races_and_unmatched_events_are_found_on_every_backend(defect, cls):
    assert_refused(_sync_kernel, _io(64, np.float32, defect), cls, f"MARK-sync-{defect}")
    if defect == "race":        # the same kernel, correctly synchronised, runs everywhere
        assert np.array_equal(assert_same_bytes(_sync_kernel, _io(64, np.float32, "none"))[1],
                              np.arange(64, dtype=np.float32) * 2)


def test_two_cores_writing_different_bytes_to_the_same_elements_is_found_on_every_backend():
    # each core copies its own half of x into the same 64 elements of z; equal bytes would only warn
    # (tests/test_vector_equal_writes.py), different bytes are a race
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = _bind(x, z)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, xg[asc.get_block_idx() * 64:], 64)
        asc.data_copy(zg, t, 64)  # MARK-cross-core

    assert_refused(k, lambda: (np.arange(128, dtype=np.float32), np.zeros(64, np.float32)), asc.RaceError,
                   "MARK-cross-core", cores=2)


def test_the_first_error_of_the_lowest_failing_core_wins_everywhere():
    # core 2 divides by zero, core 3 reads out of bounds: every backend reports core 2's error
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, d: int):
        blk = asc.get_block_idx()
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + blk * 64, 64)
        zg.set_global_buffer(z + blk * 64, 64)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, xg[(blk // 3) * 64:], 64)
        asc.adds(t, t, 100 // (blk - d), 64)  # MARK-per-core
        asc.data_copy(zg, t, 64)

    assert_refused(k, lambda: (np.ones(256, np.float32), np.zeros(256, np.float32), 2), asc.ScalarError,
                   "MARK-per-core", cores=4)


def test_parameter_structs_that_differ_between_cores_run_the_same_everywhere():
    # block_len depends on the core: the simulator cannot run the cores in lockstep (found by fuzzing)
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        blk = asc.get_block_idx()
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + blk * 64, 64)
        zg.set_global_buffer(z + blk * 64, 64)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, xg, 64)
        asc.data_copy_pad(zg, t, asc.DataCopyExtParams(1, (blk + 1) * 4, 0, 0, 0))

    got = assert_same_bytes(k, lambda: (np.arange(192, dtype=np.float32), np.full(192, -1, np.float32)), cores=3)
    want = np.full(192, -1, np.float32)
    for c in range(3):
        want[c * 64:c * 64 + c + 1] = np.arange(c * 64, c * 64 + c + 1)
    assert np.array_equal(got[1], want)


@pytest.mark.parametrize("dt", ["float32", "float16"])
def test_two_nan_operands_give_the_first_ones_nan_everywhere(dt):
    # a compiler may swap the operands of + and *, NumPy's vector loops may pick either NaN: the rule
    # (the first NaN operand's, quieted) is written out on every backend
    D = getattr(asc, dt)

    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, s: float):
        xg, yg, zg = _bind(x, y, z)
        a = asc.LocalTensor(D, asc.TPosition.VECIN, 0, 128)
        b = asc.LocalTensor(D, asc.TPosition.VECIN, 512, 128)
        o = asc.LocalTensor(D, asc.TPosition.VECOUT, 1024, 768)
        tmp = asc.LocalTensor(D, asc.TPosition.VECCALC, 4096, 128)
        asc.data_copy(a, xg, 128)
        asc.data_copy(b, yg, 128)
        asc.add(o, a, b, 128)
        asc.mul(o[128:], b, a, 128)
        asc.adds(o[256:], a, s, 128)
        asc.muls(o[384:], a, s * 2.0, 128)        # a float scalar expression with a NaN operand too
        asc.data_copy(o[512:], a, 128)
        asc.axpy(o[512:], b, s, 128)
        asc.reduce_sum(o[640:], a, tmp, 128)
        asc.data_copy(zg, o, 768)

    def args():
        x = np.full(128, -np.nan, np.dtype(dt))
        y = np.full(128, np.nan, np.dtype(dt))
        x[::3] = 1.0
        return x, y, np.zeros(768, np.dtype(dt)), float("nan")
    z = assert_same_bytes(k, args)[2]
    bits = z.view(np.uint16 if dt == "float16" else np.uint32)
    sign = bits >> (15 if dt == "float16" else 31)
    nan_x = np.isnan(args()[0])
    assert np.all(sign[:128][nan_x] == 1) and np.all(sign[128:256] == 0)       # x's NaN; y's NaN first
    assert np.all(sign[256:384][nan_x] == 1) and np.all(sign[384:512][nan_x] == 1)


def test_round_to_integral_keeps_the_sign_of_zero():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = _bind(x, z)
        a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        o = asc.LocalTensor(F32, asc.TPosition.VECOUT, 256, 64)
        asc.data_copy(a, xg, 64)
        asc.cast(o, a, asc.RoundMode.CAST_ROUND, 64)
        asc.data_copy(zg, o, 64)

    def args():
        x = np.zeros(64, np.float32)
        x[:4] = [-0.0, -0.4, 0.4, -np.nan]
        return x, np.ones(64, np.float32)
    z = assert_same_bytes(k, args)[1]
    assert list(np.signbit(z[:4])) == [True, True, False, True]
