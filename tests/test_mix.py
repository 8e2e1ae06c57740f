"""Mixed cube + vector kernels (KERNEL_TYPE_MIX_AIC_1_2): the flag-free matmul + bias + GELU against NumPy,
the cross-core flags auto_sync derives, the simulator's checks of hand-written flags (races on the
workspace, waits never satisfied, sets never waited, counter saturation), errors at the user's line."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.runtime.config import KernelType

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import matmul_bias_gelu_mix as M  # noqa: E402

HERE = Path(__file__).name


@pytest.mark.parametrize("m,n,k,cores", [(200, 150, 100, 2), (128, 128, 64, 1), (70, 40, 200, 3),
                                         (60, 40, 30, 1), (512, 384, 256, 4)])     # 60: sub-block 1 has no rows
def test_flag_free_matmul_bias_gelu_matches_numpy(m, n, k, cores):
    got, want = M.run(m, n, k, cores)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _compile(kernel=M.matmul_bias_gelu_mix, m=200, n=150, k=100, cores=2):
    a = np.zeros((m, k), np.float16)
    b = np.zeros((k, n), np.float16)
    return asc.compile(kernel, (a.ravel(), b.ravel(), np.zeros(n, np.float32), np.zeros(m * n, np.float32),
                                np.zeros(cores * M.TILE, np.float32), m, n, k), core_num=cores)


def test_auto_sync_derives_ready_and_acknowledgement_flags():
    ck = _compile()
    aic, aiv = str(ck.graph.aic), str(ck.graph.aiv)
    # ready: the cube sets after its Fixpipe (on FIX), each vector core waits before reading
    assert "cross_core_set_flag 0, 2, PIPE_FIX" in aic and "cross_core_wait_flag 0, 2" in aiv
    # free: the vector cores set after reading (on MTE2), primed once before the loop; the cube waits before
    # its next Fixpipe and drains after the loop
    assert aiv.count("cross_core_set_flag 1, 2, PIPE_MTE2") == 2 and aic.count("cross_core_wait_flag 1, 2") == 2
    assert "cross_core" not in "".join(l for l in aic.splitlines() if "side='aiv'" in l)
    src = ck.source
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in src
    assert "if ASCEND_IS_AIC {" in src and "if ASCEND_IS_AIV {" in src
    assert src.index("AscendC::Mmad(") < src.index("if ASCEND_IS_AIV {") < src.index("Gelu")
    assert "AscendC::CrossCoreSetFlag<2, PIPE_FIX>(" in src


def test_kernel_type_is_inferred_or_given():
    assert _compile(asc.jit(M.matmul_bias_gelu_mix, kernel_type=KernelType.MIX_AIC_1_2)).graph.aic is not None
    with pytest.raises(asc.OptionError, match="MIX_AIC_1_2") as ei:
        _compile(asc.jit(M.matmul_bias_gelu_mix, kernel_type=KernelType.AIV_ONLY))
    assert "matmul_bias_gelu_mix.py" in str(ei.value)


# -- hand-written flags: a 32 x 32 tile per step through one workspace slot -----------------------------

def _mix_kernel(ready: bool = True, ack: bool = True, extra_set: bool = False, wait_id: int = 0,
                sets: int = 1):
    @asc.jit
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress, c: asc.GlobalAddress, tiles: int):
        ga, gb, gws, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        gws.set_global_buffer(ws)
        gc.set_global_buffer(c)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 32 * 32)
        b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 4096, 32 * 32)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 32 * 32)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 32 * 32)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 32 * 32)
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 16 * 32)
        half = asc.get_sub_block_idx() * 16 * 32
        if ack:
            asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_MTE2)       # the slot starts free
        for t in range(tiles):
            asc.data_copy(a1, ga[t * 1024:], asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
            asc.data_copy(b1, gb, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
            for i in asc.static_range(2):
                asc.load_data(a2[i * 512:], a1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, False, 0))
                asc.load_data(b2[i * 512:], b1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, True, 0))
            asc.mmad(c1, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
            if ack:
                asc.cross_core_wait_flag(1, 2, asc.PipeID.PIPE_FIX)
            asc.fixpipe(gws, c1, asc.FixpipeParamsV220(32, 32, 32, 32, asc.QuantModes.NoQuant))
            for _ in asc.static_range(sets):
                if ready:
                    asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_FIX)
            asc.cross_core_wait_flag(wait_id, 2)
            asc.data_copy(x, gws[half:], 16 * 32)
            if ack:
                asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_MTE2)
            asc.adds(x, x, 1.0, 16 * 32)
            asc.data_copy(gc[t * 1024 + half:], x, 16 * 32)
        if ack:
            asc.cross_core_wait_flag(1, 2, asc.PipeID.PIPE_FIX)
        if extra_set:
            asc.cross_core_set_flag(5, 2, asc.PipeID.PIPE_FIX)
    return k


def _run(kernel, tiles=3):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((tiles * 32, 32)).astype(np.float16)
    b = rng.standard_normal((32, 32)).astype(np.float16)
    c = np.zeros((tiles * 32, 32), np.float32)
    kernel[1](a.ravel(), b.ravel(), np.zeros(1024, np.float32), c.ravel(), tiles)
    return c, a.astype(np.float32) @ b.astype(np.float32) + 1


def test_hand_written_ready_and_ack_flags_run():
    got, want = _run(_mix_kernel())
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_a_reused_workspace_without_acknowledgement_is_a_race():
    with pytest.raises(asc.RaceError, match="GM argument 'ws'") as ei:
        _run(_mix_kernel(ack=False))
    msg = str(ei.value)
    assert "cube core" in msg and "vector core" in msg and "no cross-core flag orders" in msg


def test_a_wait_never_set_hangs_at_the_users_line():
    with pytest.raises(asc.SyncError, match="never satisfied") as ei:
        _run(_mix_kernel(wait_id=3))
    assert f"{HERE}:" in str(ei.value)


def test_a_set_never_waited_is_reported():
    with pytest.raises(asc.SyncError, match="never waited for") as ei:
        _run(_mix_kernel(extra_set=True))
    assert f"{HERE}:" in str(ei.value)


def test_sixteen_outstanding_sets_saturate_the_counter():
    with pytest.raises(asc.SyncError, match="holds 15 sets"):
        _run(_mix_kernel(sets=16, ack=False), tiles=1)


def test_cross_core_errors_at_trace_time():
    with pytest.raises(asc.SyncError, match="outside 0..10") as ei:
        _run(_mix_kernel(wait_id=11))
    assert f"{HERE}:" in str(ei.value)


def test_the_outputs_are_unchanged_after_a_refused_launch():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    c = np.full((64, 32), 7.0, np.float32)
    with pytest.raises(asc.RaceError):
        _mix_kernel(ack=False)[1](a.ravel(), a[:32].ravel(), np.zeros(1024, np.float32), c.ravel(), 2)
    assert (c == 7.0).all()


def test_a_vector_op_on_a_cube_tensor_is_refused_at_the_users_line():
    @asc.jit
    def k(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
        u = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 256)
        asc.data_copy(u, g, 256)
        asc.add(a1, u, u, 256)
    with pytest.raises(asc.TraceError, match="both core types") as ei:
        k[1](np.zeros(256, np.float16))
    assert f"{HERE}:" in str(ei.value) and "through GM" in str(ei.value)


def test_a_cross_core_flag_in_a_single_core_type_kernel_is_refused():
    @asc.jit
    def k(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        u = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 256)
        asc.data_copy(u, g, 256)
        asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_MTE3)
    with pytest.raises(asc.SyncError, match="vector cores only") as ei:
        k[1](np.zeros(256, np.float16))
    assert f"{HERE}:" in str(ei.value)


def _headers():
    from asc_trace.toolchain.real_api import headers_if_configured
    return headers_if_configured()


@pytest.mark.skipif(_headers() is None, reason="no Ascend C headers configured: set ASC_TRACE_ASCENDC_HOME")
def test_the_mixed_kernel_compiles_against_the_real_headers_and_a_wrong_flag_call_does_not():
    """g++ in CPU-debug mode (where ASCEND_IS_AIC is a run-time test, so both sides are compiled) resolves every
    call of the emitted MIX kernel, the cube side's and the vector side's, against asc-devkit's headers."""
    from asc_trace.toolchain.header_check import Kernel, check_kernels
    ck = _compile()
    good = Kernel("mix_ok", ck.source, ck.graph)
    assert check_kernels([good]) == []
    bad = ck.source.replace("AscendC::CrossCoreSetFlag<2, PIPE_FIX>(", "AscendC::CrossCoreSetFlag<2, PIPE_FIX>(1, ", 1)
    assert bad != ck.source
    errors = check_kernels([good, Kernel("mix_bad", bad, ck.graph)])
    assert len(errors) == 1 and "rejected" in str(errors[0])


def test_a_workspace_written_once_needs_no_acknowledgement():
    """Without a loop around the write and the read, the slot is never written again: "ready" only."""
    @asc.jit
    def once(a: asc.GlobalAddress, ws: asc.GlobalAddress, c: asc.GlobalAddress):
        ga, gws, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gws.set_global_buffer(ws)
        gc.set_global_buffer(c)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 32 * 32)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 32 * 32)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 32 * 32)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 32 * 32)
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 16 * 32)
        asc.data_copy(a1, ga, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
        for i in asc.static_range(2):
            asc.load_data(a2[i * 512:], a1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, False, 0))
            asc.load_data(b2[i * 512:], a1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, True, 0))
        asc.mmad(c1, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
        asc.fixpipe(gws, c1, asc.FixpipeParamsV220(32, 32, 32, 32, asc.QuantModes.NoQuant))
        half = asc.get_sub_block_idx() * 16 * 32
        asc.data_copy(x, gws[half:], 16 * 32)
        asc.muls(x, x, 2.0, 16 * 32)
        asc.data_copy(gc[half:], x, 16 * 32)
    a = np.random.default_rng(3).standard_normal((32, 32)).astype(np.float16)
    c = np.zeros((32, 32), np.float32)
    once[1](a.ravel(), np.zeros(1024, np.float32), c.ravel())
    np.testing.assert_allclose(c, 2 * a.astype(np.float32) @ a.astype(np.float32), rtol=1e-5, atol=1e-4)
    text = str(asc.compile(once, (a.ravel(), np.zeros(1024, np.float32), c.ravel())).graph)
    assert text.count("cross_core_set_flag") == 1 and text.count("cross_core_wait_flag") == 1
