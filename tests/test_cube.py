"""The cube (issue 23): positions, fractal layouts as bytes, Mmad / Fixpipe numerics, the cube's pipe
model and race checker, auto_sync's flags for a flag-free tiled matmul, and the errors at the user's line."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import matmul_cube  # noqa: E402

HERE = Path(__file__).name


def _nd_to_zz(a: np.ndarray) -> np.ndarray:
    """ascend-cube-facts §2's recipe: A (M, K) in L0A."""
    C0 = 32 // a.dtype.itemsize
    p = np.pad(a, ((0, -a.shape[0] % 16), (0, -a.shape[1] % C0)))
    M1, K1 = p.shape[0] // 16, p.shape[1] // C0
    return p.reshape(M1, 16, K1, C0).transpose(0, 2, 1, 3)


def _nd_to_zn(b: np.ndarray) -> np.ndarray:
    K0 = 32 // b.dtype.itemsize
    p = np.pad(b, ((0, -b.shape[0] % K0), (0, -b.shape[1] % 16)))
    K1, N1 = p.shape[0] // K0, p.shape[1] // 16
    return p.reshape(K1, K0, N1, 16).transpose(0, 2, 3, 1)


def one_tile(relu: bool = False, out=asc.float16, quant=asc.QuantModes.F322F16, bias: bool = False, m=32, n=32, k=32,
             dt=asc.float16):
    """One m x n x k tile through every cube memory, written with its flags (auto_sync=False)."""
    M16, N16, K16 = -(-m // 16) * 16, -(-n // 16) * 16, -(-k // 16) * 16
    M1, N1, K1 = M16 // 16, N16 // 16, K16 // 16

    @asc.jit(auto_sync=False)
    def tile(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias_gm: asc.GlobalAddress):
        ga, gb, gc, gbias = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        gc.set_global_buffer(c)
        gbias.set_global_buffer(bias_gm)
        a1 = asc.LocalTensor(dt, asc.TPosition.A1, 0, M16 * K16)
        b1 = asc.LocalTensor(dt, asc.TPosition.B1, 65536, K16 * N16)
        a2 = asc.LocalTensor(dt, asc.TPosition.A2, 0, M16 * K16)
        b2 = asc.LocalTensor(dt, asc.TPosition.B2, 0, K16 * N16)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M16 * N16)
        asc.init_const_value(a1, asc.InitConstValueParams(1, M16 * K16 * 2 // 32, 0, 0.0))
        asc.init_const_value(b1, asc.InitConstValueParams(1, K16 * N16 * 2 // 32, 0, 0.0))
        asc.data_copy(a1, ga, asc.Nd2NzParams(1, m, k, 0, k, M16, 1, 0))
        asc.data_copy(b1, gb, asc.Nd2NzParams(1, k, n, 0, n, K16, 1, 0))
        if bias:
            bias1 = asc.LocalTensor(asc.float32, asc.TPosition.C1, 131072, N16)
            bt = asc.LocalTensor(asc.float32, asc.TPosition.C2, 0, N16)
            asc.data_copy(bias1, gbias, N16)
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
        for i in asc.static_range(M1):
            asc.load_data(a2[i * K1 * 256:], a1[i * 256:], asc.LoadData2DParams(0, K1, M1, 0, 0, False, 0))
        for i in asc.static_range(K1):
            asc.load_data(b2[i * N1 * 256:], b1[i * 256:], asc.LoadData2DParams(0, N1, K1, 0, 0, True, 0))
        if bias:
            asc.data_copy(bt, bias1, asc.DataCopyParams(1, N16 * 4 // 64, 0, 0))
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        if bias:
            asc.mmad(c1, a2, b2, bt, asc.MmadParams(m, n, k, unit_flag=0, cmatrix_source=True, cmatrix_init_val=False))
        else:
            asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
        asc.set_flag(asc.HardEvent.M_FIX, 0)
        asc.wait_flag(asc.HardEvent.M_FIX, 0)
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(n, m, M16, n, quant, relu_en=relu))
    return tile


def _data(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)


@pytest.mark.parametrize("m,n,k", [(32, 32, 32), (20, 40, 24), (1, 17, 5)])
def test_one_tile_matches_numpy_with_fp32_accumulation(m, n, k):
    a, b = _data(m, n, k)
    c = np.zeros((m, n), np.float16)
    one_tile(m=m, n=n, k=k)[1](a.ravel(), b.ravel(), c.ravel(), np.zeros(64, np.float32))
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_bias_relu_and_fp32_out():
    m, n, k = 20, 40, 24
    a, b = _data(m, n, k, 1)
    bias = np.random.default_rng(2).standard_normal(48).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    one_tile(relu=True, out=asc.float32, quant=asc.QuantModes.NoQuant, bias=True, m=m, n=n, k=k)[1](
        a.ravel(), b.ravel(), c.ravel(), bias)
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias[:n], 0)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)
    assert (c == 0).any() and (c > 0).any()        # ReLU did something


def test_stale_k_padding_is_multiplied_in():
    """Without zeroing L1, the K padding holds the poison bytes (NaN), and Mmad sums them into C."""
    m, n, k = 16, 16, 5
    a, b = _data(m, n, k)

    @asc.jit(auto_sync=False)
    def no_zero(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(x)
        gb.set_global_buffer(y)
        gc.set_global_buffer(z)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
        b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 1024, 256)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
        asc.data_copy(a1, ga, asc.Nd2NzParams(1, m, k, 0, k, 16, 1, 0))
        asc.data_copy(b1, gb, asc.Nd2NzParams(1, k, n, 0, n, 16, 1, 0))
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))
        asc.load_data(b2, b1, asc.LoadData2DParams(0, 1, 1, 0, 0, True, 0))
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
        asc.set_flag(asc.HardEvent.M_FIX, 0)
        asc.wait_flag(asc.HardEvent.M_FIX, 0)
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(n, m, 16, n, asc.QuantModes.F322F16))
    c = np.zeros((m, n), np.float16)
    no_zero[1](a.ravel(), b.ravel(), c.ravel())
    assert np.isnan(c).all()


def test_fractal_layouts_are_the_reference_recipes():
    """What load_data leaves in L0A / L0B is nd_to_zz(A) / nd_to_zn(B) (read back through an identity Mmad)."""
    m, n, k = 32, 48, 32
    a, b = _data(m, n, k, 3)
    eye_b = np.eye(k, dtype=np.float16)
    c = np.zeros((m, k), np.float32)
    one_tile(out=asc.float32, quant=asc.QuantModes.NoQuant, m=m, n=k, k=k)[1](a.ravel(), eye_b.ravel(), c.ravel(),
                                                                          np.zeros(64, np.float32))
    np.testing.assert_array_equal(c, a.astype(np.float32))     # A x I = A: Zz and Zn read as the recipes say
    assert _nd_to_zz(a).shape == (2, 2, 16, 16) and _nd_to_zn(b).shape == (2, 3, 16, 16)


@pytest.mark.parametrize("m,n,k,cores", [(300, 200, 150, 4), (128, 128, 128, 1), (17, 33, 70, 2)])
def test_flag_free_tiled_matmul(m, n, k, cores):
    got, want = matmul_cube.run(m, n, k, cores)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=4e-3, atol=4e-2)


def test_auto_sync_rotates_ids_for_ping_pong_buffers():
    a = np.zeros(300 * 150, np.float16)
    ck = asc.compile(matmul_cube.matmul_cube, (a, a, a, 300, 200, 150), core_num=4)
    dump = str(ck.graph)
    assert re.search(r"wait_flag MTE1_MTE2, \d \+ i1 % 2", dump)     # the "buffer free" flag of the ping-pong L1
    assert re.search(r"set_flag MTE2_MTE1, \d \+ i1 % 2", dump)      # and the forward flag paced by it
    assert dump.count("set_flag") == dump.count("wait_flag")


def test_without_flags_the_simulator_reports_the_race():
    a, b = _data(64, 64, 64)
    c = np.zeros(64 * 64, np.float16)
    with pytest.raises(asc.RaceError) as ei:
        asc.jit(matmul_cube.matmul_cube, auto_sync=False)[1](a.ravel(), b.ravel(), c, 64, 64, 64)
    assert "matmul_cube.py" in str(ei.value) and "race on" in str(ei.value)
    assert not c.any()          # a refused launch leaves the output as it was


def test_profile_reports_cube_pipes():
    a = np.zeros(256 * 256, np.float16)
    prof = asc.profile(matmul_cube.matmul_cube, a, a, a.copy(), 256, 256, 256, core_num=4)
    assert set(prof.pipe_busy) == {"MTE2", "MTE1", "M", "FIX"}
    # one 128 x 128 tile per core, K = 256: 4 Mmads of 128 x 128 x 64 = 256 cycles each
    assert prof.pipe_busy["M"] == pytest.approx(4 * 128 * 128 * 64 / 4096)
    assert prof.cycles >= max(prof.pipe_busy.values())
    assert "slowest core" in prof.summary() and 0 < prof.utilization["M"] <= 1


def test_emitted_cube_kernel_is_aic_only():
    a = np.zeros(64 * 64, np.float16)
    src = asc.compile(matmul_cube.matmul_cube, (a, a, a, 64, 64, 64), core_num=1).source
    assert "KERNEL_TYPE_AIC_ONLY" in src and "AscendC::TPosition::A1" in src
    assert "AscendC::Mmad(" in src and "AscendC::Fixpipe<half, float, AscendC::CFG_ROW_MAJOR>(" in src
    assert "AscendC::SetFlag<AscendC::HardEvent::MTE1_MTE2>" in src


# -- errors at the user's line ---------------------------------------------------------------------

def _trace(body) -> asc.AscTraceError:
    k = asc.jit(body, auto_sync=False)
    x = np.zeros(1024, np.float16)
    with pytest.raises(asc.AscTraceError) as ei:
        k[1](x)
    return ei.value


def test_wrong_position_for_load_data():
    def k(x: asc.GlobalAddress):
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
        bad = asc.LocalTensor(asc.float16, asc.TPosition.CO1, 0, 256)
        asc.load_data(bad, a1, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))
    e = _trace(k)
    assert isinstance(e, asc.TraceError) and "CO1 (L0C)" in str(e) and f"{HERE}:" in str(e)


def test_fractal_that_does_not_tile():
    def k(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 1024)
        asc.data_copy(a1, g, asc.Nd2NzParams(1, 20, 32, 0, 32, 20, 1, 0))
    e = _trace(k)
    assert isinstance(e, asc.AlignmentError) and "16-row fractals" in str(e) and f"{HERE}:" in str(e)


def test_l0c_overflow():
    def k(x: asc.GlobalAddress):
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
        asc.mmad(c1, a2, b2, asc.MmadParams(256, 256, 16))
    e = _trace(k)
    assert isinstance(e, asc.UBOverflowError) and "L0C" in str(e) and f"{HERE}:" in str(e)


def test_l0c_tensor_past_the_memory():
    def k(x: asc.GlobalAddress):
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 65536, 32768)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
        asc.mmad(c1, a2, b2, asc.MmadParams(16, 16, 16))
    e = _trace(k)
    assert isinstance(e, asc.UBOverflowError) and "L0C has 131072 bytes" in str(e)


def test_dtype_pair_mmad_rejects():
    def k(x: asc.GlobalAddress):
        c1 = asc.LocalTensor(asc.float16, asc.TPosition.CO1, 0, 256)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
        asc.mmad(c1, a2, b2, asc.MmadParams(16, 16, 16))
    e = _trace(k)
    assert isinstance(e, asc.DTypeError) and "float16 = float16 x float16" in str(e) and f"{HERE}:" in str(e)


def test_fixpipe_quant_mode_must_match():
    def k(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
        asc.fixpipe(g, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.NoQuant))
    e = _trace(k)
    assert isinstance(e, asc.DTypeError) and "F322F16" in str(e)


def test_cube_kernel_on_another_backend_is_refused_clearly():
    a = np.zeros(64 * 64, np.float16)
    with pytest.raises(asc.NotProvidedError, match="sim, eager and cpp backends") as e:
        asc.jit(matmul_cube.matmul_cube, backend="cpu_debug")[1](a, a, a.copy(), 64, 64, 64)
    assert "tikicpulib" in str(e.value) and "load_cbuf_to_ca" in str(e.value)


def test_constants_and_enums():
    assert asc.property(asc.TOTAL_L1_SIZE) == 512 * 1024 - 128
    assert asc.property(asc.TOTAL_L0C_SIZE) == 128 * 1024
    assert asc.property(asc.DEFAULT_C0_SIZE) == 32
    assert asc.CubeFormat.NZ == 1 and asc.QuantModes.F322BF16 == 2 and asc.CO2Layout.ROW_MAJOR == 1


@pytest.mark.parametrize("m,n,k,cores", [(200, 150, 100, 3), (16, 16, 16, 1), (40, 300, 30, 2), (64, 64, 200, 1)])
def test_matmul_bias_relu_example(m, n, k, cores):
    import matmul_bias_relu
    got, want = matmul_bias_relu.run(m, n, k, cores)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    assert (got == 0).any()


def test_sibling_loops_share_flag_ids():
    """matmul_bias_relu's four K-step loops (first step with the bias, the others, and the tail either way)
    fit in the 8 ids of each event because sibling loops share theirs."""
    import matmul_bias_relu
    x = np.zeros(64, np.float32)
    ck = asc.compile(matmul_bias_relu.matmul_bias_relu, (x.astype(np.float16), x.astype(np.float16), x, x, 8, 8, 8),
                     core_num=1)
    waits = [line for line in str(ck.graph).splitlines() if "wait_flag MTE1_MTE2" in line]
    assert len(waits) >= 4 and all(int(w.split("MTE1_MTE2, ")[1].split()[0]) < 8 for w in waits if "%" not in
                                   w.split("MTE1_MTE2, ")[1].split("@")[0])


def test_vendor_tiling_example_matches_numpy():
    import matmul_vendor_tiling
    got, want = matmul_vendor_tiling.run()
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=4e-3, atol=0.07)


def test_vendor_tiling_flags_are_the_vendors_protocol():
    """A1 and B1 ping-pong ids and the L0 `db` ids rotate, all primed before the tile loop and drained after."""
    import matmul_vendor_tiling as V
    a = np.zeros(256 * 1024, np.float16)
    dump = str(asc.compile(V.matmul_vendor_tiling, (a, a, a, 256, 768, 1024, 128, 512, 2), core_num=4).graph)
    for pattern in (r"wait_flag MTE1_MTE2, i1 % 2", r"wait_flag MTE1_MTE2, 2 \+ i2 % 2", r"wait_flag M_MTE1, i3 % 2",
                    r"set_flag MTE1_M, i3 % 2", r"wait_flag FIX_M, 0"):
        assert re.search(pattern, dump), pattern
    top = [line for line in dump.splitlines() if line.startswith("  %") and "flag" in line]
    assert sum("set_flag" in line for line in top) == sum("wait_flag" in line for line in top) == 7


def test_timing_model_of_the_vendor_kernel_per_core():
    """One core's modelled pipes for a 2048 x 512 slice of the vendor's 8192^3 kernel: Mmad cycles are the
    published formula (128 x 256 x 64 fp16 = 512 cycles), MTE2 carries 48 KB per K step at 135 GiB/s
    (PTO-ISA's per-core figure), and the core is MTE2-bound. benchmarks/cube_8192.py times the whole kernel."""
    import matmul_vendor_tiling as V
    from asc_trace.runtime.args import bind_args
    from asc_trace.runtime.base import LaunchJob
    from asc_trace.runtime.cube_timing import MTE2_BYTES_PER_CYCLE
    from asc_trace.runtime.sim import SimRuntime
    size_m, size_n, k = 256, 512, 1024
    a = np.empty(size_m * k, np.float16)
    args = (a, np.empty(size_n * k, np.float16), np.empty(size_m * size_n, np.float16), size_m, size_n, k,
            size_m, size_n, 1)
    jf = V.matmul_vendor_tiling
    bound = bind_args(jf.name, jf.specs, args, {}, None)
    ck = jf.compiled(bound.signature)
    art = SimRuntime().prepare(ck.graph, ck.options)
    prof = art.time_cores(LaunchJob(jf.name, jf.fn, ck.graph, bound, 1, None, None, ck.options), [0])
    steps = (size_m // 128) * (size_n // 256) * (k // 64)
    assert prof.pipe_busy["M"] == steps * 512
    assert prof.pipe_busy["MTE2"] == pytest.approx(steps * (128 * 64 + 256 * 64) * 2 / MTE2_BYTES_PER_CYCLE)
    assert prof.bound == "MTE2 pipe"
    assert prof.pipe_busy["MTE2"] <= prof.cycles < 1.1 * prof.pipe_busy["MTE2"]


def test_the_doc_example_runs_and_is_right():
    """docs/cube.md's flag-free kernel, as written there."""
    src = (Path(__file__).resolve().parents[1] / "docs" / "cube.md").read_text()
    ns: dict = {}
    exec(compile(re.search(r"```python\n(.*?)```", src, re.S).group(1), "cube.md", "exec"), ns)
    k = 3
    rng = np.random.default_rng(0)
    a = rng.standard_normal((32, 32 * k)).astype(np.float16)
    b = rng.standard_normal((32 * k, 32)).astype(np.float16)
    c = np.zeros((32, 32), np.float16)
    ns["tile"][1](a.ravel(), b.ravel(), c.ravel(), k)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-2)


def _hand_synced(wait_event, set_twice=False):
    """A one-tile kernel with hand-written flags, one of them wrong on purpose."""
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        gx, gz = asc.GlobalTensor(), asc.GlobalTensor()
        gx.set_global_buffer(x)
        gz.set_global_buffer(z)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
        asc.data_copy(a1, gx, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        if set_twice:
            asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(wait_event, 0)
        asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))
        asc.load_data(b2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0, True, 0))
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        asc.mmad(c1, a2, b2, asc.MmadParams(16, 16, 16))
        asc.set_flag(asc.HardEvent.M_FIX, 0)
        asc.wait_flag(asc.HardEvent.M_FIX, 0)
        asc.fixpipe(gz, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.NoQuant))
    return k


def test_hand_written_flags_run_and_a_wrong_one_is_reported():
    x = np.random.default_rng(4).standard_normal(256).astype(np.float16)
    z = np.zeros(256, np.float32)
    _hand_synced(asc.HardEvent.MTE2_MTE1)[1](x, z)
    a = x.reshape(16, 16).astype(np.float32)
    np.testing.assert_allclose(z.reshape(16, 16), a @ a, rtol=1e-5, atol=1e-5)
    with pytest.raises(asc.RaceError, match="race on L1"):     # M waits, not MTE1: the load is unordered
        _hand_synced(asc.HardEvent.MTE2_M)[1](x, z)
    with pytest.raises(asc.SyncError, match="still set"):
        _hand_synced(asc.HardEvent.MTE2_MTE1, set_twice=True)[1](x, z)


def test_race_report_names_both_lines():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        gx = asc.GlobalTensor()
        gx.set_global_buffer(x)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        asc.data_copy(a1, gx, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
        asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))   # no MTE2 -> MTE1 flag
    x = np.zeros(256, np.float16)
    with pytest.raises(asc.RaceError) as ei:
        k[1](x, x)
    text = str(ei.value)
    assert "race on L1" in text and "MTE2_MTE1" in text and text.count(f"{HERE}:") >= 2


def test_cube_profile_chrome_trace(tmp_path):
    import json
    a = np.zeros(128 * 128, np.float16)
    prof = asc.profile(matmul_cube.matmul_cube, a, a, a.copy(), 128, 128, 128, core_num=1)
    events = json.loads(prof.save_chrome_trace(tmp_path / "t.json").read_text())["traceEvents"]
    assert {e["tid"] for e in events} == {"MTE2", "MTE1", "M", "FIX"}
    mm = [e for e in events if e["name"] == "mmad"]
    assert len(mm) == 2 and all(e["dur"] == pytest.approx(128 * 128 * 64 / 4096 / 1.85e3) for e in mm)


def test_profile_timing_only_leaves_the_arrays_alone():
    a = np.ones(256 * 256, np.float16)
    c = np.full(256 * 256, 7, np.float16)
    prof = asc.profile(matmul_cube.matmul_cube, a, a, c, 256, 256, 256, core_num=2, timing_only=True)
    assert (c == 7).all() and prof.time_us > 0 and prof.pipe_busy["M"] == 2 * 4 * 256   # 2 tiles x 4 K steps


def test_two_cores_writing_one_tile_is_a_race():
    """Every core writes tile 0 of C, each from its own rows of A (the block index left out of C's offset):
    the cores race on C (their bytes differ; equal bytes are test_cross_core_equal_writes.py's)."""
    @asc.jit
    def same_tile(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, n: int, k: int):
        t = matmul_cube.Tiles(a, b, c)
        t.n = n
        t.k_step(k, 0, 32, 32, 32, 32 * asc.get_block_idx(), 0, True)
        asc.fixpipe(t.gc, t.c1, asc.FixpipeParamsV220(32, 32, 32, n, asc.QuantModes.F322F16))
    a = np.arange(64 * 64).astype(np.float16) / 1024
    c = np.zeros(64 * 64, np.float16)
    same_tile[1](a, a, c, 64, 64, 64)          # one core: fine
    with pytest.raises(asc.RaceError, match="cores 0 and 1 both touch GM argument 'c'.*different bytes"):
        same_tile[2](a, a, np.zeros(64 * 64, np.float16), 64, 64, 64)
    # tiles side by side interleave in C's rows without touching: no race (matmul_cube with 4 cores)
    got, want = matmul_cube.run(64, 256, 64, cores=2)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=4e-3, atol=4e-2)


@settings(max_examples=examples(12), deadline=None, derandomize=True)
@given(m=st.integers(1, 300), n=st.integers(1, 300), k=st.integers(1, 200), cores=st.integers(1, 5))
def test_auto_sync_is_race_free_and_right_for_any_shape(m, n, k, cores):
    """The simulator checks every flag auto_sync placed (races, double sets, hangs) on random shapes with
    tails in M, N and K; the results match NumPy."""
    got, want = matmul_cube.run(m, n, k, cores, seed=m + n + k)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=4e-3, atol=4e-2)


def _two_k_steps(unit_flags: bool, fixpipe_uf: int = 3):
    """Two K steps into one L0C tile, then Fixpipe, with no M_FIX flag: ordered by the unit flags or not at all."""
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        gx, gz = asc.GlobalTensor(), asc.GlobalTensor()
        gx.set_global_buffer(x)
        gz.set_global_buffer(z)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 512)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 512)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
        asc.data_copy(a1, gx, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
        for s in asc.static_range(2):
            asc.load_data(a2[s * 256:], a1, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))
            asc.load_data(b2[s * 256:], a1, asc.LoadData2DParams(0, 1, 1, 0, 0, True, 0))
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        for s in asc.static_range(2):
            uf = (2 if s == 0 else 3) if unit_flags else 0
            asc.mmad(c1, a2[s * 256:], b2[s * 256:], asc.MmadParams(16, 16, 16, unit_flag=uf, cmatrix_source=False,
                                                                    cmatrix_init_val=s == 0))
        asc.fixpipe(gz, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.NoQuant,
                                                  unit_flag=fixpipe_uf if unit_flags else 0))
    return k


def test_unit_flag_orders_mmad_and_fixpipe():
    """The vendor's protocol (ascend-cube-facts §4): unit_flag 2 on all but the last K step, 3 on the last
    and on the Fixpipe, and no M_FIX flag. Without the unit flags the same kernel is a race."""
    x = np.random.default_rng(5).standard_normal(256).astype(np.float16)
    z = np.zeros(256, np.float32)
    _two_k_steps(True)[1](x, z)
    a = x.reshape(16, 16).astype(np.float32)
    np.testing.assert_allclose(z.reshape(16, 16), 2 * (a @ a), rtol=1e-5, atol=1e-5)
    with pytest.raises(asc.RaceError, match="race on L0C"):
        _two_k_steps(False)[1](x, np.zeros(256, np.float32))
    with pytest.raises(asc.SyncError, match="unit flag"):       # Fixpipe waits for a bit no Mmad sets: mode 2 keeps it
        _unit_hang()[1](x, np.zeros(256, np.float32))


def _unit_hang():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        gz = asc.GlobalTensor()
        gz.set_global_buffer(z)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
        asc.fixpipe(gz, c1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.NoQuant, unit_flag=3))
    return k


def test_bfloat16_inputs_and_output():
    """bfloat16 x bfloat16 -> fp32 in L0C -> bfloat16 (F322BF16, round to nearest even) in GM."""
    torch = pytest.importorskip("torch")
    m, n, k = 20, 40, 24
    a, b = _data(m, n, k, 6)
    ta, tb = torch.from_numpy(a.astype(np.float32)).bfloat16(), torch.from_numpy(b.astype(np.float32)).bfloat16()
    tc = torch.zeros(m * n, dtype=torch.bfloat16)
    one_tile(out=asc.bfloat16, quant=asc.QuantModes.F322BF16, m=m, n=n, k=k, dt=asc.bfloat16)[1](
        ta.reshape(-1), tb.reshape(-1), tc, np.zeros(64, np.float32))
    want = (ta.float() @ tb.float()).bfloat16().float().numpy()
    np.testing.assert_allclose(tc.float().numpy().reshape(m, n), want, rtol=1e-2, atol=1e-2)
    assert (tc.float().numpy().reshape(m, n) == want).mean() > 0.9      # RNE of the same fp32 sums, mostly equal


def test_load_data_3dv2_is_the_2d_loads_in_one_instruction():
    """The vendor's fast A load: LoadData3DParamsV2{l1_h=1, l1_w=M, channel_size=K, k_extension, m_extension,
    k_start_pt, m_start_pt} leaves in L0A what M / 16 LoadData2D calls leave (checked through an Mmad by I)."""
    m, k, k0 = 48, 64, 16        # a 48 x 32 slice of a 48 x 64 A, starting at column 16

    @asc.jit(auto_sync=True)
    def k3(a: asc.GlobalAddress, eye: asc.GlobalAddress, z: asc.GlobalAddress):
        ga, ge, gz = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        ge.set_global_buffer(eye)
        gz.set_global_buffer(z)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m * k)
        b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 8192, 32 * 32)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * 32)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 32 * 32)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * 32)
        asc.data_copy(a1, ga, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
        asc.data_copy(b1, ge, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
        asc.load_data(a2, a1, asc.LoadData3DParamsV2((0, 0, 0, 0), 1, m, k, 32, m, k0, 0))
        asc.load_data(b2, b1, asc.LoadData2DParams(0, 4, 1, 0, 0, True, 0))
        asc.mmad(c1, a2, b2, asc.MmadParams(m, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
        asc.fixpipe(gz, c1, asc.FixpipeParamsV220(32, m, m, 32, asc.QuantModes.NoQuant))
    a = np.random.default_rng(7).standard_normal((m, k)).astype(np.float16)
    z = np.zeros((m, 32), np.float32)
    k3[1](a.ravel(), np.eye(32, dtype=np.float16).ravel(), z.ravel())
    np.testing.assert_array_equal(z, a[:, k0:k0 + 32].astype(np.float32))


def test_load_data_3dv2_refuses_a_convolution():
    def k(x: asc.GlobalAddress):
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 1024)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 1024)
        asc.load_data(a2, a1, asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 16, 16, 0, 0, 1, 1, 3, 3))
    e = _trace(k)
    assert isinstance(e, asc.NotProvidedError) and "filter_w" in str(e)


def test_a_cube_kernel_declared_vector_is_refused():
    a = np.zeros(64 * 64, np.float16)
    from asc_trace.runtime.config import KernelType
    with pytest.raises(asc.OptionError, match="runs on the cube core"):
        asc.jit(matmul_cube.matmul_cube, kernel_type=KernelType.AIV_ONLY)[1](a, a, a.copy(), 64, 64, 64)


def test_int8_matmul_with_b_given_transposed():
    """int32 = int8 x int8 (k0 = 32: 16 x 32 fractals); B given transposed, whose Nz is L0B's Zn already."""
    m, n, k = 32, 48, 64

    @asc.jit
    def i8(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress):
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(bt)
        gc.set_global_buffer(c)
        a1 = asc.LocalTensor(asc.int8, asc.TPosition.A1, 0, m * k)
        b1 = asc.LocalTensor(asc.int8, asc.TPosition.B1, 8192, n * k)
        a2 = asc.LocalTensor(asc.int8, asc.TPosition.A2, 0, m * k)
        b2 = asc.LocalTensor(asc.int8, asc.TPosition.B2, 0, n * k)
        c1 = asc.LocalTensor(asc.int32, asc.TPosition.CO1, 0, m * n)
        asc.data_copy(a1, ga, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
        asc.data_copy(b1, gb, asc.Nd2NzParams(1, n, k, 0, k, n, 1, 0))
        for i in asc.static_range(m // 16):      # Nz -> Zz: K1 = k / 32 fractals a row, M1 apart
            asc.load_data(a2[i * (k // 32) * 512:], a1[i * 512:], asc.LoadData2DParams(0, k // 32, m // 16, 0, 0,
                                                                                       False, 0))
        asc.load_data(b2, b1, asc.LoadData2DParams(0, (k // 32) * (n // 16), 1, 0, 0, False, 0))
        asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(n, m, m, n, asc.QuantModes.NoQuant))
    rng = np.random.default_rng(8)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    c = np.zeros((m, n), np.int32)
    i8[1](a.ravel(), np.ascontiguousarray(b.T).ravel(), c.ravel())
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_cross_core_flags_check_their_id_and_need_a_mixed_kernel():
    def bad_id(x: asc.GlobalAddress):
        asc.cross_core_set_flag(12, 2, asc.PipeID.PIPE_FIX)
    e = _trace(bad_id)
    assert isinstance(e, asc.SyncError) and "outside 0..10" in str(e) and f"{HERE}:" in str(e)

    def ok(x: asc.GlobalAddress):
        asc.cross_core_wait_flag(3)
    e = _trace(ok)
    assert isinstance(e, asc.SyncError) and "mixed kernel" in str(e)     # mixed kernels: tests/test_mix.py


def test_the_vendor_8192_kernel_is_modelled_within_the_goals():
    """Issue 23's goals, on benchmarks/cube_8192.py's sampled run (a core of each kind): the kernel within
    +-10 % of the vendor's published 4121.16 us, the average cube time within +-3 % of the measured 3081.66 us."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import cube_8192
    r = cube_8192.main(sampled=True)
    assert abs(r["kernel_vs_published"]) <= 0.10 and abs(r["mac_vs_measured"]) <= 0.03
    assert r["bound"] == "MTE2 pipe" and r["mac_us_per_core"] == [1133.6, 3400.8]
