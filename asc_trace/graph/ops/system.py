"""Cache and system operations (asc-devkit kernel_operator_cache_intf.h, kernel_operator_sys_var_intf.h,
kernel_operator_common_intf.h, kernel_operator_block_sync_intf.h).

asc_trace's memories are coherent and its scalar unit reads global memory directly, so the cache
operations change no data: they are kept in the graph (and emitted) so that a kernel written for the
hardware runs unchanged, and their operands are checked (a cache line address is an element of a bound
GlobalTensor). None is an instruction of a compute pipe the scheduler orders. `trap` stops the kernel.
"""
from __future__ import annotations

from ...errors import ToolchainError
from .opdef import CppModel, OpDef, register

# where the emitted calls are declared: (asc-devkit path:line, CANN 8.1.RC1 path:line under tikcfw or "-")
_CACHE = "include/basic_api/kernel_operator_cache_intf.h"
_SYS = "include/basic_api/kernel_operator_sys_var_intf.h"
D_DCCI = {"DataCacheCleanAndInvalid<>/1": (f"{_CACHE}:47", "interface/kernel_common.h:157"),
          "CacheLine": ("impl/basic_api/kernel_reg.h:109", "impl/kernel_reg.h:82"),
          "DcciDst": ("impl/basic_api/kernel_reg.h:111", "impl/kernel_reg.h:87")}
D_PRELOAD = {"DataCachePreload/2": (f"{_CACHE}:44", "interface/kernel_operator_common_intf.h:115")}
D_ICACHE = {"ICachePreLoad/1": (f"{_CACHE}:55", "interface/kernel_operator_common_intf.h:119")}
D_ICACHE_ST = {"GetICachePreloadStatus/0": (f"{_CACHE}:57", "interface/kernel_operator_common_intf.h:117")}
D_DSB = {"DataSyncBarrier<>/0": ("include/basic_api/kernel_operator_block_sync_intf.h:52",
                                 "interface/kernel_common.h:120"),
         "MemDsbT": ("impl/basic_api/kernel_event.h:131", "impl/kernel_event.h:147")}
D_ARCH = {"GetArchVersion/1": (f"{_SYS}:49", "interface/kernel_operator_sys_var_intf.h:36")}
D_TRAP = {"Trap/0": (f"{_SYS}:55", "interface/kernel_operator_sys_var_intf.h:42")}
D_L2 = {".SetL2CacheHint<>/1": ("include/basic_api/kernel_tensor.h:283", "interface/kernel_tensor.h:221"),
        "CacheMode": ("impl/basic_api/utils/kernel_utils_macros.h:232", "impl/utils/kernel_utils_macros.h:139"),
        "CacheRwMode": ("impl/basic_api/utils/kernel_utils_macros.h:234", "impl/utils/kernel_utils_macros.h:146")}
D_SOC = {"InitSocState/0": ("include/basic_api/kernel_operator_common_intf.h:59", "-")}


def _newer_only(ctx, n, call: str) -> None:
    """A call CANN 8.x's Ascend C does not declare: refused when lowering for those headers."""
    if ctx.generation == 8:
        raise ToolchainError(f"{call} is declared by CANN 8.5 and later (asc-devkit), not by CANN 8.x's Ascend C",
                             n.loc, hint="build with CANN 8.5 or later, or drop the call")


def _dcci(ctx, n) -> str:
    ref, entire, dst = n.args
    ct = ref.dtype.c_name
    targs = f"{ct}, AscendC::CacheLine::{entire.name}"
    if dst is not None:
        targs += f", AscendC::DcciDst::{dst.name}"
    return f"AscendC::DataCacheCleanAndInvalid<{targs}>({ctx.ref(ref)});"


def _preload(ctx, n) -> str:
    ref, offset = n.args
    # DataCachePreload<T> takes int16_t or int64_t offsets (dav_c220's impl reports any other type)
    return f"AscendC::DataCachePreload({ctx.ref(ref)}, {ctx.cast(offset, 'int64_t')});"


def _arch(ctx, n) -> str:
    return (f"uint32_t asct_v{n.id} = {ctx.cast(n.args[0], 'uint32_t')};\n"
            f"AscendC::GetArchVersion(asct_v{n.id});")


def _soc(ctx, n) -> str:
    _newer_only(ctx, n, "AscendC::InitSocState()")
    return "AscendC::InitSocState();"


_NOOP = "(no data effect: the model's memories are coherent)"

register(
    OpDef("data_cache_clean_and_invalid", "system", None, "DataCacheCleanAndInvalid", emit=_dcci,
          cpp_model=CppModel(header=f"DataCacheCleanAndInvalid {_NOOP}"), reads=(),
          declared=D_DCCI, doc="DataCacheCleanAndInvalid<T, CacheLine[, DcciDst]>(gm)"),
    OpDef("data_cache_preload", "system", None, "DataCachePreload", emit=_preload,
          cpp_model=CppModel(header=f"DataCachePreload {_NOOP}"), reads=(),
          declared=D_PRELOAD, doc="DataCachePreload(GlobalTensor<uint64_t>, offset)"),
    OpDef("icache_preload", "system", None, "ICachePreLoad", emit="AscendC::ICachePreLoad({n});",
          emit_fields=lambda ctx, n: {"n": ctx.cast(n.args[0], "int64_t")},
          cpp_model=CppModel(header=f"ICachePreLoad {_NOOP}"), declared=D_ICACHE),
    # the model has no instruction cache: no preload is ever in flight, the status reads 0
    OpDef("get_icache_preload_status", "system", None, "GetICachePreloadStatus",
          emit=lambda ctx, n: f"const int64_t asct_v{n.id} = AscendC::GetICachePreloadStatus();",
          cpp_model=CppModel(header="GetICachePreloadStatus (0: idle)"), declared=D_ICACHE_ST),
    OpDef("data_sync_barrier", "system", None, "DataSyncBarrier",
          emit="AscendC::DataSyncBarrier<AscendC::MemDsbT::{scope}>();",
          emit_fields=lambda ctx, n: {"scope": n.args[0].name},
          cpp_model=CppModel(header=f"DataSyncBarrier {_NOOP}"), declared=D_DSB),
    OpDef("get_arch_version", "system", None, "GetArchVersion", emit=_arch,
          cpp_model=CppModel(header="GetArchVersion (leaves the value: pyasc's get_arch_version returns nothing)"),
          declared=D_ARCH),
    OpDef("trap", "system", None, "Trap", emit="AscendC::Trap();", emit_fields=lambda ctx, n: {},
          cpp_model=CppModel(header="Trap (stops the kernel with an error)"), declared=D_TRAP),
    # the hint is set on the GlobalTensor object (proxies/tensors.py refuses a view, a C++ temporary)
    OpDef("set_l2_cache_hint", "system", None, "SetL2CacheHint", reads=(),
          emit=lambda ctx, n: (f"asct_t{n.args[0].root}.SetL2CacheHint<AscendC::CacheRwMode::{n.args[2].name}>("
                               f"AscendC::CacheMode::{n.args[1].name});"),
          cpp_model=CppModel(header="GlobalTensor (its SetL2CacheHint changes nothing: no L2 cache on the host)"), declared=D_L2),
    OpDef("init_soc_state", "system", None, "InitSocState", emit=_soc,
          cpp_model=CppModel(header=f"InitSocState {_NOOP}"), declared=D_SOC),
)

# GetICachePreloadStatus: 0 idle, 1 busy (pyasc's documentation); the model has no instruction cache
ICACHE_IDLE = 0
