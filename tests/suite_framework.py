"""Suite kernels (tests/suite_kernels.py) for the framework and system calls of issue 21 (i21d): each call
in each of its forms, so that the header check, the API-symbol audit and the registry's completeness test
see its emission."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

import asc_trace as asc
from asc_trace.toolchain.header_check import Kernel


@asc.jit
def system_calls(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, cv: int):
    g, p, o = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    p.set_global_buffer(y)
    o.set_global_buffer(z)
    asc.data_cache_clean_and_invalid(asc.CacheLine.SINGLE_CACHE_LINE, g, asc.DcciDst.CACHELINE_OUT)
    asc.data_cache_clean_and_invalid(entire_type=asc.CacheLine.ENTIRE_DATA_CACHE, dst=g)
    asc.data_cache_preload(p, 64)
    asc.icache_preload(2)
    busy = asc.get_icache_preload_status()
    asc.data_sync_barrier(asc.MemDsbT.ALL)
    asc.get_arch_version(cv)
    g.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE, asc.CacheRwMode.READ)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, g, 64)
    asc.adds(t, t, busy + 1.0, 64)
    asc.data_copy(o, t, 64)
    asc.trap()


# the mask register: its writes, and element-wise ops that read it (is_set_mask=False)
@asc.jit
def mask_register(x: asc.GlobalAddress, z: asc.GlobalAddress):
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(z)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)
    asc.data_copy(a, g, 256)
    asc.set_mask_count()
    asc.set_vector_mask(256, dtype=asc.float16, mode=asc.MaskMode.COUNTER)
    asc.set_mask_norm()
    asc.reset_mask()
    asc.set_vector_mask(0xFF, (1 << 64) - 1, dtype=asc.float16, mode=asc.MaskMode.NORMAL)
    asc.add(c, a, a, mask=0, repeat_times=2, repeat_params=asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8), is_set_mask=False)
    asc.set_vector_mask(64, dtype=asc.float16, mode=asc.MaskMode.NORMAL)
    asc.adds(c, c, 1.0, 0, 2, asc.UnaryRepeatParams(1, 1, 8, 8), is_set_mask=False)
    asc.data_copy(o, c, 256)


# GM atomics: every register write, and stores under add / max / min
@asc.jit
def atomics(x: asc.GlobalAddress, z: asc.GlobalAddress):
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a, g, 64)
    asc.set_atomic_add(asc.float32)
    asc.data_copy(o, a, 64)
    asc.set_atomic_max(asc.float32)
    asc.data_copy(o, a, 64)
    asc.set_atomic_min(asc.float16)
    asc.set_atomic_type(asc.float32)
    asc.data_copy(o, a, 64)
    asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_F32, asc.AtomicOp.ATOMIC_SUM)
    asc.get_store_atomic_config()
    asc.data_copy(o, a, 64)
    asc.set_atomic_none()


# calls only CANN 8.5+ (asc-devkit) declares: lowering them for CANN 8.x is refused at the user's line
@asc.jit
def system_calls_85(x: asc.GlobalAddress):
    asc.init_soc_state()


# a depth-0 queue (CANN 8.5+): the in-place AllocTensor(t) / DeQue(t) on tensors made as asc.LocalTensor(dtype)
@asc.jit
def queue_depth0(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(z)
    qi, qo = asc.TQue(asc.TPosition.VECIN, 0), asc.TQue(asc.TPosition.VECOUT, 0)
    pipe.init_buffer(qi, 1, 256)
    pipe.init_buffer(qo, 1, 256)
    a, b = asc.LocalTensor(asc.float32), asc.LocalTensor(asc.float32)
    qi.alloc_tensor(a)
    asc.data_copy(a, g, 64)
    qi.enque(a)
    qi.deque(a)
    qo.alloc_tensor(b)
    asc.adds(b, a, 1.0, 64)
    qi.free_tensor(a)
    qo.enque(b)
    qo.deque(b)
    asc.data_copy(o, b, 64)
    qo.free_tensor(b)


# TBufPool (CANN 8.5+ here): a nested pool, a queue and a TBuf from pools, reset at the end
@asc.jit
def buf_pools(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(z)
    pool, sub = asc.TBufPool(asc.TPosition.VECCALC, 4), asc.TBufPool(asc.TPosition.VECCALC, 4)
    twin = asc.TBufPool(asc.TPosition.VECCALC, 4)
    pipe.init_buf_pool(pool, 1024)
    pool.init_buf_pool(sub, 512)
    pool.init_buf_pool(twin, 512, share_buf=sub)
    q, tb = asc.TQue(asc.TPosition.VECIN, 1), asc.TBuf(asc.TPosition.VECCALC)
    sub.init_buffer(q, 1, 256)
    pool.init_buffer(buf=tb, len=256)
    a = q.alloc_tensor(asc.float32)
    asc.data_copy(a, g, 64)
    q.enque(a)
    a = q.deque(asc.float32)
    t = tb.get(asc.float32)
    asc.adds(t, a, 1.0, 64)
    asc.data_copy(o, t, 64)
    q.free_tensor(a)
    pool.reset()


NEWER_API = ("system_calls_85", "queue_depth0", "buf_pools")


# the TPipe's event-id pool (i21f): reserved ids used by hand-written flags, released at the end
@asc.jit
def event_pool(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(z)
    e = asc.get_tpipe_ptr().alloc_event_id(asc.HardEvent.MTE2_V)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, g, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, e)
    asc.wait_flag(asc.HardEvent.MTE2_V, e)
    asc.adds(t, t, 1.0, 64)
    asc.data_copy(o, t, 64)
    pipe.release_event_id(e, asc.HardEvent.MTE2_V)


@lru_cache(maxsize=1)
def framework_kernels() -> tuple[Kernel, ...]:
    x, y = np.zeros(64, np.float32), np.zeros(16, np.uint64)
    out = []
    h = np.zeros(256, np.float16)
    for k, args in ((system_calls, (x, y, x, 0)), (system_calls_85, (x,)), (mask_register, (h, h)), (atomics, (x, x)),
                    (event_pool, (x, x)), (queue_depth0, (x, x)),
                    (buf_pools, (x, x))):
        ck = asc.compile(k, args)
        out.append(Kernel(ck.name, ck.source, ck.graph))
    return tuple(out)
