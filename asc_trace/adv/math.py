"""`asc.adv` math functions, pyasc's names and argument order (`asc.language.adv.math`):
`fn(dst, src, count=None, temp_buffer=None, is_reuse_source=False)`; `power` / `xor` with two sources,
`axpy(dst, src, scalar, ...)`, `exp(dst, src, count, taylor_expand_level, ...)`."""
from __future__ import annotations

from typing import Any, Callable

from ..errors import TraceError
from ..graph.ops.adv_math import UNARY
from ..proxies.source_loc import user_loc
from ._record import record


def _unary(name: str, c_name: str) -> Callable[..., None]:
    def fn(dst: Any, src: Any, count: Any = None, temp_buffer: Any = None, is_reuse_source: bool = False) -> None:
        record(f"adv_{name}", {"dst": dst}, {"src": src}, temp_buffer, count=count, size_of="src",
               tmp_form=name != "log")     # Log has no sharedTmpBuffer form (it is one Ln)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Ascend C `{c_name}(dst, src[, sharedTmpBuffer], calCount)`, element-wise "
                  f"(include/adv_api/math/{c_name.lower()}.h).")
    return fn


globals().update({n: _unary(n, c) for n, c, _a, _p in UNARY})


def exp(dst: Any, src: Any, count: Any = None, taylor_expand_level: int = 0, temp_buffer: Any = None,
        is_reuse_source: bool = False) -> None:
    """Ascend C `Exp<T, taylorExpandLevel>(dst, src[, sharedTmpBuffer], calCount)`; level 0 is the basic Exp."""
    if not isinstance(taylor_expand_level, int) or not 0 <= taylor_expand_level <= 255:
        raise TraceError("taylor_expand_level is a template argument: a Python int 0..255", user_loc())
    record("adv_exp", {"dst": dst}, {"src": src}, temp_buffer, count=count, level=taylor_expand_level)


def power(dst: Any, src0: Any, src1: Any, count: Any = None, temp_buffer: Any = None,
          is_reuse_source: bool = False) -> None:
    """Ascend C `Power(dst, src0, src1[, sharedTmpBuffer], calCount)`: src0 ** src1 element-wise."""
    record("adv_power", {"dst": dst}, {"src0": src0, "src1": src1}, temp_buffer, count=count, size_of="src0")


def xor(dst: Any, src0: Any, src1: Any, count: Any = None, temp_buffer: Any = None,
        is_reuse_source: bool = False) -> None:
    """Ascend C `Xor(dst, src0, src1[, sharedTmpBuffer], calCount)` on int16 / uint16."""
    record("adv_xor", {"dst": dst}, {"src0": src0, "src1": src1}, temp_buffer, count=count, size_of="src0")


def axpy(dst: Any, src: Any, scalar: Any, count: Any = None, temp_buffer: Any = None,
         is_reuse_source: bool = False) -> None:
    """Ascend C `Axpy(dst, src, scalarValue, sharedTmpBuffer, calCount)`: dst += src * scalar."""
    from ..proxies.api import vec_operand
    from ..dtypes import float16
    loc = user_loc()
    d, s = vec_operand(dst, "dst", "adv.axpy", loc), vec_operand(src, "src", "adv.axpy", loc)
    if d.dtype is not s.dtype and not (d.dtype.name == "float32" and s.dtype is float16):
        from ..errors import DTypeError
        raise DTypeError(f"asc.adv.axpy takes dst and src of one type, or a float dst with a half src; got "
                         f"{d.dtype} and {s.dtype}", loc)
    record("adv_axpy", {"dst": dst}, {"dst_in": dst, "src": src}, temp_buffer, {"scalar": scalar}, count,
           tmp_required=True, src_dtype=s.dtype if s.dtype is not d.dtype else None)


__all__ = sorted([n for n, _c, _a, _p in UNARY] + [f.__name__ for f in (exp, power, xor, axpy)])
