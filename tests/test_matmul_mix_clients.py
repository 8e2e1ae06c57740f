"""pyasc's MIX Matmul mode (tutorial 03): a kernel that registers an asc.adv.Matmul without matmul_cube_only runs
one Matmul client per vector core, two per launched block, so `get_block_idx()` covers 0 .. 2 x blocks - 1 while
`get_block_num()` is the launched count (the vendor's GetBlockIdxImpl / GetBlockNum). Checked against NumPy on
sim, eager and cpp; kernels with vector work besides the Matmul (C into the UB, or read back from GM) on eager
too, with the simulator's bytes."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import NotProvidedError, TraceError

ND = asc.CubeFormat.ND
GM = asc.TPosition.GM


def make_kernel(backend: str = "sim", grid_from_block_num: bool = False, grid_from_sub_block: bool = False,
                **opts):
    """Tutorial 03's kernel (its `if get_block_idx() < used_core_num:` included). With `grid_from_block_num`,
    the core grid is read from get_block_num(): M split in get_block_num() rows of cores, so the result is
    right only if get_block_num() is the launched count."""
    def body(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
             workspace: asc.GlobalAddress):
        bi = asc.get_block_idx()
        m_blocks = asc.get_block_num() if grid_from_block_num else tiling.m.ceildiv(tiling.single_core_m)
        mi = bi % m_blocks
        ni = bi // m_blocks
        if grid_from_sub_block:     # M split over the launched blocks, N over the two clients of each
            mi = bi // asc.get_task_ratio()
            ni = asc.get_sub_block_idx() + 0 * asc.get_sub_block_num()
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a + mi * tiling.k_a * tiling.single_core_m)
        gb.set_global_buffer(b + ni * tiling.single_core_n)
        gc.set_global_buffer(c + mi * tiling.n * tiling.single_core_m + ni * tiling.single_core_n)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(GM, ND, asc.float32))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        if asc.get_block_idx() < tiling.used_core_num:
            mm.set_tensor_a(ga)
            mm.set_tensor_b(gb)
            mm.iterate_all(gc)
            mm.end()
    return asc.jit(body, backend=backend, **opts)


def tiling_for(m, n, k, sm, sn):
    cores = -(-m // sm) * -(-n // sn)
    return asc.adv.TCubeTiling(used_core_num=cores, m=m, n=n, k_a=k, k_b=k, single_core_m=sm, single_core_n=sn,
                               single_core_k=k, base_m=32, base_n=32, base_k=32)


def run(kernel, blocks, m=128, n=64, k=64, sm=32, sn=32, integers=False):
    rng = np.random.default_rng(3)
    if integers:
        a = rng.integers(-4, 5, (m, k)).astype(np.float16)
        b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    else:
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), -9.0, np.float32)
    t = tiling_for(m, n, k, sm, sn)
    kernel[blocks](a, b, c, t, np.zeros(64, np.uint8))
    return c, a.astype(np.float32) @ b.astype(np.float32), t


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_tutorial_03_launch_computes_all_of_c(backend):
    """used_core_num = 8 clients, launched as tutorial 03 does: used_core_num // 2 blocks."""
    c, want, t = run(make_kernel(backend), 4)
    assert t.used_core_num == 8
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


def test_extra_clients_skip_by_the_tutorials_if():
    """5 blocks = 10 clients for 8 blocks of C: clients 8 and 9 take the `if`'s other side."""
    c, want, _ = run(make_kernel(), 5)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_block_num_is_the_launched_count(backend):
    c, want, _ = run(make_kernel(backend, grid_from_block_num=True), 4)       # 4 rows of M cores x 2 columns = 8 clients
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("backend", ["sim", "eager", pytest.param("cpp", marks=pytest.mark.slow)])
def test_sub_block_and_task_ratio_are_the_clients(backend):
    """GetSubBlockIdx() = client % 2 and GetTaskRation() = 2, as on the vector core the client runs on: 4 blocks
    x 2 clients cover the 4 x 2 grid only with those values."""
    c, want, _ = run(make_kernel(backend, grid_from_sub_block=True), 4, integers=True)
    np.testing.assert_array_equal(c, want)


def test_cube_only_kernel_keeps_one_block_per_cube_core():
    """matmul_cube_only=True (tutorial 04): block ids 0 .. blocks - 1; launched on half the blocks, half of C."""
    c, want, _ = run(make_kernel(matmul_cube_only=True), 4)
    np.testing.assert_allclose(c[:, :32], want[:, :32], rtol=1e-4, atol=1e-3)
    assert (c[:, 32:] == -9.0).all()
    c, want, _ = run(make_kernel(matmul_cube_only=True), 8)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


def test_profile_of_a_client_kernel_is_refused():
    t = tiling_for(128, 64, 64, 32, 32)
    args = (np.zeros((128, 64), np.float16), np.zeros((64, 64), np.float16), np.zeros((128, 64), np.float32), t,
            np.zeros(64, np.uint8))
    with pytest.raises(NotProvidedError, match="MIX Matmul mode"):
        asc.profile(make_kernel(), *args, core_num=4)


def leaky_kernel(backend: str = "sim"):
    """Tutorial 05's kernel: each client's blocks through get_tensor_c into the UB, LeakyRelu there, out to C."""
    def body(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
             alpha: float, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
        bi = asc.get_block_idx()
        mb = tiling.m.ceildiv(tiling.single_core_m)
        mi = bi % mb
        ni = bi // mb
        ga, gb, gc, gbias = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a + mi * tiling.k_a * tiling.single_core_m)
        gb.set_global_buffer(b + ni * tiling.single_core_n)
        gc.set_global_buffer(c + mi * tiling.n * tiling.single_core_m + ni * tiling.single_core_n)
        gbias.set_global_buffer(bias + ni * tiling.single_core_n)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(que=q, num=1, len=tiling.base_m * tiling.base_n * 4)
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(asc.TPosition.VECCALC, ND, asc.float32),
                            asc.adv.MatmulType(GM, ND, asc.float32))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.set_bias(gbias)
        with mm.iterate() as count:
            x = q.alloc_tensor(asc.float32)
            mm.get_tensor_c(x, en_sequential_write=True)
            asc.leaky_relu(x, x, alpha, count=tiling.base_m * tiling.base_n)
            q.enque(x)
            x = q.deque(asc.float32)
            round_m = tiling.single_core_m // tiling.base_m
            off = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
            asc.data_copy(gc[off:], x, repeat_params=asc.DataCopyParams(
                tiling.base_m, tiling.base_n * 4 // 32, 0, (tiling.n - tiling.base_n) * 4 // 32))
            q.free_tensor(x)
        mm.end()
    return asc.jit(body, backend=backend)


def run_leaky(kernel, blocks, m, n, k, sm, sn):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    t = asc.adv.TCubeTiling(used_core_num=-(-m // sm) * -(-n // sn), m=m, n=n, k_a=k, k_b=k, single_core_m=sm,
                            single_core_n=sn, single_core_k=k, base_m=32, base_n=32, base_k=32, is_bias=1)
    c = np.full((m, n), -9.0, np.float32)
    kernel[blocks](a, b, c, bias, 0.125, t, np.zeros(1 << 16, np.uint8))
    mm = a.astype(np.float32) @ b.astype(np.float32) + bias
    return c, np.where(mm >= 0, mm, mm * np.float32(0.125))


@pytest.mark.parametrize("blocks,m,n,k", [(1, 128, 64, 64), (2, 128, 128, 80)])
def test_tutorial_05_form_c_through_the_ub_matches_numpy(blocks, m, n, k):
    """blocks launched = clients / 2; each client's cube core fixpipes a block into its workspace slot, its
    vector core takes it into the UB (cross-core flags derived by auto_sync), LeakyRelu, out to C."""
    c, want = run_leaky(leaky_kernel(), blocks, m, n, k, 64, 64)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


def test_tutorial_05_with_form_is_refused_on_eager():
    """Eager runs Python as it goes: the `with` body runs once, the loop needs it once per block."""
    with pytest.raises(NotProvidedError, match="eager backend") as ei:
        run_leaky(leaky_kernel("eager"), 1, 128, 64, 64, 64, 64)
    assert "while matmul.iterate()" in ei.value.hint and "iterate()" in ei.value.loc.code


def relu_after_kernel(backend: str):
    """MIX mode with vector work after the Matmul: iterate_all into C (GM), then each client's vector core reads
    its block of C back row by row, ReLU in the UB, and writes it over (cross-core flags derived by auto_sync)."""
    def body(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
             workspace: asc.GlobalAddress):
        bi = asc.get_block_idx()
        mb = tiling.m.ceildiv(tiling.single_core_m)
        mi = bi % mb
        ni = bi // mb
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a + mi * tiling.k_a * tiling.single_core_m)
        gb.set_global_buffer(b + ni * tiling.single_core_n)
        gc.set_global_buffer(c + mi * tiling.n * tiling.single_core_m + ni * tiling.single_core_n)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que=q, num=1, len=tiling.single_core_n * 4)
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(GM, ND, asc.float32))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.iterate_all(gc)
        mm.end()
        for r in range(tiling.single_core_m):
            x = q.alloc_tensor(asc.float32)
            asc.data_copy(x, gc[r * tiling.n:], tiling.single_core_n)
            asc.relu(x, x, tiling.single_core_n)
            q.enque(x)
            x = q.deque(asc.float32)
            asc.data_copy(gc[r * tiling.n:], x, tiling.single_core_n)
            q.free_tensor(x)
    return asc.jit(body, backend=backend)


def leaky_while_kernel(backend: str, wrap: bool = False, scale_copies: bool = False):
    """Tutorial 05's hand-off through the UB in the `while matmul.iterate():` form, one block per client (the
    block goes to the client's place of C). `wrap`: clients past used_core_num redo the blocks of the first ones
    (pyasc's kernels' `block_idx % used` offsets), writing the same C elements again; `scale_copies`: those
    copies also scale their block by 2, so their bytes differ."""
    def body(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, alpha: float,
             tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
        bi = asc.get_block_idx() % tiling.used_core_num if wrap else asc.get_block_idx()
        mb = tiling.m.ceildiv(tiling.single_core_m)
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a + bi % mb * tiling.k_a * tiling.single_core_m)
        gb.set_global_buffer(b + bi // mb * tiling.single_core_n)
        gc.set_global_buffer(c + bi % mb * tiling.n * tiling.single_core_m + bi // mb * tiling.single_core_n)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(que=q, num=1, len=tiling.base_m * tiling.base_n * 4)
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(asc.TPosition.VECCALC, ND, asc.float32))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        while mm.iterate():
            x = q.alloc_tensor(asc.float32)
            mm.get_tensor_c(x, en_sequential_write=True)
            asc.leaky_relu(x, x, alpha, count=tiling.base_m * tiling.base_n)
            if scale_copies:
                asc.muls(x, x, 1.0 + asc.get_block_idx() // tiling.used_core_num, tiling.base_m * tiling.base_n)
            q.enque(x)
            x = q.deque(asc.float32)
            asc.data_copy(gc, x, repeat_params=asc.DataCopyParams(  # MARK-mix-store
                tiling.base_m, tiling.base_n * 4 // 32, 0, (tiling.n - tiling.base_n) * 4 // 32))
            q.free_tensor(x)
        mm.end()
    return asc.jit(body, backend=backend)


def _mix_inputs(m, n, k):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


def test_mix_matmul_then_vector_relu_on_eager_is_sims_bytes():
    """8 clients (block ids 0..7) on 4 launched blocks; eager and sim write the same bytes, NumPy's ReLU(A x B)."""
    a, b, mm = _mix_inputs(128, 64, 64)
    t = tiling_for(128, 64, 64, 32, 32)
    got = {}
    for backend in ("sim", "eager"):
        c = np.full((128, 64), -9.0, np.float32)
        relu_after_kernel(backend)[4](a, b, c, t, np.zeros(64, np.uint8))
        got[backend] = c
    np.testing.assert_array_equal(got["eager"], got["sim"])
    np.testing.assert_allclose(got["eager"], np.maximum(mm, 0), rtol=1e-4, atol=1e-3)


def test_mix_while_form_through_the_ub_on_eager_is_sims_bytes():
    """K = 80 over base_k 32 (a K tail): each client's block fixpiped into its workspace slot, LeakyRelu in the UB."""
    a, b, mm = _mix_inputs(128, 64, 80)
    t = tiling_for(128, 64, 80, 32, 32)
    got = {}
    for backend in ("sim", "eager"):
        c = np.full((128, 64), -9.0, np.float32)
        leaky_while_kernel(backend)[4](a, b, c, 0.125, t, np.zeros(1 << 16, np.uint8))
        got[backend] = c
    np.testing.assert_array_equal(got["eager"], got["sim"])
    np.testing.assert_allclose(got["eager"], np.where(mm >= 0, mm, mm * np.float32(0.125)), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_mix_clients_writing_identical_bytes_warn_and_run(backend):
    """16 clients for 8 blocks of C: clients 8..15 write blocks 0..7 again from their vector cores with nothing
    ordering the two writes. Identical bytes: defined, an AscTraceWarning (as for vector and cube kernels)."""
    from asc_trace.errors import AscTraceWarning
    a, b, mm = _mix_inputs(128, 64, 64)
    c = np.full((128, 64), -9.0, np.float32)
    with pytest.warns(AscTraceWarning, match="both write elements .* identical bytes") as rec:
        leaky_while_kernel(backend, wrap=True)[8](a, b, c, 0.125, tiling_for(128, 64, 64, 32, 32),
                                                  np.zeros(1 << 16, np.uint8))
    np.testing.assert_allclose(c, np.where(mm >= 0, mm, mm * np.float32(0.125)), rtol=1e-4, atol=1e-3)
    assert any("MARK-mix-store" in open(w.filename).read().splitlines()[w.lineno - 1] for w in rec)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_mix_clients_writing_different_bytes_are_a_race(backend):
    from asc_trace.errors import RaceError
    a, b, _ = _mix_inputs(128, 64, 64)
    c = np.full((128, 64), -9.0, np.float32)
    with pytest.raises(RaceError, match="leave different bytes"):
        leaky_while_kernel(backend, wrap=True, scale_copies=True)[8](a, b, c, 0.125, tiling_for(128, 64, 64, 32, 32),
                                                                     np.zeros(1 << 16, np.uint8))
    assert (c == -9.0).all()


def test_mix_kernel_without_auto_sync_is_a_race_on_eager_too():
    from asc_trace.errors import RaceError
    a, b, _ = _mix_inputs(128, 64, 64)
    c = np.zeros((128, 64), np.float32)
    with pytest.raises(RaceError):
        asc.jit(relu_after_kernel("eager").fn, backend="eager", auto_sync=False)[4](
            a, b, c, tiling_for(128, 64, 64, 32, 32), np.zeros(64, np.uint8))
    assert (c == 0).all()


@pytest.mark.slow
def test_tutorial_05_form_on_cpp_equals_sim():
    """cpp runs the emitted KERNEL_TYPE_MIX_AIC_1_1 kernel, each client with a cube core of its own
    (asc_trace_mix.h with one vector core); fp32 sums in a different order than sim's BLAS: within fp32 rounding."""
    got, want = run_leaky(leaky_kernel("cpp"), 2, 128, 128, 80, 64, 64)
    ref, _ = run_leaky(leaky_kernel("sim"), 2, 128, 128, 80, 64, 64)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)

    t = asc.adv.TCubeTiling(used_core_num=2, m=128, n=64, k_a=64, k_b=64, single_core_m=64, single_core_n=64,
                            single_core_k=64, base_m=32, base_n=32, base_k=32, is_bias=1)
    args = (np.zeros((128, 64), np.float16), np.zeros((64, 64), np.float16), np.zeros((128, 64), np.float32),
            np.zeros(64, np.float32), 0.1, t, np.zeros(1 << 16, np.uint8))
    src = asc.compile(leaky_kernel("cpp"), args, core_num=1).source
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);" in src
    assert "reinterpret_cast<__gm__ float*>(workspace)" in src


def test_ub_output_in_a_cube_only_kernel_is_refused():
    k = leaky_kernel()
    k = asc.jit(k.fn, matmul_cube_only=True)
    with pytest.raises(TraceError, match="no Unified Buffer") as ei:
        run_leaky(k, 1, 128, 64, 64, 64, 64)
    assert ei.value.loc.line > 0 and "get_tensor_c" in ei.value.loc.code


@pytest.mark.slow
def test_cpp_equals_sim_to_the_bit():
    got, want, _ = run(make_kernel("cpp"), 4, integers=True)
    ref, _, _ = run(make_kernel("sim"), 4, integers=True)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got, want)


def test_tutorial_05_form_without_auto_sync_is_a_race():
    """The client pairs run under the simulator's pipe and cross-core checks: without the derived flags the
    launch is refused, not silently right."""
    from asc_trace.errors import RaceError
    k = asc.jit(leaky_kernel().fn, auto_sync=False)
    with pytest.raises(RaceError):
        run_leaky(k, 1, 128, 64, 64, 64, 64)


def _headers():
    from asc_trace.toolchain.real_api import headers_if_configured
    return headers_if_configured()


@pytest.mark.skipif(_headers() is None, reason="no Ascend C headers configured: set ASC_TRACE_ASCENDC_HOME")
def test_the_client_pair_kernel_compiles_against_the_real_headers():
    """g++ in CPU-debug mode resolves every call of the emitted MIX_AIC_1_1 kernel (tutorial 05's form: the
    workspace reinterpreted as float, both sides) against asc-devkit's headers."""
    from asc_trace.toolchain.header_check import Kernel, check_kernels
    t = asc.adv.TCubeTiling(used_core_num=2, m=128, n=64, k_a=64, k_b=64, single_core_m=64, single_core_n=64,
                            single_core_k=64, base_m=32, base_n=32, base_k=32, is_bias=1)
    args = (np.zeros((128, 64), np.float16), np.zeros((64, 64), np.float16), np.zeros((128, 64), np.float32),
            np.zeros(64, np.float32), 0.1, t, np.zeros(1 << 16, np.uint8))
    ck = asc.compile(leaky_kernel(), args, core_num=1)
    good = Kernel("mix_clients", ck.source, ck.graph)
    assert check_kernels([good]) == []
    bad = ck.source.replace("SetGlobalBuffer(reinterpret_cast<__gm__ float*>(workspace))",
                            "SetGlobalBuffer(reinterpret_cast<__gm__ float*>(workspace), 1, 2)", 1)
    assert bad != ck.source
    errors = check_kernels([good, Kernel("mix_clients_bad", bad, ck.graph)])
    assert len(errors) == 1 and "rejected" in str(errors[0])


def test_local_tensor_auto_takes_c_from_the_matmul():
    """pyasc's insert_sync form: the block into a LocalTensorAuto (placed by liveness; the TPipe only registers
    the Matmul, it places no buffer), LeakyRelu, out to C with the flags derived."""
    def body(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, alpha: float,
             tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
        bi = asc.get_block_idx()
        mb = tiling.m.ceildiv(tiling.single_core_m)
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a + bi % mb * tiling.k_a * tiling.single_core_m)
        gb.set_global_buffer(b + bi // mb * tiling.single_core_n)
        gc.set_global_buffer(c + bi % mb * tiling.n * tiling.single_core_m + bi // mb * tiling.single_core_n)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float32), asc.adv.MatmulType(GM, ND, asc.float32),
                            asc.adv.MatmulType(asc.TPosition.VECCALC, ND, asc.float32))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        with mm.iterate() as count:
            x = asc.LocalTensorAuto(asc.float32, tiling.base_m * tiling.base_n)
            mm.get_tensor_c(x, en_sequential_write=True)
            asc.leaky_relu(x, x, alpha, count=tiling.base_m * tiling.base_n)
            round_m = tiling.single_core_m // tiling.base_m
            off = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
            asc.data_copy(gc[off:], x, repeat_params=asc.DataCopyParams(
                tiling.base_m, tiling.base_n * 4 // 32, 0, (tiling.n - tiling.base_n) * 4 // 32))
        mm.end()

    rng = np.random.default_rng(9)
    a = rng.integers(-4, 5, (64, 48)).astype(np.float32)
    b = rng.integers(-4, 5, (48, 64)).astype(np.float32)     # float32 B given K x N
    c = np.full((64, 64), -9.0, np.float32)
    t = asc.adv.TCubeTiling(used_core_num=4, m=64, n=64, k_a=48, k_b=48, single_core_m=32, single_core_n=32,
                            single_core_k=48, base_m=32, base_n=32, base_k=32)
    asc.jit(body, insert_sync=True)[2](a, b, c, 0.25, t, np.zeros(1 << 16, np.uint8))
    mm = a @ b
    np.testing.assert_array_equal(c, np.where(mm >= 0, mm, mm * np.float32(0.25)))
