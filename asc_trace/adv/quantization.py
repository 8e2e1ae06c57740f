"""`asc.adv.quant`, pyasc's signature (`asc.language.adv.quantization`), emitted as Ascend C `AscendQuant<T>`."""
from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import Any

from ..dtypes import int8
from ..errors import DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record


@dataclass(frozen=True)
class QuantConfig:
    """pyasc's `asc.adv.QuantConfig` (Ascend C AscendQuantConfig: calcCount, offsetCount, scaleCount,
    workLocalSize). Only the default (all zero) is modelled: a non-zero one fixes the per-pass split at
    compile time, which asc_trace does not emit yet."""

    calc_count: int = 0
    offset_count: int = 0
    scale_count: int = 0
    work_local_size: int = 0


def quant(dst: Any, src: Any, scale: Any, offset: Any, count: Any = None, temp_buffer: Any = None,
          reuse_source: bool = False, config: Any = None) -> None:
    """Per-tensor quantisation, dst (int8) = round(src x scale + offset) computed in half (Ascend C AscendQuant).

    Raises:
        DTypeError: dst not int8; src not half / float.
        TraceError: a `config` (AscendQuantConfig is not modelled); no count.
        UBOverflowError (at run time, before any write): temp_buffer below GetAscendQuantMaxMinTmpSize's min.
    """
    loc = user_loc()
    if vec_operand(dst, "dst", "adv.quant", loc).dtype is not int8:
        raise DTypeError("asc.adv.quant writes an int8 dst", loc)
    if config is not None and (not isinstance(config, QuantConfig) or any(astuple(config))):
        raise TraceError("asc.adv.quant models the default AscendQuantConfig only (all zero)", loc,
                         hint="leave config out: a per-tensor quant computes the same values with any split")
    record("adv_quant", {"dst": dst}, {"src": src}, temp_buffer, {"scale": scale, "offset": offset}, count,
           dtype_of="src")


__all__ = ["quant", "QuantConfig"]
