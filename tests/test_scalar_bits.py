"""pyasc's scalar-unit functions on values known while tracing, against independent Python definitions
(and the pyasc unit test's own values); a runtime value is a NotProvidedError at the user's line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import asc_trace as asc
from asc_trace.errors import NotProvidedError, TraceError

U64 = st.integers(0, 2**64 - 1)


def _bits(v: int) -> str:
    return format(v & (2**64 - 1), "064b")     # most significant first


@given(U64)
def test_bit_counts(v):
    b = _bits(v)
    assert asc.scalar_get_count_of_value(v, 1) == b.count("1")
    assert asc.scalar_get_count_of_value(v, 0) == b.count("0")
    assert asc.scalar_count_leading_zero(v) == len(b) - len(b.lstrip("0"))
    for bit in (0, 1):
        pos = b[::-1].find(str(bit))
        assert asc.scalar_get_sff_value(v, bit) == pos


@given(st.integers(-2**63, 2**63 - 1))
def test_count_bits_cnt_same_as_sign_bit(v):
    b = _bits(v)
    assert asc.count_bits_cnt_same_as_sign_bit(v) == len(b[1:]) - len(b[1:].lstrip(b[0]))


def test_the_pyasc_unit_values():
    assert asc.scalar_get_sff_value(28, 0) == 0 and asc.scalar_get_sff_value(28, 1) == 2
    assert asc.scalar_get_count_of_value(16, 0) == 63 and asc.scalar_get_count_of_value(16, 1) == 1
    assert asc.scalar_count_leading_zero(0x0fffffffffffffff) == 4
    assert asc.count_bits_cnt_same_as_sign_bit(0x0f00000000000000) == 3
    assert asc.count_bits_cnt_same_as_sign_bit(0) == 63 and asc.count_bits_cnt_same_as_sign_bit(-1) == 63


@pytest.mark.parametrize("x,mode,want", [
    (2.5, asc.RoundMode.CAST_ROUND, 3), (-2.5, asc.RoundMode.CAST_ROUND, -3), (2.5, asc.RoundMode.CAST_RINT, 2),
    (3.5, asc.RoundMode.CAST_RINT, 4), (-2.5, asc.RoundMode.CAST_FLOOR, -3), (-2.5, asc.RoundMode.CAST_CEIL, -2),
])
def test_scalar_cast_to_int32(x, mode, want):
    assert asc.scalar_cast(x, asc.int32, mode) == want


def test_scalar_cast_to_half_rounds_to_odd():
    # 1 + 2**-11 lies halfway between the float16 neighbours 1 and 1 + 2**-10: round-to-odd takes the odd one
    assert asc.scalar_cast(1 + 2**-11, asc.float16, asc.RoundMode.CAST_ODD) == 1 + 2**-10
    assert asc.scalar_cast(1.5, asc.float16, asc.RoundMode.CAST_ODD) == 1.5          # exact: unchanged
    v = asc.scalar_cast(1 + 3 * 2**-12, asc.float16, asc.RoundMode.CAST_ODD)         # above the midpoint: still odd
    assert v == 1 + 2**-10 and np.float16(v) == v


def test_in_a_kernel_the_result_is_a_constant():
    @asc.jit
    def k(z: asc.GlobalAddress):
        gz = asc.GlobalTensor()
        gz.set_global_buffer(z, 8)
        t = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0, 8)
        asc.duplicate(t, asc.scalar_count_leading_zero(0x0fffffffffffffff) + asc.scalar_cast(2.5, asc.int32,
                                                                                            asc.RoundMode.CAST_ROUND), 8)
        asc.data_copy(gz, t, 8)
    z = np.zeros(8, np.int32)
    k[1](z)
    assert (z == 7).all()


def test_a_runtime_value_is_not_provided_at_the_users_line():
    @asc.jit
    def k(n: int):
        asc.scalar_count_leading_zero(n)

    with pytest.raises(NotProvidedError) as e:
        k[1](5)
    message, _, where = str(e.value).partition("-->")
    assert "runtime value" in message and "test_scalar_bits.py" in where


@pytest.mark.parametrize("call,words", [
    (lambda: asc.scalar_get_sff_value(3, 2), "0 or 1"),
    (lambda: asc.scalar_cast(2.5, asc.int32, asc.RoundMode.CAST_ODD), "CAST_ROUND, CAST_RINT"),
    (lambda: asc.scalar_cast(2.5, asc.float16, asc.RoundMode.CAST_ROUND), "CAST_ODD"),
    (lambda: asc.scalar_cast(3e9, asc.int32, asc.RoundMode.CAST_ROUND), "out of range"),
    (lambda: asc.scalar_cast(2.5, asc.float32, asc.RoundMode.CAST_ROUND), "int32 or asc.float16"),
])
def test_misuse(call, words):
    with pytest.raises(TraceError) as e:
        call()
    assert words in str(e.value).partition("-->")[0]


def test_data_block_size_is_the_32_byte_block():
    from asc_trace import config
    assert asc.get_data_block_size_in_bytes() == config.UB_ALIGN == 32
