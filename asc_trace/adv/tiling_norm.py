"""Host side of `asc.adv.layernorm`: the `LayerNormTiling` struct (kernel_tiling.h, snake_case field names as
pyasc spells RmsNormTiling's) and the vendor's helpers (`impl/adv_api/tiling/normalization/
layernorm_tiling_impl.cpp`, the A2 branch) under their Ascend C names and in snake_case."""
from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from typing import Any, Sequence

from ..errors import AlignmentError, TraceError
from ..proxies.source_loc import user_loc
from .tiling import byte_count, shape_ints

BLOCK = 32
FLOAT = 4


@dataclass(frozen=True)
class LayerNormTiling:
    """Ascend C `LayerNormTiling`; fill it with get_layernorm_nd_tiling_info."""

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


def _bsh_oh(src_shape: Sequence[int], type_size: int) -> tuple[int, int, int, int]:
    """[B, S, H, originalH] (CheckLayerNormHostCommon: four dims, type size 2 or 4)."""
    dims = shape_ints(src_shape)
    if dims is None or len(dims) != 4 or any(d <= 0 for d in dims):
        raise TraceError(f"LayerNorm's shape is [b, s, h, original_h] of positive ints, got {src_shape!r}",
                         user_loc())
    if isinstance(type_size, bool) or not hasattr(type_size, "__index__") or type_size not in (2, 4):
        raise TraceError(f"the data type size is 2 (half) or 4 (float), got {type_size}", user_loc())
    return dims[0], dims[1], dims[2], dims[3]


def _up(v: int, to: int) -> int:
    return -(-v // to) * to


def get_layernorm_max_min_tmp_size(src_shape: Sequence[int], type_size: int,
                                   is_reuse_source: bool = False) -> tuple[int, int]:
    """GetLayerNormMaxMinTmpSize -> (max, min) bytes: 3 float buffers of b*s*h (of h at least) and 2 of the
    b*s row statistics, each rounded up to 32 bytes (2 buffers for float reusing the source)."""
    b, s, h, _oh = _bsh_oh(src_shape, type_size)
    mv = _up(b * s * FLOAT, BLOCK)
    bufs = 2 if is_reuse_source and type_size == 4 else 3
    return bufs * _up(b * s * h * FLOAT, BLOCK) + 2 * mv, bufs * _up(h * FLOAT, BLOCK) + 2 * mv


def get_layernorm_nd_tiling_info(src_shape: Sequence[int], stack_buffer_size: int, type_size: int,
                                 is_reuse_source: bool = False) -> LayerNormTiling:
    """GetLayerNormNDTilingInfo: rows per pass from the buffer; raises where the vendor leaves the struct empty."""
    b, s, h, oh = _bsh_oh(src_shape, type_size)
    stack_buffer_size = byte_count(stack_buffer_size, "the LayerNorm buffer size")
    if oh > h:
        raise TraceError(f"LayerNorm's original_h {oh} is above h {h}", user_loc())
    if h * type_size % BLOCK:
        raise AlignmentError(f"LayerNorm's h is {h} elements of {type_size} bytes, not a multiple of 32 bytes",
                             user_loc(), hint="pad h to 32 bytes (original_h keeps the true length)")
    size, mv = b * s * h, b * s
    bufs = 2 if is_reuse_source and type_size == 4 else 3
    mv_size = _up(mv, BLOCK // FLOAT)
    mv_total = 0 if type_size == 4 else 2 * mv_size
    tmp = stack_buffer_size // FLOAT
    one = min(max(tmp - mv_total, 0) // bufs // h * h, size)
    if one == 0:
        need = get_layernorm_max_min_tmp_size(src_shape, type_size, is_reuse_source)[1]
        raise TraceError(f"a LayerNorm buffer of {stack_buffer_size} bytes holds no row of {h}; the minimum is "
                         f"{need}", user_loc())
    tail = size % one
    return LayerNormTiling(b, s, h, oh, size, mv, bufs, 0, mv_size, mv_size, mv_size, tmp, one, mv_total,
                           mv_total + one, mv_total + 2 * one, size // one, one, tail, size - tail, one // h,
                           tail // h, mv - tail // h, one, one // h, float(1.0 / float(oh)))


def check_layernorm_tiling(t: LayerNormTiling, type_size: int) -> tuple[int, int, int, int]:
    """The struct must be what GetLayerNormNDTilingInfo makes for its own shape and buffer (the kernel places its
    work tensors by it): returns (b, s, h, original_h)."""
    v = dict(zip([f.name for f in fields(t)], astuple(t)))
    dims = [v["b_length"], v["s_length"], v["h_length"], v["original_h_length"]]
    if min(dims) <= 0:
        raise TraceError("this LayerNormTiling describes no shape (b, s, h and original_h must be positive)",
                         user_loc(), hint="fill it with asc.adv.get_layernorm_nd_tiling_info([b, s, h, h], "
                                          "tmp_bytes, type_size)")
    if dims[2] * type_size % BLOCK:
        raise AlignmentError(f"LayerNorm's h is {dims[2]} elements of {type_size} bytes, not a multiple of 32 bytes",
                             user_loc(), hint="pad h to 32 bytes (original_h keeps the true length)")
    want = get_layernorm_nd_tiling_info(dims, int(v["tmp_buf_size"]) * FLOAT, type_size,
                                        v["number_of_tmp_buf"] == 2 and type_size == 4)
    bad = [f"{f.name} is {v[f.name]}, not {getattr(want, f.name)}" for f in fields(t)
           if f.name != "last_dim_value_back" and v[f.name] != getattr(want, f.name)]
    if bad:
        raise TraceError("this LayerNormTiling does not describe its shape and buffer: " + "; ".join(bad[:4]),
                         user_loc(), hint="fill it with asc.adv.get_layernorm_nd_tiling_info")
    return dims[0], dims[1], dims[2], dims[3]


GetLayerNormMaxMinTmpSize = get_layernorm_max_min_tmp_size
GetLayerNormNDTilingInfo = get_layernorm_nd_tiling_info
