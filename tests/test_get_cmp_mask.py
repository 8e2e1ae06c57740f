"""asc.get_cmp_mask / asc.set_cmp_mask round trip on sim and eager (the CMPMASK register's 16 bytes); the forms
that read and write the register are tested in tests/test_cmpmask.py."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from op_cases import gm


@asc.jit
def round_trip(s: asc.GlobalAddress, z: asc.GlobalAddress):
    a = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 32)
    o = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 256, 32)
    asc.data_copy(a, gm(s), 32)
    asc.data_copy(o, gm(z), 32)
    asc.set_cmp_mask(a)
    asc.get_cmp_mask(o)
    asc.data_copy(gm(z), o, 32)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_set_then_get_moves_16_bytes(backend):
    s = np.arange(32, dtype=np.uint8) * 7
    z = np.full(32, 9, np.uint8)
    asc.jit(round_trip, backend=backend)[1](s, z)
    assert z[:16].tobytes() == s[:16].tobytes() and (z[16:] == 9).all()
