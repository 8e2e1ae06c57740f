"""`asc.adv.concat` / `asc.adv.extract`, pyasc's names and arguments (`asc.language.adv.sort`): the preparation and
the unpacking around a sort of (value, index) structures (Ascend C Concat / Extract)."""
from __future__ import annotations

from typing import Any

from ..errors import DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record


def _repeat(repeat_time: Any, name: str) -> int:
    if isinstance(repeat_time, bool) or not isinstance(repeat_time, int) or not 0 <= repeat_time <= 255:
        raise TraceError(f"repeat_time of asc.adv.{name} is a Python int 0..255 (it sizes the call's operands), "
                         f"got {repeat_time!r}", user_loc())
    return repeat_time


def concat(dst: Any, src: Any, tmp: Any, repeat_time: int) -> None:
    """Ascend C `Concat(concat, src, tmp, repeatTime)`. On A2 (2201) the vendor's Concat moves no data: it makes
    `concat` refer to `src` (`concat = src`), since Sort32 there takes the values as they are. asc_trace does the
    same: after the call `dst` is `src` (no instruction is recorded or emitted).

    Raises:
        TraceError: repeat_time not an int 0..255; dst a view (the vendor rebinds the tensor object itself).
        DTypeError: the three tensors not one type of half, float.
    """
    loc = user_loc()
    _repeat(repeat_time, "concat")
    refs = [vec_operand(t, n, "adv.concat", loc) for t, n in ((dst, "dst"), (src, "src"), (tmp, "tmp"))]
    if len({r.dtype for r in refs}) != 1 or refs[0].dtype.name not in ("float16", "float32"):
        raise DTypeError("dst, src and tmp of asc.adv.concat are one type of half, float; got " +
                         ", ".join(str(r.dtype) for r in refs), loc)
    dst._ref = src._ref
    if hasattr(src, "_shape"):
        dst._shape = src._shape


def extract(dst_value: Any, dst_index: Any, src: Any, repeat_time: int) -> None:
    """Ascend C `Extract(dstValue, dstIndex, sorted, repeatTime)`: the values (type T) and uint32 indices of
    repeat_time x 32 sorted (value, index) structures of 8 bytes each.

    Raises:
        TraceError: repeat_time not an int 0..255.
        DTypeError: dst_value / src not one type of half, float; dst_index not uint32.
    """
    loc = user_loc()
    n = _repeat(repeat_time, "extract")
    v, s = vec_operand(dst_value, "dst_value", "adv.extract", loc), vec_operand(src, "src", "adv.extract", loc)
    if v.dtype is not s.dtype:
        raise DTypeError(f"dst_value and src of asc.adv.extract are one type, got {v.dtype} and {s.dtype}", loc)
    if vec_operand(dst_index, "dst_index", "adv.extract", loc).dtype.name != "uint32":
        raise DTypeError("dst_index of asc.adv.extract is a LocalTensor of uint32", loc)
    record("adv_extract", {"dst_value": dst_value, "dst_index": dst_index}, {"src": src}, counted=False,
           dtype_of="src", tmp_form=False, repeat=n)


__all__ = ["concat", "extract"]
