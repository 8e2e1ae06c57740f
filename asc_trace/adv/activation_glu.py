"""`asc.adv.swish`, `geglu`, `reglu` (not in pyasc: the snake_case of the Ascend C call, its argument order),
emitted as Ascend C `Swish`, `GeGLU`, `ReGlu`; their host helpers under the vendor's names."""
from __future__ import annotations

from typing import Any, Sequence

from ._record import record


def swish(dst: Any, src: Any, count: Any, scalar_value: Any, is_reuse_source: bool = False) -> None:
    """Ascend C `Swish(dst, src, dataSize, scalarValue)`: x / (1 + exp(-scalar_value x)), in T; no temporary
    buffer (the vendor's only form)."""
    record("adv_swish", {"dst": dst}, {"src": src}, None, {"beta": scalar_value}, count, tmp_form=False)


def geglu(dst: Any, src0: Any, src1: Any, count: Any = None, temp_buffer: Any = None,
          is_reuse_source: bool = False) -> None:
    """Ascend C `GeGLU(dst, src0, src1[, sharedTmpBuffer][, calCount])`: src0 * gelu(src1) (the tanh GELU as a
    sigmoid); without a count, src0's size (the vendor's count-less form)."""
    record("adv_geglu", {"dst": dst}, {"src0": src0, "src1": src1}, temp_buffer, count=count, size_of="src0")


def reglu(dst: Any, src0: Any, src1: Any, count: Any, temp_buffer: Any = None,
          is_reuse_source: bool = False) -> None:
    """Ascend C `ReGlu(dst, src0, src1[, sharedTmpBuffer], calCount)`: src0 * max(src1, 0), in float."""
    record("adv_reglu", {"dst": dst}, {"src0": src0, "src1": src1}, temp_buffer, count=count)


def _helper(name: str, vendor: str):
    def helper(src_shape: Sequence[int], type_size: int, is_reuse_source: bool = False) -> tuple[int, int]:
        from .tiling import _math_helper
        return _math_helper(name)(src_shape, type_size, is_reuse_source)
    helper.__name__ = helper.__qualname__ = f"get_{name}_max_min_tmp_size"
    helper.__doc__ = f"{vendor} -> (max, min) bytes of the shared temporary buffer (Atlas A2)."
    return helper


# (asc_trace name, the vendor's host function) of each activation's temporary-buffer helper
_VENDOR = {"gelu": "GetGeluMaxMinTmpSize", "faster_gelu": "GetGeluMaxMinTmpSize",
           "sigmoid": "GetSigmoidMaxMinTmpSize", "swiglu": "GetSwiGLUMaxMinTmpSize",
           "swish": "GetSwishTmpSize", "geglu": "GetGeGLUMaxMinTmpSize", "reglu": "GetReGluMaxMinTmpSize"}
HELPERS = {f"get_{n}_max_min_tmp_size": _helper(n, v) for n, v in _VENDOR.items()}
HELPERS.update({v: HELPERS[f"get_{n}_max_min_tmp_size"] for n, v in _VENDOR.items() if n != "faster_gelu"})

__all__ = ["swish", "geglu", "reglu"]
