"""Fixpipe L0C -> L1 (Nz): a matmul's result kept on chip as the next matmul's A, checked against NumPy;
auto_sync derives the FIX -> MTE1 flag the chain needs (without it the simulator reports the race)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc

P = asc.TPosition


def chain(a: asc.GlobalAddress, b: asc.GlobalAddress, d: asc.GlobalAddress, e: asc.GlobalAddress):
    ga, gb, gd, ge = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a); gb.set_global_buffer(b); gd.set_global_buffer(d); ge.set_global_buffer(e)  # noqa: E702
    a1 = asc.LocalTensor(asc.float16, P.A1, 0, 16 * 32)
    b1 = asc.LocalTensor(asc.float16, P.B1, 1024, 32 * 16)
    t1 = asc.LocalTensor(asc.float16, P.A1, 2048, 16 * 16)          # (A @ B) in fp16, Nz, kept in L1
    d1 = asc.LocalTensor(asc.float16, P.B1, 4096, 16 * 32)
    a2 = asc.LocalTensor(asc.float16, P.A2, 0, 16 * 32)
    a2b = asc.LocalTensor(asc.float16, P.A2, 1024, 16 * 16)
    b2 = asc.LocalTensor(asc.float16, P.B2, 0, 32 * 16)
    b2b = asc.LocalTensor(asc.float16, P.B2, 1024, 16 * 32)
    c1 = asc.LocalTensor(asc.float32, P.CO1, 0, 16 * 16)
    c2 = asc.LocalTensor(asc.float32, P.CO1, 1024, 16 * 32)
    # C = A (16 x 32) @ B (32 x 16) -> L1 as fp16 Nz
    asc.data_copy(a1, ga, asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    asc.load_data(a2, a1, asc.LoadData3DParamsV2((0, 0, 0, 0), 1, 16, 32, 32, 16, 0, 0))
    asc.data_copy(b1, gb, asc.Nd2NzParams(1, 32, 16, 0, 16, 32, 1, 0))
    for i in asc.static_range(2):
        asc.load_data(b2[i * 256:], b1[i * 256:], asc.LoadData2DParams(0, 1, 2, 0, 0, True, 0))
    asc.mmad(c1, a2, b2, asc.MmadParams(16, 16, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
    asc.fixpipe(t1, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.F322F16), asc.FixpipeConfig.cfg_nz)
    # E = C (16 x 16, from L1) @ D (16 x 32)
    asc.load_data(a2b, t1, asc.LoadData3DParamsV2((0, 0, 0, 0), 1, 16, 16, 16, 16, 0, 0))
    asc.data_copy(d1, gd, asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    asc.load_data(b2b, d1, asc.LoadData2DParams(0, 2, 1, 0, 0, True, 0))
    asc.mmad(c2, a2b, b2b, asc.MmadParams(16, 32, 16, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
    asc.fixpipe(ge, c2, asc.FixpipeParamsV220(32, 16, 16, 32, asc.QuantModes.NoQuant))


def data(seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((16, 32)).astype(np.float16)
    b = rng.standard_normal((32, 16)).astype(np.float16)
    d = rng.standard_normal((16, 32)).astype(np.float16)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16).astype(np.float32) @ d.astype(np.float32)
    return a, b, d, want


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_chained_matmul_through_l1(backend):
    a, b, d, want = data()
    e = np.zeros((16, 32), np.float32)
    k = asc.jit(chain, backend=backend)
    k[1](a, b, d, e)
    np.testing.assert_allclose(e, want, rtol=1e-5, atol=1e-4)
    src = asc.compile(k, (a, b, d, e), core_num=1)
    assert "FIX_MTE1" in str(src.graph) and "AscendC::CFG_NZ" in src.source


def test_without_flags_the_simulator_reports_the_race():
    a, b, d, _ = data()
    with pytest.raises(asc.RaceError):
        asc.jit(chain, auto_sync=False)[1](a, b, d, np.zeros((16, 32), np.float32))


def test_fixpipe_to_l1_refusals():
    def row_major(x: asc.GlobalAddress):
        t1 = asc.LocalTensor(asc.float16, P.A1, 0, 256)
        c1 = asc.LocalTensor(asc.float32, P.CO1, 0, 256)
        asc.fixpipe(t1, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.F322F16))

    def to_int8(x: asc.GlobalAddress):
        t1 = asc.LocalTensor(asc.int8, P.A1, 0, 512)
        c1 = asc.LocalTensor(asc.float32, P.CO1, 0, 256)
        asc.fixpipe(t1, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.QF322B8_PRE),
                    asc.FixpipeConfig.cfg_nz)

    x = np.zeros(16, np.float32)
    with pytest.raises(asc.TraceError, match="cfg_nz"):
        asc.jit(row_major)[1](x)
    with pytest.raises(asc.NotProvidedError, match="deqScalar"):
        asc.jit(to_int8)[1](x)
