"""Constructors of the parameter structs of pyasc's further vector families, with pyasc's field names and
defaults (python/asc/language/core/types.py)."""
from __future__ import annotations

from typing import Any

from ..errors import TraceError
from ..graph import params_vec as P
from .params import _e, _struct
from .source_loc import user_loc


def CopyRepeatParams(dst_stride: Any = 0, src_stride: Any = 0, dst_repeat_size: Any = 0, src_repeat_size: Any = 0
                     ) -> P.CopyRepeatParams:
    """asc.copy's strides: block strides and repeat strides of dst and src, in 32-byte blocks."""
    return _struct(P.CopyRepeatParams, locals())


def BrcbRepeatParams(dst_blk_stride: Any = 1, dst_rep_stride: Any = 8) -> P.BrcbRepeatParams:
    """asc.brcb's dst block stride and repeat stride, in 32-byte blocks."""
    return _struct(P.BrcbRepeatParams, locals())


def GatherRepeatParams(dst_blk_stride: Any = 1, dst_rep_stride: Any = 8) -> P.GatherRepeatParams:
    """asc.gatherb's dst block stride and repeat stride, in 32-byte blocks."""
    return _struct(P.GatherRepeatParams, locals())


def GatherMaskParams(src0_block_stride: Any = 1, repeat_times: Any = 1, src0_repeat_stride: Any = 0,
                     src1_repeat_stride: Any = 0) -> P.GatherMaskParams:
    """asc.gather_mask's repeats: src0's block and repeat strides (32-byte blocks), src1's repeat stride."""
    return _struct(P.GatherMaskParams, locals())


def TransDataTo5HDParams(dst_high_half: Any = False, src_high_half: Any = False, repeat_times: Any = 1,
                         dst_rep_stride: Any = 0, src_rep_stride: Any = 0) -> P.TransDataTo5HDParams:
    """asc.trans_data_to_5hd's repeats (strides in 32-byte blocks) and, for 8-bit data, which half of each
    32-byte block is read / written."""
    return _struct(P.TransDataTo5HDParams, locals())


def TransposeParamsExt(n_size: Any = 0, c_size: Any = 0, h_size: Any = 0, w_size: Any = 0,
                       transpose_type: Any = P.TransposeType.TRANSPOSE_ND2ND_B16) -> P.TransposeParamsExt:
    """asc.transpose's extended form: the N, C, H, W sizes and the layout conversion."""
    try:
        kind = P.TransposeType(transpose_type)
    except (ValueError, TypeError):
        raise TraceError(f"transpose_type must be an asc.TransposeType, got {transpose_type!r}", user_loc()) from None
    return P.TransposeParamsExt(_e(n_size, "n_size"), _e(c_size, "c_size"), _e(h_size, "h_size"), _e(w_size, "w_size"),
                                kind)


def DataCopyPadParams(is_pad: Any = False, left_padding: Any = 0, right_padding: Any = 0, padding_value: Any = 0
                      ) -> P.DataCopyPadParams:
    """data_copy_pad's padding with DataCopyParams: elements on the left and right of each GM -> UB block,
    filled with `padding_value` if `is_pad`."""
    return _struct(P.DataCopyPadParams, locals(), any_type=("padding_value",))
