"""Host side of `asc.adv`: the tiling structs (pyasc's `asc.adv.SoftmaxTiling`, `RmsNormTiling`, with its
field names) and the vendor's host helpers (`impl/adv_api/tiling/...`), under their Ascend C names and in
snake_case, returning what the vendor's fill (`(max, min)` for the `Get...MaxMinTmpSize` pairs).

A struct reaches a kernel as a `asc.ConstExpr[...]` argument or is built inside the kernel with constants,
as pyasc's samples do; either way its values are known while tracing, which the checks need.
"""
from __future__ import annotations

import math as _m
import operator
from dataclasses import astuple, dataclass, fields
from typing import Any, Sequence

from ..errors import AlignmentError, TraceError
from ..graph.ops.adv_common import ADV
from ..graph.ops.adv_math import UNARY
from ..proxies.source_loc import user_loc

BLOCK = 32
FLOAT = 4


@dataclass(frozen=True)
class SoftmaxTiling:
    """Ascend C `SoftMaxTiling` (kernel_tiling.h), pyasc's field names; 0 everywhere lets the kernel compute it
    from the shape and the temporary buffer (the vendor's SoftMax does when srcM / srcK differ)."""

    src_m: Any = 0
    src_k: Any = 0
    src_size: Any = 0
    out_max_m: Any = 0
    out_max_k: Any = 0
    out_max_size: Any = 0
    split_m: Any = 0
    split_k: Any = 0
    split_size: Any = 0
    reduce_m: Any = 0
    reduce_k: Any = 0
    reduce_size: Any = 0
    range_m: Any = 0
    tail_m: Any = 0
    tail_split_size: Any = 0
    tail_reduce_size: Any = 0


@dataclass(frozen=True)
class RmsNormTiling:
    """Ascend C `RmsNormTiling` (kernel_tiling.h), pyasc's field names; fill it with get_rms_norm_tiling_info."""

    b_length: Any = 0
    s_length: Any = 0
    h_length: Any = 0
    original_h_length: Any = 0
    reciprocal_of_h_length: Any = 0.0
    main_bsh_length: Any = 0
    main_bs_length: Any = 0
    main_bs_length_align: Any = 0
    loop_round: Any = 0
    input_tail_pos: Any = 0
    tail_bsh_length: Any = 0
    tail_bs_length: Any = 0


def static_values(struct: Any, what: str) -> tuple:
    """The struct's fields as Python numbers, or a TraceError: the checks and the emission need them."""
    out = []
    for f in fields(struct):
        v = getattr(struct, f.name)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TraceError(f"{what}.{f.name} is not known while tracing ({v!r})", user_loc(),
                             hint="fill the tiling on the host and pass it as an asc.ConstExpr argument, or build it "
                                  "in the kernel from constants")
        out.append(v)
    return tuple(out)


def shape_ints(src_shape: Any) -> list[int] | None:
    """The shape as a list of whole numbers, or None when it is not one (None, a bare int, 16.5, "a"): int()
    would raise a raw TypeError on some and silently truncate others."""
    try:
        dims = list(src_shape)
    except TypeError:
        return None
    if any(isinstance(d, bool) or not (isinstance(d, int) or hasattr(d, "__index__")
                                       or isinstance(d, float) and d.is_integer()) for d in dims):
        return None
    return [int(d) for d in dims]


def _dims(src_shape: Sequence[int]) -> list[int]:
    dims = shape_ints(src_shape)
    if not dims or any(d <= 0 for d in dims):
        raise TraceError(f"a shape is a list of positive ints, got {src_shape!r}", user_loc())
    return dims


def byte_count(v: Any, what: str) -> int:
    """A buffer size in bytes: a whole number, at least 0, else a TraceError naming it (None would be a raw
    TypeError deep in the arithmetic, and a negative size a tiling with negative splits)."""
    n = whole(v)
    if n is None or n < 0:
        raise TraceError(f"{what} is a byte count (a whole number, at least 0), got {v!r}", user_loc())
    return n


def whole(v: Any) -> int | None:
    """`v` as a Python int when it is a whole number (an int, a NumPy integer), else None: a bool, a float, an
    array (whose `in` / `<=` would be an ambiguous truth value, a raw ValueError) or anything else."""
    if isinstance(v, bool):
        return None
    try:
        return operator.index(v)
    except TypeError:
        return None


def _type_size(type_size: int) -> int:
    if whole(type_size) not in (2, 4):
        raise TraceError(f"the data type size is 2 (half) or 4 (float), got {type_size!r}", user_loc())
    return int(type_size)


# -- SoftMax (impl/adv_api/tiling/activation/softmax_tiling.cpp, the A2 branch) ---------------------

def _m_k(src_shape: Sequence[int], type_size: int) -> tuple[int, int]:
    dims = _dims(src_shape)
    k = dims[-1]
    if k * _type_size(type_size) % BLOCK:
        raise AlignmentError(f"SoftMax's last axis is {k} elements of {type_size} bytes = {k * type_size} bytes, "
                             "not a multiple of 32", user_loc(), hint="pad the rows to 32 bytes")
    return _m.prod(dims) // k, k


def get_softmax_max_tmp_size(src_shape: Sequence[int], data_type_size: int, is_reuse_source: bool = False) -> int:
    """GetSoftMaxMaxTmpSize: m x (32 / size + k + 64) floats, every row in one pass."""
    m, k = _m_k(src_shape, data_type_size)
    return m * (BLOCK // data_type_size + k + 64) * FLOAT


def get_softmax_min_tmp_size(src_shape: Sequence[int], data_type_size: int, is_reuse_source: bool = False) -> int:
    """GetSoftMaxMinTmpSize: one row, (32 / size + k + 64) floats."""
    _m_, k = _m_k(src_shape, data_type_size)
    return (BLOCK // data_type_size + k + 64) * FLOAT


def softmax_tiling_func(src_shape: Sequence[int], data_type_size: int, local_work_space_size: int) -> SoftmaxTiling:
    """SoftMaxTilingFunc: rows per pass from the workspace, rounded to 8 (and the basic-block adjustment)."""
    m, k = _m_k(src_shape, data_type_size)
    local_work_space_size = byte_count(local_work_space_size, "the SoftMax workspace size")
    per_blk = BLOCK // data_type_size
    base_m = min(local_work_space_size // FLOAT // (per_blk + k + 64), m)
    if base_m == 0:
        raise TraceError(f"a SoftMax workspace of {local_work_space_size} bytes holds no row; at least "
                         f"{get_softmax_min_tmp_size(src_shape, data_type_size)} are needed", user_loc())
    if base_m < m and base_m > 8:
        base_m = base_m // 8 * 8
    if base_m > 8 and m % 8 == 0 and k % 64 == 0:       # AdjustToBasicBlockBaseM
        base_m = base_m // 8 * 8
        while m % base_m:
            base_m -= 8
        while base_m * k >= 64 * 256:
            base_m //= 2
    tail = m % base_m
    return SoftmaxTiling(m, k, m * k, m, per_blk, m * per_blk, base_m, k, base_m * k, base_m, per_blk,
                         base_m * per_blk, m // base_m, tail, tail * k, tail * per_blk)


def check_softmax_tiling(t: SoftmaxTiling, type_size: int,
                         helper: str = "softmax_tiling_func([m, k], type_size, tmp_bytes)") -> None:
    """A tiling with srcM / srcK is used as it is (the vendor recomputes only when they differ from the shape):
    its split must be the one SoftMaxTilingFunc makes, or the work buffers overlap."""
    v = dict(zip([f.name for f in fields(t)], astuple(t)))
    m, k, per = v["src_m"], v["src_k"], BLOCK // type_size
    sm = v["split_m"]
    problems = []
    if sm <= 0 or sm > m:
        problems.append(f"split_m {sm} is not in 1..src_m {m}")
    else:
        want = {"src_size": m * k, "split_k": k, "split_size": sm * k, "reduce_m": sm, "reduce_k": per,
                "reduce_size": sm * per, "range_m": m // sm, "tail_m": m % sm, "tail_split_size": m % sm * k,
                "tail_reduce_size": m % sm * per}
        problems += [f"{f} is {v[f]}, not {w}" for f, w in want.items() if v[f] != w]
    if problems:
        raise TraceError("this SoftmaxTiling does not describe its shape: " + "; ".join(problems), user_loc(),
                         hint=f"fill it with asc.adv.{helper}, or leave it "
                              "all zero and pass shape=(m, k): the kernel then computes it")


@dataclass(frozen=True)
class LogSoftMaxTiling(SoftmaxTiling):
    """Ascend C `LogSoftMaxTiling` (SoftMaxTiling's fields). The vendor's LogSoftMax recomputes its split from the
    temporary buffer, so only src_m / src_k (the shape) are read from it."""


def log_softmax_tiling_func(src_shape: Sequence[int], data_type_size: int,
                            local_work_space_size: int) -> LogSoftMaxTiling:
    """LogSoftMaxTilingFunc (logsoftmax_tiling.cpp): the same split as SoftMaxTilingFunc."""
    return LogSoftMaxTiling(*astuple(softmax_tiling_func(src_shape, data_type_size, local_work_space_size)))


get_log_softmax_max_tmp_size = get_softmax_max_tmp_size     # GetLogSoftMaxMaxTmpSize: SoftMax's sizes on A2
get_log_softmax_min_tmp_size = get_softmax_min_tmp_size


# -- RmsNorm (impl/adv_api/tiling/normalization/rmsnorm_tiling_impl.cpp) ---------------------------

def _bsh(src_shape: Sequence[int]) -> tuple[int, int, int]:
    dims = _dims(src_shape)
    if len(dims) != 3:
        raise TraceError(f"RmsNorm's shape is [b, s, h], got {dims}", user_loc())
    return dims[0], dims[1], dims[2]


def get_rms_norm_max_min_tmp_size(src_shape: Sequence[int], type_size: int,
                                  is_basic_block: bool = False) -> tuple[int, int]:
    """GetRmsNormMaxMinTmpSize -> (max, min): (b*s*h x (2 | 1) + align(b*s)) and (h x (2 | 1) + 8) floats."""
    b, s, h = _bsh(src_shape)
    coeff = 2 if _type_size(type_size) == 2 else 1
    bs_align = -(-(b * s) // (BLOCK // type_size)) * (BLOCK // type_size)
    return (b * s * h * coeff + bs_align) * FLOAT, (h * coeff + 8) * FLOAT


def get_rms_norm_tiling_info(src_shape: Sequence[int], origin_src_shape: Sequence[int], stack_buffer_byte_size: int,
                             type_size: int, is_basic_block: bool = False) -> RmsNormTiling:
    """GetRmsNormTilingInfo: rows per pass from the buffer (at most 255); raises where the vendor returns false."""
    b, s, h = _bsh(src_shape)
    ob, os_, oh = _bsh(origin_src_shape)
    stack_buffer_byte_size = byte_count(stack_buffer_byte_size, "the RmsNorm buffer size")
    if (b, s) != (ob, os_) or oh > h:
        raise TraceError(f"RmsNorm's original shape {[ob, os_, oh]} does not fit the shape {[b, s, h]}", user_loc())
    if h * _type_size(type_size) % BLOCK:
        raise AlignmentError(f"RmsNorm's h is {h} elements of {type_size} bytes, not a multiple of 32 bytes",
                             user_loc(), hint="pad h to 32 bytes (original_h keeps the true length)")
    _mx, mn = get_rms_norm_max_min_tmp_size(src_shape, type_size)
    if stack_buffer_byte_size < mn:
        raise TraceError(f"a RmsNorm buffer of {stack_buffer_byte_size} bytes is below the minimum {mn}", user_loc())
    total = stack_buffer_byte_size // FLOAT
    coeff = 1 if type_size == 4 else 2
    bs = 1
    while total >= (bs + 1) * h * coeff + -(-(bs + 1) // 8) * 8:
        bs += 1
    one = min(bs * h, b * s * h)
    bs = one // h
    if is_basic_block:
        bs = bs if bs < 8 else bs // 8 * 8
    elif bs > 255:
        bs = 255
    one = bs * h
    size = b * s * h
    tail = size % one
    return RmsNormTiling(b, s, h, oh, float(1.0 / float(oh)), one, bs, -(-bs // (BLOCK // FLOAT)) * (BLOCK // FLOAT),
                         size // one, size - tail, tail, tail // h)


def check_rms_norm_tiling(t: RmsNormTiling, type_size: int) -> None:
    """The invariants GetRmsNormTilingInfo establishes; a struct that breaks one does not describe its shape."""
    v = dict(zip([f.name for f in fields(t)], astuple(t)))
    b, s, h, oh = v["b_length"], v["s_length"], v["h_length"], v["original_h_length"]
    size = b * s * h
    problems = []
    if min(b, s, h, oh) <= 0:
        problems.append("b, s, h and original_h must be positive")
    elif oh > h:
        problems.append(f"original_h {oh} > h {h}")
    if v["main_bs_length"] <= 0 or v["main_bsh_length"] != v["main_bs_length"] * h:
        problems.append(f"main_bsh_length {v['main_bsh_length']} != main_bs_length {v['main_bs_length']} x h {h}")
    elif v["loop_round"] * v["main_bsh_length"] + v["tail_bsh_length"] != size:
        problems.append(f"loop_round x main_bsh_length + tail_bsh_length != b*s*h = {size}")
    if v["tail_bs_length"] * h != v["tail_bsh_length"] or v["input_tail_pos"] != size - v["tail_bsh_length"]:
        problems.append("the tail fields do not describe the rest of the rows")
    if v["main_bs_length_align"] < v["main_bs_length"] or v["main_bs_length_align"] % 8:
        problems.append("main_bs_length_align is not main_bs_length rounded up to 8")
    if problems:
        raise TraceError("this RmsNormTiling does not describe its shape: " + "; ".join(problems), user_loc(),
                         hint="fill it with asc.adv.get_rms_norm_tiling_info(shape, shape, tmp_bytes, type_size)")
    if h * type_size % BLOCK:
        raise AlignmentError(f"RmsNorm's h is {h} elements of {type_size} bytes, not a multiple of 32 bytes",
                             user_loc(), hint="pad h to 32 bytes (original_h keeps the true length)")


# -- AscendQuant (impl/adv_api/tiling/quantization/ascend_quant_tiling_impl.cpp) -------------------

def get_ascend_quant_max_min_tmp_size(src_shape: Sequence[int], type_size: int) -> tuple[int, int]:
    """GetAscendQuantMaxMinTmpSize -> (max, min): max(n x 2, 512) rounded up to 32, and 512."""
    n = _m.prod(_dims(src_shape))
    return -(-max(n * 2, 512) // BLOCK) * BLOCK, 512


# -- the math functions: Get<Name>MaxMinTmpSize ------------------------------------------------------

class _Shape:
    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype

    def attr(self, name: str, default: Any = None) -> Any:
        return self.dtype if name == "dtype" else default


def _math_helper(name: str):
    def helper(src_shape: Sequence[int], type_size: int, is_reuse_source: bool = False) -> tuple[int, int]:
        from ..dtypes import float16, float32
        n = _m.prod(_dims(src_shape))
        node = _Shape(float16 if _type_size(type_size) == 2 else float32)
        spec = ADV[f"adv_{name}"]
        return spec.max_tmp(node, n), spec.min_tmp(node, n)
    helper.__name__ = helper.__qualname__ = f"get_{name}_max_min_tmp_size"
    helper.__doc__ = f"Get{name.capitalize()}MaxMinTmpSize -> (max, min) bytes of the shared temporary buffer."
    return helper


MATH_HELPERS = {f"get_{n}_max_min_tmp_size": _math_helper(n) for n, *_ in UNARY}
globals().update(MATH_HELPERS)

# the vendor's spellings
GetSoftMaxMaxTmpSize = get_softmax_max_tmp_size
GetSoftMaxMinTmpSize = get_softmax_min_tmp_size
SoftMaxTilingFunc = softmax_tiling_func
GetRmsNormMaxMinTmpSize = get_rms_norm_max_min_tmp_size
GetRmsNormTilingInfo = get_rms_norm_tiling_info
GetAscendQuantMaxMinTmpSize = get_ascend_quant_max_min_tmp_size
SoftMaxTiling = SoftmaxTiling
GetLogSoftMaxMaxTmpSize = get_log_softmax_max_tmp_size
GetLogSoftMaxMinTmpSize = get_log_softmax_min_tmp_size
LogSoftMaxTilingFunc = log_softmax_tiling_func
