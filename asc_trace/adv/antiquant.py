"""`asc.adv.ascend_antiquant`: Ascend C `AscendAntiQuant<int8_t, dstT, isTranspose>` in its per-tensor form
(a scalar offset and scale), and its host helper. pyasc has no antiquant; the names are the snake_case of the
vendor's, the arguments its order."""
from __future__ import annotations

from typing import Any, Sequence

from ..errors import DTypeError, NotProvidedError, TraceError
from ..dtypes import int8
from ..graph.ops.adv_antiquant import antiquant_tmp
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ..proxies.tensors import LocalTensor
from ._record import record
from .tiling import shape_ints


def ascend_antiquant(dst: Any, src: Any, offset: Any, scale: Any, k: int, temp_buffer: Any = None,
                     is_transpose: bool = False) -> None:
    """dst = (float(src) + offset) x scale over all of src (Ascend C `AscendAntiQuant(dst, src, offset, scale
    [, sharedTmpBuffer], K)` with scalars). `offset=None`: the scale-only form (dst = src x scale), which the
    vendor has only with a sharedTmpBuffer. half dst: computed in half; bfloat16 dst: in float.

    Raises:
        DTypeError: src not int8, dst not half / bfloat16.
        NotProvidedError: a LocalTensor offset / scale (the per-channel forms are not modelled yet).
        TraceError: k not a positive int; is_transpose with k x 1 byte not a multiple of 32 (the vendor's check);
            the scale-only form without temp_buffer.
        UBOverflowError (at run time, before any write): a bfloat16 call's temp_buffer below 1024 bytes.
    """
    loc = user_loc()
    for name, v in (("offset", offset), ("scale", scale)):
        if isinstance(v, LocalTensor):
            raise NotProvidedError(f"asc.adv.ascend_antiquant with a LocalTensor {name} (the per-channel forms of "
                                   "AscendAntiQuant) is not modelled yet; only the per-tensor form with scalars", loc,
                                   hint="pass Python numbers or scalars for offset and scale")
    s = vec_operand(src, "src", "adv.ascend_antiquant", loc)
    if s.dtype is not int8:
        raise DTypeError(f"asc.adv.ascend_antiquant takes an int8 src, not {s.dtype} (the A2 AscendAntiQuant: "
                         "int8_t -> half / bfloat16_t; int4 is not modelled)", loc)
    if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
        raise TraceError(f"asc.adv.ascend_antiquant: k must be a positive Python int, not {k!r}", loc)
    if is_transpose and k % 32:
        raise TraceError(f"asc.adv.ascend_antiquant: with is_transpose, K x sizeof(int8_t) = {k} must be a multiple "
                         "of 32 (the vendor's AscendAntiQuant check)", loc)
    with_offset = offset is not None
    record("adv_ascend_antiquant", {"dst": dst}, {"src": src}, temp_buffer,
           {"offset": offset if with_offset else 0.0, "scale": scale}, dtype_of="dst", size_of="src",
           tmp_required=not with_offset, src_dtype=int8, with_offset=with_offset or None, k=k,
           transpose=bool(is_transpose) or None)


def get_ascend_antiquant_max_min_tmp_size(src_shape: Sequence[int], scale_shape: Sequence[int],
                                          is_transpose: bool, input_dtype: Any, output_dtype: Any) -> tuple[int, int]:
    """GetAscendAntiQuantMaxMinTmpSize -> (max, min) bytes, for the per-tensor form (scale_shape of one element).

    Raises:
        NotProvidedError: a per-channel scale_shape (more than one element): that form is not modelled.
        DTypeError: input not int8, output not half / bfloat16.
    """
    dims, sdims = shape_ints(src_shape), shape_ints(scale_shape)
    if dims is None or sdims is None:
        raise TraceError(f"get_ascend_antiquant_max_min_tmp_size: shapes are sequences of ints, not {src_shape!r}, "
                         f"{scale_shape!r}", None)
    n_scale = 1
    for d in sdims:
        n_scale *= d
    if n_scale != 1:
        raise NotProvidedError("get_ascend_antiquant_max_min_tmp_size: the per-channel form (a scale_shape of "
                               f"{n_scale} elements) is not modelled yet", None)
    if getattr(input_dtype, "name", input_dtype) != "int8":
        raise DTypeError(f"AscendAntiQuant's input is int8 here, not {input_dtype}", None)
    out = getattr(output_dtype, "name", output_dtype)
    if out not in ("float16", "bfloat16"):
        raise DTypeError(f"AscendAntiQuant's output is half or bfloat16, not {output_dtype}", None)
    n = 1
    for d in dims:
        n *= d
    if n <= 0:
        raise TraceError("get_ascend_antiquant_max_min_tmp_size: the source shape must have elements", None)
    del is_transpose        # the per-tensor sizes do not depend on it
    return antiquant_tmp(out == "bfloat16", n)


GetAscendAntiQuantMaxMinTmpSize = get_ascend_antiquant_max_min_tmp_size
__all__ = ["ascend_antiquant", "get_ascend_antiquant_max_min_tmp_size", "GetAscendAntiQuantMaxMinTmpSize"]
