"""Every op record against a plain NumPy expression, on the simulator: random sizes (tails included
where the op allows them) and every supported dtype, within the op's tolerance. A completeness test
fails if an op has no row here (or is not listed as covered by another test)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
import op_cases as C
from asc_trace.graph.ops import REGISTRY
from asc_trace.graph.ops.vec_cast import CAST_PAIRS

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

NUMPY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "add_relu": lambda a, b: np.maximum(a + b, a.dtype.type(0)),
    "sub_relu": lambda a, b: np.maximum(a - b, a.dtype.type(0)),
    # the ops that read dst: (src0, src1, old dst)
    "fused_mul_add": lambda a, b, d: a * d + b, "mul_add_dst": lambda a, b, d: a * b + d,
    "fused_mul_add_relu": lambda a, b, d: np.maximum(a * d + b, a.dtype.type(0)),
    "max": np.maximum, "min": np.minimum, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "exp": np.exp, "ln": np.log, "abs": np.abs, "sqrt": np.sqrt, "bitwise_not": np.invert,
    "relu": lambda a: np.where(a > 0, a, 0).astype(a.dtype),
    "rsqrt": lambda a: (1.0 / np.sqrt(a.astype(np.float64))).astype(a.dtype),
    "reciprocal": lambda a: (1.0 / a.astype(np.float64)).astype(a.dtype),
    "adds": lambda a, s, c: a + a.dtype.type(s), "muls": lambda a, s, c: a * a.dtype.type(s),
    "maxs": lambda a, s, c: np.maximum(a, a.dtype.type(s)), "mins": lambda a, s, c: np.minimum(a, a.dtype.type(s)),
    "leaky_relu": lambda a, s, c: np.where(a >= 0, a, a * a.dtype.type(s)).astype(a.dtype),
    "axpy": lambda a, s, c: (c + a * a.dtype.type(s)).astype(c.dtype),
    # the case's scalar is 3: a left shift loses the top bits (on the unsigned view), a right shift of a
    # signed type keeps the sign (Python's >> on the values, independent of NumPy's shift ufuncs)
    "shift_left": lambda a, s, c: np.array([(int(v) << s) & ((1 << 8 * a.itemsize) - 1) for v in a.view(
        f"u{a.itemsize}")], dtype=f"u{a.itemsize}").view(a.dtype),
    "shift_right": lambda a, s, c: np.array([int(v) >> s for v in a], dtype=a.dtype),
}
POSITIVE = {"ln", "sqrt", "rsqrt"}
READS_DST = {"fused_mul_add", "fused_mul_add_relu", "mul_add_dst"}
FAMILIES = ("vec_binary", "vec_unary", "vec_scalar", "vec_duplicate")
ELEMENTWISE = sorted((op.name, dt) for op in REGISTRY.values() if op.family in FAMILIES
                     for dt in sorted(op.dtypes or ()))


def _close(got: np.ndarray, want: np.ndarray, op: str, dt: str) -> None:
    rtol, atol = REGISTRY[op].tolerance(dt)
    if rtol == atol == 0:
        np.testing.assert_array_equal(got, want, err_msg=f"{op} {dt}")
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=f"{op} {dt}")


@pytest.mark.parametrize("op,dt", ELEMENTWISE)
@settings(max_examples=examples(24), **SETTINGS)
@given(n=st.integers(1, 300), seed=st.integers(0, 2**16))
def test_elementwise(op, dt, n, seed):
    rng = np.random.default_rng(seed)
    fam = REGISTRY[op].family
    cap = C.padded(n, dt)
    a = C.values(cap, dt, rng, positive=op in POSITIVE)
    b = C.values(cap, dt, rng, positive=op == "div")
    z0 = C.values(cap, dt, rng)
    scalar = 0.75 if dt in ("float16", "float32", "bfloat16") else 3
    if op == "leaky_relu":
        scalar = 0.25
    zarg = C.as_arg(z0.copy(), dt)
    C.elementwise[1](C.as_arg(a, dt), C.as_arg(b, dt), zarg, n, cap, op, fam, scalar)
    z = C.bits_of(zarg, dt)
    if op in READS_DST:
        want = NUMPY[op](a[:n], b[:n], z0[:n])
    elif fam == "vec_binary":
        want = NUMPY[op](a[:n], b[:n])
    elif fam == "vec_unary":
        with np.errstate(all="ignore"):
            want = NUMPY[op](a[:n])
    elif fam == "vec_duplicate":
        want = np.full(n, scalar, C.NP[dt]) if dt != "bfloat16" else \
            np.full(n, asc.dtypes.f32_to_bf16(np.float32([scalar]))[0], np.uint16)
    else:
        want = NUMPY[op](a[:n], scalar, z0[:n])
    _close(z[:n], np.asarray(want, dtype=C.NP[dt]), op, dt)
    np.testing.assert_array_equal(z[n:], z0[n:])          # nothing past `count` is touched


MASKED = sorted((op.name, sorted(op.dtypes)[0]) for op in REGISTRY.values()
                if op.family in ("vec_binary", "vec_unary", "vec_scalar") and op.name in NUMPY) + [
    ("duplicate", "float16"), ("duplicate", "int32")]


@pytest.mark.parametrize("op,dt", MASKED)
@settings(max_examples=examples(18), **SETTINGS)
@given(data=st.data())
def test_mask_form(op, dt, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    fam = REGISTRY[op].family
    per_rep = 256 // np.dtype(C.NP[dt]).itemsize
    if data.draw(st.booleans()):      # a count: 1..one repeat (more is refused in normal mode: test_mask_count_range.py)
        mask = (data.draw(st.integers(1, per_rep)),)
    else:
        words = data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=2, max_size=2))
        mask = (words[0], words[1] if per_rep > 64 else 0)
    repeat = data.draw(st.integers(1, 4))
    strides = tuple(data.draw(st.integers(1, 2)) for _ in range(3)) + tuple(data.draw(st.integers(8, 12))
                                                                           for _ in range(3))
    if fam != "vec_binary":   # UnaryRepeatParams: (dst_blk, src_blk, -, dst_rep, src_rep, -)
        strides = (strides[0], strides[1], strides[1], strides[3], strides[4], strides[4])
    per_block = per_rep // 8
    cap = max(((repeat - 1) * rep + 7 * blk + 1) * per_block for blk, rep in
              ((strides[0], strides[3]), (strides[1], strides[4]), (strides[2], strides[5])))
    a = C.values(cap, dt, rng, positive=op in POSITIVE)
    b = C.values(cap, dt, rng, positive=op == "div")
    z0 = C.values(cap, dt, rng)
    scalar = 0.75 if np.dtype(C.NP[dt]).kind == "f" else 3
    z = z0.copy()
    C.masked[1](a, b, z, cap, op, fam, scalar, mask, repeat, strides)
    with np.errstate(all="ignore"):
        want = C.masked_reference(NUMPY.get(op), a, b, z0, dt, mask, repeat, strides, fam, scalar)
    _close(z, want.astype(C.NP[dt]), op, dt)


def _all_values(dt: str) -> np.ndarray:
    """Every finite value of a 16-bit float type, sorted (for an independent rounding reference)."""
    bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    with np.errstate(invalid="ignore"):
        vals = bits.view(np.float16).astype(np.float64) if dt == "float16" else \
            (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    vals = np.unique(vals[np.isfinite(vals)])
    return vals


def _round_to_set(x: np.ndarray, grid: np.ndarray, mode: str) -> np.ndarray:
    """Round float64 x to a sorted grid of representable values; values past the grid overflow to inf
    (nearest modes) or stop at the largest value (directed modes), as IEEE rounding does."""
    i = np.clip(np.searchsorted(grid, x, side="right") - 1, 0, len(grid) - 1)
    lo = grid[i]
    hi = grid[np.clip(i + (lo < x), 0, len(grid) - 1)]
    lo = np.where(x < grid[0], -np.inf, lo)
    hi = np.where(x > grid[-1], np.inf, hi)
    exact = lo == x
    if mode == "floor":
        r = lo
    elif mode == "ceil":
        r = hi
    elif mode == "trunc":
        r = np.where(x > 0, lo, hi)
    else:
        dl, dh = x - lo, hi - x
        tie = dl == dh
        if mode in ("rint", "none"):
            r = np.where(dl < dh, lo, np.where(dh < dl, hi, lo))      # ties resolved by the caller
        else:   # round: ties away from zero
            r = np.where(dl < dh, lo, np.where(dh < dl, hi, np.where(x > 0, hi, lo)))
        r = np.where(tie & (mode in ("rint", "none")), np.nan, r)
    return np.where(exact, x, r)


CASTS = sorted((s, d, m) for (s, d), modes in CAST_PAIRS.items() for m in modes)


@pytest.mark.parametrize("src,dst,mode", CASTS)
@settings(max_examples=examples(12), **SETTINGS)
@given(n=st.integers(1, 200), seed=st.integers(0, 2**16))
def test_cast(src, dst, mode, n, seed):
    rng = np.random.default_rng(seed)
    cap = max(C.padded(n, src), C.padded(n, dst))
    if src == "float32":
        x = (rng.standard_normal(cap) * (1000 if dst != "float16" else 50)).astype(np.float32)
        x[: cap // 4] = np.round(x[: cap // 4] * 2) / 2               # exact .5 ties for the round modes
    elif src == "int32":
        x = rng.integers(-2**30, 2**30, cap).astype(np.int32)
    else:
        x = C.values(cap, src, rng)
    z0 = np.zeros(cap, C.NP[dst])
    zarg = C.as_arg(z0.copy(), dst)
    C.cast_kernel[1](C.as_arg(x, src), zarg, n, cap, int(getattr(asc.RoundMode, "CAST_" + mode.upper())))
    z = C.bits_of(zarg, dst)
    xs = asc.dtypes.bf16_to_f32(x[:n]).astype(np.float64) if src == "bfloat16" else x[:n].astype(np.float64)
    if dst in ("float16", "bfloat16") and mode not in ("odd",):
        grid = _all_values(dst)
        want = _round_to_set(xs, grid, mode)
        got = asc.dtypes.bf16_to_f32(z[:n]).astype(np.float64) if dst == "bfloat16" else z[:n].astype(np.float64)
        ties = np.isnan(want)                        # nearest-even ties: the even neighbour
        want = np.where(ties, got, want)
        if ties.any():
            bits = z[:n].view(np.uint16) if dst == "float16" else z[:n]
            assert np.all(bits[ties] % 2 == 0)
        np.testing.assert_array_equal(got, want)
    elif dst in ("float16", "bfloat16"):            # round to odd: a neighbour, odd when inexact
        grid = _all_values(dst)
        lo, hi = _round_to_set(xs, grid, "floor"), _round_to_set(xs, grid, "ceil")
        got = asc.dtypes.bf16_to_f32(z[:n]).astype(np.float64) if dst == "bfloat16" else z[:n].astype(np.float64)
        bits = (z[:n].view(np.uint16) if dst == "float16" else z[:n]).astype(np.int64)
        assert np.all((got == lo) | (got == hi))
        assert np.all((got == xs) | (bits % 2 == 1))
    elif np.dtype(C.NP[dst]).kind == "f":
        integral = {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "none": lambda v: v,
                    "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}[mode]
        if src == "int32":       # int -> float32 rounds the integer to float32's precision
            lo = xs.astype(np.float32).astype(np.float64)
            down = np.where(lo > xs, np.nextafter(lo.astype(np.float32), -np.inf), lo.astype(np.float32))
            up = np.where(lo < xs, np.nextafter(lo.astype(np.float32), np.inf), lo.astype(np.float32))
            want = {"floor": down, "ceil": up, "trunc": np.where(xs > 0, down, up),
                    "rint": xs.astype(np.float32), "none": xs.astype(np.float32)}.get(mode)
            if want is None:     # round: nearest, ties away
                d1, d2 = xs - down, up - xs
                want = np.where(d1 < d2, down, np.where(d2 < d1, up, np.where(xs > 0, up, down)))
        else:
            want = integral(xs).astype(C.NP[dst])
        np.testing.assert_array_equal(z[:n], np.asarray(want, C.NP[dst]))
    else:
        integral = {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "none": np.trunc,
                    "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}[mode]
        info = np.iinfo(C.NP[dst])
        want = np.clip(np.nan_to_num(integral(xs)), info.min, info.max).astype(C.NP[dst])
        np.testing.assert_array_equal(z[:n], want)
    np.testing.assert_array_equal(z[n:], z0[n:])


@pytest.mark.parametrize("op,dt", [(o, d) for o in ("reduce_sum", "reduce_max", "reduce_min")
                                   for d in ("float16", "float32")])
@settings(max_examples=examples(24), **SETTINGS)
@given(n=st.integers(1, 1000), cal_index=st.booleans(), seed=st.integers(0, 2**16))
def test_reduce(op, dt, n, cal_index, seed):
    rng = np.random.default_rng(seed)
    cap = C.padded(n, dt)
    x = C.values(cap, dt, rng)
    z = np.zeros(32 // np.dtype(C.NP[dt]).itemsize, C.NP[dt])
    cal = cal_index and op != "reduce_sum"
    C.reduce_kernel[1](x, z, n, cap, op, cal)
    if op == "reduce_sum":
        rtol, atol = REGISTRY[op].tolerance(dt)
        scale = np.abs(x[:n].astype(np.float64)).sum()
        assert abs(float(z[0]) - x[:n].astype(np.float64).sum()) <= rtol * scale + atol * n + 1e-3 * (dt == "float16")
        return
    pick = np.argmax if op == "reduce_max" else np.argmin
    i = int(pick(x[:n]))
    assert z[0] == x[i]
    if cal:
        bits = z.view(np.uint16 if dt == "float16" else np.uint32)
        assert int(bits[1]) == i


@pytest.mark.parametrize("op", ["whole_reduce_sum", "whole_reduce_max", "whole_reduce_min"])
@settings(max_examples=examples(24), **SETTINGS)
@given(data=st.data())
def test_whole_reduce(op, data):
    dt = data.draw(st.sampled_from(["float16", "float32"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    per_block = 32 // np.dtype(C.NP[dt]).itemsize
    per_rep = 8 * per_block
    mask = data.draw(st.integers(1, per_rep))
    repeat = data.draw(st.integers(1, 6))
    src_blk, src_rep = data.draw(st.integers(1, 2)), data.draw(st.integers(8, 16))
    order = data.draw(st.integers(0, 3))
    # dstRepStride counts whole results (docs ReduceRepeat, table 3); the index alone is a uint32
    width = 1 if op == "whole_reduce_sum" or order == 2 else (4 // np.dtype(C.NP[dt]).itemsize if order == 3 else 2)
    dst_rep = data.draw(st.integers(1, 4))
    cap = ((repeat - 1) * src_rep + 7 * src_blk + 1) * per_block
    cap = -(-cap // per_block) * per_block
    x = C.values(cap, dt, rng)
    z0 = C.values(256, dt, rng)
    z = z0.copy()
    C.whole_reduce_kernel[1](x, z, cap, op, mask, repeat, dst_rep, src_blk, src_rep, order)
    bits_t = np.uint16 if dt == "float16" else np.uint32
    for r in range(repeat):
        idx = [(r * src_rep + (e // per_block) * src_blk) * per_block + e % per_block for e in range(mask)]
        sel = x[idx].astype(np.float64)
        out = z[r * dst_rep * width: (r * dst_rep + 1) * width]
        if op == "whole_reduce_sum":
            rtol, atol = REGISTRY[op].tolerance(dt)
            assert abs(float(out[0]) - sel.sum()) <= rtol * np.abs(sel).sum() + atol * mask + 2e-3 * (dt == "float16")
            continue
        k = int(np.argmax(sel) if op == "whole_reduce_max" else np.argmin(sel))
        value, index = x[idx[k]], k
        got_bits = out.view(bits_t) if order != 3 else out.view(np.uint32)
        expect = {0: (value, index), 1: (index, value), 2: (value,), 3: (index,)}[order]
        for j, e in enumerate(expect):
            if isinstance(e, int):
                assert int(got_bits[j]) == e
            else:
                assert out[j] == e


@settings(max_examples=examples(36), **SETTINGS)
@given(dt=st.sampled_from(["float16", "float32"]), blocks=st.integers(1, 8), mode=st.integers(0, 5),
       scalar=st.sampled_from([None, 0.5]), seed=st.integers(0, 2**16))
def test_compare_select(dt, blocks, mode, scalar, seed):
    rng = np.random.default_rng(seed)
    n = blocks * 256 // np.dtype(C.NP[dt]).itemsize
    x = C.values(n, dt, rng)
    y = np.where(rng.random(n) < 0.2, x, C.values(n, dt, rng)).astype(C.NP[dt])   # some equal pairs
    bits = np.zeros(n // 8, np.uint8)
    z = np.zeros(n, C.NP[dt])
    C.cmpsel_kernel[1](x, y, bits, z, n, mode, scalar)
    ops = [np.less, np.greater, np.equal, np.less_equal, np.greater_equal, np.not_equal]
    want = ops[mode](x, y)
    np.testing.assert_array_equal(bits, np.packbits(want, bitorder="little"))
    other = x if scalar is None else np.full(n, scalar, C.NP[dt])
    np.testing.assert_array_equal(z, np.where(want, y, other))


def test_compare_needs_256_bytes():
    x = np.zeros(32, np.float32)            # 128 bytes
    with pytest.raises(asc.AlignmentError, match="256 bytes"):
        C.cmpsel_kernel[1](x, x, np.zeros(4, np.uint8), x.copy(), 32, 0, None)


@settings(max_examples=examples(36), **SETTINGS)
@given(dt=st.sampled_from(["float32", "float16", "int16"]), bc=st.integers(0, 6), bl=st.integers(1, 3),
       gap_in=st.integers(0, 2), gap_out=st.integers(0, 2), seed=st.integers(0, 2**16))
def test_data_copy_params(dt, bc, bl, gap_in, gap_out, seed):
    rng = np.random.default_rng(seed)
    per = 32 // np.dtype(C.NP[dt]).itemsize
    cap = max(1, bc) * (bl + max(gap_in, gap_out)) * per
    x = C.values(cap, dt, rng)
    z0 = C.values(cap, dt, rng)
    z = z0.copy()
    C.copy_params_kernel[1](x, z, cap, (bc, bl, gap_in, 0), (bc, bl, 0, gap_out))
    want = z0.copy()
    for i in range(bc):   # GM block i (gap_in apart) -> UB block i (contiguous) -> GM (gap_out apart)
        want[i * (bl + gap_out) * per:(i * (bl + gap_out) + bl) * per] = x[i * (bl + gap_in) * per:
                                                                          (i * (bl + gap_in) + bl) * per]
    np.testing.assert_array_equal(z, want)


@settings(max_examples=examples(45), **SETTINGS)
@given(dt=st.sampled_from(["float32", "float16", "int32"]), n=st.integers(1, 40), bc=st.integers(1, 4),
       src_gap=st.integers(0, 5), dst_gap=st.integers(0, 2), left=st.integers(0, 3), right=st.integers(0, 3),
       is_pad=st.booleans(), seed=st.integers(0, 2**16))
def test_data_copy_pad_in(dt, n, bc, src_gap, dst_gap, left, right, is_pad, seed):
    rng = np.random.default_rng(seed)
    size = np.dtype(C.NP[dt]).itemsize
    per = 32 // size
    row = -(-(left + n + right) // per) * per
    cap = bc * (row + dst_gap * per)
    x = C.values(bc * (n + src_gap) + per, dt, rng)
    z = np.zeros(cap, C.NP[dt])
    pv = 9.0 if dt != "int32" else 9
    C.pad_in_kernel[1](x, z, cap, (bc, n * size, src_gap * size, dst_gap, 0), (is_pad, left, right, pv))
    want = np.full(cap, 7, C.NP[dt])
    for i in range(bc):   # each row is filled to 32 bytes: pads and dummy tail (docs DataCopyPad)
        base = i * (row + dst_gap * per)
        data = x[i * (n + src_gap):i * (n + src_gap) + n]
        want[base + left:base + left + n] = data
        if left + right == 0:
            want[base + n:base + row] = data[0]
        elif is_pad:
            want[base:base + left] = pv
            want[base + left + n:base + row] = pv
    np.testing.assert_array_equal(z, want)


@settings(max_examples=examples(45), **SETTINGS)
@given(dt=st.sampled_from(["float32", "float16", "int16"]), n=st.integers(1, 40), bc=st.integers(1, 4),
       src_gap=st.integers(0, 2), dst_gap=st.integers(0, 5), seed=st.integers(0, 2**16))
def test_data_copy_pad_out(dt, n, bc, src_gap, dst_gap, seed):
    rng = np.random.default_rng(seed)
    size = np.dtype(C.NP[dt]).itemsize
    per = 32 // size
    row = -(-n // per) * per + src_gap * per
    cap = bc * row
    x = C.values(cap, dt, rng)
    z0 = C.values(bc * (n + dst_gap) + 1, dt, rng)
    z = z0.copy()
    C.pad_out_kernel[1](x, z, cap, (bc, n * size, src_gap, dst_gap * size, 0))
    want = z0.copy()
    for i in range(bc):
        want[i * (n + dst_gap):i * (n + dst_gap) + n] = x[i * row:i * row + n]
    np.testing.assert_array_equal(z, want)          # exactly block_len bytes per block are written


@settings(max_examples=examples(30), **SETTINGS)
@given(dt=st.sampled_from(["float32", "float16", "int32"]), i=st.integers(0, 63), j=st.integers(0, 63),
       seed=st.integers(0, 2**16))
def test_get_set_value(dt, i, j, seed):
    rng = np.random.default_rng(seed)
    x = C.values(64, dt, rng)
    z = np.zeros(64, C.NP[dt])
    C.scalar_access_kernel[1](x, z, 64, i, j)
    want = x.copy()
    want[j] = (x[i] * 2).astype(C.NP[dt])
    three = C.NP[dt](3)
    np.testing.assert_array_equal(z, (want * three).astype(C.NP[dt]))


def test_dump_tensor(capsys):
    x = np.arange(64, dtype=np.float32)
    C.dump_kernel[1](x, 4, ())
    C.dump_kernel[1](x, 10, (3, 4))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[block 0/1] DumpTensor: desc=5, addr=0, data_type=float32, position=UB, dump_size=4"
    assert out[1] == "[block 0/1] [0.000000, 1.000000, 2.000000, 3.000000]"
    assert out[2] == "[block 0/1] DumpTensor: desc=6, addr=32, data_type=float32, position=GM, dump_size=8"
    assert out[3].startswith("[block 0/1] [8.000000, 9.000000")
    assert out[5] == "[block 0/1] shape is [3, 4], dumpSize is 10, data is not enough."
    assert out[6:9] == ["[block 0/1] [[0.000000, 1.000000, 2.000000, 3.000000],",
                        "[block 0/1]  [4.000000, 5.000000, 6.000000, 7.000000],",
                        "[block 0/1]  [8.000000, 9.000000, -, -]]"]


# ops whose behaviour other test files pin down (framework, control, sync, debug)
COVERED_ELSEWHERE = {
    "global_tensor": "test_errors / test_seed_kernels", "local_tensor": "test_errors", "tpipe": "test_seed_kernels",
    "tque": "test_seed_kernels", "tbuf": "test_ops_framework", "init_buffer": "test_errors",
    "alloc_tensor": "test_seed_kernels", "enque": "test_seed_kernels", "deque": "test_seed_kernels",
    "free_tensor": "test_seed_kernels", "tbuf_get": "test_ops_framework", "for": "test_tracing",
    "end_for": "test_tracing", "if": "test_control_flow", "else": "test_control_flow",
    "end_if": "test_control_flow", "while": "test_control_flow", "yield": "test_control_flow",
    "end_while": "test_control_flow", "set_flag": "test_pipe_model", "wait_flag": "test_pipe_model",
    "pipe_barrier": "test_pipe_model", "printf": "test_debug_output", "data_copy": "test_seed_kernels + above",
    # the cube (tests/test_cube.py: against NumPy with fp32 accumulation, tails, bias, ReLU, errors)
    "data_copy_nd2nz": "test_cube", "data_copy_bias": "test_cube", "load_data": "test_cube", "mmad": "test_cube",
    "fixpipe": "test_cube", "init_const_value": "test_cube", "load_data_3dv2": "test_cube",
    "fixpipe_l1": "test_cube_fixpipe_l1",
    # cache and system calls (no data effect; trap stops the kernel)
    **{name: "test_system_ops" for name in ("data_cache_clean_and_invalid", "data_cache_preload", "icache_preload",
                                             "get_icache_preload_status", "data_sync_barrier", "get_arch_version",
                                             "trap", "init_soc_state", "set_l2_cache_hint")},
    **{name: "test_mask_register" for name in ("set_mask_count", "set_mask_norm", "set_vector_mask", "reset_mask")},
    **{name: "test_atomic" for name in ("set_atomic_add", "set_atomic_max", "set_atomic_min", "set_atomic_type",
                                        "set_atomic_none", "set_store_atomic_config", "get_store_atomic_config")},
}
# the high-level calls (asc.adv) are tested by tests/test_adv_*.py, whose own completeness test names each
COVERED_ELSEWHERE.update({"cross_core_set_flag": "test_mix", "cross_core_wait_flag": "test_mix"})
COVERED_ELSEWHERE.update({name: "test_adv_*" for name, op in REGISTRY.items() if op.family == "adv"})
# pyasc's further vector families: each family's test file checks it against a loop-by-loop NumPy reference
COVERED_ELSEWHERE.update({name: f"test_{op.family}" for name, op in REGISTRY.items()
                          if op.family in ("vec_block_reduce",)})
COVERED_ELSEWHERE.update({"copy": "test_vec_copy_brcb", "brcb": "test_vec_copy_brcb",
                          "compare_scalar": "test_vec_copy_brcb", "gather": "test_vec_gather",
                          "gatherb": "test_vec_gather", "gather_mask": "test_vec_gather_mask",
                          "cast": "test_ops (count form) + test_cast_mask (mask form)"})
# traced and emitted but run nowhere (graph/ops/vec_fused_cast.py NOT_EXECUTED): their test checks the emission
# against the real headers and the same NotProvidedError on every backend
COVERED_ELSEWHERE.update({name: "test_fused_cast" for name, op in REGISTRY.items()
                          if op.family in ("vec_fused_cast", "vec_cast_deq", "deq_scale")})
COVERED_ELSEWHERE.update({"sort32": "test_sort32", "transpose": "test_transpose"})
COVERED_ELSEWHERE.update({"sort": "test_mrg_sort"})
COVERED_ELSEWHERE.update({"alloc_event_id": "test_event_pool", "release_event_id": "test_event_pool",
                          "tbufpool": "test_buf_pool", "init_buf_pool": "test_buf_pool", "pool_reset": "test_buf_pool"})
COVERED_ELSEWHERE.update({"sync_all": "test_block_sync", "ib_set": "test_block_sync", "ib_wait": "test_block_sync"})
# an op with a test file of its own (tests/test_<name>.py: a new op's file, docs/adding-an-op.md)
COVERED_ELSEWHERE.update({name: f"test_{name}" for name in REGISTRY
                          if (Path(__file__).parent / f"test_{name}.py").exists()})
ROWS = ({op for op, _ in ELEMENTWISE} | {op for op, _ in MASKED} | {"cast", "reduce_sum", "reduce_max", "reduce_min",
        "whole_reduce_sum", "whole_reduce_max", "whole_reduce_min", "compare", "select", "data_copy",
        "data_copy_pad", "get_value", "set_value", "dump_tensor"})


def test_every_op_has_a_row():
    missing = set(REGISTRY) - ROWS - set(COVERED_ELSEWHERE)
    assert not missing, f"ops without a test row: {sorted(missing)}"


def test_unsupported_dtype_is_a_trace_error():
    from helpers import assert_points_at

    @asc.jit
    def k(x: asc.GlobalAddress):
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
        asc.exp(t, t, 64)  # MARK-exp-dtype

    with pytest.raises(asc.DTypeError, match="does not support int16") as ei:
        k[1](np.zeros(64, np.int16))
    assert_points_at(ei.value, "MARK-exp-dtype")
    assert "float16, float32" in str(ei.value)
    torch = pytest.importorskip("torch")
    with pytest.raises(asc.DTypeError, match="bfloat16") as ei:
        k[1](torch.zeros(64, dtype=torch.bfloat16))
    assert "asc.cast" in str(ei.value)


def test_cast_pair_and_mode_are_checked():
    with pytest.raises(asc.DTypeError, match="float16 to int64"):
        C.cast_kernel[1](np.zeros(64, np.float16), np.zeros(64, np.int64), 8, 64, 1)
    with pytest.raises(asc.DTypeError, match="CAST_ODD"):
        C.cast_kernel[1](np.zeros(64, np.float32), np.zeros(64, np.int32), 8, 64, 6)
