"""`asc.adv`: the high-level API (Ascend C `include/adv_api`) under pyasc's names, emitted as the vendor's
own calls; docs/adv.md."""
from __future__ import annotations

from .math import (acos, acosh, asin, asinh, atan, atanh, axpy, ceil, cos, cosh, digamma, erf, erfc, exp, floor,
                   frac, lgamma, log, power, round, sign, sin, sinh, tan, tanh, trunc, xor)  # noqa: A004

from . import math as _math

__all__ = list(_math.__all__)
