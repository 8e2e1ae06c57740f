"""asc.adv.Matmul's per-block loop (`iterate()` / `get_tensor_c`, pyasc tutorial 05's form) against NumPy with fp32
accumulation: the `with matmul.iterate() as count:` runtime loop and the unrolled `while matmul.iterate():`, C
written at its place or sequentially (one block after another in a GM scratch), on sim, eager and cpp."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import NotProvidedError, TraceError

ND = asc.CubeFormat.ND
GM = asc.TPosition.GM


def smin(a, b):
    return b + (a - b) * (a < b)


def make_kernel(form: str, bias: bool = False, backend: str = "sim", tails: bool = True):
    def body(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bv: asc.GlobalAddress,
             tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
        bi = asc.get_block_idx()
        m_blocks = tiling.m.ceildiv(tiling.single_core_m)
        mi = bi % m_blocks
        ni = bi // m_blocks
        ga, gb, gc, gbias = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a + mi * tiling.k_a * tiling.single_core_m)
        gb.set_global_buffer(b + ni * tiling.single_core_n)
        gc.set_global_buffer(c + mi * tiling.n * tiling.single_core_m + ni * tiling.single_core_n)
        gbias.set_global_buffer(bv + ni * tiling.single_core_n)
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(GM, ND, asc.float32), asc.adv.MatmulType(GM, ND, asc.float32))
        asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        if bias:
            mm.set_bias(gbias)
        if tails:
            mm.set_tail(smin(tiling.m - mi * tiling.single_core_m, tiling.single_core_m),
                        smin(tiling.n - ni * tiling.single_core_n, tiling.single_core_n), tiling.k_a)
        if form == "with":
            with mm.iterate() as count:
                mm.get_tensor_c(gc)
        else:
            while mm.iterate():
                mm.get_tensor_c(gc)
        mm.end()
    return asc.jit(body, backend=backend, matmul_cube_only=True)


def tiling_for(m, n, k, sm, sn, base=(32, 32, 32), bias=False):
    cores = -(-m // sm) * -(-n // sn)
    return asc.adv.TCubeTiling(used_core_num=cores, m=m, n=n, k_a=k, k_b=k, single_core_m=sm, single_core_n=sn,
                               single_core_k=k, base_m=base[0], base_n=base[1], base_k=base[2], is_bias=int(bias))


def data(m, n, k, seed=0, integers=False):
    rng = np.random.default_rng(seed)
    if integers:
        a = rng.integers(-4, 5, (m, k)).astype(np.float16)
        b = rng.integers(-4, 5, (k, n)).astype(np.float16)
        bv = rng.integers(-4, 5, n).astype(np.float32)
    else:
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        bv = rng.standard_normal(n).astype(np.float32)
    return a, b, bv


def launch(kernel, m, n, k, sm, sn, bias, integers=False):
    a, b, bv = data(m, n, k, integers=integers)
    c = np.full((m, n), -7.0, np.float32)
    t = tiling_for(m, n, k, sm, sn, bias=bias)
    kernel[t.used_core_num](a, b, c, bv, t, np.zeros(64, np.uint8))
    want = a.astype(np.float32) @ b.astype(np.float32) + (bv if bias else 0)
    return c, want


@pytest.mark.parametrize("m,n,k,sm,sn,bias", [(128, 96, 64, 64, 48, False), (100, 70, 80, 64, 48, True)])
def test_with_form_matches_numpy(m, n, k, sm, sn, bias):
    c, want = launch(make_kernel("with", bias), m, n, k, sm, sn, bias)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("bias", [False, True])
def test_while_form_is_a_runtime_loop_and_matches_numpy(bias):
    c, want = launch(make_kernel("while", bias), 100, 70, 80, 64, 48, bias)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


def test_sequential_write_puts_blocks_one_after_another():
    """en_sequential_write=True: each block at the start of the destination, rows cur_n apart (the vendor's
    CopyOutNZ2ND: stride = baseWidth, dstOffset = 0); the kernel moves the destination on by count blocks."""
    @asc.jit(matmul_cube_only=True)
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, out: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
          workspace: asc.GlobalAddress):
        ga, gb = asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(GM, ND, asc.float32))
        asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        with mm.iterate() as count:
            go = asc.GlobalTensor()
            go.set_global_buffer(out + count * tiling.base_m * tiling.base_n)
            mm.get_tensor_c(go, en_sequential_write=True)
        mm.end()

    m, n, kk = 64, 64, 32
    a, b, _ = data(m, n, kk)
    out = np.zeros(m * n, np.float32)
    t = tiling_for(m, n, kk, m, n)
    k[1](a, b, out, t, np.zeros(64, np.uint8))
    want = a.astype(np.float32) @ b.astype(np.float32)
    blocks = out.reshape(4, 32, 32)            # m fastest: (0, 0), (32, 0), (0, 32), (32, 32)
    for i, (r, c0) in enumerate([(0, 0), (32, 0), (0, 32), (32, 32)]):
        np.testing.assert_allclose(blocks[i], want[r:r + 32, c0:c0 + 32], rtol=1e-4, atol=1e-3)


def test_get_tensor_c_outside_iterate_is_refused():
    @asc.jit(matmul_cube_only=True)
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
          workspace: asc.GlobalAddress):
        ga, gb, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        gc.set_global_buffer(c)
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(GM, ND, asc.float32))
        asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.get_tensor_c(gc)

    a, b, _ = data(32, 32, 32)
    with pytest.raises(TraceError, match="inside"):
        k[1](a, b, np.zeros((32, 32), np.float32), tiling_for(32, 32, 32, 32, 32), np.zeros(64, np.uint8))


def test_get_tensor_c_to_the_unified_buffer_at_its_place_is_refused_clearly():
    """Into the UB only en_sequential_write=True (tutorial 05's form) is provided (tests/test_matmul_mix_clients.py)."""
    @asc.jit
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
          workspace: asc.GlobalAddress):
        ga, gb = asc.GlobalTensor(), asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(que=q, num=1, len=32 * 32 * 4)
        mm = asc.adv.Matmul(asc.adv.MatmulType(GM, ND, asc.float16), asc.adv.MatmulType(GM, ND, asc.float16),
                            asc.adv.MatmulType(asc.TPosition.VECCALC, ND, asc.float32))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        with mm.iterate() as count:
            x = q.alloc_tensor(asc.float32)
            mm.get_tensor_c(x)
            q.free_tensor(x)

    a, b, _ = data(32, 32, 32)
    with pytest.raises(NotProvidedError, match="en_sequential_write=False"):
        k[1](a, b, np.zeros((32, 32), np.float32), tiling_for(32, 32, 32, 32, 32), np.zeros(64, np.uint8))


def test_eager_runs_the_while_form_and_refuses_the_with_form():
    c, want = launch(make_kernel("while", True, "eager", tails=False), 64, 64, 48, 64, 64, True)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)
    with pytest.raises(NotProvidedError, match="eager"):
        launch(make_kernel("with", False, "eager"), 64, 64, 32, 64, 64, False)


@pytest.mark.slow
def test_cpp_equals_sim_to_the_bit_on_integer_data():
    got, _ = launch(make_kernel("with", True, "cpp"), 100, 70, 80, 64, 48, True, integers=True)
    ref, want = launch(make_kernel("with", True, "sim"), 100, 70, 80, 64, 48, True, integers=True)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got, want)
