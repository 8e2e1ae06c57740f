"""Constructors of the cube's parameter structs, with pyasc's keywords, order and defaults
(pyasc python/asc/language/core/types.py)."""
from __future__ import annotations

from typing import Any

from ..graph import cube_params as P
from .params import _struct


def Nd2NzParams(nd_num: Any = 1, n_value: Any = 0, d_value: Any = 0, src_nd_matrix_stride: Any = 0,
                src_d_value: Any = 0, dst_nz_c0_stride: Any = 1, dst_nz_n_stride: Any = 1,
                dst_nz_matrix_stride: Any = 0) -> P.Nd2NzParams:
    """GM (ND, rows of `src_d_value` elements) -> L1 (Nz): `n_value` rows of `d_value` elements."""
    return _struct(P.Nd2NzParams, locals())


def LoadData2DParams(start_index: Any = 0, repeat_times: Any = 1, src_stride: Any = 0, sid: Any = 0,
                     dst_gap: Any = 0, if_transpose: Any = False, addr_mode: Any = 0) -> P.LoadData2DParams:
    """L1 -> L0A / L0B in 512-byte fractals: `repeat_times` of them, `src_stride` apart in the source."""
    return _struct(P.LoadData2DParams, locals())


def MmadParams(m: Any = 0, n: Any = 0, k: Any = 0, is_bias: Any = False, fm_offset: Any = 0,
               en_ssparse: Any = False, en_winograd_a: Any = False, en_winograd_b: Any = False,
               unit_flag: Any = 0, cmatrix_source: Any = False, cmatrix_init_val: Any = True) -> P.MmadParams:
    """Mmad's sizes (m x k times k x n, each 0..4095) and how L0C starts: `cmatrix_init_val` True: from 0;
    False: accumulate onto L0C (or, in the bias form, start from the bias)."""
    return _struct(P.MmadParams, locals())


def FixpipeParamsV220(n_size: Any = 0, m_size: Any = 0, src_stride: Any = 0, dst_stride: Any = 0,
                      quant_pre: Any = 0, deq_scalar: Any = 0, nd_num: Any = 1, src_nd_stride: Any = 0,
                      dst_nd_stride: Any = 0, relu_en: Any = False, unit_flag: Any = 0,
                      is_channel_split: Any = False) -> P.FixpipeParamsV220:
    """L0C -> GM: `m_size` x `n_size` elements; `src_stride` = M rounded up to 16, `dst_stride` = GM row pitch."""
    return _struct(P.FixpipeParamsV220, locals())


def InitConstValueParams(repeat_times: Any = 1, block_num: Any = 0, dst_gap: Any = 0,
                         init_value: Any = 0) -> P.InitConstValueParams:
    """Fill of an L1 / L0A / L0B tensor: `repeat_times` x `block_num` blocks of `init_value`."""
    return _struct(P.InitConstValueParams, locals(), any_type=("init_value",))


def LoadData3DParamsV2(pad_list: Any = (0, 0, 0, 0), l1_h: Any = 1, l1_w: Any = 1, channel_size: Any = 1,
                       k_extension: Any = 1, m_extension: Any = 1, k_start_pt: Any = 0, m_start_pt: Any = 0,
                       stride_w: Any = 1, stride_h: Any = 1, filter_w: Any = 1, filter_h: Any = 1,
                       dilation_filter_w: Any = 1, dilation_filter_h: Any = 1, en_transpose: Any = False,
                       pad_value: Any = 0, filter_size_w: Any = False, filter_size_h: Any = False,
                       f_matrix_ctrl: Any = False) -> P.LoadData3DParamsV2:
    """L1 -> L0A with img2col (the vendor's fast matmul load: one instruction for a whole m x k slice)."""
    from ..errors import TraceError
    from .params import _e
    from .source_loc import user_loc
    if not isinstance(pad_list, (tuple, list)) or len(pad_list) != 4:
        raise TraceError("LoadData3DParamsV2.pad_list is four integers (left, right, top, bottom)", user_loc())
    values = dict(locals())
    fields = {f: _e(values[f], f) for f in P.LoadData3DParamsV2.__dataclass_fields__ if f != "pad_list"}
    return P.LoadData3DParamsV2(pad_list=tuple(_e(v, "pad_list") for v in pad_list), **fields)
