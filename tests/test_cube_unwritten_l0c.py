"""A Fixpipe of L0C elements no Mmad wrote (an Mmad with k = 0 writes nothing) copies stale L0C: the NaN
poison in the simulator, an earlier kernel's leftovers on the NPU. It is reported (an AscTraceWarning at the
Fixpipe's line) on sim, eager and cpp, and not for a kernel whose Mmad covers what the Fixpipe reads."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc_trace as asc


def make(backend: str):
    @asc.jit(backend=backend)
    def tile(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, kk: int, rows: int):
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        gc.set_global_buffer(c)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 32 * 32)
        b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 4096, 32 * 32)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 32 * 32)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 32 * 32)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 32 * 32)
        asc.data_copy(a1, ga, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
        asc.data_copy(b1, gb, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
        for i in asc.static_range(2):
            asc.load_data(a2[i * 512:], a1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, False, 0))
            asc.load_data(b2[i * 512:], b1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, True, 0))
        # `rows` rows of C computed, 32 fetched
        asc.mmad(c1, a2, b2, asc.MmadParams(rows, 32, kk, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 32, 32, asc.QuantModes.NoQuant))
    return tile


def run(backend, kk, rows=32):
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 4, (32, 32)).astype(np.float16)
    b = rng.integers(-3, 4, (32, 32)).astype(np.float16)
    c = np.zeros((32, 32), np.float32)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always", asc.AscTraceWarning)
        make(backend)[1](a, b, c, kk, rows)
    return c, a.astype(np.float32) @ b.astype(np.float32), [w for w in got if issubclass(w.category,
                                                                                      asc.AscTraceWarning)]


@pytest.mark.parametrize("backend", ["sim", "eager", pytest.param("cpp", marks=pytest.mark.slow)])
def test_mmad_with_k_zero_then_fixpipe_warns(backend):
    c, _, ws = run(backend, 0)
    # eager and cpp check the launch on the simulator first, then run it: the warning may come twice
    assert ws and len({str(w.message) for w in ws}) == 1, [str(w.message) for w in ws]
    assert "reads 1024 L0C element(s) that no Mmad wrote" in str(ws[0].message)
    assert all(w.filename.endswith("test_cube_unwritten_l0c.py") for w in ws)
    assert np.isnan(c).all()                 # what it copied: the poison, now named instead of silent


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_fixpipe_past_the_rows_the_mmad_wrote_warns(backend):
    """The Mmad writes 16 rows of each 16-column block, the Fixpipe reads 32 (src_stride 32): half of what it
    reads (512 elements) was never written."""
    c, _, ws = run(backend, 32, rows=16)
    assert ws and "reads 512 L0C element(s)" in str(ws[0].message)
    assert np.isnan(c).any()


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_a_covered_fixpipe_does_not_warn(backend):
    c, want, ws = run(backend, 32)
    assert ws == []
    np.testing.assert_array_equal(c, want)


def test_matmul_with_k_zero_is_refused_while_tracing():
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from test_matmul_iterate import launch, make_kernel
    from asc_trace.errors import TraceError
    with pytest.raises(TraceError, match="K = 0"):
        launch(make_kernel("with", tails=False), 32, 32, 0, 32, 32, False)
