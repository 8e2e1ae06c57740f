"""The race checker's reports: which access raced with which, and what fixes it.

A report names both accesses (file:line and loop iterations) and suggests the synchronisation
graph/hazards.py says the pair needs. Before suggesting a flag it looks at the flags the kernel placed
between the two accesses (in program order), so it never suggests one the kernel already has: if
the kernel has the right event pair there, it says what is wrong with it instead (waited before it is
set, set before the access it should follow, different ids, or flags of other pipes).
"""
from __future__ import annotations

from typing import Any

from ..enums import HardEvent
from ..errors import RaceError
from ..graph import hazards
from ..graph.expr import Const
from ..graph.hb import PIPES, Instr
from .interpreter import describe_where


def describe_iters(where: tuple) -> str:
    """' (loop at k.py:17: index 1)': which iteration of which loop an instruction ran in."""
    return f" ({describe_where(where)})" if where else ""


def _at(ins: Any) -> str:
    return f"{ins.node.loc.short}{describe_iters(ins.where)}"


def race_error(chk: Any, ins: Instr, p: int, other: Instr, q: int, this_write: bool, other_write: bool,
               lo: int, hi: int, space: tuple, core: int) -> RaceError:
    P, Q = PIPES[p], PIPES[q]
    kind = hazards.dependence(other_write, this_write)
    mem = _memory(chk, space, lo, hi, core)
    this_did = "writes" if this_write else "reads"
    other_did = "written" if other_write else "read"
    last = ", the last write of these bytes," if other_write else ""
    if p == q:
        msg = (f"{P.value} pipe hazard ({kind}) on {mem}: this {P.value} instruction{describe_iters(ins.where)} "
               f"{this_did} them while the {P.value} instruction at {_at(other)}{last} has {other_did} them, "
               f"with no pipe_barrier of PIPE_{P.value} between; instructions of one pipe issue in order but can "
               "overlap")
        hint = _barrier_hint(chk, ins, other, P)
    else:
        msg = (f"data race ({kind}) on {mem}: this {P.value} instruction{describe_iters(ins.where)} {this_did} them "
               f"while the {Q.value} instruction at {_at(other)}{last} has {other_did} them, and nothing orders "
               "the two")
        hint = _flag_hint(chk, ins, other, P, Q)
    if chk.compiler_sync:
        hint += ", or launch with auto_sync=True"
    err = RaceError(msg, node=ins.node, related=[(f"the other access ({Q.value})", other.node.loc)], hint=hint)
    err.iteration = ""      # both iterations are in the message already
    return err


def _memory(chk: Any, space: tuple, lo: int, hi: int, core: int) -> str:
    if space[0] == "ub":
        return f"UB bytes [{lo}, {hi})"
    _, param, size = space
    name = chk.ctx.names.get(param, f"#{param}")
    on = f" on core {core}" if chk.core_num > 1 else ""
    return (f"global memory argument '{name}' bytes [{lo}, {hi}) (elements [{lo // size}, {-(-hi // size)})){on}")


def _between(chk: Any, a: Instr, b: Instr) -> list[Instr]:
    """The sync instructions issued after a and before b, in program order."""
    return [f for f in chk.log if a.order < f.order < b.order]


def _flag(f: Instr) -> str:
    op = "set_flag" if f.kind == "set" else "wait_flag"
    return f"{op}(HardEvent.{f.key[0].name}, {f.key[1]}) at {_at(f)}"


def _free_id(chk: Any, event: HardEvent) -> int:
    used = chk.ctx.event_ids.get(event, set())
    return next((i for i in range(8) if i not in used), 0)


def _flag_hint(chk: Any, b: Instr, a: Instr, P: Any, Q: Any) -> str:
    """What orders the access a (on pipe Q) before b (on pipe P), given the flags the kernel has between them."""
    event = hazards.fixing_event(Q, P)
    ev = f"HardEvent.{event.name}"
    flags = [f for f in _between(chk, a, b) if isinstance(f.key, tuple) and isinstance(f.key[0], HardEvent)]
    sets = [f for f in flags if f.kind == "set" and f.key[0] == event]
    waits = [f for f in flags if f.kind == "wait" and f.key[0] == event]
    if sets and waits:
        common = {f.key[1] for f in sets} & {f.key[1] for f in waits}
        if not common:
            return (f"the kernel has the {ev} pair here but with different ids: {_flag(sets[-1])} after the "
                    f"{Q.value} instruction, {_flag(waits[-1])} before this one; give the wait the set's id")
        i = min(common)
        s = next(f for f in sets if f.key[1] == i)
        w = next(f for f in waits if f.key[1] == i)
        if w.order < s.order:
            return (f"{_flag(w)} is waited before it is set: it comes before {_flag(s)} in program order, so it "
                    f"consumes an earlier set and does not wait for the {Q.value} instruction; move the wait_flag "
                    "after the set_flag, right before this instruction")
    if waits and not sets:
        w = waits[-1]
        tag = getattr(w, "tag", None)
        s = getattr(tag, "ins", None)
        consumed = f"the set_flag at {_at(s)}" if s is not None else "a set_flag"
        later = _set_node_after(chk, w)
        before = (f"is waited before it is set: it comes before the set_flag at {later.loc.short} in program "
                  "order, so it " if later is not None and (s is None or later.id != s.node.id or s.where != w.where)
                  else "")
        return (f"{_flag(w)} {before}consumes {consumed}, which the {Q.value} pipe ran before the {Q.value} "
                f"instruction at {_at(a)} (a set_flag orders only what its pipe ran before it); put "
                f"asc.set_flag(asc.{ev}, {w.key[1]}) right after that instruction")
    if sets and not waits:
        s = sets[-1]
        return (f"{_flag(s)} follows the {Q.value} instruction, but this instruction does not wait for it: add "
                f"asc.wait_flag(asc.{ev}, {s.key[1]}) right before it")
    wrong = [f for f in flags if (f.kind == "wait" and f.pipe == P) or (f.kind == "set" and f.pipe == Q)]
    fix = (f"add asc.set_flag(asc.{ev}, {_free_id(chk, event)}) after the {Q.value} instruction and "
           f"asc.wait_flag(asc.{ev}, {_free_id(chk, event)}) before this one")
    if wrong:
        said = "; ".join(f"{_flag(f)} {'waits for ' + f.key[0].src if f.kind == 'wait' else 'signals ' + f.key[0].dst}"
                         for f in wrong[-2:])
        return (f"the flags between the two are on the wrong pipes for this pair ({said}); the {Q.value} -> "
                f"{P.value} order needs {ev}: {fix}")
    return fix


def _set_node_after(chk: Any, w: Instr) -> Any:
    """The set_flag node of w's event and id placed after w in the kernel's program order, if any (a
    wait placed before its set consumes an earlier set: the previous iteration's, or a priming one)."""
    pos = chk.ctx.pos
    here = pos.get(w.node.id, -1)
    best = None
    for nid, n in chk.ctx.nodes.items():
        if n.op != "set_flag" or n.args[0] != w.key[0] or pos.get(nid, -1) <= here:
            continue
        i = n.args[1]
        if isinstance(i, Const) and i.value != w.key[1]:
            continue
        if best is None or pos[nid] < pos[best.id]:
            best = n
    return best


def _barrier_hint(chk: Any, b: Instr, a: Instr, P: Any) -> str:
    barrier = f"asc.pipe_barrier(asc.PipeID.{hazards.BARRIER_ID[P].name})"
    others = [f for f in _between(chk, a, b) if f.kind == "barrier" and f.pipe != P]
    if others:
        f = others[-1]
        return (f"the pipe_barrier at {_at(f)} orders the {f.pipe.value} pipe, not {P.value}: add {barrier} "
                "between the two")
    return f"add {barrier} between the two (right before this instruction)"
