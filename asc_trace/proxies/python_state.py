"""Python values a traced region changes: the one way tracing could silently compute something else.

A runtime loop's body and each branch of asc.cond are traced once. A Python variable the kernel
rebinds inside them to a number or a runtime scalar therefore holds what *one traced pass* made:
`s = 1; for i in range(n): s = s * 2` leaves `s == 2` whatever n is, and a branch that assigns a
`nonlocal` leaves the value of whichever branch was traced last. Both are refused at the region's
line (eager, which would run the Python, refuses them too, so every backend agrees):

- a runtime `for`: a variable of the function holding the loop that the body rebinds to a number or
  scalar and that is read after the loop, or read in the body before the body assigns it (carried
  from one iteration to the next), found from the function's source; and a variable naming a tensor
  that the body rebinds to another and reads before that (a ping-pong `a, b = b, a`, a `prev = nxt`);
- asc.cond: a variable of the calling function that a branch rebinds (through `nonlocal`);
- all three regions: a Python object made before the region that the region mutates in place (a list,
  dict, set, array, iterator or user object's attribute, reached from the function's locals, closures
  or the globals it names: proxies/python_containers.py).
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from functools import lru_cache
from types import CodeType, FrameType
from typing import Any, Callable

from ..errors import TraceError
from ..graph.node import TensorRef
from .python_bytecode import loop_body_stores, loop_carried_bytecode
from .python_containers import Snapshot
from .scalar import Scalar


def is_value(v: Any) -> bool:
    return isinstance(v, (Scalar, int, float))      # bool is an int


_GLOBALS = "<globals>"          # the snapshot's entry for the module's numbers (never a variable's name)


def snapshot(frame: FrameType) -> dict[str, Any]:
    """The frame's variables, and the numbers among its module's globals (a helper the region calls may
    rebind one with `global`)."""
    out = dict(frame.f_locals)
    out[_GLOBALS] = {n: v for n, v in frame.f_globals.items() if is_value(v)}
    return out


def _global_rebound(frame: FrameType, before: dict[str, Any]) -> list[str]:
    old = before.get(_GLOBALS, {})
    now = frame.f_globals
    return [n for n, v in old.items() if n in now and now[n] is not v]


def _rebound_through_call(frame: FrameType, before: dict[str, Any], changed: list[str], loc: Any) -> None:
    """Refuse a runtime loop whose body changed a variable its own statements never assign: a nested
    function it calls rebinds it (`nonlocal`, or `global` for the module's numbers). The carried-name
    analysis reads the loop's statements only; the call happens once in the trace, n times in eager."""
    own = loop_body_stores(frame.f_code, loc.line)
    if own is None:
        return
    code = frame.f_code
    names = [n for n in changed if n in code.co_cellvars + code.co_freevars and n not in own]
    names += _global_rebound(frame, before)
    if names:
        n = names[0]
        raise TraceError(f"`{n}` is changed inside this runtime loop by a function it calls (`nonlocal {n}` or "
                         f"`global {n}`), but a runtime loop's body is traced once: the Python value would be one "
                         "iteration's, not n iterations'", loc,
                         hint=f"return the new value from the function and carry it with asc.while_loop (e.g. "
                              f"`i, {n} = asc.while_loop(lambda i, {n}: i < n, lambda i, {n}: (i + 1, f({n})), "
                              f"(0, {n}))`), or unroll the loop with asc.static_range when its bound is known "
                              "while tracing")


def rebound(frame: FrameType, before: dict[str, Any], kind: Callable[[Any], bool] = is_value) -> list[str]:
    """Names bound before whose value the region replaced with a different one, old or new of `kind`
    (a number or scalar by default)."""
    after = frame.f_locals
    return [n for n, old in before.items()
            if n in after and after[n] is not old and (kind(after[n]) or kind(old))]


def is_tensor(v: Any) -> bool:
    """A LocalTensor / GlobalTensor proxy (what it addresses is fixed when the body is traced)."""
    return isinstance(getattr(v, "_ref", None), TensorRef)


def check_loop(frame: FrameType, before: dict[str, Any], loc: Any) -> None:
    carried_in_body = loop_carried(frame.f_code, loc.line, after_loop=False)
    swapped = [n for n in rebound(frame, before, is_tensor) if n in carried_in_body]
    if swapped:
        n = swapped[0]
        raise TraceError(f"`{n}` names one tensor when this runtime loop's body starts and is rebound to another "
                         "in the body, but the body is traced once: every iteration would use the tensor of the "
                         "first pass", loc,
                         hint="address the tensor from the loop index instead (e.g. `asc.LocalTensor(dtype, pos, "
                              "base + (i % 2) * size, n)` for a ping-pong pair), or let a TQue hand buffers out")
    changed = rebound(frame, before)
    _rebound_through_call(frame, before, changed, loc)
    names = [n for n in changed if n in loop_carried(frame.f_code, loc.line)]
    if names:
        n = names[0]
        raise TraceError(f"`{n}` is assigned inside this runtime loop and read after it or in its next iteration, "
                         "but a runtime loop's body is traced once: the Python value would be one iteration's, "
                         "not n iterations'", loc,
                         hint=f"carry it with asc.while_loop (e.g. `i, {n} = asc.while_loop(lambda i, {n}: i < n, "
                              f"lambda i, {n}: (i + 1, ...), (0, {n}))`), compute it from the loop index, or unroll "
                              "the loop with asc.static_range when its bound is known while tracing")


def contents(frame: FrameType) -> Snapshot:
    """Value snapshots of the Python objects a region could mutate (proxies/python_containers.py)."""
    return Snapshot(frame)


_REGION_TEXT = {"for": "the body of this runtime loop", "asc.cond": "a branch of this asc.cond",
                "asc.while_loop": "the body of this asc.while_loop"}
_REGION_WHY = {"for": "the body is traced once, so the change would happen once however many iterations run",
               "asc.cond": "both branches are traced, so both changes would happen whichever branch runs",
               "asc.while_loop": "the body is traced once, so the change would happen once however many "
                                 "iterations run"}


def check_mutation(held: Snapshot, loc: Any, region: str) -> None:
    """Refuse a region that mutated a Python object made before it (eager would mutate it per run)."""
    found = held.changed()
    if found is None:
        return
    path, what, where = found
    via = f", reached through `{where.removeprefix('seen by ')}`" if where else ""
    raise TraceError(f"{_REGION_TEXT[region]} changes `{path}` of the enclosing function ({what}{via}; a "
                     f"Python object made before the region): "
                     f"{_REGION_WHY[region]}, while the eager backend would run the Python every time",
                     loc, hint="keep Python state out of runtime regions: compute the value before the region, "
                               "carry it with asc.while_loop (`..., v = asc.while_loop(cond_fn, body_fn, (..., v))`)"
                               ", return it from asc.cond's branches, or unroll with asc.static_range when the "
                               "trip count is known while tracing")


def check_branches(frame: FrameType, before: dict[str, Any], loc: Any,
                   held: Snapshot | None = None, region: str = "asc.cond") -> None:
    names = rebound(frame, before) + _global_rebound(frame, before)
    if not names:
        if held is not None:
            check_mutation(held, loc, region)
        return
    n = names[0]
    if region == "asc.cond":
        raise TraceError(f"a branch of this asc.cond changes `{n}` of the enclosing function (a nonlocal, or a "
                         "list / dict it fills): both branches are traced, so it would keep what the branches "
                         "traced did, whichever runs", loc,
                         hint=f"return the value from both branches instead: `{n} = asc.cond(pred, lambda: ..., "
                              "lambda: ...)`")
    raise TraceError(f"the body of this asc.while_loop changes `{n}` of the enclosing function (a nonlocal, or a "
                     "list / dict it fills): the body is traced once, so it would hold one iteration's change, "
                     "however many run", loc, hint=f"carry the value in the loop's state instead: `..., {n} = "
                                                  f"asc.while_loop(cond_fn, body_fn, (..., {n}))`")


@lru_cache(maxsize=1024)
def function_ast(code: CodeType) -> ast.Module | None:
    """The syntax tree of a function's source, line 1 being its first line (None without source, e.g.
    for functions made by exec). Read through linecache and the block finder directly:
    inspect.getsourcelines would first look for the code's module among every loaded one."""
    source = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if not source or first > len(source):
        return None
    try:
        return ast.parse(textwrap.dedent("".join(inspect.getblock(source[first - 1:]))))
    except (SyntaxError, IndentationError, TypeError):
        return None


@lru_cache(maxsize=1024)
def loop_carried(code: CodeType, line: int, after_loop: bool = True) -> frozenset[str]:
    """Names the `for` statement whose header is at `line` assigns in its body and reads after the loop
    (unless `after_loop` is False) or, in the body, before assigning them (from the bytecode when the
    source cannot be read: proxies/python_bytecode.py)."""
    tree = function_ast(code)
    if tree is None:
        # no source (exec, a notebook cell gone, a string): the same question asked of the bytecode
        return loop_carried_bytecode(code, line, after_loop) or frozenset()
    rel = line - code.co_firstlineno + 1
    loop = next((n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor))
                 and n.iter.lineno <= rel <= (n.iter.end_lineno or n.iter.lineno)), None)
    if loop is None:
        return frozenset()
    # statements in source order (bodies of nested statements after their header): a name is carried
    # when a statement reads it no later than the first statement that assigns it (`s = s * 2` both)
    first_store: dict[str, int] = {}
    first_load: dict[str, int] = {}
    for i, stmt in enumerate(_statements(loop.body)):
        for n in _own_names(stmt):
            target = first_store if isinstance(n.ctx, ast.Store) else first_load
            target.setdefault(n.id, i)
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            first_load.setdefault(stmt.target.id, i)
    end = loop.end_lineno or loop.lineno
    after = _reads_after(tree, end) if after_loop else set()
    return frozenset(name for name, i in first_store.items()
                     if name in after or first_load.get(name, i + 1) <= i)


def _reads_after(tree: ast.Module, end: int) -> set[str]:
    """Names read after line `end` that may still see a value bound before it: a read is left out when
    a `for` or comprehension around it binds the name first (its header runs before its body), or when
    it is inside a nested function or lambda that has the name as its own local."""
    out: set[str] = set()

    def visit(node: ast.AST, hidden: frozenset[str]) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.lineno > end and node.id not in hidden:
                out.add(node.id)
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            visit(node.iter, hidden)
            inner = hidden | _bound(node.target)
            for child in node.body:
                visit(child, inner)
            for child in node.orelse:     # runs after the loop, whose header may not have run
                visit(child, hidden)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = hidden
            for gen in node.generators:
                visit(gen.iter, inner)
                inner = inner | _bound(gen.target)
                for cond in gen.ifs:
                    visit(cond, inner)
            for child in ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
                visit(child, inner)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not tree.body[0]:
            for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                visit(d, hidden)
            body = node.body if isinstance(node.body, list) else [node.body]
            inner = hidden | _locals_of(node)
            for child in body:
                visit(child, inner)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, hidden)

    visit(tree, frozenset())
    return out


def _bound(target: ast.AST) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _locals_of(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    """The names local to a nested function: its parameters and what it assigns (not `nonlocal` /
    `global` names), by Python's scoping rule."""
    a = fn.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    names |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    if isinstance(fn, ast.Lambda):
        return frozenset(names)
    declared: set[str] = set()
    todo: list[ast.AST] = list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Nonlocal, ast.Global)):
            declared.update(n.names)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
            todo.extend(n.decorator_list)
            continue              # its body is its own scope
        elif isinstance(n, ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return frozenset(names - declared)


def _statements(body: list[ast.stmt]):
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _statements([x for x in inner if isinstance(x, ast.stmt)] if field != "handlers"
                                       else [b for h in inner for b in h.body])


def _own_names(stmt: ast.stmt):
    """The names a statement itself reads or writes, not those of the statements nested in it (nor of
    functions and lambdas it defines, which run later)."""
    todo = [c for c in ast.iter_child_nodes(stmt) if not isinstance(c, ast.stmt)]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            yield n
        elif not isinstance(n, (ast.stmt, ast.Lambda, ast.excepthandler)):
            todo.extend(ast.iter_child_nodes(n))
