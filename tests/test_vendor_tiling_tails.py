"""examples/matmul_vendor_tiling.py with shapes the vendor's 8192^3 never has: a core's M slice shorter than the
128-row block (it used to compute nothing, silently), N not a multiple of 256 or of 16, empty cores at the
grid's edge, one core; and the remainder lint's `range(a // b * c)` form, which is how that loss looked."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import AscTraceWarning

import matmul_vendor_tiling as V


def _ref(a, b):
    return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)


def _run(m, n, k, grid_m, grid_n, backend="sim", seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)     # integer data: every partial sum exact in fp32
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.full((m, n), 7, np.float16)                    # not zero: an unwritten element shows
    single_m, single_n = V.grid(m, n, grid_m * grid_n, grid_m, grid_n)
    kern = asc.jit(V.matmul_vendor_tiling, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscTraceWarning)   # no dropped remainder in the fixed example
        kern[grid_m * grid_n](a.ravel(), np.ascontiguousarray(b.T).ravel(), c.ravel(), m, n, k, single_m,
                              single_n, grid_n)
    return c, _ref(a, b)


@pytest.mark.parametrize("m, n, k, grid_m, grid_n", [
    (128, 512, 512, 2, 2),       # the brief's case: 64 rows a core, once all zeros
    (100, 300, 512, 3, 2),       # M and N tails, N not a multiple of 16
    (17, 33, 1024, 1, 1),        # one core, one short tile, two L1 packets of K
    (9, 16, 512, 6, 3),          # more cores than rows: empty cores on both edges
    (300, 1000, 512, 2, 3),      # several tiles a core, the last ones short
])
def test_tails_equal_numpy_on_sim(m, n, k, grid_m, grid_n):
    got, want = _run(m, n, k, grid_m, grid_n)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("backend", ["eager", "cpp"])
def test_tails_equal_numpy_on_eager_and_cpp(backend):
    got, want = _run(100, 300, 512, 3, 2, backend=backend)
    np.testing.assert_array_equal(got, want)


def test_k_that_is_not_a_packet_multiple_is_refused_by_the_example():
    with pytest.raises(ValueError, match="not a multiple of 512"):
        V.run(m=64, n=64, k=1000)


def test_tails_keep_the_vendors_flag_schedule():
    """The short-tile sizes depend on the tile index; the scheduler still proves the L1 / L0 halves apart
    across tiles, so the 8192^3 schedule keeps its 7 primed flags (no extra wait per tile)."""
    a = np.zeros(8, np.float16)
    dump = str(asc.compile(V.matmul_vendor_tiling, (a, a, a, 8192, 8192, 8192, 2048, 1536, 6), core_num=24).graph)
    top = [line for line in dump.splitlines() if line.startswith("  %") and "flag" in line]
    assert sum("set_flag" in line for line in top) == 7
    assert "MTE1_MTE2, 4" not in dump


# -- the remainder lint: a floored factor in a product -------------------------------------------------------

@asc.jit
def _tile_walk(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, tiles_n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    for i in range(rows // 8 * tiles_n):                         # the line the warning names
        asc.data_copy(t, xg[i * 64:], 64)
        asc.data_copy(zg[i * 64:], t, 64)


@asc.jit
def _tile_walk_ceil(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, tiles_n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    for i in range(tiles_n * ((rows + 7) // 8)):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.data_copy(zg[i * 64:], t, 64)


def _line(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn.fn)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_a_floored_factor_warns_at_the_loop_line(backend):
    x, z = np.ones(1024, np.float32), np.zeros(1024, np.float32)
    with pytest.warns(AscTraceWarning, match=r"floors rows // 8 and drops the remainder rows % 8 = 4") as got:
        asc.jit(_tile_walk, backend=backend)[1](x, z, 4, 2)     # 4 // 8 * 2 = 0: nothing runs
    (w,) = [w for w in got if issubclass(w.category, AscTraceWarning)]
    assert w.filename == __file__ and w.lineno == _line(_tile_walk, "the line the warning names")
    assert not z.any()


@pytest.mark.parametrize("kernel, rows", [(_tile_walk, 16), (_tile_walk_ceil, 4)])
def test_no_warning_for_a_multiple_or_a_ceiling(kernel, rows):
    x, z = np.ones(1024, np.float32), np.zeros(1024, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscTraceWarning)
        kernel[1](x, z, rows, 2)


def test_the_old_example_form_warns():
    """The example's loop before this fix, `range(single_m // BM * tiles_n)`, is found by the lint."""
    from asc_trace.graph.remainder_lint import dropped_remainders

    @asc.jit
    def old(x: asc.GlobalAddress, single_m: int, n: int):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        tiles_n = (n + 255) // 256
        for i in range(single_m // 128 * tiles_n):
            asc.data_copy(t, xg[i * 64:], 64)
    x = np.zeros(1024, np.float32)
    ck = asc.compile(old, (x, 64, 512), core_num=1)
    found = dropped_remainders(ck.traced)
    assert [(str(r.dividend), str(r.divisor)) for r in found] == [("single_m", "128")]
