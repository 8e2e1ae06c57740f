"""Symbolic scalar expressions: runtime kernel arguments, the block index, loop indices and the
values that nodes read at run time (e.g. `get_value`), combined with Python arithmetic.

Expressions are immutable and structurally comparable, so graphs can be hashed and compared.
They evaluate on Python numbers and, element-wise, on NumPy arrays (one value per core).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import numpy as np

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


@dataclass(frozen=True, slots=True)
class Const(Expr):
    value: Number
    _h: int = field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return _cached_hash(self, ("c", type(self.value), self.value))

    @property
    def type(self) -> str:  # type: ignore[override]
        if isinstance(self.value, bool):
            return "bool"
        return "int" if isinstance(self.value, int) else "float"


@dataclass(frozen=True, slots=True)
class Var(Expr):
    """A leaf known only at run time.

    kind: "param" (kernel argument), "block_idx", "block_num", "loop" (loop index), "node" (a value a
    node reads at run time). `key` is unique per kind; `name` is what dumps and C code show.
    """

    kind: str
    key: int
    name: str
    vtype: str = "int"
    _h: int = field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return _cached_hash(self, ("v", self.kind, self.key, self.name, self.vtype))

    @property
    def type(self) -> str:  # type: ignore[override]
        return self.vtype

    @property
    def env_key(self) -> str:
        return _env_key(self.kind, self.key)


def _env_key(kind: str, key: int) -> str:
    return {"param": "p", "block_idx": "blk", "block_num": "nblk", "loop": "i", "node": "v"}[kind] + (
        "" if kind in ("block_idx", "block_num") else str(key))


@dataclass(frozen=True, slots=True)
class Bin(Expr):
    op: str
    a: Expr
    b: Expr
    _h: int = field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return _cached_hash(self, ("b", self.op, self.a, self.b))

    @property
    def type(self) -> str:  # type: ignore[override]
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

    def __hash__(self) -> int:
        return _cached_hash(self, ("u", self.op, self.a))

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
_PY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
    "%": operator.mod, "/": operator.truediv, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
    ">>": operator.rshift, "min": lambda a, b: np.minimum(a, b) if _is_arr(a, b) else min(a, b),
    "max": lambda a, b: np.maximum(a, b) if _is_arr(a, b) else max(a, b),
}
_UN_OPS: dict[str, Callable[[Any], Any]] = {
    "neg": operator.neg, "abs": lambda a: np.abs(a) if isinstance(a, np.ndarray) else abs(a),
    "not": lambda a: np.logical_not(a) if isinstance(a, np.ndarray) else (not a),
    "int": lambda a: np.trunc(a).astype(np.int64) if isinstance(a, np.ndarray) else int(a),
    "float": lambda a: np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) else float(a),
}


def _is_arr(a: Any, b: Any) -> bool:
    return isinstance(a, np.ndarray) or isinstance(b, np.ndarray)


def const(v: Number) -> Const:
    if isinstance(v, (bool, np.bool_)):
        return Const(int(v))
    if isinstance(v, (np.integer,)):
        return Const(int(v))
    if isinstance(v, (np.floating,)):
        return Const(float(v))
    return Const(v)


def binop(op: str, a: Expr, b: Expr) -> Expr:
    """Build `a op b`, folding constants and the identities that keep dumps short."""
    if isinstance(a, Const) and isinstance(b, Const):
        if op in ("//", "%", "/") and b.value == 0:
            return Bin(op, a, b)   # keep it symbolic; evaluation reports the division by zero
        folded = Bin(op, a, b)
        if _is_float_op(folded):
            return const(_F32_OPS[op](a.value, b.value))
        return const(_PY_OPS[op](a.value, b.value))
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
            return binop(op, a.a, Const(a.b.value * b.value))
        # (x + c1) + c2 -> x + (c1 + c2): keeps loop-shifted indices readable
        if op in ("+", "-") and isinstance(a, Bin) and a.op == "+" and isinstance(a.b, Const) and a.type == "int":
            c = a.b.value + b.value if op == "+" else a.b.value - b.value
            return binop("+", a.a, Const(c)) if c >= 0 else binop("-", a.a, Const(-c))
    if op == "+" and a == b and a.type == "int":
        return binop("*", a, Const(2))
    if (op == "+" and isinstance(a, Bin) and isinstance(b, Bin) and a.op == b.op == "*" and a.a == b.a
            and isinstance(a.b, Const) and isinstance(b.b, Const) and a.type == b.type == "int"):
        return binop("*", a.a, Const(a.b.value + b.b.value))
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
        return const(_UN_OPS[op](a.value))
    if op == "neg" and isinstance(a, Un) and a.op == "neg":
        return a.a
    return Un(op, a)


def free_vars(e: Expr) -> set[Var]:
    out: set[Var] = set()
    _collect(e, out)
    return out


def _collect(e: Expr, out: set[Var]) -> None:
    if isinstance(e, Var):
        out.add(e)
    elif isinstance(e, Bin):
        _collect(e.a, out)
        _collect(e.b, out)
    elif isinstance(e, Un):
        _collect(e.a, out)


def depends_on(e: Expr, kinds: set[str] | frozenset[str]) -> bool:
    return any(v.kind in kinds for v in free_vars(e))


def substitute(e: Expr, mapping: dict[Var, Expr]) -> Expr:
    """Replace variables (e.g. a loop index `i` by `i + 1`) and re-simplify."""
    if isinstance(e, Var):
        return mapping.get(e, e)
    if isinstance(e, Bin):
        return binop(e.op, substitute(e.a, mapping), substitute(e.b, mapping))
    if isinstance(e, Un):
        return unop(e.op, substitute(e.a, mapping))
    return e


def f32(v: Any) -> Any:
    """Round to float32: scalar float arithmetic in a kernel is float32, as on the AI core's scalar unit."""
    if isinstance(v, np.ndarray):
        return v.astype(np.float32)
    return float(np.float32(v))


def _f32_op(op: str) -> Callable[[Any, Any], Any]:
    fn = _PY_OPS[op]

    def run(a: Any, b: Any) -> Any:
        a32 = np.asarray(a, dtype=np.float32) if isinstance(a, np.ndarray) else np.float32(a)
        b32 = np.asarray(b, dtype=np.float32) if isinstance(b, np.ndarray) else np.float32(b)
        r = fn(a32, b32)
        if isinstance(r, np.ndarray):
            return r
        return bool(r) if op in _CMP else float(r)
    return run


_F32_OPS = {op: _f32_op(op) for op in ("+", "-", "*", "/", "//", "%", "<", "<=", ">", ">=", "==", "!=", "min", "max")}


def _is_float_op(e: Bin) -> bool:
    return e.op in _F32_OPS and (e.op == "/" or "float" in (e.a.type, e.b.type))


def evaluate(e: Expr, env: dict[str, Any]) -> Any:
    """Evaluate by walking the tree (used where compiling would not pay off, e.g. eager mode)."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Var):
        return env[e.env_key]
    if isinstance(e, Bin):
        fn = _F32_OPS[e.op] if _is_float_op(e) else _PY_OPS[e.op]
        return fn(evaluate(e.a, env), evaluate(e.b, env))
    if isinstance(e, Un):
        v = _UN_OPS[e.op](evaluate(e.a, env))
        return f32(v) if e.op == "float" or (e.op in ("neg", "abs") and e.type == "float") else v
    raise TypeError(f"not an expression: {e!r}")


@lru_cache(maxsize=4096)
def compile_expr(e: Expr) -> Callable[[dict[str, Any]], Any]:
    """Compile to a Python lambda over the environment dict; memoised per expression."""
    if isinstance(e, Const):
        v = e.value
        return lambda env: v
    if isinstance(e, Var):
        k = e.env_key
        return lambda env: env[k]
    src = _py_src(e)
    return eval(f"lambda env: {src}", {"_ops": _PY_OPS, "_un": _UN_OPS, "_f32ops": _F32_OPS,  # noqa: S307
                                       "_f32": f32})


def _py_src(e: Expr) -> str:
    if isinstance(e, Const):
        return repr(e.value)
    if isinstance(e, Var):
        return f"env[{e.env_key!r}]"
    if isinstance(e, Bin):
        if _is_float_op(e):
            return f"_f32ops[{e.op!r}]({_py_src(e.a)}, {_py_src(e.b)})"
        if e.op in ("min", "max"):
            return f"_ops[{e.op!r}]({_py_src(e.a)}, {_py_src(e.b)})"
        return f"({_py_src(e.a)} {e.op} {_py_src(e.b)})"
    if isinstance(e, Un):
        if e.op == "neg":
            return f"(-{_py_src(e.a)})"
        if e.op == "float":
            return f"_f32({_py_src(e.a)})"
        return f"_un[{e.op!r}]({_py_src(e.a)})"
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
        if e.op in ("min", "max"):
            return f"{e.op}({to_str(e.a)}, {to_str(e.b)})"
        p = _PREC[e.op]
        text = f"{to_str(e.a, p, False, e.op)} {e.op} {to_str(e.b, p, True, e.op)}"
        if p < parent_prec or (p == parent_prec and (right or (parent_op != e.op and p == 6))):
            return f"({text})"
        return text
    return repr(e)


def as_int_const(e: Expr) -> int | None:
    """The value of a constant integer expression, else None."""
    if isinstance(e, Const) and isinstance(e.value, int):
        return e.value
    return None
