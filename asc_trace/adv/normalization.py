"""`asc.adv.rmsnorm`, pyasc's signature (`asc.language.adv.normalization`), emitted as Ascend C `RmsNorm<T>`."""
from __future__ import annotations

from typing import Any

from ..errors import DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .tiling import RmsNormTiling, check_rms_norm_tiling, static_values
from .tiling_norm import LayerNormTiling, check_layernorm_tiling


def rmsnorm(dst: Any, src: Any, gamma: Any, epsilon: Any, tiling: RmsNormTiling, temp_buffer: Any = None,
            basic_block: bool = False) -> None:
    """dst = src / sqrt(mean(src[:original_h]^2) + epsilon) * gamma per row of [b, s, h] (Ascend C RmsNorm).

    Raises:
        TraceError: a tiling not known while tracing, or one that does not describe its shape; basic_block.
        AlignmentError: h x sizeof(T) not a multiple of 32 bytes.
        DTypeError: dst / src / gamma not one type of half, float.
        UBOverflowError (at run time, before any write): temp_buffer below what this tiling uses.
    """
    loc = user_loc()
    if not isinstance(tiling, RmsNormTiling):
        raise TraceError(f"asc.adv.rmsnorm takes an asc.adv.RmsNormTiling, got {type(tiling).__name__}", loc)
    if basic_block:
        raise TraceError("asc.adv.rmsnorm models the general (not basic-block) RmsNorm only", loc)
    values = static_values(tiling, "the RmsNormTiling")
    d = vec_operand(dst, "dst", "adv.rmsnorm", loc)
    if not (vec_operand(src, "src", "adv.rmsnorm", loc).dtype is d.dtype is vec_operand(gamma, "gamma",
                                                                                        "adv.rmsnorm", loc).dtype):
        raise DTypeError("dst, src and gamma of asc.adv.rmsnorm must have one type", loc)
    check_rms_norm_tiling(tiling, d.dtype.itemsize)
    b, s, h, oh = values[:4]
    record("adv_rmsnorm", {"dst": dst}, {"src": src, "gamma": gamma}, temp_buffer, {"epsilon": epsilon},
           counted=False, shape=(b, s, h, oh), tiling=values)


def layernorm(dst: Any, mean: Any, variance: Any, src: Any, gamma: Any, beta: Any, epsilon: Any,
              tiling: LayerNormTiling, temp_buffer: Any = None, is_reuse_source: bool = False) -> None:
    """Ascend C `LayerNorm<T>(output, outputMean, outputVariance, inputX, gamma, beta[, sharedTmpBuffer], epsilon,
    tiling)` over rows of [b, s, h]: dst = (src - mean) / sqrt(variance + epsilon) * gamma + beta, the row mean
    and (biased) variance written one per row. Arguments in pyasc's order for its norms (epsilon, tiling, then
    the buffer).

    Raises:
        TraceError: a tiling not known while tracing, or not the one GetLayerNormNDTilingInfo makes for its shape
            and buffer; is_reuse_source (not modelled).
        AlignmentError: h x sizeof(T) not a multiple of 32 bytes.
        DTypeError: the tensors not one type of half, float.
        UBOverflowError (at run time, before any write): temp_buffer below the tiling's tmpBufSize.
    """
    loc = user_loc()
    if not isinstance(tiling, LayerNormTiling):
        raise TraceError(f"asc.adv.layernorm takes an asc.adv.LayerNormTiling, got {type(tiling).__name__}", loc)
    if is_reuse_source:
        raise TraceError("asc.adv.layernorm models isReuseSource = false only", loc)
    values = static_values(tiling, "the LayerNormTiling")
    refs = {n: vec_operand(t, n, "adv.layernorm", loc) for n, t in
            dict(dst=dst, mean=mean, variance=variance, src=src, gamma=gamma, beta=beta).items()}
    if len({r.dtype for r in refs.values()}) != 1:
        raise DTypeError("the tensors of asc.adv.layernorm must have one type (" +
                         ", ".join(f"{n} is {r.dtype}" for n, r in refs.items()) + ")", loc)
    shape = check_layernorm_tiling(tiling, refs["src"].dtype.itemsize)
    record("adv_layernorm", dict(dst=dst, mean=mean, variance=variance), dict(src=src, gamma=gamma, beta=beta),
           temp_buffer, {"epsilon": epsilon}, counted=False, dtype_of="src", shape=shape, tiling=values)


__all__ = ["rmsnorm", "layernorm"]
