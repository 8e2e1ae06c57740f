"""Scalar expressions as C++: int64 integer math with Python's floor division and modulo, float32
float math (the AI core's scalar unit), deterministic names."""
from __future__ import annotations

import math
import re
from functools import lru_cache

from ..graph.expr import Bin, Const, Expr, Un, Var
from ..graph.operand_checks import Ranges, value_range
from ..graph.scalar_ops import Fn

# Every name the emitter makes up starts with this prefix, and no user name does (c_ident): no header of
# either CANN generation, nor bisheng's force-included ones, declares or defines an identifier starting
# with it (checked against the real headers by tests/test_reserved_names.py). `asc_` would not do:
# CANN 9's Ascend C kit declares `asc_*` functions and macros of its C API (asc-devkit include/c_api).
PREFIX = "asct_"
BLOCK_IDX = f"{PREFIX}block_idx"
BLOCK_NUM = f"{PREFIX}block_num"

C_KEYWORDS = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
char32_t class compl const constexpr const_cast continue decltype default delete do double dynamic_cast else enum
explicit export extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename union
unsigned using virtual void volatile wchar_t while xor xor_eq half main printf GM_ADDR AscendC""".split())

# Names a kernel's text cannot use, beyond C++'s keywords:
# - the macros bisheng's force-included headers define in every dav-c220 aicore compile (CANN 8.1.RC1
#   ccec_compiler/lib/clang/15.0.5/include: __clang_cce_aicore_builtin_vars.h defines block_idx,
#   block_num, l2_vaddr_base, l2_in_main; __clang_cce_types.h PIPE_LSU1-3 and the bisheng type-proxy
#   macros; __clang_cce_aicore_intrinsics.h CCE_TRUE / CCE_FALSE / CCE_INTRINSIC / CCE_GET_VA_INTRINSIC;
#   __clang_cce_aicore_functions.h PIPE_ID; cce_aicore_intrinsics.h CCE_AICORE_INTRINSICS_TYPES),
#   listed by preprocessing them as bisheng would for dav-c220-vec;
# - the lower-case macros the Ascend C headers (both generations) and the C library they include define
#   (`g++ -dM` of kernel_operator.h; tests/test_reserved_names.py checks the list against the headers).
BISHENG_MACROS = frozenset("""block_idx block_num l2_vaddr_base l2_in_main PIPE_LSU1 PIPE_LSU2 PIPE_LSU3 PIPE_ID
BISHENG_BUILTIN_TYPE_PROXY DEFINE_BISHENG_BUILTIN_TYPE_PROXY CCE_TRUE CCE_FALSE CCE_INTRINSIC CCE_GET_VA_INTRINSIC
CCE_AICORE_INTRINSICS_TYPES""".split())
HEADER_MACROS = frozenset("""alloca ascendc_assert assert assert_perror errno likely unlikely offsetof
math_errhandling issubnormal stderr stdin stdout va_arg va_copy va_end va_start sigmask sa_handler sa_sigaction
sched_priority strdupa strndupa be16toh be32toh be64toh htobe16 htobe32 htobe64 htole16 htole32 htole64 le16toh
le32toh le64toh""".split())
# The type names the emitted source itself writes (parameters, casts, tables): a parameter of that name would
# hide the type for the rest of the function (an adversary's `int32_t: int`).
EMITTED_TYPES = frozenset("""int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t bfloat16_t size_t
SoftMaxTiling RmsNormTiling""".split())      # the last: the vendor's global tiling structs asc.adv fills
RESERVED = C_KEYWORDS | BISHENG_MACROS | HEADER_MACROS | EMITTED_TYPES


def reserved(ident: str) -> bool:
    """Whether a (sanitised) user name must not appear as it is in the emitted source."""
    return (ident in RESERVED or ident.startswith((PREFIX, "asc_", "__")) or re.match(r"_[A-Z]", ident) is not None
            or ident.startswith(("ASCENDC", "ASC_", "CCE_", "BISHENG_")))


def c_ident(name: str) -> str:
    """A C identifier for a user name: kernel parameters and the kernel keep their names when they can;
    a name that cannot be used as it is gets the reserved prefix (so it cannot collide with any other)."""
    ident = re.sub(r"\W", "_", name)
    if not ident or ident[0].isdigit() or reserved(ident):
        ident = f"{PREFIX}p_{ident}"
    return ident


class CNames:
    """Names of the C variables: parameters by their (sanitised) names, and with the reserved prefix
    nodes asct_t<id>, loop indices asct_i<k>, values read at run time asct_v<id>, outputs of asc.cond and
    values carried by asc.while_loop asct_l<k>, the block index and count asct_block_idx / asct_block_num."""

    def __init__(self, params: dict[int, str]) -> None:
        self.params = params

    def var(self, v: Var) -> str:
        if v.kind == "param":
            return self.params[v.key]
        if v.kind == "loop":
            return f"{PREFIX}i{v.key}"
        if v.kind == "node":
            return f"{PREFIX}v{v.key}"
        if v.kind == "local":
            return f"{PREFIX}l{v.key}"
        return PREFIX + v.kind   # block_idx / block_num: locals set at the top of the kernel


def c_expr(e: Expr, names: CNames, ranges: Ranges | None = None) -> str:
    """C++ text with the semantics of graph/scalar_ops.py, through the helpers of
    toolchain/prelude/asc_trace_prelude.h wherever plain C would differ (or crash). `ranges` bounds the
    loop indices (graph/operand_checks.py), so that provably safe divisions stay plain C."""
    ranges = {} if ranges is None else ranges
    if isinstance(e, Const):
        return c_const(e.value)
    if isinstance(e, Var):
        return names.var(e)
    if isinstance(e, Un):
        a = c_expr(e.a, names, ranges)
        t = "float" if e.a.type == "float" else "int64_t"
        return {"neg": f"(-{a})", Fn.ABS: f"asct_abs<{t}>({a})", "not": f"(!{a})",
                "int": f"asct_f2i({a})", "float": f"static_cast<float>({a})"}[e.op]
    if isinstance(e, Bin):
        a, b = c_expr(e.a, names, ranges), c_expr(e.b, names, ranges)
        floaty = e.op == "/" or "float" in (e.a.type, e.b.type)
        if e.op == "/" or (floaty and e.op in ("+", "-", "*")):
            name = {"+": "asct_fadd", "-": "asct_fsub", "*": "asct_fmul", "/": "asct_fdiv"}[e.op]
            return f"{name}(static_cast<float>({a}), static_cast<float>({b}))"
        if e.op in ("//", "%"):
            if floaty:
                return f"asct_f{'floordiv' if e.op == '//' else 'mod'}({a}, {b})"
            # plain C division only where it cannot fault and agrees with floor division
            r = value_range(e.a, ranges)
            if isinstance(e.b, Const) and e.b.value > 0 and r is not None and r[0] >= 0:
                return f"({a} {'/' if e.op == '//' else '%'} {b})"
            return f"asct_{'floordiv' if e.op == '//' else 'mod'}({a}, {b})"
        if e.op == "<<" or (e.op == ">>" and not (isinstance(e.b, Const) and 0 <= e.b.value <= 63)):
            return f"asct_{'shl' if e.op == '<<' else 'shr'}({a}, {b})"
        if e.op in (Fn.MIN, Fn.MAX):
            t = "float" if floaty else "int64_t"
            return f"asct_{e.op}<{t}>({a}, {b})"
        return f"({a} {e.op} {b})"
    raise TypeError(f"not an expression: {e!r}")


def c_const(v: object) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        if v == -(1 << 63):
            return "(-9223372036854775807LL - 1)"
        return f"{v}LL" if not -(1 << 31) <= v < (1 << 31) else str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "(-NAN)" if math.copysign(1.0, v) < 0 else "NAN"
        if math.isinf(v):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        text = repr(v)
        if "e" not in text and "." not in text:
            text += ".0"
        return f"{text}f"
    raise TypeError(f"not a C constant: {v!r}")


@lru_cache(maxsize=1024)
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
