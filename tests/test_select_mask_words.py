"""asc.select's sel_mask may be a tensor of uint8, uint16, uint32 or uint64 words (Ascend C Select's
LocalTensor<U>): its bits in memory order select, whatever the word size; on sim, eager and cpp."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import DTypeError


def _kernel(word):
    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress, m: asc.GlobalAddress, z: asc.GlobalAddress,
          n: asc.ConstExpr[int], words: asc.ConstExpr[int]):
        gx, gy, gm, gz = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        gx.set_global_buffer(x, n)
        gy.set_global_buffer(y, n)
        gm.set_global_buffer(m, words)
        gz.set_global_buffer(z, n)
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
        b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4096, n)
        mk = asc.LocalTensor(word, asc.TPosition.VECIN, 8192, words)
        c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 12288, n)
        asc.data_copy(a, gx, n)
        asc.data_copy(b, gy, n)
        asc.data_copy(mk, gm, words)
        asc.select(c, mk, a, b, asc.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        asc.data_copy(gz, c, n)
    return k


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
@pytest.mark.parametrize("word", [asc.uint8, asc.uint16, asc.uint32, asc.uint64])
def test_select_reads_the_bits_in_memory_order(word, backend):
    n = 256
    rng = np.random.default_rng(3)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    raw = rng.integers(0, 256, n // 8, dtype=np.uint8)         # 256 bits: 32 bytes, one copy block
    m = raw.view(np.dtype(f"u{word.itemsize}"))
    z = np.zeros(n, np.float32)
    asc.jit(_kernel(word), backend=backend)[1](x, y, m, z, n, len(m))
    bits = np.unpackbits(raw, bitorder="little").astype(bool)
    np.testing.assert_array_equal(z, np.where(bits, x, y))


def test_a_float_mask_is_refused():
    with pytest.raises(DTypeError) as e:
        x = np.zeros(256, np.float32)
        asc.jit(_kernel(asc.float32), backend="sim")[1](x, x.copy(), np.zeros(8, np.float32), x.copy(), 256, 8)
    assert "uint8, uint16, uint32 or uint64" in str(e.value).partition("-->")[0]
