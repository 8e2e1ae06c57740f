"""`asc.adv.batchnorm`, emitted as Ascend C `BatchNorm<T>` (pyasc has no BatchNorm: the arguments are in the order
asc.adv.layernorm takes, pyasc's order for its norms: epsilon, the tiling, then the buffer)."""
from __future__ import annotations

from typing import Any

from ..errors import DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .tiling import static_values
from .tiling_batchnorm import BatchNormTiling, check_batchnorm_tiling


def batchnorm(dst: Any, mean: Any, variance: Any, src: Any, gamma: Any, beta: Any, epsilon: Any,
              tiling: BatchNormTiling, temp_buffer: Any = None, is_reuse_source: bool = False,
              is_basic_block: bool = False) -> None:
    """Ascend C `BatchNorm<T>(output, outputMean, outputVariance, inputX, gamm, beta[, sharedTmpBuffer], epsilon,
    tiling)` over the first axis of [b, s, h]: mean and (biased) variance [s, h] over the b rows,
    dst = (src - mean) / sqrt(variance + epsilon) * gamma[b] + beta[b] (gamma and beta one value per row b).

    Raises:
        TraceError: a tiling not known while tracing, or not the one GetBatchNormNDTilingInfo makes for its
            shape and buffer; is_reuse_source or is_basic_block (not modelled).
        AlignmentError: s * h * sizeof(T) not a multiple of 32 bytes.
        DTypeError: the tensors not one type of half, float.
        UBOverflowError (at run time, before any write): temp_buffer below the tiling's tmpBufSize.
    """
    loc = user_loc()
    if not isinstance(tiling, BatchNormTiling):
        raise TraceError(f"asc.adv.batchnorm takes an asc.adv.BatchNormTiling, got {type(tiling).__name__}", loc)
    if is_reuse_source or is_basic_block:
        raise TraceError("asc.adv.batchnorm models isReuseSource = false and isBasicBlock = false only (the "
                         "vendor's check refuses isReuseSource)", loc)
    values = static_values(tiling, "the BatchNormTiling")
    refs = {n: vec_operand(t, n, "adv.batchnorm", loc) for n, t in
            dict(dst=dst, mean=mean, variance=variance, src=src, gamma=gamma, beta=beta).items()}
    if len({r.dtype for r in refs.values()}) != 1:
        raise DTypeError("the tensors of asc.adv.batchnorm must have one type (" +
                         ", ".join(f"{n} is {r.dtype}" for n, r in refs.items()) + ")", loc)
    shape = check_batchnorm_tiling(tiling, refs["src"].dtype.itemsize)
    record("adv_batchnorm", dict(dst=dst, mean=mean, variance=variance), dict(src=src, gamma=gamma, beta=beta),
           temp_buffer, {"epsilon": epsilon}, counted=False, dtype_of="src", shape=shape, tiling=values)


__all__ = ["batchnorm"]
