"""AscendAntiQuant, per-tensor form (a scalar offset and scale; include/adv_api/quantization/ascend_antiquant.h),
the A2 steps of impl/adv_api/detail/quantization/antiquant (ascend_antiquant_impl.h AntiQuantOuterLoop with
scalars; ascend_antiquant_c220_impl.h for bfloat16). isTranspose does not change this form's steps.

- half dst: Cast<half, int8_t> (exact), Adds(offset) in half (the form with an offset), Muls(scale) in half.
- bfloat16 dst: Cast<half, int8_t>, Cast<float, half> (both exact), Adds(float(offset)), Muls(float(scale)) in
  float, Cast<bfloat16_t, float> CAST_RINT; in splits of tmp bytes / 2 / 4 elements (element-wise: the split
  changes no value). offset and scale are OutputDataType parameters: they are rounded to dst's type first.

GetAscendAntiQuantMaxMinTmpSize (impl/adv_api/tiling/quantization/ascend_antiquant_tiling_impl.cpp), per tensor:
half dst 0 / 0; bfloat16 dst max = src elements x 4, min = 1024.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import bf16_to_f32, bfloat16, float16, float32
from ..numerics import cast_values
from .adv_common import AdvSpec, Steps, adv_fields, adv_record, register_adv

DST_TYPES = frozenset({"float16", "bfloat16"})
MIN_TMP_BF16 = 1024          # ANTI_QUANT_MIN_TMP_SIZE
TOL = {"float16": (0.0, 0.0), "bfloat16": (0.0, 0.0)}    # exact against the float64 reading of the steps


def to_dst_type(v: float, bf16: bool) -> np.float32:
    """A float parameter as the vendor's OutputDataType parameter receives it (nearest even), as float32."""
    f = np.asarray([v], dtype=np.float32)
    if bf16:
        return bf16_to_f32(cast_values(f, float32, bfloat16, "rint"))[0]
    return np.float32(f.astype(np.float16)[0])


def _antiquant(st: Steps, ins, sc, node) -> dict:
    bf16 = node.attr("dtype") is bfloat16
    with_offset = bool(node.attr("with_offset"))
    x = st.cast(np.asarray(ins["src"]).astype(np.float16), float16)   # Cast<half, int8_t>: every int8 is a half
    if not bf16:
        if with_offset:
            x = st.scalar("adds", x, np.float16(to_dst_type(sc["offset"], False)))
        return {"dst": st.scalar("muls", x, np.float16(to_dst_type(sc["scale"], False)))}
    w = st.cast(x, float32)
    if with_offset:
        w = st.scalar("adds", w, to_dst_type(sc["offset"], True))
    w = st.scalar("muls", w, to_dst_type(sc["scale"], True))
    st._note("cast", w)
    return {"dst": bf16_to_f32(cast_values(w, float32, bfloat16, "rint"))}


def antiquant_tmp(dst_is_bf16: bool, src_elems: int) -> tuple[int, int]:
    """GetAscendAntiQuantMaxMinTmpSize, per-tensor form -> (max, min) bytes."""
    return (int(src_elems) * 4, MIN_TMP_BF16) if dst_is_bf16 else (0, 0)


def _tmp(node, n) -> tuple[int, int]:
    return antiquant_tmp(node.attr("dtype") is bfloat16, int(n or 0))


def _emit(ctx, node) -> str:
    f = adv_fields(ctx, node)
    t = f["T"]
    tmpl = f"int8_t, {t}, {'true' if node.attr('transpose') else 'false'}"
    # the scalars are OutputDataType parameters: converted from float by the call, as asc_trace rounds them
    scal = (f"static_cast<{t}>({f['offset']}), " if node.attr("with_offset") else "") + f"static_cast<{t}>({f['scale']})"
    tmp = f", {f['tmp']}" if f["tmp"] else ""
    return f"AscendC::AscendAntiQuant<{tmpl}>({f['dst']}, {f['src']}, {scal}{tmp}, {node.attr('k')});"


DECLARED = {
    "AscendAntiQuant<>/6": ("include/adv_api/quantization/ascend_antiquant.h:50",
                            "lib/quantization/ascend_antiquant.h:33"),
    "AscendAntiQuant<>/5": ("include/adv_api/quantization/ascend_antiquant.h:79",
                            "lib/quantization/ascend_antiquant.h:55"),
}

register_adv(adv_record(
    "adv_ascend_antiquant", "AscendAntiQuant",
    AdvSpec(("dst",), ("src",), _antiquant, lambda nd, n: _tmp(nd, n)[1], lambda nd, n: _tmp(nd, n)[0],
            scalars=("offset", "scale"), distinct=(("dst", "src"),),
            tmp_helper="asc.adv.get_ascend_antiquant_max_min_tmp_size"),
    _emit, DST_TYPES, DECLARED, TOL, header="quantization/ascend_antiquant.h"))
__all__ = ["antiquant_tmp", "to_dst_type"]
