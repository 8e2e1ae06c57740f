"""`asc.adv.log2`, `log10`, `clamp_max`, `clamp_min`, `fmod`: Ascend C `Log2`, `Log10`, `ClampMax`, `ClampMin`,
`Fmod` (include/adv_api/math/log.h, clamp.h, fmod.h), in the argument order of pyasc's math functions (`dst, src,
[scalar,] count, temp_buffer, is_reuse_source`). pyasc has none of them; the names are the snake_case of the
vendor's."""
from __future__ import annotations

from typing import Any, Callable

from . import tiling as _tiling
from ._record import record


def log2(dst: Any, src: Any, count: Any = None, temp_buffer: Any = None, is_reuse_source: bool = False) -> None:
    """Ascend C `Log2(dst, src[, sharedTmpBuffer], calCount)`: ln(x) x (1 / ln 2), half computed in float."""
    record("adv_log2", {"dst": dst}, {"src": src}, temp_buffer, count=count, size_of="src")


def log10(dst: Any, src: Any, count: Any = None, temp_buffer: Any = None, is_reuse_source: bool = False) -> None:
    """Ascend C `Log10(dst, src, calCount)`: ln(x) x T(1 / ln 10), in T (it has no sharedTmpBuffer form)."""
    record("adv_log10", {"dst": dst}, {"src": src}, temp_buffer, count=count, size_of="src", tmp_form=False)


def clamp_max(dst: Any, src: Any, scalar: Any, count: Any = None, temp_buffer: Any = None,
              is_reuse_source: bool = False) -> None:
    """Ascend C `ClampMax(dst, src[, sharedTmpBuffer], scalar, calCount)`: min(x, scalar) (one Mins on A2)."""
    record("adv_clamp_max", {"dst": dst}, {"src": src}, temp_buffer, {"scalar": scalar}, count, size_of="src")


def clamp_min(dst: Any, src: Any, scalar: Any, count: Any = None, temp_buffer: Any = None,
              is_reuse_source: bool = False) -> None:
    """Ascend C `ClampMin(dst, src[, sharedTmpBuffer], scalar, calCount)`: max(x, scalar) (one Maxs on A2)."""
    record("adv_clamp_min", {"dst": dst}, {"src": src}, temp_buffer, {"scalar": scalar}, count, size_of="src")


def fmod(dst: Any, src0: Any, src1: Any, count: Any = None, temp_buffer: Any = None,
         is_reuse_source: bool = False) -> None:
    """Ascend C `Fmod(dst, src0, src1[, sharedTmpBuffer], calCount)`: src0 - trunc(src0 / src1) x src1, each
    step rounded in float (half is computed in float); src0 and src1 must have the same size."""
    record("adv_fmod", {"dst": dst}, {"src0": src0, "src1": src1}, temp_buffer, count=count, size_of="src0")


def _helper(op: str, vendor: str) -> Callable[..., tuple[int, int]]:
    base = _tiling._math_helper(op)

    def helper(src_shape: Any, type_size: int, is_reuse_source: bool = False) -> tuple[int, int]:
        return base(src_shape, type_size, is_reuse_source)
    helper.__name__ = helper.__qualname__ = f"get_{vendor.lower()}_max_min_tmp_size"
    helper.__doc__ = f"Get{vendor}MaxMinTmpSize -> (max, min) bytes of the shared temporary buffer."
    return helper


get_log2_max_min_tmp_size = _helper("log2", "Log2")
get_log10_max_min_tmp_size = _helper("log10", "Log10")
get_clamp_max_min_tmp_size = _helper("clamp_max", "Clamp")     # ClampMax and ClampMin share the vendor's helper
get_fmod_max_min_tmp_size = _helper("fmod", "Fmod")
GetFmodMaxMinTmpSize = get_fmod_max_min_tmp_size
GetLog2MaxMinTmpSize = get_log2_max_min_tmp_size
GetLog10MaxMinTmpSize = get_log10_max_min_tmp_size
GetClampMaxMinTmpSize = get_clamp_max_min_tmp_size
__all__ = ["log2", "log10", "clamp_max", "clamp_min", "fmod", "get_fmod_max_min_tmp_size", "GetFmodMaxMinTmpSize",
           "get_log2_max_min_tmp_size", "get_log10_max_min_tmp_size",
           "get_clamp_max_min_tmp_size", "GetLog2MaxMinTmpSize", "GetLog10MaxMinTmpSize", "GetClampMaxMinTmpSize"]
