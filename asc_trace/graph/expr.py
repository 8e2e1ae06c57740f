"""Symbolic scalar expressions: runtime kernel arguments, the block index, loop indices and the
values that nodes read at run time (e.g. `get_value`), combined with Python arithmetic.

Expressions are immutable and structurally comparable, so graphs can be hashed and compared.
They evaluate on Python numbers and, element-wise, on NumPy arrays (one value per core).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from . import scalar_ops as S

Number = int | float


class Expr:
    """Base of scalar expressions."""

    __slots__ = ()
    type: str  # "int", "float" or "bool"

    def __str__(self) -> str:
        return to_str(self)


def _cached_hash(self: "Expr", key: tuple) -> int:
    h = self._h
    if not h:
        h = hash(key) or 1
        object.__setattr__(self, "_h", h)
    return h


@dataclass(frozen=True, slots=True, eq=False)
class Const(Expr):
    """A constant. Equal constants have equal bits: -0.0 is not 0.0 (a memo keyed by constants must not
    hand one the other's code), NaN equals NaN, and 1 is not 1.0."""

    value: Number
    _h: int = field(default=0, init=False, repr=False, compare=False)

    def key(self) -> tuple:
        v = self.value
        return (v.__class__, v.hex() if isinstance(v, float) else v)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Const:
            return False
        a, b = self.value, other.value  # type: ignore[union-attr]
        if a.__class__ is not b.__class__:
            return False
        if a.__class__ is float and (a == 0.0 or a != a):     # the sign of a zero, NaN == NaN
            return a.hex() == b.hex()
        return a == b

    def __hash__(self) -> int:
        return self._h or _cached_hash(self, ("c", *self.key()))

    @property
    def type(self) -> str:  # type: ignore[override]
        if isinstance(self.value, bool):
            return "bool"
        return "int" if isinstance(self.value, int) else "float"


@dataclass(frozen=True, slots=True)
class Var(Expr):
    """A leaf known only at run time.

    kind: "param" (kernel argument), "block_idx", "block_num", "loop" (loop index), "node" (a value a
    node reads at run time), "local" (an output of asc.cond or a value carried by asc.while_loop,
    assigned by its region's `yield`). `key` is unique per kind; `name` is what dumps and C code show.
    """

    kind: str
    key: int
    name: str
    vtype: str = "int"
    _h: int = field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return self._h or _cached_hash(self, ("v", self.kind, self.key, self.name, self.vtype))

    def __eq__(self, other: object) -> bool:
        # (the dataclass's own compares two new tuples: this runs for every leaf of every Bin compared)
        if self is other:
            return True
        if other.__class__ is not Var:
            return False
        return (self.key == other.key and self.kind == other.kind  # type: ignore[union-attr]
                and self.name == other.name and self.vtype == other.vtype)  # type: ignore[union-attr]

    @property
    def type(self) -> str:  # type: ignore[override]
        return self.vtype

    @property
    def env_key(self) -> str:
        return _env_key(self.kind, self.key)


def _env_key(kind: str, key: int) -> str:
    return {"param": "p", "block_idx": "blk", "block_num": "nblk", "loop": "i", "node": "v", "local": "l"}[kind] + (
        "" if kind in ("block_idx", "block_num") else str(key))


@dataclass(frozen=True, slots=True)
class Bin(Expr):
    op: str
    a: Expr
    b: Expr
    _h: int = field(default=0, init=False, repr=False, compare=False)
    _t: str = field(default="", init=False, repr=False, compare=False)
    _fv: frozenset | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return self._h or _cached_hash(self, ("b", self.op, self.a, self.b))

    def __eq__(self, other: object) -> bool:
        # the memos of the scheduler and the proof compare many equal-looking index expressions: two
        # hashes already computed and different settle it without walking both trees
        if self is other:
            return True
        if other.__class__ is not Bin:
            return False
        h, k = self._h, other._h  # type: ignore[union-attr]
        if h and k and h != k:
            return False
        return self.op == other.op and self.a == other.a and self.b == other.b  # type: ignore[union-attr]

    @property
    def type(self) -> str:  # type: ignore[override]
        # cached: the type of a deep index expression recurses through all of it, and the proof and
        # linearize ask it again for every subexpression
        t = self._t
        if not t:
            t = self._type()
            object.__setattr__(self, "_t", t)
        return t

    def _type(self) -> str:
        if self.op in _CMP:
            return "bool"
        if self.op == "/":
            return "float"
        if self.op in ("&", "|", "^", "<<", ">>"):
            return "int" if "int" in (self.a.type, self.b.type) else self.a.type
        return "float" if "float" in (self.a.type, self.b.type) else "int"


@dataclass(frozen=True, slots=True)
class Un(Expr):
    op: str   # "neg", "not", "abs", "int", "float"
    a: Expr
    _h: int = field(default=0, init=False, repr=False, compare=False)
    _fv: frozenset | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return self._h or _cached_hash(self, ("u", self.op, self.a))

    @property
    def type(self) -> str:  # type: ignore[override]
        if self.op == "not":
            return "bool"
        if self.op == "int":
            return "int"
        if self.op == "float":
            return "float"
        return self.a.type


BLOCK_IDX = Var("block_idx", 0, "block_idx")
BLOCK_NUM = Var("block_num", 0, "block_num")

_CMP = {"<", "<=", ">", ">=", "==", "!="}
_INT_OPS = S.INT_OPS
_F32_OPS = S.F32_OPS
_UN_OPS = S.UN_OPS


def const(v: Number) -> Const:
    if isinstance(v, (bool, np.bool_)):
        return Const(int(v))
    if isinstance(v, (np.integer,)):
        return Const(S.wrap(int(v)))
    if isinstance(v, (np.floating,)):
        return Const(float(v))
    return Const(S.wrap(v) if isinstance(v, int) else v)


def binop(op: str, a: Expr, b: Expr) -> Expr:
    """Build `a op b`, folding constants and the identities that keep dumps short."""
    if isinstance(a, Const) and isinstance(b, Const):
        folded = Bin(op, a, b)
        try:
            return const((_F32_OPS if _is_float_op(folded) else _INT_OPS)[op](a.value, b.value))
        except S.ScalarFault:
            return folded   # keep it symbolic: running it reports the fault at the user's line
    if isinstance(b, Const):
        if op in ("+", "-") and b.value == 0 and b.type == "int":
            return a
        if op in ("*", "//") and b.value == 1 and b.type == "int":
            return a
        if op == "*" and b.value == 0 and b.type == "int" and a.type == "int":
            return Const(0)
        # (x // c1) // c2 -> x // (c1 * c2) and (x * c1) * c2 -> x * (c1 * c2), for positive ints
        if (op in ("//", "*") and isinstance(a, Bin) and a.op == op and isinstance(a.b, Const)
                and a.type == "int" and b.type == "int" and a.b.value > 0 and b.value > 0):
            c = a.b.value * b.value
            if S.fits_int64(c) or op == "*":        # (x * c1) * c2 is x * (c1 * c2) modulo 2**64 too
                return binop(op, a.a, Const(S.wrap(c)))
        # (x + c1) + c2 -> x + (c1 + c2): keeps loop-shifted indices readable
        if op in ("+", "-") and isinstance(a, Bin) and a.op == "+" and isinstance(a.b, Const) and a.type == "int":
            c = S.wrap(a.b.value + b.value if op == "+" else a.b.value - b.value)
            return binop("+", a.a, Const(c)) if c >= 0 else binop("-", a.a, Const(S.wrap(-c)))
    if op == "+" and a == b and a.type == "int":
        return binop("*", a, Const(2))
    if (op == "+" and isinstance(a, Bin) and isinstance(b, Bin) and a.op == b.op == "*" and a.a == b.a
            and isinstance(a.b, Const) and isinstance(b.b, Const) and a.type == b.type == "int"):
        return binop("*", a.a, Const(S.wrap(a.b.value + b.b.value)))
    if isinstance(a, Const):
        if op == "+" and a.value == 0 and a.type == "int":
            return b
        if op == "*" and a.value == 1 and a.type == "int":
            return b
        if op == "*" and a.value == 0 and a.type == "int" and b.type == "int":
            return Const(0)
    return Bin(op, a, b)


def unop(op: str, a: Expr) -> Expr:
    if isinstance(a, Const):
        return const(_UN_OPS[op](a.value))   # neg / abs / not / int / float never fault
    if op == "neg" and isinstance(a, Un) and a.op == "neg":
        return a.a
    return Un(op, a)


def free_vars(e: Expr) -> set[Var]:
    """The variables of `e` (a new set, the caller's to change)."""
    return set(_free(e))


_NO_VARS: frozenset = frozenset()


def _free(e: Expr) -> frozenset:
    """The variables of `e`, kept on each Bin / Un: a dozen passes ask for the same expressions' variables
    (producers, verification, loop analysis, lowering), and each walked the whole tree again."""
    c = e.__class__
    if c is Var:
        return frozenset((e,))
    if c is Bin or c is Un:
        f = e._fv
        if f is None:
            f = _free(e.a) | _free(e.b) if c is Bin else _free(e.a)
            object.__setattr__(e, "_fv", f)
        return f
    return _NO_VARS


def vars_of(e: Expr) -> frozenset:
    """The variables of `e` as the frozenset kept on it (shared: for membership tests, no copy made)."""
    return _free(e)


def depends_on(e: Expr, kinds: set[str] | frozenset[str]) -> bool:
    return any(v.kind in kinds for v in free_vars(e))


def substitute(e: Expr, mapping: dict[Var, Expr]) -> Expr:
    """Replace variables (e.g. a loop index `i` by `i + 1`) and re-simplify what changed. A subtree none of
    whose variables is mapped is returned as it is (the same object): the memos keyed by expressions then
    recognise it by identity, and the proof evaluates many offsets whose size parts hold no loop index."""
    c = e.__class__
    if c is Var:
        return mapping.get(e, e)
    if c is Bin:
        if _free(e).isdisjoint(mapping):
            return e
        return binop(e.op, substitute(e.a, mapping), substitute(e.b, mapping))
    if c is Un:
        if _free(e).isdisjoint(mapping):
            return e
        return unop(e.op, substitute(e.a, mapping))
    return e


def _is_float_op(e: Bin) -> bool:
    return e.op in _F32_OPS and (e.op == "/" or "float" in (e.a.type, e.b.type))


@lru_cache(maxsize=4096)
def compile_expr(e: Expr) -> Callable[[dict[str, Any]], Any]:
    """Compile to a Python function of the environment dict, with the kernel's scalar semantics
    (graph/scalar_ops.py); memoised per expression (constants compare by their bits)."""
    if isinstance(e, Const):
        v = e.value
        return lambda env: v
    if isinstance(e, Var):
        k = e.env_key
        return lambda env: env[k]
    consts: list[Any] = []
    src = _py_src(e, consts)
    return eval(f"lambda env: {src}", {"_i": _INT_OPS, "_f": _F32_OPS, "_u": _UN_OPS, "_w": S.wrap,  # noqa: S307
                                       "_k": consts})


_INLINE = {"&", "|", "^", "<", "<=", ">", ">=", "==", "!="}   # int ops that cannot overflow or fault


def _py_src(e: Expr, consts: list[Any]) -> str:
    if isinstance(e, Const):
        consts.append(e.value)
        return f"_k[{len(consts) - 1}]"
    if isinstance(e, Var):
        return f"env[{e.env_key!r}]"
    if isinstance(e, Bin):
        a, b = _py_src(e.a, consts), _py_src(e.b, consts)
        if _is_float_op(e):
            return f"_f[{e.op!r}]({a}, {b})"
        if e.op in _INLINE or (e.op in ("//", "%") and isinstance(e.b, Const) and e.b.value not in (0, -1)):
            return f"({a} {e.op} {b})"      # cannot overflow or fault (Python's // and % are the semantics)
        if e.op in ("+", "-", "*"):
            return f"_w({a} {e.op} {b})"
        return f"_i[{e.op!r}]({a}, {b})"
    if isinstance(e, Un):
        return f"_u[{e.op!r}]({_py_src(e.a, consts)})"
    raise TypeError(f"not an expression: {e!r}")


_PREC = {"|": 1, "^": 2, "&": 3, "<": 0, "<=": 0, ">": 0, ">=": 0, "==": 0, "!=": 0,
         "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "//": 6, "%": 6, "/": 6}


def to_str(e: Expr, parent_prec: int = -1, right: bool = False, parent_op: str = "") -> str:
    """Python-like infix text; mixed operators of equal precedence get parentheses for the reader."""
    if isinstance(e, Const):
        return repr(e.value)
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Un):
        if e.op == "neg":
            return f"-{to_str(e.a, 7)}"
        return f"{e.op}({to_str(e.a)})"
    if isinstance(e, Bin):
        if e.op in (S.Fn.MIN, S.Fn.MAX):
            return f"{e.op}({to_str(e.a)}, {to_str(e.b)})"
        p = _PREC[e.op]
        text = f"{to_str(e.a, p, False, e.op)} {e.op} {to_str(e.b, p, True, e.op)}"
        if p < parent_prec or (p == parent_prec and (right or (parent_op != e.op and p == 6))):
            return f"({text})"
        return text
    return repr(e)
