"""Scalar expressions as C++: int64 integer math with Python's floor division and modulo, float32
float math (the AI core's scalar unit), deterministic names."""
from __future__ import annotations

import math
import re

from ..graph.expr import Bin, Const, Expr, Un, Var

C_KEYWORDS = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
char32_t class compl const constexpr const_cast continue decltype default delete do double dynamic_cast else enum
explicit export extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename union
unsigned using virtual void volatile wchar_t while xor xor_eq half main printf GM_ADDR AscendC block_idx
block_num""".split())


def c_ident(name: str) -> str:
    """A C identifier for a user name (kernel parameters keep their names when they can)."""
    ident = re.sub(r"\W", "_", name)
    if not ident or ident[0].isdigit() or ident in C_KEYWORDS or ident.startswith("asc_") or \
            re.fullmatch(r"[tvi]\d+", ident):
        ident = f"p_{ident}"
    return ident


class CNames:
    """Names of the C variables: parameters by their (sanitised) names, nodes t<id>, loop indices i<k>."""

    def __init__(self, params: dict[int, str]) -> None:
        self.params = params

    def var(self, v: Var) -> str:
        if v.kind == "param":
            return self.params[v.key]
        if v.kind == "loop":
            return f"i{v.key}"
        if v.kind == "node":
            return f"v{v.key}"
        return v.kind   # block_idx / block_num: locals set at the top of the kernel


_CMP = {"<", "<=", ">", ">=", "==", "!="}


def known_nonneg(e: Expr, nonneg_vars: frozenset[str]) -> bool:
    """True when `e` is provably >= 0 without assumptions (constants, block index, counted-up loops)."""
    if isinstance(e, Const):
        return isinstance(e.value, (int, float)) and e.value >= 0
    if isinstance(e, Var):
        return e.kind in ("block_idx", "block_num") or e.env_key in nonneg_vars
    if isinstance(e, Bin) and e.op in ("+", "*", "//", "%", "min", "max"):
        return known_nonneg(e.a, nonneg_vars) and known_nonneg(e.b, nonneg_vars)
    return False


def c_expr(e: Expr, names: CNames, nonneg: frozenset[str] = frozenset()) -> str:
    if isinstance(e, Const):
        return c_const(e.value)
    if isinstance(e, Var):
        return names.var(e)
    if isinstance(e, Un):
        a = c_expr(e.a, names, nonneg)
        t = "float" if e.a.type == "float" else "int64_t"
        return {"neg": f"(-{a})", "abs": f"asc_abs<{t}>({a})", "not": f"(!{a})",
                "int": f"static_cast<int64_t>({a})", "float": f"static_cast<float>({a})"}[e.op]
    if isinstance(e, Bin):
        a, b = c_expr(e.a, names, nonneg), c_expr(e.b, names, nonneg)
        floaty = e.op == "/" or "float" in (e.a.type, e.b.type)
        if e.op == "/":
            return f"(static_cast<float>({a}) / static_cast<float>({b}))"
        if e.op in ("//", "%"):
            if floaty:
                return f"asc_f{'floordiv' if e.op == '//' else 'mod'}({a}, {b})"
            if known_nonneg(e.a, nonneg) and known_nonneg(e.b, nonneg):
                return f"({a} {'/' if e.op == '//' else '%'} {b})"
            return f"asc_{'floordiv' if e.op == '//' else 'mod'}({a}, {b})"
        if e.op in ("min", "max"):
            t = "float" if floaty else "int64_t"
            return f"asc_{e.op}<{t}>({a}, {b})"
        if floaty and e.op in ("+", "-", "*"):
            return f"(static_cast<float>({a}) {e.op} static_cast<float>({b}))"
        return f"({a} {e.op} {b})"
    raise TypeError(f"not an expression: {e!r}")


def c_const(v: object) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return f"{v}LL" if not -(1 << 31) <= v < (1 << 31) else str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NAN"
        if math.isinf(v):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        text = repr(v)
        if "e" not in text and "." not in text:
            text += ".0"
        return f"{text}f"
    raise TypeError(f"not a C constant: {v!r}")


def c_string(s: str) -> str:
    """A C string literal: newlines and quotes escaped (pyasc pastes Python strings in raw)."""
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 32 or ord(ch) > 126:
            out.append("".join(f"\\{b:03o}" for b in ch.encode()))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
