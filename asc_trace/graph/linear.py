"""Linear forms over symbolic integers, for deciding whether two UB / GM byte ranges can overlap.

An expression is normalised to `sum(coef * atom) + const`, where atoms are the parts that are not
linear (a runtime argument, `n // 16`, `i % 2`, a product of unknowns). Floor division and modulo by
a constant resolve when every coefficient is a multiple of it (`(4*q + 3) % 2 == 1`).

Soundness assumption: atoms are non-negative (runtime integers that size or place memory are
counts and offsets); a `x % m` atom is also below m. Under it, `nonneg(f)` proves f >= 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .expr import Bin, Const, Expr, Un, Var, binop, const


@dataclass(frozen=True, slots=True)
class Lin:
    terms: tuple[tuple[Expr, int], ...]     # sorted by the atom's hash, no zero coefficients
    const: int
    _h: int = field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        h = self._h
        if not h:
            h = hash((self.terms, self.const)) or 1
            object.__setattr__(self, "_h", h)
        return h

    def __add__(self, o: "Lin") -> "Lin":
        return _make(dict(self.terms), o.terms, self.const + o.const)

    def __sub__(self, o: "Lin") -> "Lin":
        return self + o.scale(-1)

    def scale(self, k: int) -> "Lin":
        if k == 0:
            return ZERO
        return Lin(tuple((a, c * k) for a, c in self.terms), self.const * k)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def lower_bound(self) -> float:
        lo = float(self.const)
        for atom, c in self.terms:
            if c > 0:
                continue
            ub = upper_bound(atom)
            if ub is None:
                return float("-inf")
            lo += c * ub
        return lo

    def to_expr(self) -> Expr:
        e: Expr = Const(self.const)
        for atom, c in self.terms:
            e = binop("+", e, binop("*", atom, Const(c)) if c != 1 else atom)
        return e


ZERO = Lin((), 0)


def _make(base: dict[Expr, int], more: tuple[tuple[Expr, int], ...], c: int) -> Lin:
    for a, k in more:
        base[a] = base.get(a, 0) + k
    # a canonical order within the process (hashes are cached on the atoms; str() would be slower)
    terms = tuple(sorted(((a, k) for a, k in base.items() if k), key=lambda t: hash(t[0])))
    return Lin(terms, c)


def atom(e: Expr) -> Lin:
    return Lin(((e, 1),), 0)


def upper_bound(a: Expr) -> int | None:
    if isinstance(a, Bin) and a.op == "%" and isinstance(a.b, Const) and a.b.value > 0:
        return a.b.value - 1
    if isinstance(a, Bin) and a.op == "min":
        for side in (a.a, a.b):
            if isinstance(side, Const):
                return side.value
    return None


@lru_cache(maxsize=8192)
def linearize(e: Expr) -> Lin | None:
    """The linear form of an integer expression, or None for float / boolean expressions."""
    if e.type != "int":
        return None
    if isinstance(e, Const):
        return Lin((), int(e.value))
    if isinstance(e, Var):
        return atom(e)
    if isinstance(e, Un):
        inner = linearize(e.a)
        if e.op == "neg" and inner is not None:
            return inner.scale(-1)
        return atom(e)
    if isinstance(e, Bin):
        a, b = linearize(e.a), linearize(e.b)
        if a is None or b is None:
            return atom(e)
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            if a.is_const:
                return b.scale(a.const)
            if b.is_const:
                return a.scale(b.const)
            return atom(e)
        if e.op in ("//", "%") and b.is_const and b.const > 0:
            m = b.const
            if all(c % m == 0 for _, c in a.terms):
                if e.op == "//":
                    return Lin(tuple((t, c // m) for t, c in a.terms), a.const // m)
                return Lin((), a.const % m)
            reduced = Lin(a.terms, a.const % m if e.op == "%" else a.const)
            if e.op == "%":
                return atom(Bin("%", reduced.to_expr(), Const(m)))
            return atom(Bin("//", a.to_expr(), Const(m)))
        return atom(e)
    return atom(e)


def nonneg(f: Lin) -> bool:
    return f.lower_bound() >= 0


@lru_cache(maxsize=65536)
def disjoint(a0: Lin, alen: Lin, b0: Lin, blen: Lin) -> bool:
    """Can [a0, a0 + alen) and [b0, b0 + blen) be proven not to overlap?"""
    if (alen.is_const and alen.const <= 0) or (blen.is_const and blen.const <= 0):
        return True
    return nonneg(b0 - (a0 + alen)) or nonneg(a0 - (b0 + blen))
