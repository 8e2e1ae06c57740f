"""asc.block_reduce_sum / max / min, asc.pair_reduce_sum, asc.repeat_reduce_sum: against a loop-by-loop
NumPy reference over dtypes, masks and strides on sim and eager; pyasc's own unit-test calls; misuse is
an asc_trace error at the user's line; the emitted calls resolve against the real headers."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from helpers import assert_points_at
from vec_more_kernels import reduce_block_kernel, reduce_block_reference

OPS = ["block_reduce_sum", "block_reduce_max", "block_reduce_min", "pair_reduce_sum", "repeat_reduce_sum"]


@st.composite
def cases(draw):
    op = draw(st.sampled_from(OPS))
    dt = draw(st.sampled_from([np.float16, np.float32]))
    per_rep = 256 // np.dtype(dt).itemsize
    if op == "repeat_reduce_sum" or draw(st.booleans()):
        mask = draw(st.integers(1, per_rep))
        if op == "pair_reduce_sum":
            mask += mask % 2
    else:
        bits = draw(st.integers(1, (1 << per_rep) - 1))
        if op == "pair_reduce_sum":       # whole pairs
            bits = sum(3 << (2 * i) for i in range(per_rep // 2) if (bits >> (2 * i)) & 1) or 3
        mask = (bits & ((1 << 64) - 1), bits >> 64)
    repeat = draw(st.integers(1, 4))
    dst_rep = draw(st.integers(0, 2))
    src_blk = draw(st.integers(1, 2))
    src_rep = draw(st.integers(0, 17))
    return op, dt, mask, repeat, dst_rep, src_blk, src_rep


def _run(backend, op, dt, mask, repeat, dst_rep, src_blk, src_rep, seed=0):
    per_block = 32 // np.dtype(dt).itemsize
    cap = ((repeat - 1) * src_rep + 7 * src_blk + 1) * per_block
    out_cap = 4 * 256 // np.dtype(dt).itemsize         # the most a case writes: 3 x 2 x 64 + 64 halves
    rng = np.random.default_rng(seed)
    x = (rng.random(cap) * 8 - 4).astype(dt)
    z0 = (rng.random(out_cap) * 8 - 4).astype(dt)
    z = z0.copy()
    asc.jit(reduce_block_kernel, backend=backend)[1](x, z, cap, out_cap, op, mask, repeat, dst_rep, src_blk, src_rep)
    return z, reduce_block_reference(op, x, z0, mask, repeat, dst_rep, src_blk, src_rep)


@settings(max_examples=examples(60), deadline=None)
@given(cases())
def test_matches_the_reference_on_sim(case):
    got, want = _run("sim", *case)
    assert got.tobytes() == want.tobytes(), case


@pytest.mark.parametrize("op", OPS)
def test_eager_gives_the_same_bytes(op):
    mask = 100 if op != "pair_reduce_sum" else (0xFFFF0000FFFF0000, 0x0F0F)
    got, want = _run("eager", op, np.float16, mask, 3, 1, 2, 17)
    assert got.tobytes() == want.tobytes()


def test_pyasc_unit_test_calls_trace_and_lower():
    """The calls of pyasc's python/test/unit/language (test_vector_reduce.py, test_common_api.py)."""
    @asc.jit
    def k():
        x_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
        z_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECOUT, addr=0, tile_size=512)
        asc.repeat_reduce_sum(z_local, x_local, repeat_time=4, mask=128, dst_blk_stride=0, src_blk_stride=1,
                              dst_rep_stride=8, src_rep_stride=8)
        asc.pair_reduce_sum(z_local, x_local, repeat_time=2, mask=128, dst_rep_stride=1, src_blk_stride=1,
                            src_rep_stride=8)
        asc.pair_reduce_sum(z_local, x_local, repeat_time=2, mask=[2**64 - 1, 2**64 - 1], dst_rep_stride=1,
                            src_blk_stride=1, src_rep_stride=8)
        asc.block_reduce_sum(z_local, x_local, repeat=1, mask=128, dst_rep_stride=8, src_blk_stride=1, src_rep_stride=8)
        asc.block_reduce_max(z_local, x_local, 1, [2**64 - 1, 2**64 - 1], 8, 1, 8)
    ck = asc.compile(k, ())
    for c in ("RepeatReduceSum", "PairReduceSum", "BlockReduceSum", "BlockReduceMax"):
        assert f"AscendC::{c}(" in ck.source


def test_a_pair_split_by_the_mask_is_refused_at_the_users_line():
    @asc.jit
    def k():
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        asc.pair_reduce_sum(t, t, 1, 127, 1, 1, 8)  # MARK-pair-odd
    with pytest.raises(asc.TraceError, match=r"one lane of the pair \(126, 127\)") as ei:
        asc.compile(k, ())
    assert_points_at(ei.value, "MARK-pair-odd")


def test_repeat_reduce_sum_has_no_bit_mask_and_keywords_are_checked():
    @asc.jit
    def bits():
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        asc.repeat_reduce_sum(t, t, 1, [1, 0], 0, 1, 1, 8)  # MARK-rrs-bits
    with pytest.raises(asc.TraceError, match="no bit mask") as ei:
        asc.compile(bits, ())
    assert_points_at(ei.value, "MARK-rrs-bits")

    @asc.jit
    def typo():
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        asc.block_reduce_sum(t, t, repeat=1, mask=64, dst_rep_stride=1, src_blk_stride=1, src_rep=8)  # MARK-kw
    with pytest.raises(asc.TraceError, match="unexpected keyword argument 'src_rep'") as ei:
        asc.compile(typo, ())
    assert_points_at(ei.value, "MARK-kw")


def test_int_and_mixed_dtypes_are_refused():
    @asc.jit
    def k():
        t = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 512)
        asc.block_reduce_sum(t, t, 1, 128, 1, 1, 8)  # MARK-int
    with pytest.raises(asc.DTypeError, match="does not support int16") as ei:
        asc.compile(k, ())
    assert_points_at(ei.value, "MARK-int")


def test_bounds_are_exact_to_the_lanes_and_results_touched():
    """Out of bounds only by what the instruction touches: 2 repeats of float32 with mask 8 read blocks 0
    of each repeat (src_rep 8: elements 0-7 and 64-71) and write results 0 and 8."""
    @asc.jit
    def fits(x: asc.GlobalAddress, z: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 72)
        out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 16)
        asc.duplicate(a, 1.0, 72)
        asc.block_reduce_sum(out, a, 2, 8, 1, 1, 8)
        g = asc.GlobalTensor()
        g.set_global_buffer(z)
        asc.data_copy(g, out, 16)
    z = np.zeros(16, np.float32)
    fits[1](np.zeros(8, np.float32), z)
    assert z[0] == 8 and z[8] == 8

    @asc.jit
    def too_small(x: asc.GlobalAddress, z: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 16)
        asc.duplicate(a, 1.0, 64)
        asc.block_reduce_sum(out, a, 2, 8, 1, 1, 8)  # MARK-oob
    with pytest.raises(asc.OutOfBoundsError) as ei:
        too_small[1](np.zeros(8, np.float32), np.zeros(16, np.float32))
    assert_points_at(ei.value, "MARK-oob")


def test_a_mask_count_past_one_repeat_is_refused_as_the_api_does():
    """BlockReduceSum checks its mask count (CheckMaskValue: float32 1..64) instead of saturating it."""
    @asc.jit
    def k():
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        asc.block_reduce_sum(t, t, 1, 100, 1, 1, 8)  # MARK-mask-count
    with pytest.raises(asc.TraceError, match=r"1\.\.64 .*got 100") as ei:
        asc.compile(k, ())
    assert_points_at(ei.value, "MARK-mask-count")


def test_the_cpp_backend_says_it_has_no_model_at_the_call():
    with pytest.raises(asc.ToolchainError, match="no model of Ascend C BlockReduceSum") as ei:
        _run("cpp", "block_reduce_sum", np.float32, 64, 1, 1, 1, 8)
    assert "vec_more_kernels.py" in str(ei.value) and "backend='sim'" in str(ei.value)
