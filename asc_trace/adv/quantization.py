"""`asc.adv.quant`, pyasc's signature (`asc.language.adv.quantization`), emitted as Ascend C `AscendQuant<T>`."""
from __future__ import annotations

from typing import Any

from ..dtypes import int8
from ..errors import DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record


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
    if config is not None:
        raise TraceError("asc.adv.quant's config (AscendQuantConfig) is not modelled by asc_trace", loc,
                         hint="leave config out: the default configuration computes the same values")
    record("adv_quant", {"dst": dst}, {"src": src}, temp_buffer, {"scale": scale, "offset": offset}, count,
           dtype_of="src")


__all__ = ["quant"]
