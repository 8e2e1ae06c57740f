"""The simulator's shortcuts give the bytes of the rule they shortcut (issue 26; the batched fast path
itself is tested in tests/test_sim_fast_path.py).

- `first_nan` (graph/scalar_ops.py) skips its two-NaN fix when the smaller operand (a scalar, a per-core
  column) has no NaN: checked against the rule written out, on payload NaNs, infinities and zeros;
- `tree_sum` (graph/numerics.py) sums with the bare ufunc when no value is a NaN: checked against the
  pairwise tree with the two-NaN rule at every level, on infinities whose sums make NaNs;
- the float64 transcendentals (graph/ops/vec_unary.py) compute in place, in a scratch each thread reuses:
  the same bits as out of place, and a result never shares the scratch;
- a scalar operand per core that the loop does not change is one (cores, 1) column for all iterations;
- warm launches of kernels that use them (replayed tapes, stacked row loops, zero-trip and tail
  loops) give the bytes of the slow path (program order, iteration by iteration, no replay).
"""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.graph.numerics import tree_sum
from asc_trace.graph.ops import REGISTRY
from asc_trace.graph.scalar_ops import first_nan
from test_sim_replay import _slow

F32 = asc.float32
TILE = 64


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def _nasty(rng: np.random.Generator, shape: tuple, dtype=np.float32, nan_rate: float = 0.05) -> np.ndarray:
    """Values with payload NaNs of both signs, infinities, signed zeros and ordinary numbers."""
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    u = _bits(x)
    nbits = 8 * x.dtype.itemsize
    mant = np.finfo(dtype).nmant
    exp_all = ((1 << (nbits - 1)) - 1) >> mant << mant
    pick = rng.random(shape)
    payload = rng.integers(1, 1 << mant, size=shape).astype(u.dtype)
    sign = (rng.integers(0, 2, size=shape).astype(u.dtype) << np.array(nbits - 1, u.dtype))
    u[pick < nan_rate] = (exp_all | payload | sign)[pick < nan_rate]
    inf = (pick >= nan_rate) & (pick < 2 * nan_rate)
    u[inf] = (exp_all | sign)[inf]
    zero = (pick >= 2 * nan_rate) & (pick < 3 * nan_rate)
    u[zero] = sign[zero]
    return x


def _rule(fn, a, b):
    """The two-NaN rule written out: where both operands are NaN, the first one's NaN, quieted."""
    a_arr, b_arr = np.broadcast_arrays(np.asarray(a, np.float32), np.asarray(b, np.float32))
    r = np.asarray(fn(a_arr, b_arr))
    both = np.isnan(a_arr) & np.isnan(b_arr)
    quiet = (_bits(a_arr) | np.uint32(1 << 22)).view(np.float32)
    return np.where(both, quiet, r)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.divide])
def test_first_nan_with_a_small_operand_keeps_the_rule(seed, ufunc):
    rng = np.random.default_rng(seed)
    op = first_nan(ufunc)
    a = _nasty(rng, (5, 7, 33), nan_rate=0.2)
    for b in (np.float32(2.5), np.float32(np.nan), _nasty(rng, (5, 7, 1), nan_rate=0.3),
              _nasty(rng, (5, 7, 1), nan_rate=0.0), np.float32(-0.0), np.float32(np.inf)):
        with np.errstate(all="ignore"):
            for x, y in ((a, b), (b, a)):
                want = _rule(ufunc, x, y)
                assert np.array_equal(_bits(op(x, y)), _bits(want))
                out = np.empty(want.shape, np.float32)
                op.into(x, y, out)
                assert np.array_equal(_bits(out), _bits(want))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("dtype,width", [(np.float32, 64), (np.float16, 128), (np.float32, 8), (np.int32, 64),
                                         (np.int16, 128)])
def test_tree_sum_gives_the_bits_of_the_rule(seed, dtype, width):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 700))
    if np.dtype(dtype).kind == "f":
        # no NaN (the fast path) but infinities of both signs, whose sums make NaNs; and with NaNs
        x = _nasty(rng, (3, n), dtype, nan_rate=0.0 if seed % 2 else 0.02)
        x[rng.random(x.shape) < 0.02] = np.inf
        x[rng.random(x.shape) < 0.02] = -np.inf
    else:
        x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, size=(3, n), dtype=dtype)
    with np.errstate(all="ignore"):
        got, want = tree_sum(x, np.dtype(dtype), width), tree_sum(x, np.dtype(dtype), width, nan_rule_always=True)
    assert got.dtype == want.dtype and np.array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("name,fn", [("exp", np.exp), ("ln", np.log)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_the_transcendentals_in_place_give_the_bits_out_of_place(name, fn, dtype):
    rng = np.random.default_rng(3)
    x = _nasty(rng, (4, 3, 257), dtype, nan_rate=0.05)
    x.flat[:4] = [88.7, -103.9, 1e-30, 11.0]       # overflow, underflow, subnormal results
    ref = REGISTRY[name].ref
    with np.errstate(all="ignore"):
        want = fn(x.astype(np.float64)).astype(dtype)
        got = ref(x)
        assert got.dtype == want.dtype and np.array_equal(_bits(got), _bits(want))
        scalar = ref(dtype(1.5))
    assert scalar == fn(np.float64(dtype(1.5))).astype(dtype) and np.ndim(scalar) == 0
    assert np.array_equal(_bits(x), _bits(x.copy()))        # the input is left alone


@pytest.mark.parametrize("name,fn", [("exp", np.exp), ("ln", np.log)])
def test_the_transcendentals_scratch_is_never_a_result(name, fn, monkeypatch):
    """exp / ln widen and round inside NumPy's float64 loop (graph/ops/vec_unary.py `_via_f64`): a result
    is a new array (the next call leaves the previous result alone), strided views give the bits of
    astype, and two threads never see each other's values."""
    from concurrent.futures import ThreadPoolExecutor

    ref = REGISTRY[name].ref
    rng = np.random.default_rng(11)

    def want(x):
        with np.errstate(all="ignore"):
            return fn(x.astype(np.float64)).astype(x.dtype)
    a = _nasty(rng, (6, 300), np.float32)
    b = _nasty(rng, (6, 300), np.float32)
    ra = ref(a)
    keep = ra.copy()
    rb = ref(b)
    assert not np.shares_memory(ra, rb) and np.array_equal(_bits(ra), _bits(keep))
    assert np.array_equal(_bits(rb), _bits(want(b)))
    view = a[:, ::3]                                              # not contiguous
    assert np.array_equal(_bits(ref(view)), _bits(want(view)))
    assert np.array_equal(_bits(ref(a)), _bits(want(a)))

    def run(seed):
        x = _nasty(np.random.default_rng(seed), (50, 129), np.float32)
        return all(np.array_equal(_bits(ref(x)), _bits(want(x))) for _ in range(20))
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(8)))


@asc.jit
def exp_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, tiles: int, scale: float):
    """Per row: the sum of exp(x * scale - row max) over whole tiles (a reduction, get_value, a scalar
    from data), then the output pass; `rows` or `tiles` may be 0 (zero-trip loops)."""
    cols = tiles * TILE
    base = asc.get_block_idx() * rows * cols
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, rows * cols + 8)
    zg.set_global_buffer(z + base, rows * cols + 8)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    vec = asc.LocalTensor(F32, asc.TPosition.VECCALC, 1024, TILE)
    tmp = asc.LocalTensor(F32, asc.TPosition.VECCALC, 2048, TILE)
    acc = asc.LocalTensor(F32, asc.TPosition.VECCALC, 3072, 8)
    out = asc.LocalTensor(F32, asc.TPosition.VECOUT, 4096, TILE)
    for r in range(rows):
        row = r * cols
        asc.duplicate(vec, -3.0e38, TILE)
        for i in range(tiles):
            asc.data_copy(t, xg[row + i * TILE:], TILE)
            asc.max(vec, vec, t, TILE)
        asc.reduce_max(acc, vec, tmp, TILE)
        m = acc.get_value(0)
        asc.duplicate(vec, 0.0, TILE)
        for i in range(tiles):
            asc.data_copy(t, xg[row + i * TILE:], TILE)
            asc.muls(tmp, t, scale, TILE)
            asc.adds(tmp, tmp, -m, TILE)
            asc.exp(tmp, tmp, TILE)
            asc.add(vec, vec, tmp, TILE)
        asc.reduce_sum(acc, vec, tmp, TILE)
        inv = 1.0 / acc.get_value(0)
        for i in range(tiles):
            asc.data_copy(t, xg[row + i * TILE:], TILE)
            asc.muls(out, t, scale, TILE)
            asc.adds(out, out, -m, TILE)
            asc.exp(out, out, TILE)
            asc.muls(out, out, inv, TILE)
            asc.data_copy(zg[row + i * TILE:], out, TILE)


@pytest.mark.parametrize("cores,rows,tiles,scale,nan_rate", [
    (8, 1, 8, 1.0, 0.0), (3, 5, 3, 0.5, 0.0), (2, 0, 4, 1.0, 0.0), (4, 3, 0, 1.0, 0.0), (1, 7, 1, 2.0, 0.0),
    (5, 2, 5, 1.0, 0.02), (2, 4, 2, -3.0, 0.1), (8, 2, 2, 40.0, 0.0)])
def test_warm_launches_of_exp_rows_give_the_bytes_of_the_slow_path(cores, rows, tiles, scale, nan_rate):
    rng = np.random.default_rng(cores * 100 + rows * 10 + tiles)
    n = cores * rows * tiles * TILE + 8
    want_z = np.full(n, 7.0, np.float32)
    for launch in range(2):
        x = _nasty(rng, (n,), nan_rate=nan_rate)
        z = np.full(n, 7.0, np.float32)
        k = asc.jit(exp_rows, backend="sim")
        k[cores](x, z, rows, tiles, scale)     # the first launch of the key: checked, then recorded
        k[cores](x, z, rows, tiles, scale)     # the replay
        want_z = np.full(n, 7.0, np.float32)
        with np.errstate(all="ignore"):
            _slow(exp_rows, (x, want_z, rows, tiles, scale), cores)
        assert np.array_equal(_bits(z), _bits(want_z)), launch


@asc.jit
def scaled_tiles(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    """Scalars per core (the block index), per iteration (the loop index) and both, in one batched loop."""
    blk = asc.get_block_idx()
    base = blk * tiles * TILE
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, tiles * TILE)
    zg.set_global_buffer(z + base, tiles * TILE)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    out = asc.LocalTensor(F32, asc.TPosition.VECOUT, 1024, TILE)
    for i in range(tiles):
        asc.data_copy(t, xg[i * TILE:], TILE)
        asc.muls(out, t, blk * 1.5 - 2.0, TILE)
        asc.adds(out, out, i * 0.5, TILE)
        asc.muls(out, out, blk + i * 0.25, TILE)
        asc.data_copy(zg[i * TILE:], out, TILE)


@pytest.mark.parametrize("cores,tiles", [(8, 8), (3, 1), (2, 0), (5, 3)])
def test_per_core_and_per_iteration_scalars_replay_with_the_bytes_of_the_slow_path(cores, tiles):
    rng = np.random.default_rng(cores + tiles)
    n = cores * tiles * TILE + 8
    x = _nasty(rng, (n,), nan_rate=0.02)
    z, want = np.full(n, 3.0, np.float32), np.full(n, 3.0, np.float32)
    k = asc.jit(scaled_tiles, backend="sim")
    k[cores](x, z, tiles)
    k[cores](x, z, tiles)
    with np.errstate(all="ignore"):
        _slow(scaled_tiles, (x, want, tiles), cores)
    assert np.array_equal(_bits(z), _bits(want))
