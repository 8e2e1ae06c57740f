"""asc.gather (count and mask forms) and asc.gatherb: against loop-by-loop NumPy references on sim and eager;
each offset is checked when the instruction runs; asc.scatter (unsupported on A2) is named not provided."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import asc_trace as asc
from helpers import assert_points_at
from vec_more_kernels import gather_kernel, gather_reference


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([np.float16, np.float32, np.int16, np.int32]), st.data(), st.sampled_from(["sim", "eager"]))
def test_gather_matches_the_reference(dt, data, backend):
    size = np.dtype(dt).itemsize
    per_rep = 256 // size
    cap = 512
    base = data.draw(st.integers(0, 16)) * size
    rng = np.random.default_rng(data.draw(st.integers(0, 9)))
    offs = (rng.integers(0, cap - 16, 512) * size).astype(np.uint32)
    if data.draw(st.booleans()):
        form = ("count", data.draw(st.integers(1, 300)))
    else:
        bits = data.draw(st.integers(1, (1 << per_rep) - 1))
        form = ("mask", (bits & (2**64 - 1), bits >> 64), data.draw(st.integers(1, 3)), data.draw(st.integers(0, 9)))
    x = rng.integers(-100, 100, cap).astype(dt)
    z0 = rng.integers(-100, 100, 1024).astype(dt)
    z = z0.copy()
    asc.jit(gather_kernel, backend=backend)[1](x, offs, z, cap, 512, 1024, base, form)
    assert z.tobytes() == gather_reference(x, offs, z0, base, form).tobytes()


@pytest.mark.parametrize("dt", [np.uint16, np.uint32])
def test_gatherb_matches_the_reference(dt):
    rng = np.random.default_rng(4)
    x = rng.integers(0, 60000, 512).astype(dt)
    offs = (rng.integers(0, 512 * np.dtype(dt).itemsize // 32, 64) * 32).astype(np.uint32)
    z0 = rng.integers(0, 60000, 1024).astype(dt)
    for form in (("gatherb", 3, 1, 8), ("gatherb", 2, 2, 20), ("gatherb", 2, 0, 1)):
        z = z0.copy()
        gather_kernel[1](x, offs, z, 512, 64, 1024, 0, form)
        assert z.tobytes() == gather_reference(x, offs, z0, 0, form).tobytes()


def test_pyasc_unit_test_calls_trace_and_lower():
    """The calls of pyasc's python/test/unit/language/basic/test_common_api.py."""
    @asc.jit
    def k():
        z_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECOUT, addr=0, tile_size=512)
        src_offset = asc.LocalTensor(dtype=asc.uint32, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
        x_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
        asc.gather(z_local, x_local, src_offset, src_base=0, count=512)
        asc.gather(z_local, x_local, src_offset, src_base=0, mask=512, repeat_times=1, dst_rep_stride=8)
        asc.gather(z_local, x_local, src_offset, src_base=0, mask=[2**64 - 1, 2**64 - 1], repeat_times=1,
                   dst_rep_stride=8)
        u = asc.LocalTensor(dtype=asc.uint16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
        asc.gatherb(u, u, src_offset, repeat_times=1, repeat_params=asc.GatherRepeatParams(dst_blk_stride=1,
                                                                                         dst_rep_stride=8))
    src = asc.compile(k, ()).source
    assert src.count("AscendC::Gather(") == 3 and "AscendC::Gatherb(" in src


def test_an_offset_past_the_source_is_refused_at_the_users_line():
    x = np.arange(64, dtype=np.float32)
    offs = np.zeros(64, np.uint32)
    offs[5] = 64 * 4            # one element past the 64-element source
    with pytest.raises(asc.OutOfBoundsError, match=r"256 bytes \(lane 5\) is past the source's 64 elements") as ei:
        gather_kernel[1](x, offs, np.zeros(64, np.float32), 64, 64, 64, 0, ("count", 64))
    assert "vec_more_kernels.py" in str(ei.value)
    offs[5] = 6                 # not a multiple of sizeof(float)
    with pytest.raises(asc.OutOfBoundsError, match="not a multiple of 4 bytes"):
        gather_kernel[1](x, offs, np.zeros(64, np.float32), 64, 64, 64, 0, ("count", 64))


def test_misuse_is_refused_at_the_users_line():
    @asc.jit
    def int_offsets():
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        o = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 256, 64)
        asc.gather(t, t, o, 0, 64)  # MARK-gather-offsets
    with pytest.raises(asc.DTypeError, match="uint32 byte offsets") as ei:
        asc.compile(int_offsets, ())
    assert_points_at(ei.value, "MARK-gather-offsets")

    @asc.jit
    def odd_base():
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        o = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 256, 64)
        asc.gather(t, t, o, 2, 64)  # MARK-gather-base
    with pytest.raises(asc.TraceError, match="not a multiple of sizeof") as ei:
        asc.compile(odd_base, ())
    assert_points_at(ei.value, "MARK-gather-base")

    with pytest.raises(asc.NotProvidedError, match="Scatter is not supported on Atlas A2"):
        asc.scatter
