"""asc.adv.concat / extract (pyasc's asc.language.adv.sort): Extract unpacks (value, index) structures exactly,
sim == eager (cpu_debug: asc_trace's instruction layer lacks
GatherMask's vreducev2, which the vendor's A2 Extract issues); Concat on A2 makes dst refer to src, as the vendor's
does; errors at the user's line."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from adv_kernels import extract_kernel
from asc_trace.lower.api_symbols import unlisted


def _kernel(repeat: int, **options):
    return extract_kernel(repeat, **options)


def _structs(dt, repeat: int, seed: int = 0):
    n = repeat * 32
    rng = np.random.default_rng(seed)
    vals = rng.standard_normal(n).astype(dt)
    idx = rng.integers(0, 2**32, n, dtype=np.uint32)
    raw = np.zeros(n * 8, np.uint8).reshape(n, 8)
    raw[:, :np.dtype(dt).itemsize] = vals.view(np.uint8).reshape(n, -1)
    raw[:, 4:] = idx.view(np.uint8).reshape(n, 4)
    return raw.reshape(-1).view(dt), vals, idx


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_extract_unpacks_the_structures(dt, backend):
    s, vals, idx = _structs(dt, 3)
    v, i = np.zeros(96, dt), np.zeros(96, np.uint32)
    _kernel(3, backend=backend)[1](s, v, i)
    assert v.tobytes() == vals.tobytes() and (i == idx).all()


def test_emitted_as_the_vendors_call():
    s, _v, _i = _structs(np.float32, 1)
    ck = asc.compile(_kernel(1), (s, np.zeros(32, np.float32), np.zeros(32, np.uint32)))
    assert "AscendC::Extract(" in ck.source and ", 1);" in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []


def test_concat_makes_dst_refer_to_src():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 128)
        s = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
        tmp = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 8192, 256)
        asc.data_copy(s, xg, 128)
        asc.adv.concat(c, s, tmp, 4)
        asc.data_copy(zg, c, 128)          # c is s now
    x = np.arange(128, dtype=np.float16)
    z = np.zeros_like(x)
    k[1](x, z)
    assert (z == x).all()


def test_errors_at_the_users_line():
    @asc.jit
    def k(x: asc.GlobalAddress):
        s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
        v = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 64)
        asc.adv.extract(v, v, s, 1)
    with pytest.raises(asc.DTypeError, match="dst_index of asc.adv.extract is a LocalTensor of uint32") as ei:
        k[1](np.zeros(128, np.float32))
    assert "test_adv_sort.py" in str(ei.value)

    @asc.jit
    def r(x: asc.GlobalAddress):
        s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
        asc.adv.concat(s, s, s, 300)
    with pytest.raises(asc.TraceError, match="repeat_time of asc.adv.concat"):
        r[1](np.zeros(128, np.float32))
