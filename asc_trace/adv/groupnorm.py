"""`asc.adv.groupnorm`, emitted as Ascend C `GroupNorm<T>` (pyasc has no GroupNorm: the arguments are in the order
asc.adv.layernorm takes, pyasc's order for its norms: epsilon, the tiling, then the buffer)."""
from __future__ import annotations

from typing import Any

from ..errors import DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .tiling import static_values
from .tiling_groupnorm import GroupNormTiling, check_groupnorm_tiling


def groupnorm(dst: Any, mean: Any, variance: Any, src: Any, gamma: Any, beta: Any, epsilon: Any,
              tiling: GroupNormTiling, temp_buffer: Any = None, is_reuse_source: bool = False) -> None:
    """Ascend C `GroupNorm<T>(output, outputMean, outputVariance, inputX, gamma, beta[, sharedTmpBuffer], epsilon,
    tiling)` on [n, c, h, w] in g groups of d = c / g channels: mean and (biased) variance per (n, group), then
    dst = (src - mean) / sqrt(variance + epsilon) * gamma[ch] + beta[ch].

    Raises:
        TraceError: a tiling not known while tracing, or not the one GetGroupNormNDTilingInfo makes; the vendor's
            limits asc_trace holds (the general path with more than 64 groups, a half tiling with a tail round);
            is_reuse_source (not modelled).
        AlignmentError: h * w * sizeof(T) not a multiple of 32 bytes (the padded layout is not modelled).
        DTypeError: the tensors not one type of half, float.
        UBOverflowError (at run time, before any write): temp_buffer below the tiling's tmpBufSize.
    """
    loc = user_loc()
    if not isinstance(tiling, GroupNormTiling):
        raise TraceError(f"asc.adv.groupnorm takes an asc.adv.GroupNormTiling, got {type(tiling).__name__}", loc)
    if is_reuse_source:
        raise TraceError("asc.adv.groupnorm models isReuseSource = false only (the vendor's check refuses it)", loc)
    values = static_values(tiling, "the GroupNormTiling")
    refs = {n: vec_operand(t, n, "adv.groupnorm", loc) for n, t in
            dict(dst=dst, mean=mean, variance=variance, src=src, gamma=gamma, beta=beta).items()}
    if len({r.dtype for r in refs.values()}) != 1:
        raise DTypeError("the tensors of asc.adv.groupnorm must have one type (" +
                         ", ".join(f"{n} is {r.dtype}" for n, r in refs.items()) + ")", loc)
    check_groupnorm_tiling(tiling, refs["src"].dtype.itemsize)
    record("adv_groupnorm", dict(dst=dst, mean=mean, variance=variance), dict(src=src, gamma=gamma, beta=beta),
           temp_buffer, {"epsilon": epsilon}, counted=False, dtype_of="src", tiling=values)


__all__ = ["groupnorm"]
