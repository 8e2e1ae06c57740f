"""The loop-carried names of a runtime `for`, read from the function's bytecode.

proxies/python_state.py finds the Python variables a runtime loop's body carries from its source. A
kernel defined by `exec`, in a notebook cell whose text is gone, or built from a string has no source
to read, and the check would pass silently (sim and cpp would use one traced pass's value, eager n
passes'). The code object is always there: this module answers the same question from it.

The loop is the FOR_ITER instruction on the header's line; its body is the instructions up to the
FOR_ITER's exit target, the loop target's stores (right after FOR_ITER) left out. In program order, as
the source version does by statements: a name is carried when the body reads it no later than it
first stores it (`s = s * 2` loads `s` before storing it), or when the code after the loop reads a name
the body stores. Comprehensions (their own code objects up to Python 3.11, inlined from 3.12 with
LOAD_FAST_AND_CLEAR / STORE_FAST of their own variables around them) do not count as reads of the
function's variables of the same name.
"""
from __future__ import annotations

import dis
from functools import lru_cache
from types import CodeType

# instructions that read / write a variable of the function (fast locals, cells); 3.13's paired forms
# carry two names
_LOADS = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_CLASSDEREF",
                    "LOAD_FAST_LOAD_FAST", "LOAD_FROM_DICT_OR_DEREF"})
_STORES = frozenset({"STORE_FAST", "STORE_DEREF", "STORE_FAST_STORE_FAST", "DELETE_FAST", "DELETE_DEREF"})
_MIXED = "STORE_FAST_LOAD_FAST"     # 3.13: store the first name, load the second
_TARGET_OPS = frozenset({"STORE_FAST", "STORE_DEREF", "UNPACK_SEQUENCE", "UNPACK_EX", "STORE_FAST_STORE_FAST",
                         "EXTENDED_ARG", "NOP", "CACHE"})


def _names(ins: dis.Instruction) -> tuple[str, ...]:
    v = ins.argval
    return tuple(v) if isinstance(v, tuple) else (v,) if isinstance(v, str) else ()


def _on(i: dis.Instruction, line: int) -> bool:
    """The instruction's source span covers `line` (a header over several lines)."""
    p = i.positions
    return p is not None and p.lineno is not None and p.lineno <= line <= (p.end_lineno or p.lineno)


def _loop_body(code: CodeType, line: int) -> tuple[list[dis.Instruction], int, int] | None:
    """The function's instructions, the index of the first one of the body of the `for` whose header
    is at `line` (its target's stores skipped) and the offset the loop exits to; None without one."""
    ins = list(dis.get_instructions(code))
    # FOR_ITER's span is its whole statement, from the `for` line: the loop is the innermost one whose
    # statement covers `line` (the tracer's line is on the header, maybe a continuation line of it)
    spans = [(i.positions.lineno, k) for k, i in enumerate(ins) if i.opname == "FOR_ITER" and _on(i, line)]
    if not spans:
        return None
    k0 = max(spans, key=lambda s: (s[0], -s[1]))[1]
    body_start = k0 + 1
    while body_start < len(ins) and ins[body_start].opname in _TARGET_OPS:
        body_start += 1
    return ins, body_start, ins[k0].argval


@lru_cache(maxsize=1024)
def loop_body_stores(code: CodeType, line: int) -> frozenset[str] | None:
    """Every variable of the function that the `for` at `line` binds itself, in its body or as its
    target; None when no loop header is found on that line."""
    found = _loop_body(code, line)
    if found is None:
        return None
    ins, body_start, end = found
    k = body_start
    while k > 0 and ins[k - 1].opname != "FOR_ITER":   # back to the loop target's stores
        k -= 1
    out: set[str] = set()
    for i in ins[k:]:
        if i.offset >= end:
            break
        if i.opname in _STORES:
            out.update(_names(i))
        elif i.opname == _MIXED:
            out.add(_names(i)[0])
    return frozenset(out)


@lru_cache(maxsize=1024)
def loop_carried_bytecode(code: CodeType, line: int, after_loop: bool = True) -> frozenset[str] | None:
    """Names the runtime `for` whose header is at `line` assigns in its body and reads after the loop
    (unless `after_loop` is False) or, in the body, before assigning them; None when no loop header
    is found on that line."""
    found = _loop_body(code, line)
    if found is None:
        return None
    ins, body_start, end = found
    first_store: dict[str, int] = {}
    first_load: dict[str, int] = {}
    k = body_start
    while k < len(ins) and ins[k].offset < end:
        i = ins[k]
        op = i.opname
        if op in _LOADS:
            for n in _names(i):
                first_load.setdefault(n, k)
        elif op in _STORES:
            for n in _names(i):
                first_store.setdefault(n, k)
        elif op == _MIXED:
            a, b = _names(i)
            first_store.setdefault(a, k)
            first_load.setdefault(b, k)
        k += 1
    # a comprehension inlined into the function (3.12+) saves its variable (LOAD_FAST_AND_CLEAR), binds
    # it and restores it: that name is the comprehension's own in the body
    own = {n for i in ins[body_start:k] if i.opname == "LOAD_FAST_AND_CLEAR" for n in _names(i)}
    for n in own:
        first_store.pop(n, None)
    after: set[str] = set()
    if after_loop:
        for i in ins[k:]:
            if i.opname in _LOADS or i.opname == _MIXED:
                after.update(_names(i)[-1:] if i.opname == _MIXED else _names(i))
    return frozenset(n for n, at in first_store.items() if n in after or first_load.get(n, at + 1) <= at)
