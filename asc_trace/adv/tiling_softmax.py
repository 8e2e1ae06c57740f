"""Host helpers of SoftMax's variants (`impl/adv_api/tiling/activation/softmax_tiling.cpp`, the A2 branch, not
basic-block), under the vendor's names and in snake_case: the SoftmaxFlashV2 work-buffer sizes and its tiling.
SimpleSoftMax takes SoftMax's (`get_softmax_min_tmp_size`, `softmax_tiling_func`)."""
from __future__ import annotations

from typing import Sequence

from ..errors import TraceError
from ..proxies.source_loc import user_loc
from .tiling import BLOCK, FLOAT, SoftmaxTiling, _m_k, _type_size, byte_count

BASIC_TILE = 8          # BASIC_TILE_NUM: splits of more rows are rounded down to a multiple of 8
REPEAT_FLOATS = 64      # SOFTMAX_BASICBLOCK_UNIT


def _not_modelled(is_basic_block: bool, is_flash_output_brc: bool) -> None:
    if is_basic_block or is_flash_output_brc:
        raise TraceError("asc.adv's SoftmaxFlashV2 helpers model the general (not basic-block, broadcast-output) "
                         "form only", user_loc(), hint="leave is_basic_block / is_flash_output_brc False")


def _flash_v2_row(k: int, data_type_size1: int, data_type_size2: int) -> int:
    """Floats a row needs: half src 2 x (32 / size2) + k + 64; float src 32 / size2 + 64."""
    per = BLOCK // _type_size(data_type_size2)
    return 2 * per + k + REPEAT_FLOATS if data_type_size1 == 2 else per + REPEAT_FLOATS


def get_softmax_flash_v2_min_tmp_size(src_shape: Sequence[int], data_type_size1: int, data_type_size2: int,
                                      is_update: bool = False, is_basic_block: bool = False,
                                      is_flash_output_brc: bool = False) -> int:
    """GetSoftMaxFlashV2MinTmpSize: one row's floats, in bytes."""
    _not_modelled(is_basic_block, is_flash_output_brc)
    _m, k = _m_k(src_shape, data_type_size1)
    return _flash_v2_row(k, data_type_size1, data_type_size2) * FLOAT


def get_softmax_flash_v2_max_tmp_size(src_shape: Sequence[int], data_type_size1: int, data_type_size2: int,
                                      is_update: bool = False, is_basic_block: bool = False,
                                      is_flash_output_brc: bool = False) -> int:
    """GetSoftMaxFlashV2MaxTmpSize: every row in one pass, in bytes."""
    _not_modelled(is_basic_block, is_flash_output_brc)
    m, k = _m_k(src_shape, data_type_size1)
    return m * _flash_v2_row(k, data_type_size1, data_type_size2) * FLOAT


def softmax_flash_v2_tiling_func(src_shape: Sequence[int], data_type_size1: int, data_type_size2: int,
                                 local_work_space_size: int, is_update: bool = False, is_basic_block: bool = False,
                                 is_flash_output_brc: bool = False) -> SoftmaxTiling:
    """SoftMaxFlashV2TilingFunc: rows a pass from the workspace (rounded down to 8 when it splits), reduceK =
    32 / data_type_size2 (the statistics' type)."""
    _not_modelled(is_basic_block, is_flash_output_brc)
    m, k = _m_k(src_shape, data_type_size1)
    work = byte_count(local_work_space_size, "the SoftmaxFlashV2 workspace size") // FLOAT
    base = min(work // _flash_v2_row(k, data_type_size1, data_type_size2), m)
    if base == 0:
        raise TraceError(f"a SoftmaxFlashV2 workspace of {local_work_space_size} bytes holds no row; at least "
                         f"{get_softmax_flash_v2_min_tmp_size(src_shape, data_type_size1, data_type_size2)} are "
                         "needed", user_loc())
    if BASIC_TILE < base < m:
        base = base // BASIC_TILE * BASIC_TILE
    per = BLOCK // data_type_size2
    tail = m % base
    return SoftmaxTiling(m, k, m * k, m, per, m * per, base, k, base * k, base, per, base * per, m // base, tail,
                         tail * k, tail * per)


GetSoftMaxFlashV2MinTmpSize = get_softmax_flash_v2_min_tmp_size
GetSoftMaxFlashV2MaxTmpSize = get_softmax_flash_v2_max_tmp_size
SoftMaxFlashV2TilingFunc = softmax_flash_v2_tiling_func

__all__ = ["get_softmax_flash_v2_min_tmp_size", "get_softmax_flash_v2_max_tmp_size", "softmax_flash_v2_tiling_func",
           "GetSoftMaxFlashV2MinTmpSize", "GetSoftMaxFlashV2MaxTmpSize", "SoftMaxFlashV2TilingFunc"]
