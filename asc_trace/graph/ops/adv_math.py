"""The high-level math functions pyasc exposes as `asc.adv.<name>` (Ascend C `include/adv_api/math`):
`Name(dst, src[, sharedTmpBuffer], calCount)`, Power / Xor with two sources, Axpy with a scalar.

Semantics. Where the vendor's A2 implementation is a short sequence of basic vector instructions
(`impl/adv_api/detail/math/<fn>/<fn>_common_impl.h`), the algorithm below is that sequence, step for step,
in the vendor's intermediate type (half is cast to float first): Tanh, Sinh, Cosh, Atanh, Log, Exp with
taylorExpandLevel 0. The others (polynomial and range-reduction kernels) are computed as the vendor's
dataflow does at its ends, half widened to float, the function evaluated once and rounded to float, then
narrowed, and their tolerance against a float64 reference is what the tests hold them to
(`fidelity="reference"`, listed in docs/adv.md).

Temporary-buffer sizes are the vendor's host helpers (`impl/adv_api/tiling/math/<fn>_tiling*.cpp`): most
are `proc x max(n x sizeof(T), 256)` at most and `proc x 256` at least, proc per type.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...dtypes import float16, float32
from ..expr import Const
from .opdef import FLOATS
from .adv_common import ONE_REPEAT, AdvSpec, Steps, adv_record, register_adv
from .adv_math_decl import DECLARED, header_of

# Tolerances against float64 NumPy, per element type: half results are within a few half ulps (their
# float intermediate is far finer); float results of the vendor's steps within a few float ulps of
# the relative error the step chain accumulates.
TOL_STEPS = {"float16": (4e-3, 1e-3), "float32": (2e-5, 1e-6)}
TOL_REF = {"float16": (2e-3, 1e-3), "float32": (1e-6, 1e-7)}
TOL_EXACT = {"float16": (0.0, 0.0), "float32": (0.0, 0.0)}


def _wide(st: Steps, x: np.ndarray) -> np.ndarray:
    return st.cast(x, float32) if x.dtype == np.float16 else x


def _narrow(st: Steps, x: np.ndarray, like: np.ndarray) -> np.ndarray:
    return st.cast(x, float16, "none") if like.dtype == np.float16 else x


def _tanh(st: Steps, x: np.ndarray) -> np.ndarray:
    """TanhFormulaImpl: clip to [-8.8, 8.8], e = exp(2x), (e - 1) / (e + 1), in float."""
    w = _wide(st, x)
    c = st.scalar("maxs", st.scalar("mins", w, 8.8), -8.8)
    e = st.unary("exp", st.scalar("muls", c, 2.0))
    y = st.binary("div", st.scalar("adds", e, -1.0), st.scalar("adds", e, 1.0))
    return _narrow(st, y, x)


NEG_LN2 = -0.69314718055994530941723212145818


def _sinh(st: Steps, x: np.ndarray) -> np.ndarray:
    """SinhCompute: exp(x - ln2) - exp(-x - ln2)."""
    w = _wide(st, x)
    a = st.unary("exp", st.scalar("adds", w, NEG_LN2))
    b = st.unary("exp", st.scalar("adds", st.scalar("muls", w, -1.0), NEG_LN2))
    return _narrow(st, st.binary("sub", a, b), x)


def _cosh(st: Steps, x: np.ndarray) -> np.ndarray:
    """CoshCompute: e = exp(x - ln2); e + 0.25 / e."""
    w = _wide(st, x)
    e = st.unary("exp", st.scalar("adds", w, NEG_LN2))
    quarter = np.full_like(e, 0.25)
    st._note("duplicate", e)
    return _narrow(st, st.binary("add", e, st.binary("div", quarter, e)), x)


def _atanh(st: Steps, x: np.ndarray) -> np.ndarray:
    """AtanhCompute: 0.5 * ln((1 + x) / (1 - x))."""
    w = _wide(st, x)
    num = st.scalar("adds", w, 1.0)
    den = st.scalar("adds", st.scalar("muls", w, -1.0), 1.0)
    return _narrow(st, st.scalar("muls", st.unary("ln", st.binary("div", num, den)), 0.5), x)


def _log(st: Steps, x: np.ndarray) -> np.ndarray:
    """LogImpl: one Ln in T."""
    return st.unary("ln", x)


def _ref(fn, calls: int):
    """A vendor kernel not reproduced step by step: half widened to float, fn once in float64 rounded to
    float, narrowed to nearest even. Its cost (assumed): `calls` simple-rate float instructions, `calls`
    being the vector API calls in the vendor's `<fn>_common_impl.h` / `_v220_impl.h` (a static count of
    call sites, both type paths: an upper estimate)."""
    def algo(st: Steps, x: np.ndarray) -> np.ndarray:
        w = _wide(st, x)
        with np.errstate(all="ignore"):
            y = fn(w.astype(np.float64)).astype(np.float32)
        for _ in range(calls):
            st._note("muls", w)
        return _narrow(st, y, x)
    return algo


def _vec(f):
    return np.vectorize(f, otypes=[np.float64])


def _lgamma(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:
        return math.inf


def _digamma(v: float) -> float:
    """psi(v) by recurrence up to 6 and the asymptotic series (float64; the reference only)."""
    if v <= 0 and v == math.floor(v):
        return math.nan
    if v < 0:
        return _digamma(1 - v) - math.pi / math.tan(math.pi * v)
    acc = 0.0
    while v < 6:
        acc -= 1 / v
        v += 1
    f = 1 / (v * v)
    return acc + math.log(v) - 0.5 / v - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))


def _exp_algo(st: Steps, x: np.ndarray, level: int) -> np.ndarray:
    if level == 0:             # ExpImpl: taylorExpandLevel 0 is the basic Exp
        return st.unary("exp", x)
    return _ref(np.exp, 12)(st, x)      # ExpImpl's Taylor path: ~12 vector calls (exp_common_impl.h)


# name, C name, algorithm, fidelity, (half proc, float proc) of the tmp helpers, min-size form
UNARY = [
    ("acos", "Acos", _ref(np.arccos, 61), (6, 2)),
    ("acosh", "Acosh", _ref(np.arccosh, 16), (2, 1)),
    ("asin", "Asin", _ref(np.arcsin, 58), (6, 2)),
    ("asinh", "Asinh", _ref(np.arcsinh, 21), (3, 3)),
    ("atan", "Atan", _ref(np.arctan, 33), (12, 5)),
    ("atanh", "Atanh", _atanh, (4, 1)),
    ("ceil", "Ceil", _ref(np.ceil, 3), (2, 1)),
    ("cos", "Cos", _ref(np.cos, 35), (8, 3)),
    ("cosh", "Cosh", _cosh, (6, 2)),
    ("digamma", "Digamma", _ref(_vec(_digamma), 83), (16, 7)),
    ("erf", "Erf", _ref(_vec(math.erf), 27), (8, 3)),
    ("erfc", "Erfc", _ref(_vec(math.erfc), 42), (16, 7)),
    ("floor", "Floor", _ref(np.floor, 5), (2, 0)),
    ("frac", "Frac", _ref(lambda v: v - np.trunc(v), 5), (4, 0)),
    ("lgamma", "Lgamma", _ref(_vec(_lgamma), 71), (26, 8)),
    ("log", "Log", _log, (0, 0)),
    ("round", "Round", _ref(np.rint, 7), (1, 1)),
    ("sign", "Sign", _ref(np.sign, 8), (3, 3)),
    ("sin", "Sin", _ref(np.sin, 28), (8, 3)),
    ("sinh", "Sinh", _sinh, (4, 1)),
    ("tan", "Tan", _ref(np.tan, 35), (10, 4)),
    ("tanh", "Tanh", _tanh, (4, 1)),
    ("trunc", "Trunc", _ref(np.trunc, 3), (2, 1)),
]
STEPS = {"tanh", "sinh", "cosh", "atanh", "log"}
EXACT = {"ceil", "floor", "round", "sign", "trunc", "frac"}     # exact in float: half rounds once at the end


def _procs(procs: tuple[int, int]):
    def proc(node) -> int:
        return procs[1] if node.attr("dtype").itemsize == 4 else procs[0]

    def min_tmp(node, n) -> int:
        return proc(node) * ONE_REPEAT

    def max_tmp(node, n) -> int:
        return proc(node) * max(int(n or 0) * node.attr("dtype").itemsize, ONE_REPEAT)
    return min_tmp, max_tmp


def _unary_spec(algo, procs) -> AdvSpec:
    lo, hi = _procs(procs)
    return AdvSpec(("dst",), ("src",), lambda st, ins, sc, node: {"dst": algo(st, ins["src"])}, lo, hi)


def _tol(name: str) -> dict:
    return TOL_EXACT if name in EXACT else TOL_STEPS if name in STEPS else TOL_REF


def _emit_unary(c: str) -> str:
    return f"AscendC::{c}({{dst}}, {{src}}, {{tmp_arg}}{{count}});"


def _exp_spec() -> AdvSpec:
    def lo(node, n) -> int:   # GetExpMinTmpSize: 4 float repeats for half, 3 for float (2 reusing the source)
        return (4 if node.attr("dtype").itemsize == 2 else 3) * ONE_REPEAT

    def hi(node, n) -> int:
        return (4 if node.attr("dtype").itemsize == 2 else 3) * max(int(n or 0) * 4, ONE_REPEAT)
    return AdvSpec(("dst",), ("src",), lambda st, ins, sc, node: {"dst": _exp_algo(st, ins["src"],
                                                                                   node.attr("level") or 0)}, lo, hi)


def _power_algo(st: Steps, ins, sc, node) -> dict:
    a, b = ins["src0"], ins["src1"]
    if a.dtype.kind == "i":
        with np.errstate(all="ignore"):
            out = np.where(b < 0, 0, np.power(a.astype(np.int64), np.maximum(b, 0)))
        st._note("muls", a)
        return {"dst": out.astype(np.int64).astype(np.int32)}
    w0, w1 = _wide(st, a), _wide(st, b)
    with np.errstate(all="ignore"):
        y = np.power(w0.astype(np.float64), w1.astype(np.float64)).astype(np.float32)
    for _ in range(27):     # assumed: the 27 vector calls of power_common_impl.h (see _ref)
        st._note("muls", w0)
    return {"dst": _narrow(st, y, a)}


def _xor_algo(st: Steps, ins, sc, node) -> dict:
    for _ in range(4):      # assumed: (a | b) & ~(a & b): Or, And, Not, And
        st._note("muls", ins["src0"])
    return {"dst": np.bitwise_xor(ins["src0"], ins["src1"])}


def _axpy_algo(st: Steps, ins, sc, node) -> dict:
    """AxpyImpl: dst = dst + src * scalar, in float for half (dst float with src half: the mixed form)."""
    d, s = ins["dst_in"], ins["src"]
    w_s, w_d = _wide(st, s), _wide(st, d)
    prod = st.scalar("muls", w_s, np.float32(sc["scalar"]))
    return {"dst": _narrow(st, st.binary("add", w_d, prod), d)}


def _src_dt(node):
    return node.attr("src_dtype") or node.attr("dtype")


def _axpy_proc(node) -> int:
    """GetAxpyMaxMinTmpSize: 1 float buffer for float, 4 half-sized for half (axpy_tiling_impl.cpp)."""
    return 1 if _src_dt(node).itemsize == 4 else 4


def _power_tmp(node, n):
    proc = {"float16": 14, "float32": 4, "int32": 6}[node.attr("dtype").name]
    return proc * ONE_REPEAT, proc * max(int(n or 0) * node.attr("dtype").itemsize, ONE_REPEAT)


def _dst_extent(node, name):
    from .adv_common import operands
    return operands(node)[3]


# Trunc and Round check only that the temporary buffer is not dst or src: they may run in place
IN_PLACE = frozenset({"trunc", "round"})
_records = [adv_record(f"adv_{n}", c, replace(_unary_spec(a, p), distinct=() if n in IN_PLACE else None),
                       _emit_unary(c), FLOATS, DECLARED[c], _tol(n), header=header_of(c)) for n, c, a, p in UNARY]
_records.append(adv_record("adv_exp", "Exp", _exp_spec(), "AscendC::Exp<{T}, {level}>({dst}, {src}, {tmp_arg}{count});",
                           FLOATS, DECLARED["Exp"], TOL_STEPS, header=header_of("Exp")))
_records.append(adv_record(
    "adv_power", "Power",
    AdvSpec(("dst",), ("src0", "src1"), _power_algo, lambda nd, n: _power_tmp(nd, n)[0],
            lambda nd, n: _power_tmp(nd, n)[1]),
    "AscendC::Power({dst}, {src0}, {src1}, {tmp_arg}{count});", frozenset({"float16", "float32", "int32"}),
    DECLARED["Power"], {**TOL_REF, "int32": (0.0, 0.0)}, header=header_of("Power")))
_records.append(adv_record(
    "adv_xor", "Xor",
    AdvSpec(("dst",), ("src0", "src1"), _xor_algo, lambda nd, n: ONE_REPEAT,
            lambda nd, n: max(int(n or 0) * nd.attr("dtype").itemsize, ONE_REPEAT)),
    "AscendC::Xor({dst}, {src0}, {src1}, {tmp_arg}{count});", frozenset({"int16", "uint16"}),
    DECLARED["Xor"], {}, header=header_of("Xor")))
_records.append(adv_record(
    "adv_axpy", "Axpy",
    AdvSpec(("dst",), ("dst_in", "src"), _axpy_algo,
            lambda nd, n: _axpy_proc(nd) * ONE_REPEAT,
            lambda nd, n: _axpy_proc(nd) * max(int(n or 0) * _src_dt(nd).itemsize, ONE_REPEAT), scalars=("scalar",),
            distinct=(("dst", "src"),)),     # dst_in is dst itself
    "AscendC::Axpy({dst}, {src}, {scalar}, {tmp_arg}{count});", FLOATS, DECLARED["Axpy"], TOL_STEPS,
    header=header_of("Axpy")))
register_adv(*_records)

# for tests and docs: which calls follow the vendor's instruction sequence
STEP_FAITHFUL = frozenset({f"adv_{n}" for n in STEPS} | {"adv_exp"})
__all__ = ["UNARY", "STEP_FAITHFUL", "Const"]
