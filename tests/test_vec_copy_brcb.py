"""asc.copy, asc.brcb and asc.compare_scalar: against loop-by-loop NumPy references over dtypes, masks and
strides on sim and eager; pyasc's own unit-test calls; misuse is an asc_trace error at the user's line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from helpers import assert_points_at
from vec_more_kernels import (brcb_kernel, brcb_reference, compare_scalar_kernel, compare_scalar_reference,
                              copy_kernel, copy_reference)

DTYPES = [np.float16, np.float32, np.int16, np.int32, np.uint16]


def _data(n, dt, rng):
    if np.dtype(dt).kind == "f":
        return (rng.random(n) * 8 - 4).astype(dt)
    return rng.integers(0, 1000, n).astype(dt)


@st.composite
def masks(draw, per_rep):
    if draw(st.booleans()):
        return draw(st.integers(1, per_rep))
    bits = draw(st.integers(1, (1 << per_rep) - 1))
    return (bits & ((1 << 64) - 1), bits >> 64)


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(DTYPES), st.data(), st.integers(1, 3), st.tuples(st.integers(1, 3), st.integers(1, 3),
                                                                       st.integers(0, 12), st.integers(0, 12)),
       st.sampled_from(["sim", "eager"]))
def test_copy_matches_the_reference(dt, data, repeat, strides, backend):
    per_block = 32 // np.dtype(dt).itemsize
    mask = data.draw(masks(8 * per_block))
    dst_blk, src_blk, dst_rep, src_rep = strides
    rng = np.random.default_rng(1)
    cap = ((repeat - 1) * src_rep + 7 * src_blk + 1) * per_block
    out_cap = ((repeat - 1) * dst_rep + 7 * dst_blk + 1) * per_block
    x, z0 = _data(cap, dt, rng), _data(out_cap, dt, rng)
    z = z0.copy()
    asc.jit(copy_kernel, backend=backend)[1](x, z, cap, out_cap, mask, repeat, strides)
    assert z.tobytes() == copy_reference(x, z0, mask, repeat, strides).tobytes()


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from(DTYPES), st.integers(1, 4), st.integers(0, 3), st.integers(0, 20),
       st.sampled_from(["sim", "eager"]))
def test_brcb_matches_the_reference(dt, repeat, blk, rep, backend):
    per_block = 32 // np.dtype(dt).itemsize
    rng = np.random.default_rng(2)
    cap = -(-repeat * 8 // per_block) * per_block
    out_cap = ((repeat - 1) * rep + 7 * blk + 1) * per_block
    x, z0 = _data(cap, dt, rng), _data(out_cap, dt, rng)
    z = z0.copy()
    asc.jit(brcb_kernel, backend=backend)[1](x, z, cap, out_cap, repeat, blk, rep)
    assert z.tobytes() == brcb_reference(x, z0, repeat, blk, rep).tobytes()


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from([np.float16, np.float32]), st.integers(0, 5), st.booleans(), st.integers(1, 2),
       st.integers(1, 2), st.integers(8, 12))
def test_compare_scalar_matches_the_reference(dt, mode, count_form, k, blk, rep):
    per_rep = 256 // np.dtype(dt).itemsize
    per_block = per_rep // 8
    repeat = k * 256 // per_rep            # whole 32-byte blocks of bits, for the copy out
    rng = np.random.default_rng(3)
    cap = ((repeat - 1) * rep + 7 * blk + 1) * per_block
    x = (np.round(rng.random(cap) * 8 - 4) / 2).astype(dt)
    form = ("count", repeat * per_rep) if count_form else ("mask", per_rep, repeat, blk, rep)
    nbytes = repeat * per_rep // 8
    bits = np.zeros(nbytes, np.uint8)
    compare_scalar_kernel[1](x, bits, cap, nbytes, 0.5, mode, form)
    assert bits.tobytes() == compare_scalar_reference(x, nbytes, 0.5, mode, form).tobytes()


def test_pyasc_unit_test_calls_trace_and_lower():
    """The calls of pyasc's python/test/unit/language (test_common_api.py, test_vector_cmpsel.py)."""
    @asc.jit
    def k():
        dst_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
        src_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
        asc.copy(dst=dst_local, src=src_local, mask=64, repeat_time=4, repeat_params=asc.CopyRepeatParams(1, 1, 8, 8),
                 is_set_mask=True)
        asc.brcb(dst_local, src_local, repeat_times=1, repeat_params=asc.BrcbRepeatParams(1, 8))
        z_local = asc.LocalTensor(dtype=asc.uint8, pos=asc.TPosition.VECOUT, addr=0, tile_size=512)
        asc.compare_scalar(z_local, src_local, 1, cmp_mode=asc.CMPMODE.LT, count=512)
        params = asc.UnaryRepeatParams(1, 1, 8, 8)
        asc.compare_scalar(z_local, src_local, 1, cmp_mode=asc.CMPMODE.LT, mask=512, repeat_times=1,
                           repeat_params=params)
        asc.compare_scalar(z_local, src_local, 1, cmp_mode=asc.CMPMODE.LT, mask=[2**64 - 1, 2**64 - 1],
                           repeat_times=1, repeat_params=params)
    src = asc.compile(k, ()).source
    for c in ("Copy", "Brcb", "CompareScalar"):
        assert f"AscendC::{c}(" in src


def test_a_partial_compare_scalar_mask_is_refused_because_a2_ignores_it():
    @asc.jit
    def k():
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        m = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 256, 32)
        asc.compare_scalar(m, x, 0.0, asc.CMPMODE.LT, 32, 1, asc.UnaryRepeatParams())  # MARK-cmps-mask
    with pytest.raises(asc.TraceError, match="does not apply the mask") as ei:
        asc.compile(k, ())
    assert_points_at(ei.value, "MARK-cmps-mask")


def test_misuse_is_refused_at_the_users_line():
    @asc.jit
    def count_tail():
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        m = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 256, 32)
        asc.compare_scalar(m, x, 0.0, asc.CMPMODE.LT, 48)  # MARK-cmps-256
    with pytest.raises(asc.AlignmentError, match="multiple of 256 bytes") as ei:
        asc.compile(count_tail, ())
    assert_points_at(ei.value, "MARK-cmps-256")

    @asc.jit
    def wrong_params():
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        asc.copy(x, x, 64, 1, asc.UnaryRepeatParams())  # MARK-copy-params
    with pytest.raises(asc.TraceError, match="CopyRepeatParams") as ei:
        asc.compile(wrong_params, ())
    assert_points_at(ei.value, "MARK-copy-params")

    @asc.jit
    def bytes_():
        x = asc.LocalTensor(asc.int8, asc.TPosition.VECIN, 0, 64)
        asc.brcb(x, x, 1, asc.BrcbRepeatParams())  # MARK-brcb-int8
    with pytest.raises(asc.DTypeError, match="does not support int8") as ei:
        asc.compile(bytes_, ())
    assert_points_at(ei.value, "MARK-brcb-int8")


def test_brcb_bounds_are_the_blocks_it_fills():
    @asc.jit
    def k(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 16)
        out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 64)
        asc.duplicate(a, 1.0, 16)
        asc.brcb(out, a, 2, asc.BrcbRepeatParams(1, 8))  # MARK-brcb-oob
    with pytest.raises(asc.OutOfBoundsError, match="128") as ei:
        k[1](np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-brcb-oob")
