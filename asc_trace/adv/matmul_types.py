"""The declarative side of pyasc's high-level Matmul (`asc.adv`): the enums, `MatmulType`, `MatmulConfig` and
its parameter groups, and `TCubeTiling` (the vendor's `TCubeTiling` struct, pyasc's field names).

A TCubeTiling reaches a kernel as a parameter annotated `asc.adv.TCubeTiling` (the kernel is specialised on its
values, as on any pyasc Struct: tile sizes size L1 / L0 buffers) or is built in the kernel. Inside the kernel the
struct is the kernel's own copy (pyasc passes it by value), so `tiling.share_l1_size = ...` there changes nothing
on the host; its integer fields have pyasc's `.ceildiv`.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from ..dtypes import DataType, int32
from ..enums import TPosition
from ..cube_enums import CubeFormat
from ..errors import TraceError
from ..kernel_struct import Field, Struct
from ..proxies.source_loc import user_loc


class LayoutMode(IntEnum):
    NONE = 0
    NORMAL = 1
    BSNGD = 2
    SBNGD = 3
    BNGS1S2 = 4


class IterateOrder(IntEnum):
    ORDER_M = 0
    ORDER_N = 1
    UNDEF = 2


class ScheduleType(IntEnum):
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1


class BatchMode(IntEnum):
    NONE = 0
    BATCH_LESS_THAN_L1 = 1
    BATCH_LARGE_THAN_L1 = 2
    SINGLE_LARGE_THAN_L1 = 3


class IterateMode(IntEnum):
    ITERATE_MODE_NORMAL = 0b00000001
    ITERATE_MODE_ALL = 0b00000010
    ITERATE_MODE_BATCH = 0b00000100
    ITERATE_MODE_N_BATCH = 0b00001000
    ITERATE_MODE_DEFAULT = 0b11111111


class MatmulConfigMode(IntEnum):
    CONFIG_NORM = 1
    CONFIG_MDL = 2
    CONFIG_SPECIALMDL = 3
    CONFIG_IBSHARE = 4


class MatmulPolicy(IntEnum):
    MatmulPolicy = 0
    TrianUpperMatmulPolicy = 1
    TrianLowerMatmulPolicy = 2
    NBuffer33MatmulPolicy = 3


class BatchOutMode(IntEnum):
    SINGLE_BATCH = 0
    MULTI_BATCH = 1
    DYNAMIC = 2


@dataclass(frozen=True)
class MatmulType:
    """One operand of a Matmul: where it lives, its format and element type, whether it is given transposed."""

    position: Any
    format: Any
    dtype: DataType
    is_trans: bool = False
    layout: Any = LayoutMode.NONE

    def __post_init__(self) -> None:
        if not isinstance(self.dtype, DataType):
            raise TraceError(f"MatmulType.dtype is an asc dtype (asc.float16, ...), got {self.dtype!r}", user_loc())
        try:
            TPosition(self.position)
            CubeFormat(self.format)
        except ValueError:
            raise TraceError(f"MatmulType takes an asc.TPosition and an asc.CubeFormat, got {self.position!r}, "
                             f"{self.format!r}", user_loc()) from None


# pyasc's MatmulConfig keywords and defaults (python/asc/language/adv/types.py); the vendor's schedule choices
_CONFIG_DEFAULTS: dict[str, Any] = dict(
    do_norm=True, do_basic_block=False, do_multi_data_load=False, basic_m=0, basic_n=0, basic_k=0,
    intrinsics_check=False, is_n_batch=False, en_vec_nd2nz=False, do_special_basic_block=False, do_mte2_preload=0,
    single_core_m=0, single_core_n=0, single_core_k=0, step_m=0, step_n=0, base_mn=0, single_core_mn=0,
    en_unit_flag=True, is_per_tensor=False, has_anti_quant_offset=False, do_ib_share_norm=False,
    do_special_mdl=False, enable_init=True, batch_mode=BatchMode.BATCH_LESS_THAN_L1, enable_end=True,
    enable_get_tensor_c=True, enable_set_org_shape=True, enable_set_bias=True, enable_set_tail=True,
    enable_quant_vector=True, enable_set_define_data=True, iterate_mode=IterateMode.ITERATE_MODE_DEFAULT,
    enable_reuse=True, enable_ub_reuse=False, enable_l1_cache_ub=False, intra_block_part_sum=False,
    iterate_order=IterateOrder.UNDEF, schedule_type=ScheduleType.INNER_PRODUCT, enable_double_cache=0,
    is_bias_batch=True, enable_static_pad_zeros=False, is_partial_output=False, enable_mix_dual_master=False,
    is_a2b2_shared=False, is_enable_channel_split=False, enable_kdim_reorder_load=False, is_co1_shared=False,
    shared_co1_buffer_size=64 * 1024, batch_out_mode=BatchOutMode.SINGLE_BATCH)

# fields whose non-default value changes what the Matmul computes, which asc_trace's Matmul does not do
_CHANGES_RESULT = ("is_per_tensor", "has_anti_quant_offset", "intra_block_part_sum", "is_partial_output",
                   "is_n_batch", "enable_mix_dual_master")


class MatmulConfig:
    """`MatmulConfig` (the vendor's MatmulConfig, pyasc's keywords). The schedule it picks (NORM / MDL / basic
    block, preloading, unit flag) does not change the instructions asc_trace's Matmul expands into (one
    schedule: docs/cube.md); a field that changes the result (quantisation, partial output, batching) is
    refused when the Matmul is built."""

    def __init__(self, **kwargs: Any) -> None:
        bad = sorted(set(kwargs) - set(_CONFIG_DEFAULTS))
        if bad:
            raise TraceError(f"MatmulConfig has no field {bad[0]!r}", user_loc())
        values = {**_CONFIG_DEFAULTS, **kwargs}
        self.__dict__.update(values)

    def result_changing(self) -> list[str]:
        return [k for k in _CHANGES_RESULT if self.__dict__[k] != _CONFIG_DEFAULTS[k]]


@dataclass
class MatmulShapeParams:
    single_core_m: int = 0
    single_core_n: int = 0
    single_core_k: int = 0
    basic_m: int = 0
    basic_n: int = 0
    basic_k: int = 0


@dataclass
class MatmulQuantParams:
    is_per_tensor: bool = False
    has_anti_quant_offset: bool = False


@dataclass
class MatmulBatchParams:
    is_b_batch: bool = False
    batch_mode: int = BatchMode.BATCH_LESS_THAN_L1
    is_bias_batch: bool = False


@dataclass
class MatmulFuncParams:
    intrinsics_limit: bool = False
    en_vec_nd2_nz: bool = False
    enable_double_cache: bool = False
    enable_l1_cache: bool = False
    do_mte2_pre_load: int = 0
    iterate_order: int = 0
    schedule_type: int = 0
    enable_reuse: bool = True
    enable_ub_reuse: bool = False
    is_partial_output: bool = False
    is_a2_b2_shared: bool = False
    is_enable_channel_split: bool = False
    enable_kdim_reorder_load: bool = False


def get_normal_config(intrinsics_limit: bool = False, batch_loop: bool = False, is_vec_nd2_nz: bool = False,
                      bmm_mode: Any = BatchMode.BATCH_LESS_THAN_L1, is_msg_reuse: bool = True,
                      iterate_order: Any = IterateOrder.ORDER_M, schedule_type: Any = ScheduleType.INNER_PRODUCT,
                      en_unit_flag: bool = True) -> MatmulConfig:
    return MatmulConfig(intrinsics_check=intrinsics_limit, is_n_batch=batch_loop, en_vec_nd2nz=is_vec_nd2_nz,
                        batch_mode=bmm_mode, enable_reuse=is_msg_reuse, iterate_order=iterate_order,
                        schedule_type=schedule_type, en_unit_flag=en_unit_flag)


def get_mdl_config(intrinsics_limit: bool = False, batch_loop: bool = False, do_mte2_preload: int = 0,
                   is_vec_nd2_nz: bool = False, is_per_tensor: bool = False, has_anti_quant_offset: bool = False,
                   en_unit_flag: bool = False, is_msg_reuse: bool = True, enable_ub_reuse: bool = True,
                   enable_l1_cache_ub: bool = False, enable_mix_dual_master: bool = False,
                   enable_kdim_reorder_load: bool = False) -> MatmulConfig:
    return MatmulConfig(do_norm=False, do_multi_data_load=True, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, do_mte2_preload=do_mte2_preload, en_vec_nd2nz=is_vec_nd2_nz,
                        is_per_tensor=is_per_tensor, has_anti_quant_offset=has_anti_quant_offset,
                        en_unit_flag=en_unit_flag, enable_reuse=is_msg_reuse, enable_ub_reuse=enable_ub_reuse,
                        enable_l1_cache_ub=enable_l1_cache_ub, enable_mix_dual_master=enable_mix_dual_master,
                        enable_kdim_reorder_load=enable_kdim_reorder_load)


def get_special_mdl_config(intrinsics_limit: bool = False, batch_loop: bool = False, do_mte2_pre_load: int = 0,
                           is_vec_nd2_nz: bool = False, is_per_tensor: bool = False,
                           has_anti_quant_offset: bool = False) -> MatmulConfig:
    return MatmulConfig(do_norm=False, do_special_mdl=True, intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                        do_mte2_preload=do_mte2_pre_load, en_vec_nd2nz=is_vec_nd2_nz, is_per_tensor=is_per_tensor,
                        has_anti_quant_offset=has_anti_quant_offset)


def get_basic_config(basic_m: int, basic_n: int, basic_k: int, intrinsics_limit: bool = False,
                     batch_loop: bool = False, bmm_mode: Any = BatchMode.BATCH_LESS_THAN_L1) -> MatmulConfig:
    return MatmulConfig(do_norm=False, do_basic_block=True, basic_m=basic_m, basic_n=basic_n, basic_k=basic_k,
                        intrinsics_check=intrinsics_limit, is_n_batch=batch_loop, batch_mode=bmm_mode)


def get_special_basic_config(basic_m: int, basic_n: int, basic_k: int, single_core_m: int, single_core_n: int,
                             single_core_k: int, step_m: int, step_n: int, intrinsics_limit: bool = False,
                             batch_loop: bool = False, bmm_mode: Any = BatchMode.BATCH_LESS_THAN_L1) -> MatmulConfig:
    return MatmulConfig(do_norm=False, do_special_basic_block=True, basic_m=basic_m, basic_n=basic_n,
                        basic_k=basic_k, single_core_m=single_core_m, single_core_n=single_core_n,
                        single_core_k=single_core_k, step_m=step_m, step_n=step_n, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, batch_mode=bmm_mode)


def get_ib_share_norm_config(intrinsics_limit: bool = False, batch_loop: bool = False, is_vec_nd2_nz: bool = False,
                             bmm_mode: Any = BatchMode.BATCH_LESS_THAN_L1, is_double_cache: bool = False,
                             en_unit_flag: bool = True) -> MatmulConfig:
    return MatmulConfig(do_norm=False, do_ib_share_norm=True, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, en_vec_nd2nz=is_vec_nd2_nz, batch_mode=bmm_mode,
                        enable_double_cache=int(is_double_cache), en_unit_flag=en_unit_flag)


def get_mm_config(*args: Any, **kwargs: Any) -> MatmulConfig:
    """`get_mm_config(mode, shape_params, quant_params, batch_params, func_params)` in any order."""
    out: dict[str, Any] = {}
    for arg in (*args, *kwargs.values()):
        if isinstance(arg, MatmulShapeParams):
            out.update(single_core_m=arg.single_core_m, single_core_n=arg.single_core_n,
                       single_core_k=arg.single_core_k, basic_m=arg.basic_m, basic_n=arg.basic_n, basic_k=arg.basic_k)
        elif isinstance(arg, MatmulQuantParams):
            out.update(is_per_tensor=arg.is_per_tensor, has_anti_quant_offset=arg.has_anti_quant_offset)
        elif isinstance(arg, MatmulBatchParams):
            out.update(is_n_batch=arg.is_b_batch, batch_mode=arg.batch_mode, is_bias_batch=arg.is_bias_batch)
        elif isinstance(arg, MatmulFuncParams):
            out.update(intrinsics_check=arg.intrinsics_limit, en_vec_nd2nz=arg.en_vec_nd2_nz,
                       enable_l1_cache_ub=arg.enable_l1_cache, do_mte2_preload=arg.do_mte2_pre_load,
                       iterate_order=arg.iterate_order, schedule_type=arg.schedule_type, enable_reuse=arg.enable_reuse,
                       enable_ub_reuse=arg.enable_ub_reuse, is_partial_output=arg.is_partial_output,
                       is_a2b2_shared=arg.is_a2_b2_shared, enable_kdim_reorder_load=arg.enable_kdim_reorder_load)
        elif isinstance(arg, MatmulConfigMode):
            out.update(do_norm=arg == MatmulConfigMode.CONFIG_NORM, do_multi_data_load=arg == MatmulConfigMode.CONFIG_MDL,
                       do_special_mdl=arg == MatmulConfigMode.CONFIG_SPECIALMDL,
                       do_ib_share_norm=arg == MatmulConfigMode.CONFIG_IBSHARE)
        else:
            raise TraceError(f"get_mm_config takes a MatmulConfigMode and Matmul*Params, got {arg!r}", user_loc())
    return MatmulConfig(**out)


class TilingInt(int):
    """An int field of a TCubeTiling: pyasc's runtime ints have `.ceildiv`."""

    def ceildiv(self, other: Any) -> Any:
        return -(-self // other) if isinstance(other, int) else (self + other - 1) // other


class _TilingField(Field):
    """An int32 field that also holds a runtime value when the struct is built inside a kernel."""

    def convert(self, value: Any, owner: str, field: str) -> Any:
        if isinstance(value, int) or isinstance(value, IntEnum):
            return super().convert(int(value), owner, field)
        from ..proxies.scalar import Scalar
        if isinstance(value, Scalar) and value.expr.type == "int":
            return value
        raise TraceError(f"{owner}.{field} is an int32 field; got {type(value).__name__} {value!r}", user_loc())


def _f(default: int = 0) -> _TilingField:
    return _TilingField(dtype=int32, default=default)


class TCubeTiling(Struct):
    """The vendor's `TCubeTiling` (kernel_tiling.h): how one Matmul is split over cores, base blocks and L1."""

    used_core_num = _f(); m = _f(); n = _f(); k_a = _f(); k_b = _f()  # noqa: E702
    single_core_m = _f(); single_core_n = _f(); single_core_k = _f()  # noqa: E702
    base_m = _f(); base_n = _f(); base_k = _f()  # noqa: E702
    depth_a1 = _f(); depth_b1 = _f(); step_m = _f(); step_n = _f(); is_bias = _f()  # noqa: E702
    trans_length = _f(); iterate_order = _f(); share_mode = _f()  # noqa: E702
    share_l1_size = _f(); share_l0c_size = _f(); share_ub_size = _f()  # noqa: E702
    batch_m = _f(); batch_n = _f(); single_batch_m = _f(); single_batch_n = _f()  # noqa: E702
    step_k_a = _f(); step_k_b = _f(); depth_a_l1_cache_ub = _f(); depth_b_l1_cache_ub = _f()  # noqa: E702
    db_l0a = _f(); db_l0b = _f(); db_l0c = _f()  # noqa: E702
    a_layout_info_b = _f(); a_layout_info_s = _f(); a_layout_info_n = _f(); a_layout_info_g = _f()  # noqa: E702
    a_layout_info_d = _f(); b_layout_info_b = _f(); b_layout_info_s = _f(); b_layout_info_n = _f()  # noqa: E702
    b_layout_info_g = _f(); b_layout_info_d = _f(); c_layout_info_b = _f(); c_layout_info_s1 = _f()  # noqa: E702
    c_layout_info_n = _f(); c_layout_info_g = _f(); c_layout_info_s2 = _f(); batch_num = _f()  # noqa: E702

    def __getattr__(self, key: str) -> Any:
        v = super().__getattr__(key)
        return TilingInt(v) if type(v) is int else v

    def __asc_frozen__(self) -> "TCubeTiling":
        """The launch's snapshot; the kernel body gets its own mutable copy of it (`__asc_kernel_copy__`)."""
        return self._copy(frozen=True)

    def __asc_kernel_copy__(self) -> "TCubeTiling":
        return self._copy(frozen=False)


__all__ = ["BatchMode", "BatchOutMode", "IterateMode", "IterateOrder", "LayoutMode", "MatmulBatchParams",
           "MatmulConfig", "MatmulConfigMode", "MatmulFuncParams", "MatmulPolicy", "MatmulQuantParams",
           "MatmulShapeParams", "MatmulType", "ScheduleType", "TCubeTiling", "TilingInt", "get_basic_config",
           "get_ib_share_norm_config", "get_mdl_config", "get_mm_config", "get_normal_config",
           "get_special_basic_config", "get_special_mdl_config"]


def ceildiv(x: Any, y: Any) -> Any:
    """`asc.ceildiv(x, y)`: x / y rounded up (pyasc's helper, for host ints and runtime ints alike)."""
    return -(-x // y) if isinstance(x, int) and isinstance(y, int) else (x + y - 1) // y
