"""Where each math call the emitter uses is declared: key (lower/api_symbols.py) -> (asc-devkit path:line,
CANN 8.1.RC1 path:line under compiler/tikcpp/tikcfw). Found by reading both header trees (the first
overload of that arity; the header check resolves the call). Facts only, no header text."""
from __future__ import annotations

DECLARED: dict[str, dict[str, tuple[str, str]]] = {
    "Acos": {
        "Acos/4": ("include/adv_api/math/acos.h:62", "lib/math/acos.h:47"),
        "Acos/3": ("include/adv_api/math/acos.h:84", "lib/math/acos.h:65"),
    },
    "Acosh": {
        "Acosh/4": ("include/adv_api/math/acosh.h:112", "lib/math/acosh.h:86"),
        "Acosh/3": ("include/adv_api/math/acosh.h:73", "lib/math/acosh.h:53"),
    },
    "Asin": {
        "Asin/4": ("include/adv_api/math/asin.h:61", "lib/math/asin.h:46"),
        "Asin/3": ("include/adv_api/math/asin.h:99", "lib/math/asin.h:80"),
    },
    "Asinh": {
        "Asinh/4": ("include/adv_api/math/asinh.h:52", "lib/math/asinh.h:36"),
        "Asinh/3": ("include/adv_api/math/asinh.h:84", "lib/math/asinh.h:64"),
    },
    "Atan": {
        "Atan/4": ("include/adv_api/math/atan.h:90", "lib/math/atan.h:70"),
        "Atan/3": ("include/adv_api/math/atan.h:125", "lib/math/atan.h:104"),
    },
    "Atanh": {
        "Atanh/4": ("include/adv_api/math/atanh.h:56", "lib/math/atanh.h:38"),
        "Atanh/3": ("include/adv_api/math/atanh.h:109", "lib/math/atanh.h:90"),
    },
    "Ceil": {
        "Ceil/4": ("include/adv_api/math/ceil.h:52", "lib/math/ceil.h:40"),
        "Ceil/3": ("include/adv_api/math/ceil.h:76", "lib/math/ceil.h:60"),
    },
    "Cos": {
        "Cos/4": ("include/adv_api/math/cos.h:107", "lib/math/cos.h:86"),
        "Cos/3": ("include/adv_api/math/cos.h:142", "lib/math/cos.h:120"),
    },
    "Cosh": {
        "Cosh/4": ("include/adv_api/math/cosh.h:83", "lib/math/cosh.h:65"),
        "Cosh/3": ("include/adv_api/math/cosh.h:121", "lib/math/cosh.h:99"),
    },
    "Digamma": {
        "Digamma/4": ("include/adv_api/math/digamma.h:51", "lib/math/digamma.h:38"),
        "Digamma/3": ("include/adv_api/math/digamma.h:76", "lib/math/digamma.h:58"),
    },
    "Erf": {
        "Erf/4": ("include/adv_api/math/erf.h:70", "lib/math/erf.h:47"),
        "Erf/3": ("include/adv_api/math/erf.h:111", "lib/math/erf.h:85"),
    },
    "Erfc": {
        "Erfc/4": ("include/adv_api/math/erfc.h:81", "lib/math/erfc.h:61"),
        "Erfc/3": ("include/adv_api/math/erfc.h:117", "lib/math/erfc.h:93"),
    },
    "Floor": {
        "Floor/4": ("include/adv_api/math/floor.h:47", "lib/math/floor.h:40"),
        "Floor/3": ("include/adv_api/math/floor.h:76", "lib/math/floor.h:62"),
    },
    "Frac": {
        "Frac/4": ("include/adv_api/math/frac.h:58", "lib/math/frac.h:40"),
        "Frac/3": ("include/adv_api/math/frac.h:118", "lib/math/frac.h:96"),
    },
    "Lgamma": {
        "Lgamma/4": ("include/adv_api/math/lgamma.h:47", "lib/math/lgamma.h:33"),
        "Lgamma/3": ("include/adv_api/math/lgamma.h:71", "lib/math/lgamma.h:52"),
    },
    "Log": {
        "Log/3": ("include/adv_api/math/log.h:41", "lib/math/log.h:33"),
    },
    "Round": {
        "Round/4": ("include/adv_api/math/round.h:49", "lib/math/round.h:35"),
        "Round/3": ("include/adv_api/math/round.h:71", "lib/math/round.h:53"),
    },
    "Sign": {
        "Sign/4": ("include/adv_api/math/sign.h:53", "lib/math/sign.h:38"),
        "Sign/3": ("include/adv_api/math/sign.h:91", "lib/math/sign.h:70"),
    },
    "Sin": {
        "Sin/4": ("include/adv_api/math/sin.h:81", "lib/math/sin.h:60"),
        "Sin/3": ("include/adv_api/math/sin.h:122", "lib/math/sin.h:100"),
    },
    "Sinh": {
        "Sinh/4": ("include/adv_api/math/sinh.h:60", "lib/math/sinh.h:42"),
        "Sinh/3": ("include/adv_api/math/sinh.h:104", "lib/math/sinh.h:82"),
    },
    "Tan": {
        "Tan/4": ("include/adv_api/math/tan.h:110", "lib/math/tan.h:93"),
        "Tan/3": ("include/adv_api/math/tan.h:133", "lib/math/tan.h:112"),
    },
    "Tanh": {
        "Tanh/4": ("include/adv_api/math/tanh.h:85", "lib/math/tanh.h:65"),
        "Tanh/3": ("include/adv_api/math/tanh.h:120", "lib/math/tanh.h:99"),
    },
    "Trunc": {
        "Trunc/4": ("include/adv_api/math/trunc.h:59", "lib/math/trunc.h:40"),
        "Trunc/3": ("include/adv_api/math/trunc.h:81", "lib/math/trunc.h:57"),
    },
    "Power": {
        "Power/5": ("include/adv_api/math/power.h:63", "lib/math/power.h:41"),
        "Power/4": ("include/adv_api/math/power.h:82", "lib/math/power.h:58"),
    },
    "Xor": {
        "Xor/5": ("include/adv_api/math/xor.h:50", "lib/math/xor.h:41"),
        "Xor/4": ("include/adv_api/math/xor.h:105", "lib/math/xor.h:85"),
    },
    "Axpy": {
        "Axpy/5": ("include/adv_api/math/axpy.h:55", "lib/math/axpy.h:40"),
    },
    "Exp": {
        "Exp<>/4": ("include/adv_api/math/exp.h:91", "lib/math/exp.h:70"),
        "Exp<>/3": ("include/adv_api/math/exp.h:57", "lib/math/exp.h:40"),
    },
}



def header_of(c_name: str) -> str:
    """The header that declares a math call, relative to the API's include root ("math/tanh.h")."""
    return f"math/{c_name.lower()}.h"

