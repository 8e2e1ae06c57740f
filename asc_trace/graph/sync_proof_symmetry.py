"""The buffers of one TQue are interchangeable: renaming them consistently changes nothing the proof checks.

A loop whose trip count is only known at run time leaves a depth-2 queue's free buffers as (0, 1) on one
path and (1, 0) on another; joined as they are, the queue state is lost and every later AllocTensor /
DeQue orders nothing provable, so the gate lifts pairs the queue's own events already order. Before such
a join, the second state is rewritten under the permutation of that queue's buffers that maps its free
and queued buffers (and the buffers of tensors both states hold) onto the first state's. This is sound:
the proof's checks compare buffers only for equality, and the concrete machine behaves the same under a
renaming of one queue's buffers (each holds the same bytes at a different address).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .pool_layout import arena_queues
from .queue_model import QueSlots
from .raw_alias import aliased_queues
from .sync_proof_state import Elem, ElemTable, State

if TYPE_CHECKING:
    from .kernel_graph import KernelGraph


def _bijection(a_q: QueSlots, b_q: QueSlots, held: list[tuple[Any, Any]]) -> dict[int, int] | None:
    """The renaming of b's buffers onto a's, or None when the two states are not the same up to one."""
    (a_free, a_inq, _), (b_free, b_inq, _) = a_q, b_q
    if len(a_free) != len(b_free) or len(a_inq) != len(b_inq):
        return None
    pi: dict[int, int] = {}
    for s_b, s_a in list(zip(b_free, a_free)) + list(zip(b_inq, a_inq)) + held:
        if s_a is None or s_b is None:
            continue        # a tensor whose buffer one side does not know: the join forgets it anyway
        if pi.setdefault(s_b, s_a) != s_a:
            return None
    if len(set(pi.values())) != len(pi):
        return None
    # any renaming is sound; complete this one to a permutation of the buffers either side names
    universe = set(a_free) | set(a_inq) | set(b_free) | set(b_inq) | {s for pair in held for s in pair if s is not None}
    spare = sorted(universe - set(pi.values()))
    for s in sorted(universe - set(pi)):
        pi[s] = spare.pop(0)
    return pi


def _rename_key(key: Any, ren: dict[int, dict[int, int]]) -> Any:
    if isinstance(key, tuple) and len(key) == 4 and key[0] == "que":
        pi = ren.get(key[1])
        if pi is not None and key[2] in pi:
            return ("que", key[1], pi[key[2]], key[3])
    return key


def _rename_space(space: tuple, ren: dict[int, dict[int, int]]) -> tuple:
    if space[0] == "que":
        pi = ren.get(space[1])
        if pi is not None and space[2] in pi:
            return ("que", space[1], pi[space[2]])
    elif space[0] == "flag":
        return ("flag", _rename_key(space[1], ren))
    return space


def align_queues(a: State, b: State, g: "KernelGraph", tab: ElemTable, memo: dict) -> State:
    """`b` with each queue's buffers renamed to match `a` where the two differ only by such a renaming
    (`memo`: the renamings' memos, by renaming). The queues' renamings touch disjoint buffers, so they are
    applied together, in one pass over the state."""
    # a queue whose buffers share bytes with other pools', or that a raw LocalTensor may cover, is not symmetric
    fixed = arena_queues(g) | aliased_queues(g)
    ren: dict[int, dict[int, int]] = {}
    for q in set(a.ques) & set(b.ques):
        if q in fixed:
            continue
        a_q, b_q = a.ques[q], b.ques[q]
        if a_q is None or b_q is None or a_q == b_q:
            continue
        mine = [n for n in set(a.slots) & set(b.slots) if g.node(n).args[0].root == q]
        held = [(b.slots[n], a.slots[n]) for n in mine]
        pi = _bijection(a_q, b_q, held)
        if pi is None or all(k == v for k, v in pi.items()):
            continue
        ren[q] = pi
    if not ren:
        return b

    def elem(e: Elem) -> Elem:
        sp = _rename_space(e.space, ren)
        return e if sp == e.space else e.with_space(sp)

    name = tuple(sorted((q, tuple(sorted(pi.items()))) for q, pi in ren.items()))
    b = b.map(tab.mapper(memo.setdefault(name, {}), elem), memo.setdefault(name + ("sets",), {}))
    b.flags = {_rename_key(k, ren): v for k, v in b.flags.items()}
    b.ques = dict(b.ques)
    for q, pi in ren.items():
        b.ques[q] = b.ques[q].renamed(pi)
    b.slots = {n: (ren[r].get(s, s) if s is not None and (r := g.node(n).args[0].root) in ren else s)
               for n, s in b.slots.items()}
    return b
