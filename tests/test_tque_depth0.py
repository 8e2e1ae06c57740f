"""TQue of depth 0 (issue 21, i21f): CANN 8.5+'s in-place queue. `asc.LocalTensor(dtype)` is a tensor with
no memory yet; `que.alloc_tensor(t)` binds it to a free buffer, `enque(t)`, `deque(t)` waits for that
tensor's own buffer, `free_tensor(t)`. asc_trace's queues hand out the oldest enqueued tensor, so deque(t)
must name it (checked while tracing). Bytes equal NumPy on every backend; lowering for CANN 8.x is refused
(the in-place forms are asc-devkit's only); each misuse is an error at the user's line on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import ToolchainError, TraceError
from asc_trace.language.fwk import TQueBind
from asc_trace.lower.ascendc import lower
from helpers import assert_points_at, every_backend

P = asc.TPosition


@asc.jit
def scale_in_place(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int],
                   bufs: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    zg.set_global_buffer(z + asc.get_block_idx() * n, n)
    qi, qo = asc.TQue(P.VECIN, 0), TQueBind(P.VECOUT, P.VECOUT, 0)
    pipe.init_buffer(qi, bufs, tile * 2)
    pipe.init_buffer(qo, bufs, tile * 2)
    for i in range(n // tile):
        a = asc.LocalTensor(asc.float16)
        qi.alloc_tensor(a)  # in-place alloc
        asc.data_copy(a, xg[i * tile:], tile)
        qi.enque(a)
        qi.deque(a)
        b = asc.LocalTensor(asc.float16)
        qo.alloc_tensor(b)
        asc.muls(b, a, 3.0, tile)
        asc.adds(b, b, -1.0, tile)
        qi.free_tensor(a)
        qo.enque(b)
        qo.deque(b)
        asc.data_copy(zg[i * tile:], b, tile)
        qo.free_tensor(b)


def _ref(x):
    return (x * np.float16(3)).astype(np.float16) - np.float16(1)


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("cores, n, tile, bufs", [(1, 128, 128, 1), (2, 4096, 512, 2), (3, 16 * 48, 48, 2)])
def test_an_in_place_queue_runs_on_every_backend(backend, cores, n, tile, bufs):
    x = np.random.default_rng(n).uniform(-4, 4, cores * n).astype(np.float16)
    z = np.zeros_like(x)
    asc.jit(scale_in_place, backend=backend)[cores](x, z, n, tile, bufs)
    np.testing.assert_array_equal(z, _ref(x))


def test_emitted_as_the_vendors_in_place_calls_and_refused_for_cann_8x():
    x = np.zeros(256, np.float16)
    ck = asc.compile(scale_in_place, (x, x.copy(), 256, 128, 2))
    src = ck.source
    assert "AscendC::TQue<AscendC::TPosition::VECIN, 0>" in src
    assert ".AllocTensor<half>(asct_t" in src and ".DeQue<half>(asct_t" in src
    assert lower(ck.graph, generation=9) == src
    with pytest.raises(ToolchainError, match="CANN 8.5 and later") as ei:
        lower(ck.graph, generation=8)
    assert_points_at(ei.value, "in-place alloc")


@asc.jit
def alloc_by_dtype():
    pipe = asc.TPipe()
    q = asc.TQue(P.VECIN, 0)
    pipe.init_buffer(q, 1, 256)
    q.alloc_tensor(asc.float32)  # by dtype


@asc.jit
def in_place_on_depth_two():
    pipe = asc.TPipe()
    q = asc.TQue(P.VECIN, 2)
    pipe.init_buffer(q, 1, 256)
    t = asc.LocalTensor(asc.float32)
    q.alloc_tensor(t)  # depth two


@asc.jit
def out_of_order(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    q = asc.TQue(P.VECIN, 0)
    pipe.init_buffer(q, 2, 256)
    a, b = asc.LocalTensor(asc.float32), asc.LocalTensor(asc.float32)
    q.alloc_tensor(a)
    q.alloc_tensor(b)
    asc.data_copy(a, g, 64)
    asc.data_copy(b, g, 64)
    q.enque(a)
    q.enque(b)
    q.deque(b)  # not the oldest


@asc.jit
def veccalc_depth0():
    asc.TQue(P.VECCALC, 0)  # veccalc depth 0


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("kernel, args, marker", [
    (alloc_by_dtype, (), "by dtype"), (in_place_on_depth_two, (), "depth two"),
    (out_of_order, (np.zeros(64, np.float32),), "not the oldest"), (veccalc_depth0, (), "veccalc depth 0")])
def test_misuse_is_a_trace_error_at_the_users_line(backend, kernel, args, marker):
    with pytest.raises(TraceError) as ei:
        asc.jit(kernel, backend=backend)[1](*args)
    assert_points_at(ei.value, marker)


@asc.jit
def keyword_forms(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """pyasc's keyword spelling of the in-place forms: alloc_tensor(tensor=t), deque(tensor=t)."""
    pipe = asc.TPipe()
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(z)
    q = asc.TQue(P.VECIN, 0)
    pipe.init_buffer(q, 1, 256)
    t = asc.LocalTensor(asc.float32)
    q.alloc_tensor(tensor=t)
    asc.data_copy(t, g, 64)
    q.enque(t)
    q.deque(tensor=t)
    asc.data_copy(o, t, 64)
    q.free_tensor(t)


@pytest.mark.parametrize("backend", every_backend())
def test_the_keyword_forms(backend):
    x = np.arange(64, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(keyword_forms, backend=backend)[1](x, z)
    np.testing.assert_array_equal(z, x)
