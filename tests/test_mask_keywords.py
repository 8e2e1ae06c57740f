"""pyasc's keyword spellings of the vector ops' forms, and the mask form's bounds: only the lanes the mask
selects are accessed, so tensors sized to those lanes are accepted (issue 21's example:
`add(c, a, b, 64, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8))` on 64-element float16 tensors)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from asc_trace.errors import OutOfBoundsError, TraceError

BACKENDS = ("sim", "eager", "cpp")


def _kernel(form: str):
    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int],
          mask: asc.ConstExpr[int], repeat: asc.ConstExpr[int]):
        gx, gy, gz = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        gx.set_global_buffer(x, n)
        gy.set_global_buffer(y, n)
        gz.set_global_buffer(z, n)
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, n)
        b = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 16384, n)
        c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 32768, n)
        asc.data_copy(a, gx, n)
        asc.data_copy(b, gy, n)
        asc.data_copy(c, gz, n)
        p = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
        if form == "positional":
            asc.add(c, a, b, mask, repeat, p)
        elif form == "keywords":
            asc.add(c, a, b, mask=mask, repeat_times=repeat, repeat_params=p)
        elif form == "mixed":
            asc.add(c, a, b, mask, repeat_times=repeat, repeat_params=p, is_set_mask=True)
        else:
            asc.add(c, a, b, count=n)
        asc.data_copy(gz, c, n)
    return k


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", ["positional", "keywords", "mixed"])
def test_issue_example_mask_64_on_64_elements(backend, form):
    """64 lanes of one repeat touch 64 float16 elements: tensors of 64 elements are enough."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(64).astype(np.float16)
    y = rng.standard_normal(64).astype(np.float16)
    z = np.zeros(64, np.float16)
    asc.jit(_kernel(form), backend=backend)[1](x, y, z, 64, 64, 1)
    np.testing.assert_array_equal(z, x + y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_count_keyword(backend):
    x = np.arange(96, dtype=np.float16)
    y = np.ones(96, np.float16)
    z = np.zeros(96, np.float16)
    asc.jit(_kernel("count"), backend=backend)[1](x, y, z, 96, 0, 0)
    np.testing.assert_array_equal(z, x + 1)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lanes=st.integers(1, 128), repeat=st.integers(1, 3), backend=st.sampled_from(("sim", "eager")))
def test_tensor_sized_to_the_selected_lanes(lanes, repeat, backend):
    """The tensors end at the last selected element of the last repeat, rounded up to the 32-byte copy unit
    (a count past 128 is refused in normal mask mode: test_mask_count_range.py)."""
    sel = min(lanes, 128)
    n = (repeat - 1) * 128 + sel
    n = -(-n // 16) * 16
    rng = np.random.default_rng(lanes)
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    z0 = rng.standard_normal(n).astype(np.float16)
    z = z0.copy()
    asc.jit(_kernel("keywords"), backend=backend)[1](x, y, z, n, lanes, repeat)
    want = z0.copy()
    for r in range(repeat):
        want[r * 128:r * 128 + sel] = x[r * 128:r * 128 + sel] + y[r * 128:r * 128 + sel]
    np.testing.assert_array_equal(z, want)


def test_a_lane_past_the_tensor_is_still_refused():
    """65 lanes need 65 elements; a 64-element tensor is too short (the check is tighter, not gone)."""
    x = np.zeros(64, np.float16)
    with pytest.raises(OutOfBoundsError):
        asc.jit(_kernel("keywords"), backend="sim")[1](x, x.copy(), x.copy(), 64, 65, 1)


def _bad(call):
    @asc.jit
    def k():
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
        p = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
        call(a, p)
    return k


@pytest.mark.parametrize("call,words", [
    (lambda a, p: asc.add(a, a, a, mask=64, repeat_times=1), "repeat_params"),
    (lambda a, p: asc.add(a, a, a, 64, repeat_times=1, repeat_params=asc.UnaryRepeatParams(1, 1, 8, 8)),
     "BinaryRepeatParams"),
    (lambda a, p: asc.add(a, a, a, 64, mask=64), "both by position and by keyword"),
    # the mask register (tests/test_mask_register.py): nothing has written it yet
    (lambda a, p: asc.add(a, a, a, mask=64, repeat_times=1, repeat_params=p, is_set_mask=False),
     "nothing in this kernel has set before"),
    (lambda a, p: asc.add(a, a, a, mask=0, repeat_times=1, repeat_params=p), "1 or more"),
    (lambda a, p: asc.exp(a, a, cnt=5), "unexpected keyword argument 'cnt'"),
    (lambda a, p: asc.exp(a, a, 64, 1), "is_set_mask of asc.exp must be True or False"),
    (lambda a, p: asc.exp(a, a, 64, 1, p, True, 9), "asc.exp takes asc.exp(dst, src, count"),
])
def test_misuse_is_a_trace_error_at_the_users_line(call, words):
    with pytest.raises(TraceError) as e:
        _bad(call)[1]()
    message, _, where = str(e.value).partition("-->")     # the message, not the quoted source line
    assert words in message
    assert "test_mask_keywords.py" in where


@pytest.mark.parametrize("backend", ("sim", "cpp"))
def test_duplicate_mask_form_keywords(backend):
    @asc.jit
    def k(z: asc.GlobalAddress):
        gz = asc.GlobalTensor()
        gz.set_global_buffer(z, 512)
        c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 512)
        asc.data_copy(c, gz, 512)
        asc.duplicate(c, 2.5, mask=[0xFF00FF00FF00FF00, 0], repeat_times=2, dst_block_stride=2, dst_repeat_stride=16)
        asc.data_copy(gz, c, 512)
    z = np.zeros(512, np.float32)
    asc.jit(k, backend=backend)[1](z)
    want = np.zeros(512, np.float32)
    for r in range(2):
        for e in range(64):
            if (0xFF00FF00FF00FF00 >> e) & 1:
                blk, j = divmod(e, 8)
                want[(r * 16 + blk * 2) * 8 + j] = 2.5
    np.testing.assert_array_equal(z, want)
