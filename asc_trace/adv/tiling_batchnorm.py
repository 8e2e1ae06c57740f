"""Host side of `asc.adv.batchnorm`: the `BatchNormTiling` struct (kernel_tiling.h / batchnorm_tilingdata.h, in
snake_case as pyasc spells RmsNormTiling's fields) and the vendor's helpers
(`impl/adv_api/tiling/normalization/batchnorm_tiling_impl.cpp`) under their Ascend C names and in snake_case.
The general (not basic-block) form: a basic-block request is refused, as the kernel side models only that."""
from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from typing import Any, Sequence

from ..errors import AlignmentError, TraceError
from ..proxies.source_loc import user_loc
from .tiling import _type_size, byte_count, shape_ints

BLOCK = 32
FLOAT = 4


@dataclass(frozen=True)
class BatchNormTiling:
    """Ascend C `BatchNormTiling`; fill it with get_batchnorm_nd_tiling_info."""

    original_b_length: Any = 0
    mean_var_size: Any = 0
    mean_tmp_tensor_pos: Any = 0
    variance_tmp_tensor_pos: Any = 0
    tmp_buf_size: Any = 0
    one_tmp_size: Any = 0
    first_tmp_start_pos: Any = 0
    second_tmp_start_pos: Any = 0
    third_tmp_start_pos: Any = 0
    loop_round: Any = 0
    input_tail_size: Any = 0
    input_tail_pos: Any = 0
    mean_var_tail_size: Any = 0
    mean_var_tail_pos: Any = 0
    bsh_cur_length: Any = 0
    sh_cur_length: Any = 0
    first_dim_value_back: Any = 0.0
    cast_half_rep_stride: Any = 0
    sh_cur_length_block_num: Any = 0
    cast_half_out_rep_stride: Any = 0


def _dims(shape: Sequence[int], what: str) -> list[int]:
    dims = shape_ints(shape)
    if dims is None or len(dims) != 3 or any(d <= 0 for d in dims):
        raise TraceError(f"BatchNorm's {what} is [b, s, h] of positive ints, got {shape!r}", user_loc())
    return dims


def _bsh(src_shape: Sequence[int], origin_src_shape: Sequence[int], type_size: int,
         is_basic_block: bool) -> tuple[int, int, int]:
    """(originalB, s, h): b from the original shape, s and h from the source's (the vendor's reading)."""
    _b, s, h = _dims(src_shape, "src_shape")
    ob = _dims(origin_src_shape, "origin_src_shape")[0]
    _type_size(type_size)
    if is_basic_block:
        raise TraceError("asc.adv.batchnorm models the general (not basic-block) BatchNorm only", user_loc())
    return ob, s, h


def _up(v: int, to: int) -> int:
    return -(-v // to) * to


def get_batchnorm_max_min_tmp_size(src_shape: Sequence[int], origin_src_shape: Sequence[int], type_size: int,
                                   is_reuse_source: bool = False, is_basic_block: bool = False) -> tuple[int, int]:
    """GetBatchNormMaxMinTmpSize -> (max, min) bytes: max 3 float buffers of b*s*h, min 3 of one block of each
    of the b rows (two for half); both plus 2 float buffers of s*h (mean and variance), 32-byte aligned."""
    b, s, h = _bsh(src_shape, origin_src_shape, type_size, is_basic_block)
    mv = _up(s * h * FLOAT, BLOCK)
    per_row = 2 * BLOCK if type_size == 2 else BLOCK
    return 3 * _up(b * s * h * FLOAT, BLOCK) + 2 * mv, 3 * b * per_row + 2 * mv


def get_batchnorm_nd_tiling_info(src_shape: Sequence[int], origin_src_shape: Sequence[int],
                                 stack_buffer_byte_size: int, type_size: int, is_reuse_source: bool = False,
                                 is_basic_block: bool = False) -> BatchNormTiling:
    """GetBatchNormNDTilingInfo: columns per pass from the buffer; raises where the vendor returns false."""
    b, s, h = _bsh(src_shape, origin_src_shape, type_size, is_basic_block)
    stack_buffer_byte_size = byte_count(stack_buffer_byte_size, "the BatchNorm buffer size")
    if s * h * type_size % BLOCK:
        raise AlignmentError(f"BatchNorm's s * h is {s * h} elements of {type_size} bytes, not a multiple of 32 "
                             "bytes", user_loc(), hint="pad h so that s * h fills whole 32-byte blocks")
    need = get_batchnorm_max_min_tmp_size(src_shape, origin_src_shape, type_size)[1]
    if stack_buffer_byte_size < need:
        raise TraceError(f"a BatchNorm buffer of {stack_buffer_byte_size} bytes is below the minimum {need} "
                         f"(get_batchnorm_max_min_tmp_size)", user_loc())
    size, mv = b * s * h, s * h
    mv_size = _up(mv, BLOCK // FLOAT)
    mv_total = 0 if type_size == 4 else 2 * mv_size
    tmp = stack_buffer_byte_size // FLOAT
    step = b * (16 if type_size == 2 else 8)
    one = min((tmp - mv_total) // 3 // step * step, size)
    if one <= 0:
        raise TraceError(f"a BatchNorm buffer of {stack_buffer_byte_size} bytes holds no pass", user_loc())
    sh = one // b
    tail = size % one
    return BatchNormTiling(b, mv, 0, mv_size, tmp, one, mv_total, mv_total + one, mv_total + 2 * one, size // one,
                           tail, (size - tail) // b, tail // b, mv - tail // b, one, sh, float(1.0 / float(b)),
                           4, sh // 8, mv // 16)


def check_batchnorm_tiling(t: BatchNormTiling, type_size: int, s_h: tuple[int, int] | None = None
                           ) -> tuple[int, int, int]:
    """The struct must be what GetBatchNormNDTilingInfo makes for its own shape and buffer (the kernel places its
    work tensors by it): returns (b, 1, s*h) — the struct keeps s*h, not s and h apart."""
    v = dict(zip([f.name for f in fields(t)], astuple(t)))
    b, mv = v["original_b_length"], v["mean_var_size"]
    if b <= 0 or mv <= 0:
        raise TraceError("this BatchNormTiling describes no shape (original_b_length and mean_var_size must be "
                         "positive)", user_loc(), hint="fill it with asc.adv.get_batchnorm_nd_tiling_info([b, s, h], "
                                                       "[b, s, h], tmp_bytes, type_size)")
    if mv * type_size % BLOCK:
        raise AlignmentError(f"BatchNorm's s * h is {mv} elements of {type_size} bytes, not a multiple of 32 bytes",
                             user_loc(), hint="pad h so that s * h fills whole 32-byte blocks")
    want = get_batchnorm_nd_tiling_info([b, 1, mv], [b, 1, mv], int(v["tmp_buf_size"]) * FLOAT, type_size)
    bad = [f"{f.name} is {v[f.name]}, not {getattr(want, f.name)}" for f in fields(t)
           if f.name != "first_dim_value_back" and v[f.name] != getattr(want, f.name)]
    if bad:
        raise TraceError("this BatchNormTiling does not describe its shape and buffer: " + "; ".join(bad[:4]),
                         user_loc(), hint="fill it with asc.adv.get_batchnorm_nd_tiling_info")
    return b, 1, mv


GetBatchNormMaxMinTmpSize = get_batchnorm_max_min_tmp_size
GetBatchNormNDTilingInfo = get_batchnorm_nd_tiling_info
