"""The vector mask register (graph/ops/mask_reg.py, proxies/mask_reg.py): set_vector_mask / reset_mask /
set_mask_norm / set_mask_count are emitted as the vendor's calls, and an element-wise op in its mask form
with is_set_mask=False computes with the lanes the register holds at that point (the last write before it:
set_vector_mask, reset_mask, a mask-form op's own mask, a count-form op's full mask). Checked against a
NumPy model of the lanes on sim, eager and cpp, and on cpu_debug, whose register is the real headers'
(the stub's); where the value is not known while tracing the call is refused at the user's line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at

BACKENDS = ["sim", "eager", "cpp"] + (["cpu_debug"] if headers_if_configured() is not None else [])
FULL = (1 << 64) - 1
N = 256


@asc.jit
def via_register(x: asc.GlobalAddress, z: asc.GlobalAddress, hi: asc.ConstExpr[int], lo: asc.ConstExpr[int],
                 length: asc.ConstExpr[int]):
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(z)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, N)
    asc.data_copy(a, g, N)
    asc.duplicate(c, 0.0, N)                       # count form: leaves NORMAL mode, every lane
    asc.set_vector_mask(hi, lo, dtype=asc.float16, mode=asc.MaskMode.NORMAL)
    asc.add(c, a, a, mask=0, repeat_times=2, repeat_params=asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8), is_set_mask=False)
    asc.muls(c, c, 3.0, [1, 0], 1, asc.UnaryRepeatParams(1, 1, 8, 8))     # writes the register: lane 0
    asc.adds(c, c, 1.0, 0, 2, asc.UnaryRepeatParams(1, 1, 8, 8), is_set_mask=False)
    asc.set_vector_mask(length, dtype=asc.float16, mode=asc.MaskMode.NORMAL)
    asc.adds(c, c, 10.0, 0, 2, asc.UnaryRepeatParams(1, 1, 8, 8), is_set_mask=False)
    asc.reset_mask()
    asc.adds(c[128:], c[128:], 100.0, 0, 1, asc.UnaryRepeatParams(1, 1, 8, 8), is_set_mask=False)
    asc.data_copy(o, c, N)


def _want(x: np.ndarray, hi: int, lo: int, length: int) -> np.ndarray:
    lanes = [(lo | (hi << 64)) >> i & 1 for i in range(128)]
    c = np.zeros(N, np.float16)
    for r in range(2):
        for i in range(128):
            if lanes[i]:
                c[r * 128 + i] = x[r * 128 + i] + x[r * 128 + i]
    c[0] = c[0] * np.float16(3)
    c[0] += np.float16(1)
    c[128] += np.float16(1)
    for r in range(2):
        c[r * 128:r * 128 + min(length, 128)] += np.float16(10)
    c[128:] += np.float16(100)
    return c


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hi=st.integers(0, FULL), lo=st.integers(1, FULL), length=st.integers(1, 200),
       backend=st.sampled_from(BACKENDS))
def test_is_set_mask_false_uses_the_register(hi, lo, length, backend):
    x = (np.arange(N) % 13).astype(np.float16)
    z = np.zeros(N, np.float16)
    asc.jit(via_register, backend=backend)[1](x, z, hi, lo, length)
    np.testing.assert_array_equal(z, _want(x, hi, lo, length))


def test_the_writes_and_the_reads_are_emitted_as_the_vendor_spells_them():
    x = np.zeros(N, np.float16)
    src = asc.compile(via_register, (x, x, 3, 5, 64)).source
    for text in ("AscendC::SetVectorMask<half, AscendC::MaskMode::NORMAL>(static_cast<uint64_t>(3), "
                 "static_cast<uint64_t>(5));", "AscendC::Add<half, false>(", "AscendC::Adds<half, false>(",
                 "AscendC::SetVectorMask<half, AscendC::MaskMode::NORMAL>(static_cast<int32_t>(64));",
                 "AscendC::ResetMask();", "AscendC::Muls(asct_t"):
        assert text in src, text


def _kernel(body):
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
        body(a, n)
    return k


def _add(a):
    asc.add(a, a, a, 0, 1, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8), is_set_mask=False)  # MARK-read


@pytest.mark.parametrize("body,words", [
    (lambda a, n: _add(a), "nothing in this kernel has set before"),
    (lambda a, n: (asc.reset_mask(), asc.exp(a, a, 64), _add(a)) and None, None),
    (lambda a, n: (asc.reset_mask(), [asc.adds(a, a, 1.0, 64) for _ in asc.range(n)], _add(a)), "loop or branch"),
    (lambda a, n: (asc.reset_mask(), asc.cast(a.reinterpret_cast(asc.int32), a, asc.RoundMode.CAST_ROUND, 64),
                   _add(a)), "does not follow"),
    (lambda a, n: (asc.set_vector_mask(1, 0, dtype=asc.float32, mode=asc.MaskMode.NORMAL), _add(a)),
     "selects no lane"),    # a b32 op reads only the low word
    (lambda a, n: (asc.reset_mask(), asc.duplicate(a, 1.0, 0, 1, 1, 8, is_set_mask=False)), "element-wise ops"),
])
def test_an_unknown_or_unusable_register_is_refused_at_the_users_line(body, words):
    k = _kernel(body)
    if words is None:                     # a count-form op in between: the register is every lane, NORMAL
        k[1](np.zeros(8, np.float32), 2)
        return
    with pytest.raises(asc.TraceError, match=words) as ei:
        k[1](np.zeros(8, np.float32), 2)
    assert "test_mask_register.py" in str(ei.value)


def test_a_refusal_points_at_the_reading_call():
    with pytest.raises(asc.TraceError) as ei:
        _kernel(lambda a, n: _add(a))[1](np.zeros(8, np.float32), 2)
    assert_points_at(ei.value, "MARK-read")


@pytest.mark.parametrize("call,words", [
    (lambda: asc.set_vector_mask(64, dtype="half", mode=asc.MaskMode.NORMAL), "needs dtype="),
    (lambda: asc.set_vector_mask(64, dtype=asc.float16, mode=3), "asc.MaskMode"),
    (lambda: asc.set_vector_mask(1, 2, 3, dtype=asc.float16), "takes \\(length\\) or"),
    (lambda: asc.set_vector_mask(-1, 0, dtype=asc.float16), "64-bit Python int"),
    (lambda: asc.set_vector_mask(0, dtype=asc.float16), "positive integer"),
])
def test_bad_writes_are_refused(call, words):
    @asc.jit
    def k():
        call()

    with pytest.raises(asc.TraceError, match=words) as ei:
        k[1]()
    assert "test_mask_register.py" in str(ei.value)
