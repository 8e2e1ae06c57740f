"""Cache and system calls (graph/ops/system.py): each runs unchanged on sim, eager and cpp (and cpu_debug
with the real headers), changes no data, and reads what the model defines (GetICachePreloadStatus: idle);
Trap stops the kernel at the user's line on every backend; misuse is refused at the user's line."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.lower.ascendc import lower
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at

BACKENDS = ["sim", "eager", "cpp"] + (["cpu_debug"] if headers_if_configured() is not None else [])


@asc.jit
def cache_calls(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, cv: int, n: asc.ConstExpr[int]):
    g, p, o = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x)
    p.set_global_buffer(y)
    o.set_global_buffer(z)
    asc.data_cache_clean_and_invalid(asc.CacheLine.SINGLE_CACHE_LINE, g, asc.DcciDst.CACHELINE_OUT)
    asc.data_cache_clean_and_invalid(entire_type=asc.CacheLine.ENTIRE_DATA_CACHE, dst=g)
    asc.data_cache_preload(src=p, cache_offset=1024)
    asc.icache_preload(2)
    busy = asc.get_icache_preload_status()
    asc.data_sync_barrier(asc.MemDsbT.UB)
    asc.get_arch_version(core_version=cv)
    g.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE, asc.CacheRwMode.READ)
    o.set_l2_cache_hint()
    # the address of this core's tile, as a GlobalAddress a second GlobalTensor binds to
    mine = asc.GlobalTensor()
    mine.set_global_buffer(g[asc.get_block_idx() * n:].get_phy_addr(n // 2), n // 2)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(t, g[asc.get_block_idx() * n:], n)
    asc.data_copy(t, mine, n // 2)     # the tile's second half over its first
    asc.adds(t, t, busy + 0.5, n)      # busy is 0: the model has no instruction cache
    asc.data_copy(o[asc.get_block_idx() * n:], t, n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cache_calls_change_no_data(backend):
    n, cores = 64, 2
    x = np.arange(n * cores, dtype=np.float32)
    y = np.arange(32, dtype=np.uint64)
    z = np.zeros_like(x)
    asc.jit(cache_calls, backend=backend)[cores](x, y, z, 7, n)
    want = x.reshape(cores, n).copy()
    want[:, :n // 2] = want[:, n // 2:]
    np.testing.assert_array_equal(z, want.reshape(-1) + 0.5)
    np.testing.assert_array_equal(y, np.arange(32, dtype=np.uint64))


def test_the_calls_are_emitted_as_the_vendor_spells_them():
    src = asc.compile(cache_calls, (np.zeros(64, np.float32), np.zeros(8, np.uint64), np.zeros(64, np.float32),
                                    0, 64)).source
    for text in ("AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::SINGLE_CACHE_LINE, "
                 "AscendC::DcciDst::CACHELINE_OUT>(asct_t0);",
                 "AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::ENTIRE_DATA_CACHE>(asct_t0);",
                 "AscendC::DataCachePreload(asct_t1, static_cast<int64_t>(1024));",
                 "AscendC::ICachePreLoad(static_cast<int64_t>(2));", "= AscendC::GetICachePreloadStatus();",
                 "AscendC::DataSyncBarrier<AscendC::MemDsbT::UB>();", "AscendC::GetArchVersion(",
                 "asct_t0.SetL2CacheHint<AscendC::CacheRwMode::READ>(AscendC::CacheMode::CACHE_MODE_DISABLE);",
                 "asct_t2.SetL2CacheHint<AscendC::CacheRwMode::RW>(AscendC::CacheMode::CACHE_MODE_NORMAL);"):
        assert text in src, text


@asc.jit
def trapping(x: asc.GlobalAddress, n: int):
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, g, 64)
    asc.trap()  # MARK-trap
    asc.data_copy(g, t, 64)


@pytest.mark.parametrize("backend", BACKENDS)
def test_trap_stops_the_kernel_at_the_users_line(backend):
    x = np.ones(64, np.float32)
    with pytest.raises(asc.LaunchError, match="Trap|trap") as ei:
        asc.jit(trapping, backend=backend)[1](x, 64)
    assert_points_at(ei.value, "MARK-trap")


def test_init_soc_state_is_refused_for_cann_8x_headers_only():
    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.init_soc_state()  # MARK-soc

    ck = asc.compile(k, (np.zeros(8, np.float32),))
    assert "AscendC::InitSocState();" in ck.source
    assert "AscendC::InitSocState();" in lower(ck.graph, generation=9)
    with pytest.raises(asc.ToolchainError, match="CANN 8.5 and later") as ei:
        lower(ck.graph, generation=8)
    assert_points_at(ei.value, "MARK-soc")
    k[1](np.zeros(8, np.float32))       # runs: the model's registers start in the state it sets


def test_get_shape_size_is_the_product_of_the_dimensions():
    # the kernel writes what it computed into z (a list outside the kernel that it appends to is refused)
    @asc.jit
    def k(z: asc.GlobalAddress):
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z, 8)
        zg.set_value(0, asc.get_shape_size(asc.ShapeInfo()))
        zg.set_value(1, asc.get_shape_size(asc.ShapeInfo(asc.array(asc.int32, [8, 3, 2]))))

    z = np.zeros(8, np.int32)
    k[1](z)
    assert list(z[:2]) == [1, 48]


def _misuse(body):
    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress):
        g, h = asc.GlobalTensor(), asc.GlobalTensor()
        g.set_global_buffer(x)
        h.set_global_buffer(y)
        body(g, h)
    return k


@pytest.mark.parametrize("body,cls,words", [
    (lambda g, h: asc.data_cache_preload(g, 0), asc.DTypeError, "GlobalTensor of uint64"),  # MARK-misuse
    (lambda g, h: asc.data_cache_clean_and_invalid(asc.CacheLine.SINGLE_CACHE_LINE,
                                                   asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)),
     asc.TraceError, "dst is a GlobalTensor"),
    (lambda g, h: asc.data_cache_clean_and_invalid(7, g), asc.TraceError, "asc.CacheLine"),
    (lambda g, h: asc.data_sync_barrier("all"), asc.TraceError, "asc.MemDsbT"),
    (lambda g, h: asc.data_cache_preload(h, -1), asc.TraceError, "must not be negative"),
    (lambda g, h: asc.get_shape_size([1, 2]), asc.TraceError, "asc.ShapeInfo"),
    (lambda g, h: g[8:].set_l2_cache_hint(), asc.TraceError, "not on a view"),
    (lambda g, h: g.set_l2_cache_hint(9), asc.TraceError, "asc.CacheMode"),
    (lambda g, h: asc.GlobalTensor().get_phy_addr(), asc.TraceError, "not bound"),
])
def test_misuse_is_refused_at_the_users_line(body, cls, words):
    with pytest.raises(cls, match=words) as ei:
        _misuse(body)[1](np.zeros(8, np.float32), np.zeros(8, np.uint64))
    assert "test_system_ops.py" in str(ei.value)
