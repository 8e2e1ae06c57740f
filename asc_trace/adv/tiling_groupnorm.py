"""Host side of `asc.adv.groupnorm`: the `GroupNormTiling` struct (groupnorm_tilingdata.h, snake_case; smallShape
kept as 0 / 1) and the vendor's helpers (`impl/adv_api/tiling/normalization/groupnorm_tiling_impl.cpp`) under their
Ascend C names and in snake_case."""
from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from typing import Any, Sequence

from ..errors import AlignmentError, TraceError
from ..proxies.source_loc import user_loc
from .tiling import _type_size, byte_count, shape_ints

BLOCK = 32
FLOAT = 4


@dataclass(frozen=True)
class GroupNormTiling:
    """Ascend C `GroupNormTiling`; fill it with get_groupnorm_nd_tiling_info."""

    n: Any = 0
    c: Any = 0
    hw: Any = 0
    g: Any = 0
    d: Any = 0
    hw_align_size: Any = 0
    dhw_align_size: Any = 0
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
    factor: Any = 0.0
    small_shape: Any = 0


def _nchw(src_shape: Sequence[int], type_size: int, group_num: int) -> tuple[int, int, int, int]:
    """CheckGroupNormHostCommon: [n, c, h, w] of positive ints, type size 2 or 4, a positive group count."""
    dims = shape_ints(src_shape)
    if dims is None or len(dims) != 4 or any(d <= 0 for d in dims):
        raise TraceError(f"GroupNorm's shape is [n, c, h, w] of positive ints, got {src_shape!r}", user_loc())
    _type_size(type_size)
    if isinstance(group_num, bool) or not hasattr(group_num, "__index__") or group_num <= 0:
        raise TraceError(f"GroupNorm's group_num is a positive int, got {group_num!r}", user_loc())
    return dims[0], dims[1], dims[2], dims[3]


def _up(v: int, to: int) -> int:
    return -(-v // to) * to


def get_groupnorm_max_min_tmp_size(src_shape: Sequence[int], type_size: int, is_reuse_source: bool,
                                   group_num: int) -> tuple[int, int]:
    """GetGroupNormMaxMinTmpSize -> (max, min) bytes: 3 float buffers (2 for float reusing the source) of every
    channel's (max) or one group's (min) h*w rounded up to 32 bytes of T, and 2 of the n*g statistics."""
    n, c, h, w = _nchw(src_shape, type_size, group_num)
    mv = _up(n * group_num * FLOAT, BLOCK)
    hw_f = _up(h * w * type_size, BLOCK) // type_size * FLOAT
    bufs = 2 if is_reuse_source and type_size == 4 else 3
    return bufs * n * c * hw_f + 2 * mv, bufs * (c // group_num) * hw_f + 2 * mv


def get_groupnorm_nd_tiling_info(src_shape: Sequence[int], stack_buffer_size: int, type_size: int,
                                 is_reuse_source: bool, group_num: int) -> GroupNormTiling:
    """GetGroupNormNDTilingInfo: groups per round from the buffer; raises where the vendor leaves the struct
    unset. asc_trace also requires c % group_num == 0 and h * w whole 32-byte blocks (below)."""
    n, c, h, w = _nchw(src_shape, type_size, group_num)
    size = byte_count(stack_buffer_size, "the GroupNorm buffer size")
    g = int(group_num)
    if c % g:
        raise TraceError(f"GroupNorm's c {c} is not a multiple of group_num {g} (d = c / g channels a group)",
                         user_loc())
    if h * w * type_size % BLOCK:
        # with padding the vendor's sums read the padding lanes (and, for a tail round, what dst held before)
        raise AlignmentError(f"GroupNorm's h * w is {h * w} elements of {type_size} bytes, not a multiple of 32 bytes"
                             " (asc_trace models the unpadded layout only)", user_loc())
    d = c // g
    hwa = _up(type_size * h * w, BLOCK) // type_size
    dhwa = d * hwa
    x_size, mv = n * c * hwa, n * g
    mv_size = _up(mv, BLOCK // FLOAT)
    mv_total = 0 if type_size == 4 else 2 * mv_size
    bufs = 2 if is_reuse_source and type_size == 4 else 3
    tmp = size // BLOCK * BLOCK // FLOAT
    one = max(tmp - mv_total, 0) // bufs
    bs = one // dhwa
    k = 8
    while (dhwa // 8) % k:
        k -= 1
    small = hwa <= 64 and hwa * d <= 64 * k
    if small:
        m1 = dhwa if dhwa <= 64 else next(m for m in range(64, 0, -8) if dhwa % m == 0)
        bs = min(bs, 255 // (dhwa // m1) // 8 * 8)
    if type_size == 2 and bs * dhwa < c:
        raise TraceError(f"a GroupNorm buffer of {size} bytes holds {bs} groups a round: the vendor needs room for "
                         f"c = {c} (half)", user_loc(), hint="give a larger buffer (get_groupnorm_max_min_tmp_size)")
    one = bs * d * hwa
    if one > x_size:
        bs, one = mv, x_size
    if one == 0:
        raise TraceError(f"a GroupNorm buffer of {size} bytes holds no group of {dhwa} floats", user_loc(),
                         hint="give at least get_groupnorm_max_min_tmp_size(...)[1] bytes")
    tail = x_size % one
    return GroupNormTiling(n, c, h * w, g, d, hwa, dhwa, x_size, mv, bufs, 0, mv_size, mv_size, mv_size, tmp, one,
                           mv_total, mv_total + one, mv_total + 2 * one, x_size // one, one, tail, x_size - tail,
                           one // dhwa, tail // dhwa, mv - tail // dhwa, one, bs, float(1.0 / float(d * h * w)),
                           int(small))


def check_groupnorm_tiling(t: GroupNormTiling, type_size: int) -> None:
    """The struct must be what GetGroupNormNDTilingInfo makes for its own shape and buffer."""
    v = dict(zip([f.name for f in fields(t)], astuple(t)))
    if min(v["n"], v["c"], v["hw"], v["g"]) <= 0:
        raise TraceError("this GroupNormTiling describes no shape (n, c, hw and g must be positive)", user_loc(),
                         hint="fill it with asc.adv.get_groupnorm_nd_tiling_info([n, c, h, w], tmp_bytes, "
                              "type_size, False, group_num)")
    if v["hw"] * type_size % BLOCK:
        raise AlignmentError(f"GroupNorm's h * w is {v['hw']} elements of {type_size} bytes, not a multiple of 32 "
                             "bytes (asc_trace models the unpadded layout only)", user_loc())
    want = get_groupnorm_nd_tiling_info([v["n"], v["c"], 1, v["hw"]], int(v["tmp_buf_size"]) * FLOAT, type_size,
                                        v["number_of_tmp_buf"] == 2 and type_size == 4, v["g"])
    bad = [f"{f.name} is {v[f.name]}, not {getattr(want, f.name)}" for f in fields(t)
           if f.name != "factor" and v[f.name] != getattr(want, f.name)]
    if bad:
        raise TraceError("this GroupNormTiling does not describe its shape and buffer: " + "; ".join(bad[:4]),
                         user_loc(), hint="fill it with asc.adv.get_groupnorm_nd_tiling_info")
    if not v["small_shape"] and v["mean_var_size"] > 64:
        # GetGroupNormOutputMean / Var scale group i with the mask 1 << i: one 64-bit mask word
        raise TraceError(f"the vendor's general (not small-shape) GroupNorm scales group i's statistics with the "
                         f"vector mask 1 << i, which holds 64 groups; this shape has n * g = {v['mean_var_size']}",
                         user_loc(), hint="split the batch so that n * g <= 64 per call")
    if type_size == 2 and v["input_tail_size"]:
        # GroupNormExe(SmallShape) on half casts input_round_size elements in and out, also at the tail
        raise TraceError("the vendor's half GroupNorm casts a whole round (input_round_size elements) in and out at "
                         "the tail round too, past the tensors' last group: a tiling with a tail is refused",
                         user_loc(), hint="give a buffer whose rounds divide n * g (or one round for all)")


GetGroupNormMaxMinTmpSize = get_groupnorm_max_min_tmp_size
GetGroupNormNDTilingInfo = get_groupnorm_nd_tiling_info
