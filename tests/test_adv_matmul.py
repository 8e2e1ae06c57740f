"""asc.adv.Matmul (pyasc's high-level matmul) on the sim backend, against NumPy with fp32 accumulation: it
expands into the basic cube instructions, so these run through auto_sync, the simulator and its checks."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import NotProvidedError, TraceError

ND = asc.CubeFormat.ND
GM = asc.TPosition.GM


def smin(a, b):
    """min of runtime integers without a Python `if` on a traced value."""
    return b + (a - b) * (a < b)


def make_kernel(in_dt, out_dt, trans_b=False, with_bias=False):
    # launched on used_core_num blocks, one per cube core (tutorial 04); without matmul_cube_only it would be
    # pyasc's MIX mode, two Matmul clients per block (tests/test_matmul_mix_clients.py)
    @asc.jit(matmul_cube_only=True)
    def mm(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
           tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
        bi = asc.get_block_idx()
        m_blocks = tiling.m.ceildiv(tiling.single_core_m)
        mi = bi % m_blocks
        ni = bi // m_blocks
        ga, gb, gc, gbias = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a + mi * tiling.k_a * tiling.single_core_m)
        off_b = ni * tiling.k_b * tiling.single_core_n if trans_b else ni * tiling.single_core_n
        gb.set_global_buffer(b + off_b)
        gc.set_global_buffer(c + mi * tiling.n * tiling.single_core_m + ni * tiling.single_core_n)
        gbias.set_global_buffer(bias + ni * tiling.single_core_n)
        tail_m = tiling.m - mi * tiling.single_core_m        # the last row / column of cores is smaller
        tail_n = tiling.n - ni * tiling.single_core_n
        pipe = asc.TPipe()
        mm_ = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, in_dt), asc.adv.MatmulType(GM, ND, in_dt, trans_b),
                             asc.adv.MatmulType(GM, ND, out_dt), asc.adv.MatmulType(GM, ND, asc.float32))
        asc.adv.register_matmul(pipe, workspace, mm_, tiling)
        mm_.set_tensor_a(ga)
        mm_.set_tensor_b(gb, trans_b)
        if tiling.is_bias:
            mm_.set_bias(gbias)
        mm_.set_tail(smin(tail_m, tiling.single_core_m), smin(tail_n, tiling.single_core_n), tiling.k_a)
        mm_.iterate_all(gc)
        mm_.end()
    return mm


def tiling_for(m, n, k, sm, sn, base=(32, 32, 32), bias=False):
    cores = -(-m // sm) * -(-n // sn)
    return asc.adv.TCubeTiling(used_core_num=cores, m=m, n=n, k_a=k, k_b=k, single_core_m=sm, single_core_n=sn,
                               single_core_k=k, base_m=base[0], base_n=base[1], base_k=base[2], is_bias=int(bias))


def run(m, n, k, sm, sn, in_np, out_np, in_dt, out_dt, trans_b=False, bias=False, base=(32, 32, 32), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(in_np)
    b = rng.standard_normal((k, n)).astype(in_np)
    bv = rng.standard_normal(n).astype(np.float32)
    c = np.zeros((m, n), out_np)
    t = tiling_for(m, n, k, sm, sn, base, bias)
    k_ = make_kernel(in_dt, out_dt, trans_b, bias)
    k_[t.used_core_num](a, np.ascontiguousarray(b.T) if trans_b else b, c, bv, t, np.zeros(64, np.uint8))
    want = a.astype(np.float32) @ b.astype(np.float32) + (bv if bias else 0)
    return c.astype(np.float32), want


@pytest.mark.parametrize("m,n,k,sm,sn,bias", [(128, 96, 64, 64, 48, False), (100, 70, 80, 64, 48, True),
                                               (64, 64, 40, 64, 64, True)])
def test_fp16_to_fp32_with_tails(m, n, k, sm, sn, bias):
    got, want = run(m, n, k, sm, sn, np.float16, np.float32, asc.float16, asc.float32, bias=bias)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_fp16_out_rounds_like_numpy():
    got, want = run(64, 64, 64, 32, 64, np.float16, np.float16, asc.float16, asc.float16)
    np.testing.assert_allclose(got, want.astype(np.float16).astype(np.float32), rtol=2e-3, atol=2e-3)


def test_fp32_with_b_transposed():
    got, want = run(48, 40, 40, 48, 40, np.float32, np.float32, asc.float32, asc.float32, trans_b=True)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("backend", ["sim", "eager", pytest.param("cpp", marks=pytest.mark.slow)])
@pytest.mark.parametrize("m,n,k,sm,sn,base,bias", [(32, 32, 32, 32, 32, (32, 32, 32), False),
                                                    (100, 70, 80, 64, 48, (32, 32, 32), True),
                                                    (33, 17, 20, 32, 32, (16, 16, 32), False)])
def test_fp32_b_given_k_by_n(backend, m, n, k, sm, sn, base, bias):
    """pyasc's test kernels give an fp32 B as K x N: the vendor's Matmul loads it into L0B with LoadData3DV2 (K as
    the feature map's positions, N as its channels), which lands in L0B's Zn order. Integer data: exact."""
    rng = np.random.default_rng(1)
    a = rng.integers(-8, 8, (m, k)).astype(np.float32)
    b = rng.integers(-8, 8, (k, n)).astype(np.float32)
    bv = rng.integers(-8, 8, n).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    t = tiling_for(m, n, k, sm, sn, base, bias)
    kern = asc.jit(make_kernel(asc.float32, asc.float32, False, bias).fn, backend=backend, matmul_cube_only=True)
    kern[t.used_core_num](a, b, c, bv, t, np.zeros(64, np.uint8))
    np.testing.assert_array_equal(c, a @ b + (bv if bias else 0))


def test_int8_b_not_transposed_is_refused():
    """The vendor transposes an int8 K x N B with LoadDataWithTranspose, not modelled: the refusal names it and
    says what to write instead (test_int8_to_int32_with_b_transposed is that)."""
    a, b = np.zeros((32, 64), np.int8), np.zeros((64, 32), np.int8)
    t = tiling_for(32, 32, 64, 32, 32, base=(32, 32, 64))
    with pytest.raises(NotProvidedError, match="transposed") as ei:
        make_kernel(asc.int8, asc.int32)[1](a, b, np.zeros((32, 32), np.int32), np.zeros(32, np.float32), t,
                                            np.zeros(64, np.uint8))
    assert "LoadDataWithTranspose" in ei.value.msg
    for what in ("np.ascontiguousarray(b.T)", "set_tensor_b(b_global, True)", "int8, True)",
                 "n_index * single_core_n * k_b"):
        assert what in ei.value.hint


def test_load3dv2_into_l0b_refuses_8_bit_types():
    from asc_trace.errors import DTypeError

    @asc.jit
    def k(x: asc.GlobalAddress):
        b1 = asc.LocalTensor(asc.int8, asc.TPosition.B1, 0, 1024)
        b2 = asc.LocalTensor(asc.int8, asc.TPosition.B2, 0, 1024)
        asc.load_data(b2, b1, asc.LoadData3DParamsV2((0, 0, 0, 0), 1, 32, 32, 32, 32, 0, 0))  # MARK-l3-b8
    with pytest.raises(DTypeError, match="into L0B takes half") as ei:
        k[1](np.zeros(8, np.float32))
    assert "MARK-l3-b8" in ei.value.loc.code


def test_tiling_is_the_kernels_own_copy():
    @asc.jit
    def k(c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
        tiling.share_l1_size = asc.property(asc.TOTAL_L1_SIZE)

    t = tiling_for(32, 32, 32, 32, 32)
    k[1](np.zeros(8, np.float32), t)
    assert t.share_l1_size == 0
    assert t.m.ceildiv(t.base_m + 1) == 1


def test_unregistered_and_ub_output_are_clear_errors():
    @asc.jit
    def unregistered(a: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
        g = asc.GlobalTensor()
        g.set_global_buffer(a)
        mm_ = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                             asc.adv.MatmulType(GM, ND, asc.float32))
        mm_.init(tiling)
        mm_.set_tensor_a(g)
        mm_.set_tensor_b(g)
        mm_.iterate_all(g)

    with pytest.raises(TraceError, match="register_matmul"):
        unregistered[1](np.zeros(1024, np.float16), tiling_for(32, 32, 32, 32, 32))

    @asc.jit
    def ub_out(a: asc.GlobalAddress, w: asc.GlobalAddress):
        pipe = asc.TPipe()
        mm_ = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                             asc.adv.MatmulType(asc.TPosition.VECCALC, ND, asc.float32))
        asc.adv.register_matmul(pipe, w, mm_)
        with mm_.iterate() as count:
            pass

    with pytest.raises(TraceError, match="no tiling"):        # C into the UB is provided (MIX mode)
        ub_out[1](np.zeros(1024, np.float16), np.zeros(64, np.uint8))


def test_host_tiling_fills_the_struct_and_runs():
    import asc_trace.lib.host as host
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_dim(24)
    t.set_org_shape(128, 30720, 64)
    t.set_shape(128, 30720, 64)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    # 24 cores over a 128 x 30720 C: one row of 24 blocks of 128 x 1280, the vendor's usual 128 x 256 x 64 base
    assert (tiling.used_core_num, tiling.single_core_m, tiling.single_core_n) == (24, 128, 1280)
    assert (tiling.base_m, tiling.base_n, tiling.base_k) == (128, 256, 64)
    assert host.MultiCoreMatmulTiling(host.get_ascendc_platform()).get_tiling(asc.adv.TCubeTiling()) == -1


def test_example_with_host_tiling_and_matmul_cube_only():
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).parent.parent / "examples" / "matmul_adv.py"
    spec = importlib.util.spec_from_file_location("matmul_adv_example", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got, want = mod.run(m=70, n=90, k=50, cores=3)
    np.testing.assert_array_equal(got, want)       # small integers: exact in fp16 and fp32


def test_ascend_is_aic_is_the_kernel_type():
    # the kernel writes what it saw into x (a list outside the kernel that it appends to is refused)
    @asc.jit(kernel_type=asc.runtime.config.KernelType.AIV_ONLY)
    def vec(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x, 8)
        g.set_value(0, 1 if asc.ascend_is_aic() else 0)
        g.set_value(1, 1 if asc.ascend_is_aiv() else 0)

    x = np.full(8, -1, np.float32)
    vec[1](x)
    assert list(x[:2]) == [0, 1]

    @asc.jit
    def undeclared(a: asc.GlobalAddress, tiling: asc.adv.TCubeTiling, w: asc.GlobalAddress):
        if asc.ascend_is_aic():                    # False: kernel_type unset means a vector kernel
            pass
        g = asc.GlobalTensor()
        g.set_global_buffer(a)
        t = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
        asc.data_copy(t, g, 256)

    from asc_trace.errors import OptionError
    with pytest.raises(OptionError, match="ascend_is_aic"):
        undeclared[1](np.zeros(256, np.float16), tiling_for(32, 32, 32, 32, 32), np.zeros(8, np.uint8))

    @asc.jit(matmul_cube_only=True)
    def no_cube(x: asc.GlobalAddress):
        pass

    with pytest.raises(OptionError, match="no cube instruction"):
        no_cube[1](np.zeros(8, np.float32))


def test_pipe_barrier_at_the_end_keeps_auto_sync():
    """pyasc's Matmul kernels end with PipeBarrier<PIPE_ALL>: the derived flags must still be there."""
    k = make_kernel(asc.float16, asc.float32)

    @asc.jit
    def with_barrier(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                     tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
        k(a, b, c, bias, tiling, workspace)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)

    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.standard_normal((64, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    with_barrier[1](a, b, c, np.zeros(64, np.float32), tiling_for(64, 64, 64, 64, 64), np.zeros(8, np.uint8))
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-3)


def test_int8_to_int32_with_b_transposed():
    rng = np.random.default_rng(3)
    m, n, k = 48, 40, 96
    a = rng.integers(-100, 100, (m, k)).astype(np.int8)
    b = rng.integers(-100, 100, (k, n)).astype(np.int8)
    c = np.zeros((m, n), np.int32)
    t = tiling_for(m, n, k, 48, 40, base=(32, 32, 64))
    make_kernel(asc.int8, asc.int32, trans_b=True)[1](a, np.ascontiguousarray(b.T), c, np.zeros(n, np.float32), t,
                                                       np.zeros(64, np.uint8))
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


K_TAILS = [  # (A / B type, C type, B transposed, m, n, k, single m / n, base): every K ends in a partial base_k step
    ("int8", "int32", True, 50, 70, 40, 32, 48, (32, 32, 64)),        # 40 = 0 x 64 + 40, not a whole 32-byte column
    ("int8", "int32", True, 33, 17, 72, 32, 32, (16, 16, 32)),        # 72 = 2 x 32 + 8
    ("float32", "float32", True, 33, 17, 20, 32, 32, (16, 16, 32)),   # 20: not a multiple of fp32's 8-element C0
    ("float16", "float32", False, 40, 40, 72, 32, 32, (32, 32, 32)),  # 72 = 2 x 32 + 8, B given K x N
    ("float16", "float32", True, 16, 16, 8, 16, 16, (16, 16, 64)),    # K smaller than one fractal
]


@pytest.mark.parametrize("backend", ["sim", "eager", pytest.param("cpp", marks=pytest.mark.slow)])
@pytest.mark.parametrize("in_name,out_name,trans_b,m,n,k,sm,sn,base", K_TAILS)
def test_k_tails_with_m_n_tails_match_numpy(backend, in_name, out_name, trans_b, m, n, k, sm, sn, base):
    """The K padding of the last step is zeroed in L1 before the copy (Mmad multiplies whatever it holds); 8-bit
    A / B through a uint16 view, as the vendor's Matmul pads them. Integer data: exact for every type."""
    rng = np.random.default_rng(7)
    in_dt, out_dt = getattr(asc, in_name), getattr(asc, out_name)
    a = rng.integers(-8, 8, (m, k)).astype(in_dt.np)
    b = rng.integers(-8, 8, (k, n)).astype(in_dt.np)
    c = np.full((m, n), 99, out_dt.np)
    t = tiling_for(m, n, k, sm, sn, base)
    kern = asc.jit(make_kernel(in_dt, out_dt, trans_b).fn, backend=backend, matmul_cube_only=True)
    kern[t.used_core_num](a, np.ascontiguousarray(b.T) if trans_b else b, c, np.zeros(n, np.float32), t,
                          np.zeros(64, np.uint8))
    np.testing.assert_array_equal(c, (a.astype(np.int64) @ b.astype(np.int64)).astype(out_dt.np))


def test_profile_sees_every_mmad_of_the_expansion():
    """The Matmul is real instructions: the M pipe's busy cycles are the Mmads the tiling implies."""
    import asc_trace.lib.host as host
    m, n, k = 1024, 1024, 512
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_dim(8)
    t.set_shape(m, n, k)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    assert (tiling.single_core_m, tiling.single_core_n, tiling.used_core_num) == (512, 256, 8)   # 2 x 4 cores
    a = np.zeros((m, k), np.float16)
    b = np.zeros((k, n), np.float16)
    p = asc.profile(make_kernel(asc.float16, asc.float32), a, b, np.zeros((m, n), np.float32),
                    np.zeros(n, np.float32), tiling, np.zeros(64, np.uint8), core_num=8, timing_only=True)
    tiles = (512 // tiling.base_m) * (256 // tiling.base_n)
    mmad = tiling.base_m * tiling.base_n * tiling.base_k // (16 * 16 * 16)       # the vendor's Mmad cycles
    assert p.pipe_busy["M"] == tiles * (k // tiling.base_k) * mmad


def _headers():
    from asc_trace.toolchain.real_api import headers_if_configured
    return headers_if_configured()


@pytest.mark.skipif(_headers() is None, reason="no Ascend C headers configured: set ASC_TRACE_ASCENDC_HOME")
def test_int8_k_tail_padding_compiles_against_the_real_headers():
    """The int8 zero fill is InitConstValue on a uint16 ReinterpretCast of the L1 tensor, which the vendor's
    headers accept (InitConstValueParams<uint16_t>)."""
    from asc_trace.toolchain.header_check import Kernel, check_kernels
    t = tiling_for(50, 70, 40, 32, 48, (32, 32, 64))
    args = (np.zeros((50, 40), np.int8), np.zeros((70, 40), np.int8), np.zeros((50, 70), np.int32),
            np.zeros(70, np.float32), t, np.zeros(64, np.uint8))
    ck = asc.compile(make_kernel(asc.int8, asc.int32, trans_b=True), args, core_num=t.used_core_num)
    assert "InitConstValue(" in ck.source and "ReinterpretCast<uint16_t>()" in ck.source
    assert check_kernels([Kernel("int8_k_tail", ck.source, ck.graph)]) == []


@pytest.mark.skipif(_headers() is None, reason="no Ascend C headers configured: set ASC_TRACE_ASCENDC_HOME")
def test_fp32_k_by_n_b_load_compiles_against_the_real_headers():
    """LoadData(b2, b1, LoadData3DParamsV2<float>) into L0B, which the vendor's headers take for float on
    dav_c220 (kernel_operator_mm_base_impl.h)."""
    from asc_trace.toolchain.header_check import Kernel, check_kernels
    t = tiling_for(48, 40, 40, 48, 40, (16, 16, 32), True)
    args = (np.zeros((48, 40), np.float32), np.zeros((40, 40), np.float32), np.zeros((48, 40), np.float32),
            np.zeros(40, np.float32), t, np.zeros(64, np.uint8))
    ck = asc.compile(make_kernel(asc.float32, asc.float32, with_bias=True), args, core_num=t.used_core_num)
    assert "LoadData3DParamsV2<float>" in ck.source
    assert check_kernels([Kernel("fp32_k_by_n", ck.source, ck.graph)]) == []
