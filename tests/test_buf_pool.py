"""TBufPool (issue 21, i21f): a block of the TPipe's memory that queues and TBufs are initialised from.
Pools carve disjoint memory; nested pools divide a pool; a pool made with share_buf hands the same bytes out
again, and the scheduler sees the two stages' buffers as one memory (the MTE3 -> MTE2 order the reuse needs
is derived). Reset leaves a pool without memory, as Ascend C's ResetPool does. Bytes equal NumPy on sim,
eager, cpp and cpu_debug; misuse is an error at the user's line."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import TraceError, UBOverflowError
from asc_trace.lower.ascendc import lower
from helpers import assert_points_at, every_backend

P = asc.TPosition


@asc.jit
def pooled(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
    """z = x * 3 + 1 with every buffer from pools: the input queue and a scratch TBuf from `pool`, the output
    queue from a pool nested in it."""
    pipe = asc.TPipe()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    zg.set_global_buffer(z + asc.get_block_idx() * n, n)
    pool, sub = asc.TBufPool(P.VECCALC, 4), asc.TBufPool(pos=P.VECCALC, buf_id_size=4)
    pipe.init_buf_pool(pool, 6 * tile * 4)
    pool.init_buf_pool(buf_pool=sub, len=2 * tile * 4)
    qi, qo, tb = asc.TQue(P.VECIN, 2), asc.TQue(P.VECOUT, 2), asc.TBuf(P.VECCALC)
    pool.init_buffer(qi, 2, tile * 4)
    sub.init_buffer(que=qo, num=2, len=tile * 4)
    pool.init_buffer(buf=tb, len=tile * 4)
    t = tb.get(asc.float32)
    for i in range(n // tile):
        a = qi.alloc_tensor(asc.float32)
        asc.data_copy(a, xg[i * tile:], tile)
        qi.enque(a)
        a = qi.deque(asc.float32)
        b = qo.alloc_tensor(asc.float32)
        asc.muls(t, a, 3.0, tile)
        asc.adds(b, t, 1.0, tile)
        qi.free_tensor(a)
        qo.enque(b)
        b = qo.deque(asc.float32)
        asc.data_copy(zg[i * tile:], b, tile)
        qo.free_tensor(b)
    pool.reset()


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("cores, n, tile", [(1, 256, 256), (2, 4096, 512), (3, 40 * 64, 64)])
def test_pooled_buffers_run_on_every_backend(backend, cores, n, tile):
    x = np.random.default_rng(n).standard_normal(cores * n).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(pooled, backend=backend)[cores](x, z, n, tile)
    np.testing.assert_array_equal(z, x * np.float32(3) + np.float32(1))


def test_emitted_as_the_vendors_calls():
    x = np.zeros(256, np.float32)
    src = asc.compile(pooled, (x, x.copy(), 256, 64)).source
    assert "AscendC::TBufPool<AscendC::TPosition::VECCALC, 4>" in src
    for call in (".InitBufPool(asct_t", ".Reset();"):
        assert call in src
    g = asc.compile(pooled, (x, x.copy(), 256, 64)).graph
    with pytest.raises(asc.ToolchainError, match="CANN 8.5 and later"):
        lower(g, generation=8)


@asc.jit
def share_empty():
    pipe = asc.TPipe()
    a, b = asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(b, 1024, share_buf=a)  # share empty


@asc.jit
def after_reset():
    pipe = asc.TPipe()
    pool = asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(pool, 1024)
    q1, q2 = asc.TQue(P.VECIN, 1), asc.TQue(P.VECOUT, 1)
    pool.init_buffer(q1, 1, 1024)
    pool.reset()
    pool.init_buffer(q2, 1, 1024)  # again


@asc.jit
def no_memory():
    pool = asc.TBufPool(P.VECCALC)
    pool.init_buffer(asc.TQue(P.VECIN, 1), 1, 256)  # no memory


@asc.jit
def too_small():
    pipe = asc.TPipe()
    pool = asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(pool, 512)
    q = asc.TQue(P.VECIN, 2)
    pool.init_buffer(q, 2, 512)  # too small


@asc.jit
def runtime_size(n: int):
    pipe = asc.TPipe()
    pool = asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(pool, n)  # runtime size


@asc.jit
def nested_other_size():
    pipe = asc.TPipe()
    pool, sub = asc.TBufPool(P.VECCALC, 4), asc.TBufPool(P.VECCALC, 2)
    pipe.init_buf_pool(pool, 1024)
    pool.init_buf_pool(sub, 512)  # other size


@pytest.mark.parametrize("backend", every_backend())
def test_a_nested_pool_of_another_id_size(backend):
    """Runs on the models; the vendor's CPU-debug build does not compile it, and cpu_debug says why."""
    if backend == "cpu_debug":
        with pytest.raises(asc.ToolchainError, match="same buf_id_size") as ei:
            asc.jit(nested_other_size, backend=backend)[1]()
        assert_points_at(ei.value, "other size")
    else:
        asc.jit(nested_other_size, backend=backend)[1]()


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("kernel, args, cls, marker", [
    (after_reset, (), TraceError, "again"), (share_empty, (), TraceError, "share empty"),
    (no_memory, (), TraceError, "no memory"), (too_small, (), UBOverflowError, "too small"),
    (runtime_size, (1024,), TraceError, "runtime size")])
def test_misuse_is_an_error_at_the_users_line(backend, kernel, args, cls, marker):
    with pytest.raises(cls) as ei:
        asc.jit(kernel, backend=backend)[1](*args)
    assert_points_at(ei.value, marker)


T = 256


@asc.jit
def two_stages(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, w: asc.GlobalAddress, n: int):
    """The vendor's pattern: pool0 divided into pool1 and pool2 = pool1's bytes; stage 1 (z = x + 1) from
    pool1, reset, stage 2 (w = y * 2) from pool2: its VECIN buffer is stage 1's VECOUT buffer."""
    pipe = asc.TPipe()
    xg, yg, zg, wg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    for g, a in ((xg, x), (yg, y), (zg, z), (wg, w)):
        g.set_global_buffer(a + asc.get_block_idx() * n, n)
    pool0, pool1, pool2 = asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(pool0, 2 * T * 4)
    pool0.init_buf_pool(pool1, 2 * T * 4)
    pool0.init_buf_pool(pool2, 2 * T * 4, pool1)
    qo, qi1 = asc.TQue(P.VECOUT, 1), asc.TQue(P.VECIN, 1)
    pool1.init_buffer(qo, 1, T * 4)
    pool1.init_buffer(qi1, 1, T * 4)
    for i in range(n // T):
        a = qi1.alloc_tensor(asc.float32)
        asc.data_copy(a, xg[i * T:], T)
        qi1.enque(a)
        a = qi1.deque(asc.float32)
        b = qo.alloc_tensor(asc.float32)
        asc.adds(b, a, 1.0, T)
        qi1.free_tensor(a)
        qo.enque(b)
        b = qo.deque(asc.float32)
        asc.data_copy(zg[i * T:], b, T)  # stage 1 out
        qo.free_tensor(b)
    pool1.reset()
    qi, qo2 = asc.TQue(P.VECIN, 1), asc.TQue(P.VECOUT, 1)
    pool2.init_buffer(qi, 1, T * 4)
    pool2.init_buffer(qo2, 1, T * 4)
    for i in range(n // T):
        a = qi.alloc_tensor(asc.float32)
        asc.data_copy(a, yg[i * T:], T)  # stage 2 in
        qi.enque(a)
        a = qi.deque(asc.float32)
        b = qo2.alloc_tensor(asc.float32)
        asc.muls(b, a, 2.0, T)
        qi.free_tensor(a)
        qo2.enque(b)
        b = qo2.deque(asc.float32)
        asc.data_copy(wg[i * T:], b, T)
        qo2.free_tensor(b)


def test_the_scheduler_orders_the_reused_bytes():
    """Stage 2's first copy in writes the bytes stage 1's last copy out reads: an MTE3 -> MTE2 pair between
    those two lines, which only the shared memory calls for."""
    from helpers import line_of
    x = np.zeros(512, np.float32)
    g = asc.compile(two_stages, (x, x, x, x, 512)).graph
    pairs = [n for n in g if n.op in ("set_flag", "wait_flag") and n.attr("auto") and n.args[0] == asc.HardEvent.MTE3_MTE2]
    assert len(pairs) == 2
    why = str(g)
    assert f"test_buf_pool.py:{line_of('stage 1 out')}" in why and f"test_buf_pool.py:{line_of('stage 2 in')}" in why


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("cores, n", [(1, 256), (2, 2048), (3, 768)])
def test_two_stages_over_one_block_run_on_every_backend(backend, cores, n):
    x, y = np.random.default_rng(n).standard_normal((2, cores * n)).astype(np.float32)
    z, w = np.zeros_like(x), np.zeros_like(x)
    asc.jit(two_stages, backend=backend)[cores](x, y, z, w, n)
    np.testing.assert_array_equal(z, x + np.float32(1))
    np.testing.assert_array_equal(w, y * np.float32(2))


def test_without_the_derived_order_the_simulator_reports_the_race():
    x = np.zeros(512, np.float32)
    with pytest.raises(asc.RaceError):
        asc.jit(two_stages, auto_sync=False)[1](x, x.copy(), x.copy(), x.copy(), 512)


@asc.jit
def raw_over_pool():
    pipe = asc.TPipe()
    pool = asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(pool, 1024)
    q = asc.TQue(P.VECIN, 1)
    pool.init_buffer(q, 1, 512)
    t = asc.LocalTensor(asc.float32, P.VECCALC, 512, 64)  # raw over pool
    asc.duplicate(t, 1.0, 64)


@asc.jit
def raw_after_pool():
    pipe = asc.TPipe()
    pool = asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(pool, 1024)
    t = asc.LocalTensor(asc.float32, P.VECCALC, 1024, 64)
    asc.duplicate(t, 1.0, 64)


@pytest.mark.parametrize("backend", every_backend())
def test_a_raw_tensor_over_a_pools_block_is_refused(backend):
    """The pool's whole block is the TPipe's memory (graph/ub_overlap.py), whatever the pool hands out of it."""
    with pytest.raises(asc.QueueError, match="TBufPool") as ei:
        asc.jit(raw_over_pool, backend=backend)[1]()
    assert_points_at(ei.value, "raw over pool")
    asc.jit(raw_after_pool, backend=backend)[1]()


@asc.jit
def pyasc_tbuf_form(z: asc.GlobalAddress):
    """pyasc's TBufPool.init_buffer(buf, len) positionally, and a zero count refused."""
    pipe = asc.TPipe()
    o = asc.GlobalTensor()
    o.set_global_buffer(z)
    pool = asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(pool, 512)
    tb = asc.TBuf(P.VECCALC)
    pool.init_buffer(tb, 256)
    t = tb.get(asc.float32)
    asc.duplicate(t, 2.0, 64)
    asc.data_copy(o, t, 64)


@asc.jit
def zero_count():
    pipe = asc.TPipe()
    pool = asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(pool, 512)
    pool.init_buffer(que=asc.TQue(P.VECIN, 1), len=256)  # zero count


@pytest.mark.parametrize("backend", every_backend())
def test_pyascs_forms(backend):
    z = np.zeros(64, np.float32)
    asc.jit(pyasc_tbuf_form, backend=backend)[1](z)
    np.testing.assert_array_equal(z, np.full(64, 2, np.float32))
    with pytest.raises(TraceError) as ei:
        asc.jit(zero_count, backend=backend)[1]()
    assert_points_at(ei.value, "zero count")
