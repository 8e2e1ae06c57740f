"""asc.cast's mask form `(dst, src, RoundMode, mask, repeat_times, UnaryRepeatParams)`, positionally or by
pyasc's keywords: against a loop-by-loop reference over pairs, masks and strides on sim, eager and cpp (the
cpu_debug case, the vendor's own Cast, is in tests/vec_more_kernels.py backend_cases)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import lane
from lane import examples

import asc_trace as asc
from asc_trace.graph.numerics import cast_values
from helpers import assert_points_at
from vec_more_kernels import cast_mask_kernel, cast_mask_reference

PAIRS = [("float32", "float16", "CAST_RINT"), ("float16", "float32", "CAST_NONE"), ("float32", "int32", "CAST_FLOOR"),
         ("int32", "float32", "CAST_NONE"), ("float16", "int16", "CAST_TRUNC")]
# the fast lane builds nothing with g++ (tests/conftest.py): there the search draws sim and eager only
DRAWN_BACKENDS = ["sim", "eager"] if lane.FAST else ["sim", "eager", "cpp"]


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(PAIRS), st.data(), st.integers(1, 3), st.tuples(st.integers(1, 2), st.integers(1, 2),
                                                                      st.integers(0, 12), st.integers(0, 12)),
       st.sampled_from(DRAWN_BACKENDS))
def test_cast_mask_form_matches_the_reference(pair, data, repeat, strides, backend):
    src, dst, mode = pair
    sdt, ddt = np.dtype(src), np.dtype(dst)
    per_rep = 256 // max(sdt.itemsize, ddt.itemsize)
    if data.draw(st.booleans()):
        mask = data.draw(st.integers(1, per_rep))
    else:
        bits = data.draw(st.integers(1, (1 << per_rep) - 1))
        mask = (bits & (2**64 - 1), bits >> 64)
    rng = np.random.default_rng(5)
    x = (rng.random(2048) * 400 - 200).astype(sdt)
    z0 = (rng.random(2048) * 400 - 200).astype(ddt)
    z = z0.copy()
    code = int(getattr(asc.RoundMode, mode))
    asc.jit(cast_mask_kernel, backend=backend)[1](x, z, 2048, 2048, code, mask, repeat, strides)
    convert = lambda v: cast_values(v, getattr(asc, src), getattr(asc, dst), mode[5:].lower())  # noqa: E731
    assert z.tobytes() == cast_mask_reference(x, z0, convert, mask, repeat, strides).tobytes()


def test_pyasc_unit_test_calls_trace_and_lower():
    """The calls of pyasc's python/test/unit/language/basic/test_vector_unary.py test_cast_kernel."""
    @asc.jit
    def k():
        x_local = asc.LocalTensor(dtype=asc.float32, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
        z_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECOUT, addr=0, tile_size=512)
        asc.cast(z_local, x_local, asc.RoundMode.CAST_NONE, count=512)
        params = asc.UnaryRepeatParams(1, 1, 8, 8)
        asc.cast(z_local, x_local, asc.RoundMode.CAST_ROUND, mask=512, repeat_times=1, repeat_params=params)
        asc.cast(z_local, x_local, asc.RoundMode.CAST_FLOOR, mask=[2**64 - 1, 0], repeat_times=1,
                 repeat_params=params)
    src = asc.compile(k, ()).source
    assert src.count("AscendC::Cast(") == 3 and "AscendC::UnaryRepeatParams(" in src


def test_mask_form_misuse_is_refused_at_the_users_line():
    @asc.jit
    def wrong_params():
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 256, 64)
        asc.cast(z, x, asc.RoundMode.CAST_RINT, 64, 1, asc.BinaryRepeatParams())  # MARK-cast-params
    with pytest.raises(asc.TraceError, match="UnaryRepeatParams") as ei:
        asc.compile(wrong_params, ())
    assert_points_at(ei.value, "MARK-cast-params")

    @asc.jit
    def too_far():
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 256, 64)
        asc.cast(z, x, asc.RoundMode.CAST_RINT, 64, 2, asc.UnaryRepeatParams(1, 1, 4, 8))  # MARK-cast-oob
    with pytest.raises(asc.OutOfBoundsError) as ei:
        too_far[1]()
    assert_points_at(ei.value, "MARK-cast-oob")
