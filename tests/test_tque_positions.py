"""TQue at VECCALC and enque / deque with user positions (issue 21, i21f).

A TQue(VECCALC) hands out scratch buffers with no queue events (Ascend C derives none for VECCALC); the
scheduler still sees each buffer's bytes, so the V -> V order through it is derived. The vendor's
CPU-debug build does not compile TQue<VECCALC> (GetBufferLogicPos asserts pos != VECCALC), and cpu_debug
says so at the TQue's line. User positions equal to the queue's own pair are the plain call; any other
pair is a NotProvidedError at the user's line on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import NotProvidedError, ToolchainError, TraceError
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at

P = asc.TPosition
BACKENDS = ["sim", "eager", "cpp"]
CPU_DEBUG = [pytest.param("cpu_debug", marks=pytest.mark.skipif(headers_if_configured() is None,
                                                                 reason="no Ascend C headers configured"))]


@asc.jit
def scratch_queue(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
    """z = (x * 3) - 0.5 through a VECCALC queue's buffer; two scratch buffers used in turn."""
    pipe = asc.TPipe()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    zg.set_global_buffer(z + asc.get_block_idx() * n, n)
    qi, qo = asc.TQue(P.VECIN, 2), asc.TQue(P.VECOUT, 2)
    qt = asc.TQue(P.VECCALC, 2)  # veccalc
    pipe.init_buffer(qi, 2, tile * 4)
    pipe.init_buffer(qo, 2, tile * 4)
    pipe.init_buffer(que=qt, num=2, len=tile * 4)
    for i in range(n // tile):
        a = qi.alloc_tensor(asc.float32)
        asc.data_copy(a, xg[i * tile:], tile)
        qi.enque(a)
        a = qi.deque(asc.float32)
        t = qt.alloc_tensor(asc.float32)
        b = qo.alloc_tensor(asc.float32)
        asc.muls(t, a, 3.0, tile)
        asc.adds(b, t, -0.5, tile)      # reads what muls wrote: V -> V through the scratch buffer
        qi.free_tensor(a)
        qt.free_tensor(t)
        qo.enque(b)
        b = qo.deque(asc.float32)
        asc.data_copy(zg[i * tile:], b, tile)
        qo.free_tensor(b)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cores, n, tile", [(1, 256, 64), (3, 2048, 256), (2, 64 * 5, 64)])
def test_a_veccalc_queue_is_scratch_memory(backend, cores, n, tile):
    x = np.random.default_rng(n).standard_normal(cores * n).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(scratch_queue, backend=backend)[cores](x, z, n, tile)
    np.testing.assert_array_equal(z, (x * np.float32(3)) - np.float32(0.5))


def test_the_scheduler_orders_v_through_the_scratch_buffer():
    x = np.zeros(256, np.float32)
    g = asc.compile(scratch_queue, (x, x.copy(), 256, 64)).graph
    assert any(n.op == "pipe_barrier" and n.attr("auto") for n in g), "no V barrier between muls and adds"
    assert 'TQue<AscendC::TPosition::VECCALC, 2>' in asc.compile(scratch_queue, (x, x.copy(), 256, 64)).source


@pytest.mark.parametrize("backend", CPU_DEBUG)
def test_cpu_debug_refuses_with_the_vendors_reason(backend):
    x = np.zeros(256, np.float32)
    with pytest.raises(ToolchainError, match="GetBufferLogicPos, which asserts pos != VECCALC") as ei:
        asc.jit(scratch_queue, backend=backend)[1](x, x.copy(), 256, 64)
    assert_points_at(ei.value, "veccalc")


@asc.jit
def enque_veccalc():
    pipe = asc.TPipe()
    q = asc.TQue(P.VECCALC, 1)
    pipe.init_buffer(q, 1, 256)
    t = q.alloc_tensor(asc.float32)
    q.enque(t)  # enque veccalc


@asc.jit
def user_positions(x: asc.GlobalAddress, z: asc.GlobalAddress, bad: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 256)
    zg.set_global_buffer(z, 256)
    qi, qo = asc.TQue(P.VECIN, 1), asc.TQue(P.VECOUT, 1)
    pipe.init_buffer(qi, 1, 1024)
    pipe.init_buffer(qo, 1, 1024)
    a = qi.alloc_tensor(asc.float32)
    asc.data_copy(a, xg, 256)
    qi.enque(a, P.GM, P.VECIN)
    if bad:
        a = qi.deque(asc.float32, P.VECIN, P.VECOUT)  # other pair
    else:
        a = qi.deque(asc.float32, P.GM, P.VECIN)
    b = qo.alloc_tensor(asc.float32)
    asc.adds(b, a, 1.0, 256)
    qi.free_tensor(a)
    qo.enque(b, src_user_pos=P.VECOUT, dst_user_pos=P.GM)
    b = qo.deque(asc.float32)
    asc.data_copy(zg, b, 256)
    qo.free_tensor(b)


@pytest.mark.parametrize("backend", BACKENDS + CPU_DEBUG)
def test_the_queues_own_user_positions_are_the_plain_call(backend):
    x = np.random.default_rng(0).standard_normal(256).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(user_positions, backend=backend)[1](x, z, 0)
    np.testing.assert_array_equal(z, x + np.float32(1))


@pytest.mark.parametrize("backend", BACKENDS + CPU_DEBUG)
@pytest.mark.parametrize("kernel, args, cls, marker", [
    (user_positions, (np.zeros(256, np.float32), np.zeros(256, np.float32), 1), NotProvidedError, "other pair"),
    (enque_veccalc, (), TraceError, "enque veccalc")])
def test_misuse_is_refused_at_the_users_line(backend, kernel, args, cls, marker):
    with pytest.raises(cls) as ei:
        asc.jit(kernel, backend=backend)[1](*args)
    assert_points_at(ei.value, marker)
