"""Host side of `asc.adv.deepnorm`: the `DeepNormTiling` struct (deepnorm_tilingdata.h: LayerNormTiling's fields,
in the same snake_case) and the vendor's helpers (`impl/adv_api/tiling/normalization/deepnorm_tiling_impl.cpp`)
under their Ascend C names and in snake_case. The sizes and splits are LayerNorm's; DeepNorm adds its checks
(h at most 2040, a buffer at least the minimum, original_h in (0, h])."""
from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from typing import Any, Sequence

from ..errors import AlignmentError, TraceError
from ..proxies.source_loc import user_loc
from .tiling import _type_size, byte_count, shape_ints
from .tiling_norm import get_layernorm_max_min_tmp_size, get_layernorm_nd_tiling_info

BLOCK = 32
FLOAT = 4
MAX_H = 2040          # one Add's uint8 repeat stride is h / 8


@dataclass(frozen=True)
class DeepNormTiling:
    """Ascend C `DeepNormTiling`; fill it with get_deepnorm_tiling_info."""

    b_length: Any = 0
    s_length: Any = 0
    h_length: Any = 0
    original_h_length: Any = 0
    input_x_size: Any = 0
    mean_var_size: Any = 0
    number_of_tmp_buf: Any = 0
    mean_tmp_tensor_pos: Any = 0
    mean_tmp_tensor_size: Any = 0
    variance_tmp_tensor_pos: Any = 0
    variance_tmp_tensor_size: Any = 0
    tmp_buf_size: Any = 0
    one_tmp_size: Any = 0
    first_tmp_start_pos: Any = 0
    second_tmp_start_pos: Any = 0
    third_tmp_start_pos: Any = 0
    loop_round: Any = 0
    input_round_size: Any = 0
    input_tail_size: Any = 0
    input_tail_pos: Any = 0
    mean_var_round_size: Any = 0
    mean_var_tail_size: Any = 0
    mean_var_tail_pos: Any = 0
    bsh_cur_length: Any = 0
    bs_cur_length: Any = 0
    last_dim_value_back: Any = 0.0


def _bsh(src_shape: Sequence[int], type_size: int, is_basic_block: bool) -> list[int]:
    """CheckDeepNormHostCommon: [b, s, h] of positive ints, type size 2 or 4, h 32-byte aligned and at most 2040."""
    dims = shape_ints(src_shape)
    if dims is None or len(dims) != 3 or any(d <= 0 for d in dims):
        raise TraceError(f"DeepNorm's shape is [b, s, h] of positive ints, got {src_shape!r}", user_loc())
    _type_size(type_size)
    if is_basic_block:
        raise TraceError("asc.adv.deepnorm models the general (not basic-block) DeepNorm only", user_loc())
    if dims[2] * type_size % BLOCK:
        raise AlignmentError(f"DeepNorm's h is {dims[2]} elements of {type_size} bytes, not a multiple of 32 bytes",
                             user_loc(), hint="pad h to 32 bytes (original_h keeps the true length)")
    if dims[2] > MAX_H:
        raise TraceError(f"DeepNorm's h is {dims[2]}; the vendor takes at most {MAX_H}", user_loc())
    return dims


def get_deepnorm_max_min_tmp_size(src_shape: Sequence[int], type_size: int, is_reuse_source: bool = False,
                                  is_basic_block: bool = False) -> tuple[int, int]:
    """GetDeepNormMaxMinTmpSize -> (max, min) bytes: LayerNorm's (3 float buffers of b*s*h, of h at least; 2 of
    the b*s row statistics; 2 buffers for float reusing the source)."""
    b, s, h = _bsh(src_shape, type_size, is_basic_block)
    return get_layernorm_max_min_tmp_size([b, s, h, h], type_size, is_reuse_source)


def get_deepnorm_tiling_info(src_shape: Sequence[int], origin_src_shape: Sequence[int], stack_buffer_size: int,
                             type_size: int, is_reuse_source: bool = False,
                             is_basic_block: bool = False) -> DeepNormTiling:
    """GetDeepNormTilingInfo: rows per round from the buffer; raises where the vendor returns false."""
    b, s, h = _bsh(src_shape, type_size, is_basic_block)
    odims = shape_ints(origin_src_shape)
    if odims is None or len(odims) != 3 or odims[:2] != [b, s] or not 0 < odims[2] <= h:
        raise TraceError(f"DeepNorm's origin_src_shape is [b, s, original_h] with the source's b, s and "
                         f"0 < original_h <= {h}, got {origin_src_shape!r}", user_loc())
    size = byte_count(stack_buffer_size, "the DeepNorm buffer size")
    need = get_deepnorm_max_min_tmp_size(src_shape, type_size, is_reuse_source)[1]
    if size < need:
        raise TraceError(f"a DeepNorm buffer of {size} bytes is below the minimum {need} "
                         "(get_deepnorm_max_min_tmp_size)", user_loc())
    t = get_layernorm_nd_tiling_info([b, s, h, odims[2]], size, type_size, is_reuse_source)
    return DeepNormTiling(*astuple(t))


def check_deepnorm_tiling(t: DeepNormTiling, type_size: int) -> tuple[int, int, int, int]:
    """The struct must be what GetDeepNormTilingInfo makes for its own shape and buffer: returns
    (b, s, h, original_h)."""
    v = dict(zip([f.name for f in fields(t)], astuple(t)))
    dims = [v["b_length"], v["s_length"], v["h_length"], v["original_h_length"]]
    if min(dims) <= 0:
        raise TraceError("this DeepNormTiling describes no shape (b, s, h and original_h must be positive)",
                         user_loc(), hint="fill it with asc.adv.get_deepnorm_tiling_info([b, s, h], [b, s, h], "
                                          "tmp_bytes, type_size)")
    want = get_deepnorm_tiling_info(dims[:3], [dims[0], dims[1], dims[3]], int(v["tmp_buf_size"]) * FLOAT, type_size,
                                    v["number_of_tmp_buf"] == 2 and type_size == 4)
    bad = [f"{f.name} is {v[f.name]}, not {getattr(want, f.name)}" for f in fields(t)
           if f.name != "last_dim_value_back" and v[f.name] != getattr(want, f.name)]
    if bad:
        raise TraceError("this DeepNormTiling does not describe its shape and buffer: " + "; ".join(bad[:4]),
                         user_loc(), hint="fill it with asc.adv.get_deepnorm_tiling_info")
    return dims[0], dims[1], dims[2], dims[3]


GetDeepNormMaxMinTmpSize = get_deepnorm_max_min_tmp_size
GetDeepNormTilingInfo = get_deepnorm_tiling_info
