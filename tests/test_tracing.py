"""Tracing: runtime loops, static loops, sub-kernels, Python constructs, and the kernel cache."""
import contextlib

import numpy as np
import pytest

import asc_trace as asc
import asc_trace.jit_function as jit_mod
from helpers import assert_points_at, rand

F32 = asc.float32
SCALE = 2.0


def _gm(addr, n=None):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, n)
    return g


def _copy_loop_kernel(trip):
    """z = x + 1 over `trip` tiles of 64 floats, with a constant-bound runtime loop."""
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = _gm(x), _gm(z)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        for i in range(trip):
            asc.data_copy(t, xg[i * 64:], 64)
            asc.set_flag(asc.HardEvent.MTE2_V, 0)
            asc.wait_flag(asc.HardEvent.MTE2_V, 0)
            asc.adds(t, t, 1.0, 64)
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
            asc.data_copy(zg[i * 64:], t, 64)
            asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
    return k


def test_graph_size_does_not_depend_on_trip_count():
    sizes = []
    for trip in (2, 64):
        x = rand(trip * 64, np.float32)
        z = np.zeros_like(x)
        k = _copy_loop_kernel(trip)
        k[1](x, z)
        np.testing.assert_array_equal(z, x + np.float32(1))
        sizes.append(len(asc.compile(k, (x, z)).graph))
    assert sizes[0] == sizes[1]


def test_runtime_bound_loop_is_one_region():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
        xg, zg = _gm(x), _gm(z)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        for i in range(tiles):
            asc.data_copy(t, xg[i * 64:], 64)
            asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.data_copy(zg[i * 64:], t, 64)
            asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)

    x = rand(640, np.float32)
    z = np.zeros_like(x)
    k[1](x, z, 10)
    np.testing.assert_array_equal(z, x)
    g = asc.compile(k, (x, z, 10)).graph
    assert [n.op for n in g].count("for") == 1
    assert "for i0 in range(0, tiles, 1):" in str(g)


def test_nested_loops_and_static_range():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, cols: asc.ConstExpr[int]):
        xg, zg = _gm(x), _gm(z)
        t = asc.LocalTensor(F32, asc.TPosition.VECCALC, 0, 64)
        for r in range(rows):
            for c in range(cols // 64):
                asc.data_copy(t, xg[r * cols + c * 64:], 64)
                asc.set_flag(asc.HardEvent.MTE2_V, 0)
                asc.wait_flag(asc.HardEvent.MTE2_V, 0)
                for _ in asc.static_range(3):
                    asc.muls(t, t, 2.0, 64)
                asc.set_flag(asc.HardEvent.V_MTE3, 0)
                asc.wait_flag(asc.HardEvent.V_MTE3, 0)
                asc.data_copy(zg[r * cols + c * 64:], t, 64)
                asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
                asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)

    x = rand(4 * 128, np.float32)
    for backend in ("sim", "eager"):
        z = np.zeros_like(x)
        asc.jit(k, backend=backend)[1](x, z, 4, 128)
        np.testing.assert_array_equal(z, x * np.float32(8))
    g = asc.compile(k, (x, z, 4, 128)).graph
    assert [n.op for n in g].count("for") == 2
    assert [n.op for n in g].count("muls") == 3


def test_if_on_runtime_value_is_a_trace_error():
    """An `if` the rewrite keeps as Python's (its side returns: tests/test_runtime_if.py has the rest)."""
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        if n > 4:  # MARK-if
            asc.printf("big\n")
            return

    with pytest.raises(asc.TraceError) as ei:
        k[1](np.zeros(8, np.float32), 5)
    assert_points_at(ei.value, "MARK-if")
    assert "asc.cond(n > 4, then, lambda: None)" in str(ei.value) and "ConstExpr" in str(ei.value)


def test_while_and_bool_on_runtime_values():
    @asc.jit
    def k_while(x: asc.GlobalAddress, n: int):
        i = 0
        while i < n:  # MARK-while
            i += 1

    @asc.jit
    def k_bool(x: asc.GlobalAddress, n: int):
        flag = bool(n)  # MARK-bool
        del flag

    for k, mark in ((k_while, "MARK-while"), (k_bool, "MARK-bool")):
        with pytest.raises(asc.TraceError) as ei:
            k[1](np.zeros(8, np.float32), 3)
        assert_points_at(ei.value, mark)


def test_break_out_of_runtime_loop_is_an_error():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        for i in range(n):  # MARK-break-loop
            asc.duplicate(t, 1.0, 64)
            break
        asc.duplicate(t, 2.0, 64)

    with pytest.raises(asc.TraceError, match="break") as ei:
        k[1](np.zeros(8, np.float32), 3)
    assert_points_at(ei.value, "MARK-break-loop")


def test_return_out_of_runtime_loop_is_an_error():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        for i in range(n):  # MARK-return-loop
            asc.duplicate(t, 1.0, 64)
            return

    with pytest.raises(asc.TraceError, match="return") as ei:
        k[1](np.zeros(8, np.float32), 3)
    assert_points_at(ei.value, "MARK-return-loop")


def test_runtime_value_where_python_needs_an_int():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        sizes = [j for j in range(n)]  # MARK-listcomp-runtime
        del sizes

    with pytest.raises(asc.TraceError, match="plain int") as ei:
        k[1](np.zeros(8, np.float32), 3)
    assert_points_at(ei.value, "MARK-listcomp-runtime")


def _helper_offsets(n_tiles, tile):
    return [i * tile for i in range(n_tiles)]   # a plain helper: Python's range


class _Recorder(contextlib.AbstractContextManager):
    # state on the instance the kernel makes: a class attribute counted at every run is outside state
    # the kernel changes (refused since x36, tests/test_outsider_x36.py)
    def __enter__(self):
        self.tile = 64
        return self

    def __exit__(self, *exc):
        return False


def test_python_constructs_on_trace_time_values():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = _gm(x), _gm(z)
        tiles = [asc.LocalTensor(F32, asc.TPosition.VECIN, k * 256, 64) for k in range(4)]   # comprehension
        scale = (lambda v: v * 2.0)(1.5)                                                       # lambda
        try:
            raise KeyError("trace-time")
        except KeyError:
            scale += 1.0                                                                       # try / except
        with _Recorder() as rec:                                                               # with
            offs = _helper_offsets(4, rec.tile)                                                # helper function
        for j in asc.static_range(8):
            if j == 1:
                continue                                                                       # continue
            if j >= 4:
                break                                                                          # break
            asc.data_copy(tiles[j], xg[offs[j]:], 64)
            asc.set_flag(asc.HardEvent.MTE2_V, j)
            asc.wait_flag(asc.HardEvent.MTE2_V, j)
            asc.muls(tiles[j], tiles[j], scale, 64)
            asc.set_flag(asc.HardEvent.V_MTE3, j)
            asc.wait_flag(asc.HardEvent.V_MTE3, j)
            asc.data_copy(zg[offs[j]:], tiles[j], 64)

    x = rand(256, np.float32)
    z = np.zeros_like(x)
    k[1](x, z)       # (a kernel rebinding a module global at every run is refused: tests/test_kernel_python_state.py)
    want = x * np.float32(4.0)
    want[64:128] = 0                                 # tile 1 was skipped by `continue`
    np.testing.assert_array_equal(z, want)


def test_eager_shows_real_values_and_refuses_what_tracing_refuses(capsys):
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        print(f"core {asc.get_block_idx()} n={n} half={n / 2:.2f} [{n * 3!r}]")   # real values on eager

    asc.jit(k, backend="eager")[3](np.zeros(8, np.float32), 5)
    out = capsys.readouterr().out
    for core in range(3):
        assert f"core {core} n=5 half=2.50 [15]" in out

    @asc.jit
    def branchy(x: asc.GlobalAddress, n: int):
        if n > 4:  # MARK-eager-if
            asc.printf("big\n")
            return

    for backend in ("sim", "eager"):       # eager accepts exactly the kernels the other backends accept
        with pytest.raises(asc.TraceError, match="runtime value") as ei:
            asc.jit(branchy, backend=backend)[1](np.zeros(8, np.float32), 5)
        assert_points_at(ei.value, "MARK-eager-if")


def test_eager_local_tensor_numpy():
    got = {}

    @asc.jit
    def k(x: asc.GlobalAddress):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.duplicate(t, 3.0, 64)
        got["t"] = t.numpy(8)

    asc.jit(k, backend="eager")[1](np.zeros(8, np.float32))
    np.testing.assert_array_equal(got["t"], np.full(8, 3.0, np.float32))


def test_kernel_returning_a_value_is_an_error():
    @asc.jit
    def k(x: asc.GlobalAddress):  # MARK-def
        return 1

    with pytest.raises(asc.TraceError, match="return") as ei:
        k[1](np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-def")


# -- the cache ------------------------------------------------------------------------------------

@pytest.fixture
def trace_count(monkeypatch):
    calls = []
    real = jit_mod.trace

    def counting(*a, **kw):
        calls.append(a[0].__name__)
        return real(*a, **kw)
    monkeypatch.setattr(jit_mod, "trace", counting)
    return calls


def _scale_kernel():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = _gm(x), _gm(z)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, xg, 64)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.muls(t, t, SCALE, 64)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(zg, t, 64)
    return k


def test_second_launch_does_not_trace_again(trace_count):
    k = _scale_kernel()
    x = rand(64, np.float32)
    z = np.zeros_like(x)
    k[1](x, z, 1)
    k[1](x, z, 2)        # a runtime scalar's value is not part of the key
    k[1](x, z, 3)
    assert trace_count == ["k"]
    k[1](x.astype(np.float16).astype(np.float32), z, 1)
    assert trace_count == ["k"]
    x16 = x.astype(np.float16)
    with pytest.raises(asc.DTypeError):
        k[1](x16, z.astype(np.float16), 1)   # a new dtype traces again (and float16 * SCALE works;
    assert trace_count == ["k", "k"]         #  the F32 LocalTensor makes the copy mismatch here)


def test_changed_global_traces_again(trace_count):
    global SCALE
    k = _scale_kernel()
    x = rand(64, np.float32)
    z = np.zeros_like(x)
    old = SCALE
    try:
        k[1](x, z, 1)
        np.testing.assert_array_equal(z, x * np.float32(2.0))
        SCALE = 3.0
        k[1](x, z, 1)
        np.testing.assert_array_equal(z, x * np.float32(3.0))
        assert trace_count == ["k", "k"]
    finally:
        SCALE = old


@asc.jit
def _sub(t, v):
    asc.duplicate(t, v, 64)


def test_changed_sub_kernel_traces_again(trace_count):
    global _sub

    @asc.jit
    def k(z: asc.GlobalAddress):
        zg = _gm(z)
        t = asc.LocalTensor(F32, asc.TPosition.VECOUT, 0, 64)
        _sub(t, 1.0)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(zg, t, 64)

    z = np.zeros(64, np.float32)
    old = _sub
    try:
        k[1](z)
        assert np.all(z == 1.0)

        @asc.jit
        def _sub(t, v):       # noqa: F811 - the point of the test
            asc.duplicate(t, v * 5, 64)
        k[1](z)
        assert np.all(z == 5.0)
        assert trace_count == ["k", "k"]
    finally:
        _sub = old


def test_constexpr_value_is_part_of_the_key(trace_count):
    @asc.jit
    def k(z: asc.GlobalAddress, v: asc.ConstExpr[float]):
        zg = _gm(z)
        t = asc.LocalTensor(F32, asc.TPosition.VECOUT, 0, 64)
        asc.duplicate(t, v, 64)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(zg, t, 64)

    z = np.zeros(64, np.float32)
    k[1](z, 1.0)
    k[1](z, 1.0)
    k[1](z, 2.0)
    assert np.all(z == 2.0)
    assert trace_count == ["k", "k"]


def test_jit_rewrap_with_options():
    k = _scale_kernel()
    k2 = asc.jit(k, auto_sync=False)
    assert k2 is not k and k2.options["auto_sync"] is False and k.options["auto_sync"] is True
    with pytest.raises(asc.TraceError, match="unknown asc.jit option"):
        asc.jit(k, bogus=1)


def test_always_compile_bypasses_the_cache(trace_count):
    k = asc.jit(_scale_kernel(), always_compile=True)
    x = rand(64, np.float32)
    z = np.zeros_like(x)
    k[1](x, z, 1)
    k[1](x, z, 1)
    assert trace_count == ["k", "k"]


def test_star_import_exports_the_api_but_not_range_or_submodules():
    import types
    ns: dict = {}
    exec("from asc_trace import *", ns)
    assert ns.get("range", range) is range      # the builtin is not shadowed
    assert "jit" in ns and "data_copy" in ns and "add" in ns and "TQue" in ns
    assert not [n for n, v in ns.items() if isinstance(v, types.ModuleType)]


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_a_python_value_carried_by_a_runtime_loop_is_refused(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        s = 1.0
        for i in range(n):  # MARK-carried
            s = s * 2.0
        asc.data_copy(t, xg, 64)
        asc.muls(t, t, s, 64)
        asc.data_copy(zg, t, 64)

    x = np.ones(64, np.float32)
    with pytest.raises(asc.TraceError) as ei:
        asc.jit(k, backend=backend)[1](x, np.zeros_like(x), 3)
    assert_points_at(ei.value, "MARK-carried")
    assert "`s` is assigned inside this runtime loop" in str(ei.value) and "asc.while_loop" in str(ei.value)


def test_a_value_made_and_used_in_one_iteration_is_fine():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        count = 64
        for i in range(n):
            count = asc.cond(i == n - 1, lambda: 32, lambda: 64)   # rebound, but read only after being set
            asc.data_copy(t, xg[i * 64:], 64)
            asc.adds(t, t, 1.0, count)
            asc.data_copy(zg[i * 64:], t, 64)

    x = np.ones(3 * 64, np.float32)
    z = np.zeros_like(x)
    k[1](x, z, 3)
    want = x + 1
    want[2 * 64 + 32:] = 1
    np.testing.assert_array_equal(z, want)


def test_a_branch_assigning_a_nonlocal_is_refused():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        res = 0

        def big():
            nonlocal res
            res = 10

        def small():
            nonlocal res
            res = 100
        asc.cond(n > 4, big, small)  # MARK-nonlocal

    with pytest.raises(asc.TraceError) as ei:
        k[1](np.zeros(8, np.float32), 5)
    assert_points_at(ei.value, "MARK-nonlocal")
    assert "changes `res`" in str(ei.value) and "return the value from both branches" in str(ei.value)
