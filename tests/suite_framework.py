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


# calls only CANN 8.5+ (asc-devkit) declares: lowering them for CANN 8.x is refused at the user's line
@asc.jit
def system_calls_85(x: asc.GlobalAddress):
    asc.init_soc_state()


NEWER_API = ("system_calls_85",)


@lru_cache(maxsize=1)
def framework_kernels() -> tuple[Kernel, ...]:
    x, y = np.zeros(64, np.float32), np.zeros(16, np.uint64)
    out = []
    for k, args in ((system_calls, (x, y, x, 0)), (system_calls_85, (x,))):
        ck = asc.compile(k, args)
        out.append(Kernel(ck.name, ck.source, ck.graph))
    return tuple(out)
