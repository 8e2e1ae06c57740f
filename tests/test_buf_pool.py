"""TBufPool (issue 21, i21f): a block of the TPipe's memory that queues and TBufs are initialised from.
Pools carve disjoint memory; nested pools divide a pool; reset() at the end is accepted. Memory handed out
twice (share_buf, or init_buffer after reset) is refused with a NotProvidedError until the scheduler sees it
as shared. Bytes equal NumPy on sim, eager, cpp and cpu_debug; misuse is an error at the user's line."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import NotProvidedError, TraceError, UBOverflowError
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
def shared():
    pipe = asc.TPipe()
    a, b = asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC)
    pipe.init_buf_pool(a, 1024)
    pipe.init_buf_pool(b, 1024, share_buf=a)  # share


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
    (shared, (), NotProvidedError, "share"), (after_reset, (), NotProvidedError, "again"),
    (no_memory, (), TraceError, "no memory"), (too_small, (), UBOverflowError, "too small"),
    (runtime_size, (1024,), TraceError, "runtime size")])
def test_misuse_is_an_error_at_the_users_line(backend, kernel, args, cls, marker):
    with pytest.raises(cls) as ei:
        asc.jit(kernel, backend=backend)[1](*args)
    assert_points_at(ei.value, marker)
