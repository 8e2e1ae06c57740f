"""The silent remainder: `for i in range(n // tile)` with a runtime `n` covers `n - n % tile` elements and
drops the rest without a word (as does `range(n >> k)`, a division by 2**k, and a product with such a factor,
`range(rows // 128 * tiles_n)`: a 2-D tile walk that drops the last rows, or every row when rows < 128). `dropped_remainders(g)` finds such loops in a traced graph: the stop
floors a runtime division and nothing else in the kernel uses its remainder (no `n % tile`, no tail step
built from `(n // tile) * tile`); a ceiling division `(n + tile - 1) // tile` covers everything and is
left alone. The launch then evaluates `n % tile` with the actual arguments and warns when it is not 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .expr import Bin, Const, Expr, Un, free_vars
from .kernel_graph import KernelGraph
from .node import exprs_in
from .source_loc import SourceLoc

# the variables a launch knows before the kernel runs: its arguments, the core count and the core's index
_KNOWN_AT_LAUNCH = frozenset({"param", "block_num", "block_idx"})


@dataclass(frozen=True)
class DroppedRemainder:
    """A loop whose trip count is `dividend // divisor`, the remainder used nowhere else."""

    loc: SourceLoc
    dividend: Expr
    divisor: Expr


def _subexprs(e: Expr) -> Iterator[Expr]:
    yield e
    if isinstance(e, Bin):
        yield from _subexprs(e.a)
        yield from _subexprs(e.b)
    elif isinstance(e, Un):
        yield from _subexprs(e.a)


def _uses_remainder(e: Expr, a: Expr, b: Expr, stop: Expr) -> bool:
    for s in _subexprs(e):
        if isinstance(s, Bin) and s.op == "%" and s.a == a and s.b == b:
            return True
        if isinstance(s, Bin) and s.op == "*" and {s.a, s.b} == {stop, b}:
            return True            # the tail's start, (n // tile) * tile
        if isinstance(s, Bin) and s.op == "<<" and s.a == stop:
            return True            # the tail's start, (n >> k) << k
        if (isinstance(s, Bin) and s.op == "&" and s.a == a and isinstance(s.b, Const) and isinstance(b, Const)
                and s.b.value == b.value - 1):
            return True            # the remainder n & (2**k - 1)
    return False


def _floor_division(stop: Expr) -> tuple[Expr, Expr] | None:
    """(dividend, divisor) of a stop that floors a division: `n // d`, or `n >> k` (= n // 2**k)."""
    if isinstance(stop, Bin) and stop.op == "//":
        return stop.a, stop.b
    if isinstance(stop, Bin) and stop.op == ">>" and isinstance(stop.b, Const) and isinstance(stop.b.value, int) \
            and 0 < stop.b.value < 63:
        return stop.a, Const(1 << stop.b.value)
    return None


def _floor_factors(stop: Expr) -> Iterator[Expr]:
    """The stop itself, or the factors of a product (`a // b * c`): a floored factor scales the loss by the rest."""
    if isinstance(stop, Bin) and stop.op == "*":
        yield from _floor_factors(stop.a)
        yield from _floor_factors(stop.b)
    else:
        yield stop


def _is_ceiling(a: Expr, b: Expr) -> bool:
    """(x + (b - 1)) // b: rounds up, so the loop covers the remainder itself."""
    return (isinstance(a, Bin) and a.op == "+" and isinstance(b, Const) and isinstance(a.b, Const)
            and a.b.value == b.value - 1)


def dropped_remainders(g: KernelGraph) -> list[DroppedRemainder]:
    loops = []
    for n in g:
        if n.op != "for":
            continue
        stop = n.args[2]
        for factor in _floor_factors(stop):
            div = _floor_division(factor)
            if div is None or isinstance(div[0], Const) or _is_ceiling(*div):
                continue
            if any(v.kind not in _KNOWN_AT_LAUNCH for v in free_vars(factor)):
                continue           # depends on data or an outer loop: a launch cannot evaluate it
            loops.append((n, stop, factor, div))
    if not loops:
        return []
    exprs = [(n.id, e) for n in g for e in exprs_in(n.args)]
    out = []
    for loop, stop, factor, (a, b) in loops:
        used = any(_uses_remainder(e, a, b, factor) for nid, e in exprs if not (nid == loop.id and e is stop))
        if not used:
            out.append(DroppedRemainder(loop.loc, a, b))
    return out


__all__ = ["DroppedRemainder", "dropped_remainders"]
