"""`asc.adv.deepnorm`, emitted as Ascend C `DeepNorm<T>` (pyasc has no DeepNorm: the tensors in the vendor's
order - beta before gamma - then, as asc.adv.layernorm takes them, the scalars, the tiling and the buffer)."""
from __future__ import annotations

from typing import Any

from ..errors import DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .tiling import static_values
from .tiling_deepnorm import DeepNormTiling, check_deepnorm_tiling


def deepnorm(dst: Any, mean: Any, rstd: Any, src: Any, gx: Any, beta: Any, gamma: Any, alpha: Any, epsilon: Any,
             tiling: DeepNormTiling, temp_buffer: Any = None, is_reuse_src: bool = False,
             is_basic_block: bool = False) -> None:
    """Ascend C `DeepNorm<T>(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal, gammaLocal
    [, sharedTmpBuffer], alpha, epsilon, tiling)` over rows of [b, s, h]: x1 = alpha * src + gx, then
    dst = (x1 - mean) / sqrt(variance + epsilon) * gamma + beta with the row mean and (biased) variance over the
    first original_h lanes. `rstd` receives the row variance, as the vendor's implementation writes it (not
    1 / sqrt(variance + epsilon)). Note the vendor's order: beta, then gamma.

    Raises:
        TraceError: a tiling not known while tracing, or not the one GetDeepNormTilingInfo makes for its shape and
            buffer; is_reuse_src or is_basic_block (not modelled).
        AlignmentError: h x sizeof(T) not a multiple of 32 bytes.
        DTypeError: the tensors not one type of half, float.
        UBOverflowError (at run time, before any write): temp_buffer below the tiling's tmpBufSize.
    """
    loc = user_loc()
    if not isinstance(tiling, DeepNormTiling):
        raise TraceError(f"asc.adv.deepnorm takes an asc.adv.DeepNormTiling, got {type(tiling).__name__}", loc,
                         hint="asc.adv.get_deepnorm_tiling_info([b, s, h], [b, s, original_h], tmp_bytes, "
                              "type_size)")
    if is_reuse_src or is_basic_block:
        raise TraceError("asc.adv.deepnorm models isReuseSrc = false and isBasicBlock = false only", loc)
    values = static_values(tiling, "the DeepNormTiling")
    refs = {n: vec_operand(t, n, "adv.deepnorm", loc) for n, t in
            dict(dst=dst, mean=mean, rstd=rstd, src=src, gx=gx, beta=beta, gamma=gamma).items()}
    if len({r.dtype for r in refs.values()}) != 1:
        raise DTypeError("the tensors of asc.adv.deepnorm must have one type (" +
                         ", ".join(f"{n} is {r.dtype}" for n, r in refs.items()) + ")", loc)
    shape = check_deepnorm_tiling(tiling, refs["src"].dtype.itemsize)
    record("adv_deepnorm", dict(dst=dst, mean=mean, rstd=rstd), dict(src=src, gx=gx, beta=beta, gamma=gamma),
           temp_buffer, {"alpha": alpha, "epsilon": epsilon}, counted=False, dtype_of="src", shape=shape,
           tiling=values)


__all__ = ["deepnorm"]
