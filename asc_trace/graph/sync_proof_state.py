"""The abstract state of graph/sync_proof.py: interned accesses, and sets of their numbers.

The proof's states are sets of accesses, built, joined, mapped and compared many times over in a loop's
fixpoint. Each distinct access (an `Elem`) is interned once in an `ElemTable` and the states hold its
number: set algebra then runs on small ints in C, and whole sets map through memos (a fixpoint maps
the same sets every round). Interning changes no decision: two numbers are equal exactly when their
accesses are.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .linear import Lin

UNSET, SET, MAYBE = 0, 1, 2
EMPTY: frozenset = frozenset()


class Elem:
    """One access (or a wait's pseudo-access of its flag) that may still be unordered. Immutable, hash
    computed once."""

    __slots__ = ("node", "pipe", "space", "start", "length", "write", "api", "_h")

    def __init__(self, node: int, pipe: int, space: tuple, start: Lin, length: Lin, write: bool,
                 api: bool = False) -> None:    # api: a set or wait made inside an API call
        put = object.__setattr__        # (unrolled: the proof makes many of these)
        put(self, "node", node)
        put(self, "pipe", pipe)
        put(self, "space", space)
        put(self, "start", start)
        put(self, "length", length)
        put(self, "write", write)
        put(self, "api", api)
        put(self, "_h", hash((node, pipe, space, start, length, write, api)))

    def __setattr__(self, k: str, v: Any) -> None:
        raise AttributeError("Elem is immutable")

    def __hash__(self) -> int:
        return self._h

    def __eq__(self, o: object) -> bool:
        if self is o:
            return True
        if not isinstance(o, Elem) or self._h != o._h:
            return False
        return (self.node == o.node and self.pipe == o.pipe and self.space == o.space and self.start == o.start
                and self.length == o.length and self.write == o.write and self.api == o.api)

    def __repr__(self) -> str:
        return f"Elem(%{self.node}, pipe {self.pipe}, {self.space}, {self.start}, {self.length}, w={self.write})"

    def with_space(self, space: tuple) -> "Elem":
        return Elem(self.node, self.pipe, space, self.start, self.length, self.write, self.api)


class ElemTable:
    """Elem <-> number, and memos of the conflict verdicts of two numbered accesses (shared by the proofs
    that share the table: each entry depends only on the accesses' values)."""

    __slots__ = ("elems", "ids", "order", "barrier")

    def __init__(self) -> None:
        self.elems: list[Elem] = []
        self.ids: dict[Elem, int] = {}
        self.order: dict[tuple[int, int], bool] = {}      # (a, b) -> b conflicts with a across pipes
        self.barrier: dict[tuple[int, int], bool] = {}    # (a, b) -> ... on b's pipe, needing a barrier

    def id(self, e: Elem) -> int:
        i = self.ids.get(e)
        if i is None:
            i = self.ids[e] = len(self.elems)
            self.elems.append(e)
        return i

    def mapper(self, memo: dict, f: Callable[[Elem], Elem]) -> Callable[[frozenset], frozenset]:
        """The set of the numbers of f(access) for a set of accesses' numbers. `memo` keeps f's image of
        each number seen (f must be pure) under "img", and the numbers f moves under "moved": a set
        none of whose members moves maps to itself, with set operations only."""
        img: dict[int, int] = memo.setdefault("img", {})
        moved: set[int] = memo.setdefault("moved", set())
        elems, ident = self.elems, self.id

        def g(s: frozenset) -> frozenset:
            new = s - img.keys()
            for i in new:
                e = elems[i]
                fe = f(e)
                j = img[i] = i if fe is e else ident(fe)
                if j != i:
                    moved.add(i)
            hit = s & moved
            if not hit:
                return s
            return (s - hit) | frozenset(img[i] for i in hit)
        return g


@dataclass
class State:
    flags: dict = field(default_factory=dict)       # key -> (state, payload, setters)
    pending: list = field(default_factory=lambda: [EMPTY] * 4)
    same: list = field(default_factory=lambda: [EMPTY] * 4)
    ques: dict = field(default_factory=dict)        # que id -> QueSlots (graph/queue_model.py) or None
    slots: dict = field(default_factory=dict)       # alloc / deque node id -> slot or None

    def copy(self) -> "State":
        return State(dict(self.flags), list(self.pending), list(self.same), dict(self.ques), dict(self.slots))

    def key(self) -> tuple:
        """Hashable, equal exactly when the states are."""
        return (frozenset(self.flags.items()), tuple(self.pending), tuple(self.same), frozenset(self.ques.items()),
                frozenset(self.slots.items()))

    def map(self, f: Callable[[frozenset], frozenset], sets: dict) -> "State":
        """Every set of accesses mapped by f; `sets` memoizes whole sets under the same f."""
        get = sets.get

        def m(s: frozenset) -> frozenset:
            if not s:
                return s
            out = get(s)
            if out is None:
                out = sets[s] = f(s)
            return out
        flags = {}
        for k, v in self.flags.items():
            p = v[1]
            if p:           # (most flags order nothing: their entry is kept as it is)
                q = get(p)
                if q is None:
                    q = sets[p] = f(p)
                if q is not p:
                    v = (v[0], q, v[2])
            flags[k] = v
        return State(flags, [m(s) for s in self.pending], [m(s) for s in self.same], dict(self.ques), dict(self.slots))
