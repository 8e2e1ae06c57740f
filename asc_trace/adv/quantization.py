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
    workLocalSize). With calcCount and workLocalSize set, the call quantises calcCount elements in passes of
    the given workspace (a template argument: emitted as a static constexpr object)."""

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
    if config is not None and not isinstance(config, QuantConfig):
        raise TraceError(f"config of asc.adv.quant is an asc.adv.QuantConfig, got {type(config).__name__}", loc)
    fixed = None
    if config is not None and config.calc_count and config.work_local_size:
        # the vendor's fixed split (AscendQuantCalc, `if constexpr`): calcCount elements in passes of
        # workLocalSize / 2 halves; the calCount argument is then not read
        if config.work_local_size < 64:
            raise TraceError("QuantConfig.work_local_size below 64 bytes leaves AscendQuant no split", loc)
        fixed = astuple(config)
        count = config.calc_count
    record("adv_quant", {"dst": dst}, {"src": src}, temp_buffer, {"scale": scale, "offset": offset}, count,
           dtype_of="src", config=fixed)


__all__ = ["quant", "QuantConfig"]
