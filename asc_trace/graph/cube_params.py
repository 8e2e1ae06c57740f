"""The cube's parameter structs as graph operands (fields are scalar expressions), with pyasc's field
names. Units follow the API (ascend-cube-facts §3): Nd2NzParams counts elements except the two Nz
strides (32-byte rows); LoadData2DParams counts 512-byte fractals; FixpipeParamsV220 counts elements
(ROW_MAJOR output)."""
from __future__ import annotations

from dataclasses import dataclass

from .expr import Expr


@dataclass(frozen=True, slots=True)
class Nd2NzParams:
    nd_num: Expr
    n_value: Expr                 # rows
    d_value: Expr                 # columns (elements)
    src_nd_matrix_stride: Expr    # elements between matrices in GM
    src_d_value: Expr             # GM row pitch (elements)
    dst_nz_c0_stride: Expr        # 32-byte rows between C0-wide column blocks in L1
    dst_nz_n_stride: Expr         # 32-byte rows between consecutive rows
    dst_nz_matrix_stride: Expr    # elements between matrices in L1


@dataclass(frozen=True, slots=True)
class LoadData2DParams:
    start_index: Expr    # first fractal of the source
    repeat_times: Expr   # fractals moved
    src_stride: Expr     # source fractals, start to start
    sid: Expr
    dst_gap: Expr        # destination fractals left out between two moved ones (end to start)
    if_transpose: Expr
    addr_mode: Expr


@dataclass(frozen=True, slots=True)
class MmadParams:
    m: Expr
    n: Expr
    k: Expr
    is_bias: Expr
    fm_offset: Expr
    en_ssparse: Expr
    en_winograd_a: Expr
    en_winograd_b: Expr
    unit_flag: Expr
    cmatrix_source: Expr
    cmatrix_init_val: Expr


@dataclass(frozen=True, slots=True)
class FixpipeParamsV220:
    n_size: Expr
    m_size: Expr
    src_stride: Expr     # L0C rows per 16-column block (M rounded up to 16)
    dst_stride: Expr     # GM row pitch in elements (ROW_MAJOR)
    quant_pre: Expr
    deq_scalar: Expr
    nd_num: Expr
    src_nd_stride: Expr
    dst_nd_stride: Expr
    relu_en: Expr
    unit_flag: Expr
    is_channel_split: Expr


@dataclass(frozen=True, slots=True)
class InitConstValueParams:
    repeat_times: Expr
    block_num: Expr
    dst_gap: Expr
    init_value: Expr


@dataclass(frozen=True, slots=True)
class LoadData3DParamsV2:
    """img2col of a feature map in L1 (NC1HWC0) into L0A; asc_trace models the matmul case the vendor's
    fast sample uses (a 1 x 1 filter, stride and dilation 1, no padding): the Zz layout of the slice
    [m_start_pt, + m_extension) x [k_start_pt, + k_extension) of the L1 matrix (l1_h * l1_w rows,
    channel_size columns, in Nz)."""

    pad_list: tuple
    l1_h: Expr
    l1_w: Expr
    channel_size: Expr
    k_extension: Expr
    m_extension: Expr
    k_start_pt: Expr
    m_start_pt: Expr
    stride_w: Expr
    stride_h: Expr
    filter_w: Expr
    filter_h: Expr
    dilation_filter_w: Expr
    dilation_filter_h: Expr
    en_transpose: Expr
    pad_value: Expr
    filter_size_w: Expr
    filter_size_h: Expr
    f_matrix_ctrl: Expr
