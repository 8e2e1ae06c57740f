"""asc_trace: write Ascend NPU vector kernels in Python; run them traced on a strict simulator, on
the host through the emitted Ascend C, or on the NPU.

Kernel-side names follow pyasc 1.1.1, so `import asc_trace as asc` runs pyasc-style kernels.
"""
from __future__ import annotations

from . import dtypes as _dtypes
from ._version import __version__
from .tuning import Autotuner, Config, autotune
from .dtypes import (DataType, bfloat16, bool_, float16, float32, float_, half, int8, int16, int32, int64, int_,
                     uint8, uint16, uint32, uint64)
from .enums import (CMPMODE, SELMODE, AtomicDtype, AtomicOp, CacheLine, CacheMode, CacheRwMode, DataFormat, DcciDst, HardEvent, Hardware, MaskMode,
                    MemDsbT, PipeID, QuePosition,
                    ReduceOrder, RoundMode, SelMode, TPosition)
from .errors import (AlignmentError, AscTraceError, AscTraceWarning, CacheError, DTypeError, LaunchError,
                     NotProvidedError, OptionError, OutOfBoundsError, PathError, QueueError, RaceError, ScalarError,
                     SyncError, ToolchainError, TorchOpError, TraceError, UBOverflowError)
from .graph import printer as _printer  # noqa: F401 - installs the node dump errors show
from .graph.kernel_graph import KernelGraph
from .jit_function import CompiledKernel, ConstExpr, JitFunction, compile, jit, profile
from .runtime.profile import Profile
from .proxies.api import (build_vector_api, data_copy, get_block_idx, get_block_num, pipe_barrier, printf, set_flag,
                          wait_flag)
from .proxies.api_ops import data_copy_pad, dump_tensor
from .proxies.control import cond, while_loop
from .proxies.scalar_bits import (count_bits_cnt_same_as_sign_bit, get_data_block_size_in_bytes, scalar_cast,
                                  scalar_count_leading_zero, scalar_get_count_of_value, scalar_get_sff_value)
from .proxies.framework import LocalMemAllocator, TBuf, TPipe, TQue
from .proxies.event_pool import get_tpipe_ptr
from .proxies.buf_pool import TBufPool
from .proxies.block_sync import ib_set, ib_wait, sync_all
from .proxies.atomic import (get_store_atomic_config, set_atomic_add, set_atomic_max, set_atomic_min,
                             set_atomic_none, set_atomic_type, set_store_atomic_config)
from .proxies.mask_reg import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from .proxies.system import (data_cache_clean_and_invalid, data_cache_preload, data_sync_barrier, get_arch_version,
                             get_icache_preload_status, get_shape_size, icache_preload, init_soc_state, trap)
from .proxies.loops import runtime_range as range  # noqa: A001 - pyasc's asc.range
from .proxies.loops import static_range
from .proxies.params import (Array, BinaryRepeatParams, DataCopyExtParams, DataCopyPadExtParams, DataCopyParams,
                             ShapeInfo, UnaryRepeatParams, array)
from .proxies.scalar import Scalar
from .graph.params_vec import GatherMaskMode, TransposeType
from .proxies.params_vec import (BrcbRepeatParams, CopyRepeatParams, DataCopyPadParams, GatherMaskParams,
                                 GatherRepeatParams, TransDataTo5HDParams, TransposeParamsExt)
from .proxies.tensors import GlobalAddress, GlobalTensor, LocalTensor, LocalTensorAuto
from .torch_library import torch_op
from .cube_enums import (CO2Layout, CubeFormat, DEFAULT_C0_SIZE, FixpipeConfig, ONE_BLK_SIZE, QuantModes,
                         TOTAL_L0C_SIZE, TOTAL_L1_SIZE, property)  # noqa: A004 - pyasc's asc.property
from .proxies.cube_api import fixpipe, init_const_value, load_data, mmad
from .proxies.mix_api import (cross_core_set_flag, cross_core_wait_flag, get_sub_block_idx, get_sub_block_num,
                              get_task_ratio)
from .proxies.cube_params import (FixpipeParamsV220, InitConstValueParams, LoadData2DParams, LoadData3DParamsV2,
                                  MmadParams, Nd2NzParams)
from . import lib, runtime  # pyasc's host modules: asc.lib.runtime, asc.runtime.config
from . import adv  # noqa: E402 - the high-level API, asc.adv.*
from .proxies.core_type import ascend_is_aic, ascend_is_aiv  # noqa: E402
from .adv.matmul_types import (BatchMode, BatchOutMode, IterateMode, IterateOrder, LayoutMode,  # noqa: E402
                               MatmulConfigMode, MatmulPolicy, ScheduleType, ceildiv)


globals().update(build_vector_api())   # add, sub, mul, ..., exp, ..., adds, ..., duplicate
from .proxies.api_vec_more import build_further_api as _build_further_api  # noqa: E402
from .proxies.api_vec_more import get_sort_len, get_sort_offset  # noqa: E402
globals().update(_build_further_api())   # pyasc's further vector families: block_reduce_sum, ...
from .proxies.api_fused_cast import build_fused_cast_api as _build_fused_cast_api  # noqa: E402
globals().update(_build_fused_cast_api())   # add_relu_cast, ..., cast_deq, set_deq_scale, VdeqInfo (not run)
from .proxies.register_reads import get_gather_mask_remain_count, get_mrg_sort_result  # noqa: E402
from .proxies.api_cmpsel import get_cmp_mask, set_cmp_mask  # noqa: E402
from .proxies.api_sort import build_sort_api as _build_sort_api  # noqa: E402
globals().update(_build_sort_api())   # sort32
from .proxies.api_mrg_sort import MrgSort4Info, MrgSortSrcList, mrg_sort, sort  # noqa: E402

# a pyasc name deliberately not provided is a NotProvidedError naming the alternative (proxies/not_provided.py)
from .proxies.not_provided import module_getattr as __getattr__  # noqa: E402

import types as _types  # noqa: E402


# `range` stays out so `from asc_trace import *` cannot shadow the builtin; submodules and the
# `annotations` future flag are not API.
__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and n not in ("range", "property", "annotations", "build_vector_api")
                 and not isinstance(v, _types.ModuleType))
