"""asc.gather_mask in normal mode, built-in and tensor patterns: against a loop-by-loop reference on sim and
eager; the returned count of a built-in pattern; what is not provided is refused at the user's line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import asc_trace as asc
from helpers import assert_points_at
from vec_more_kernels import gather_mask_kernel, gather_mask_reference


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([np.float16, np.int16, np.float32, np.int32]), st.one_of(st.integers(1, 7), st.just("tensor")),
       st.integers(1, 3), st.integers(1, 2), st.integers(0, 10), st.integers(0, 2), st.integers(0, 2**32 - 1),
       st.sampled_from(["sim", "eager"]))
def test_gather_mask_matches_the_reference(dt, pattern, repeat, blk, rep, prep, seed, backend):
    size = np.dtype(dt).itemsize
    rng = np.random.default_rng(seed)
    cap = 1024
    x = rng.integers(-1000, 1000, cap).astype(dt)
    pdt = np.uint16 if size == 2 else np.uint32
    pat = rng.integers(0, np.iinfo(pdt).max, 128, dtype=np.uint64).astype(pdt)
    out_cap = 1024
    z0 = rng.integers(-1000, 1000, out_cap).astype(dt)
    z = z0.copy()
    params = (blk, repeat, rep, prep)
    asc.jit(gather_mask_kernel, backend=backend)[1](x, pat, z, cap, 128, out_cap, pattern, params)
    assert z.tobytes() == gather_mask_reference(x, pat, z0, pattern, params).tobytes()


def test_pyasc_unit_test_call_traces_and_lowers():
    """The call of pyasc's python/test/unit/language/basic/test_vector_unary.py test_gather_mask_kernel."""
    @asc.jit
    def k():
        src0_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
        dst_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECOUT, addr=0, tile_size=512)
        params = asc.GatherMaskParams(src0_block_stride=1, repeat_times=1, src0_repeat_stride=0, src1_repeat_stride=0)
        rsvd_cnt = asc.gather_mask(dst_local, src0_local, 2, False, 0, params, asc.GatherMaskMode.DEFAULT)
        assert int(rsvd_cnt.expr.value) == 64
    assert "AscendC::GatherMask(" in asc.compile(k, ()).source


def test_what_is_not_provided_is_refused_at_the_users_line():
    @asc.jit
    def counter_mode():
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        asc.gather_mask(t, t, 1, True, 128, asc.GatherMaskParams())  # MARK-gm-counter
    with pytest.raises(asc.TraceError, match="counter mode") as ei:
        asc.compile(counter_mode, ())
    assert_points_at(ei.value, "MARK-gm-counter")

    @asc.jit
    def data_count():
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        p = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 1024, 16)
        n = asc.gather_mask(t, t, p, False, 0, asc.GatherMaskParams())
        asc.duplicate(t, 0.0, n)  # MARK-gm-data
    with pytest.raises(asc.TraceError, match="RSVD_CNT") as ei:
        asc.compile(data_count, ())
    assert_points_at(ei.value, "MARK-gm-data")
