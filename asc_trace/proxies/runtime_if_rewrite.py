"""A kernel function whose Python `if` statements can branch on runtime values (pyasc's `scf.if`).

A traced kernel runs its Python once, so `if t >= n:` on a runtime scalar cannot pick a side while
tracing. pyasc reads the kernel's syntax tree; so does this module, once per function: every `if`
statement of the function (not of functions nested in it) becomes

    __asc_t = TEST
    if not isinstance(__asc_t, Scalar):       # a Python value: Python's `if`, unchanged
        if __asc_t: BODY
        else: ORELSE
    else:                                     # a runtime value: both sides traced (proxies/runtime_if.py)
        def __asc_then(x, y): BODY; return (x, y)
        def __asc_else(x, y): ORELSE; return (x, y)
        x, y = branch(__asc_t, __asc_then, __asc_else, ("x", "y"), (x or UNBOUND, y or UNBOUND))

where x, y are the names either side binds. An `if` whose sides `return`, `yield`, `break` /
`continue` out of an enclosing loop, `del` a name or declare `global` / `nonlocal` is left as it is:
on a runtime value it keeps the TraceError that says so. Line numbers are the source file's, so
errors and the scheduler's locations point at the user's lines, and the nested functions' first line
is the kernel's own, so that the source-reading checks (runtime `range` loops, loop-carried names)
read the kernel's source. Without source (exec, a notebook cell gone) the function is used as is.
"""
from __future__ import annotations

import ast
import inspect
import itertools
import types
import weakref
from typing import Any, Callable

_HELPER = "__asc_rif"
_cache: "weakref.WeakKeyDictionary[Any, Callable[..., Any]]" = weakref.WeakKeyDictionary()
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def kernel_callable(fn: Callable[..., Any], helper: Any) -> Callable[..., Any]:
    """`fn` with its `if` statements rewritten (cached), or `fn` itself when there is nothing to
    rewrite or its source cannot be read; the rewritten code calls `helper` (proxies/runtime_if.py).
    A bound method (a kernel written as a method of a class) is its function rewritten, bound again."""
    if isinstance(fn, types.MethodType):
        inner = kernel_callable(fn.__func__, helper)
        return fn if inner is fn.__func__ else types.MethodType(inner, fn.__self__)
    try:
        return _cache[fn]
    except (KeyError, TypeError):
        pass
    out = _rewrite(fn, helper)
    try:
        _cache[fn] = out
    except TypeError:
        pass
    return out


def _walk_scope(nodes: list[ast.stmt]):
    """Every node under `nodes`, not entering nested functions, lambdas or classes."""
    todo = list(nodes)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, _SCOPES):
            continue
        todo.extend(ast.iter_child_nodes(n))


def _unsupported(stmts: list[ast.stmt]) -> bool:
    """A side that leaves the `if` other than by its end, or changes scopes: kept as Python's `if`."""
    for n in _walk_scope(stmts):
        if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.Delete)):
            return True
    # break / continue of a loop outside the `if` (one inside a loop of the side is fine)
    def loose(ns: list[ast.stmt]) -> bool:
        for n in ns:
            if isinstance(n, (ast.Break, ast.Continue)):
                return True
            if isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
                if loose(n.orelse):
                    return True
                continue
            if isinstance(n, _SCOPES):
                continue
            if loose([c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt)]):
                return True
        return False
    return loose(stmts)


def _bound_names(stmts: list[ast.stmt]) -> list[str]:
    """Names the statements bind in the function's scope, in source order."""
    out: dict[str, None] = {}
    for n in sorted(_walk_scope(stmts), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out[n.id] = None
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[n.name] = None
        elif isinstance(n, ast.alias):
            out[(n.asname or n.name).split(".")[0]] = None
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out[n.name] = None
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            out[n.target.id] = None
    return [k for k in out if not k.startswith("__asc_")]


class _IfRewriter(ast.NodeTransformer):
    def __init__(self, first_line: int) -> None:
        self.first_line = first_line        # the nested branch functions' `def` line: the kernel's own
        self.count = itertools.count()
        self.changed = False

    # nested scopes are other functions: a nested @asc.jit helper is rewritten when it is called
    def visit_FunctionDef(self, node):  # noqa: N802
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_If(self, node: ast.If) -> Any:  # noqa: N802
        self.generic_visit(node)            # inner ifs (elif chains included) first
        if _unsupported(node.body + node.orelse):
            return node
        self.changed = True
        node.test = _TestRewriter().visit(node.test)
        k = next(self.count)
        names = _bound_names(node.body + node.orelse)
        t, then, other = f"__asc_t{k}", f"__asc_then{k}", f"__asc_else{k}"
        ins = [f"__asc_in{k}_{i}" for i in range(len(names))]
        lines = [f"{t} = TEST",
                 f"if not {_HELPER}.is_runtime({t}):",
                 "    pass",
                 "else:"]
        for name, i in zip(names, ins):
            lines += ["    try:", f"        {i} = {name}", "    except NameError:", f"        {i} = {_HELPER}.UNBOUND"]
        params = ", ".join(names)
        ret = "(" + "".join(f"{n}, " for n in names) + ")"
        lines += [f"    def {then}({params}):", "        pass", f"        return {ret}",
                  f"    def {other}({params}):", "        pass", f"        return {ret}"]
        call = (f"{_HELPER}.branch({t}, {then}, {other}, {tuple(names)!r}, "
                "(" + "".join(f"{i}, " for i in ins) + "))")
        lines.append(f"    ({''.join(n + ', ' for n in names)}) = {call}" if names else f"    {call}")
        tree = ast.parse("\n".join(lines))
        assign, static_if = tree.body[0], tree.body[1]
        assign.value = node.test
        static_if.body = [ast.If(test=ast.Name(t, ast.Load()), body=node.body, orelse=node.orelse)]
        runtime = static_if.orelse
        defs = [s for s in runtime if isinstance(s, ast.FunctionDef)]
        defs[0].body[0:1] = node.body
        defs[1].body[0:1] = node.orelse or [ast.Pass()]
        _place(tree, node)
        for d in defs:
            d.lineno = d.end_lineno = self.first_line
        return tree.body


class _TestRewriter(ast.NodeTransformer):
    """`and` / `or` / `not` in the test of an `if`: Python's on Python values, on runtime values the
    `&` / `|` / `== 0` of their truth (proxies/runtime_if.py `or_`, `and_`, `not_`)."""

    def visit_Lambda(self, node):  # noqa: N802
        return node                     # another function: its own `and` / `or` are its business

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:  # noqa: N802
        self.generic_visit(node)
        fn = "or_" if isinstance(node.op, ast.Or) else "and_"
        thunks = [ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                             body=v) for v in node.values]
        return ast.copy_location(ast.Call(ast.Attribute(ast.Name(_HELPER, ast.Load()), fn, ast.Load()), thunks, []),
                                 node)

    def visit_Compare(self, node: ast.Compare) -> Any:  # noqa: N802
        """`a < b < c` is `a < b and b < c` with `b` evaluated once; split only when the middle operands
        are names, constants or attributes of names (evaluating them twice changes nothing)."""
        self.generic_visit(node)
        if len(node.ops) < 2 or not all(_plain(c) for c in node.comparators[:-1]):
            return node
        left, parts = node.left, []
        for op, right in zip(node.ops, node.comparators):
            parts.append(ast.copy_location(ast.Compare(left, [op], [right]), node))
            left = right
        return self.visit_BoolOp(ast.copy_location(ast.BoolOp(ast.And(), parts), node))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:  # noqa: N802
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return ast.copy_location(ast.Call(ast.Attribute(ast.Name(_HELPER, ast.Load()), "not_", ast.Load()),
                                          [node.operand], []), node)


def _plain(e: ast.expr) -> bool:
    while isinstance(e, ast.Attribute):
        e = e.value
    return isinstance(e, (ast.Name, ast.Constant))


def _place(tree: ast.Module, node: ast.If) -> None:
    """Generated nodes take the `if`'s position; the user's statements spliced in keep their own."""
    user = set()
    for part in [node.test, *node.body, *node.orelse]:
        user.update(id(n) for n in ast.walk(part))
    for n in ast.walk(tree):
        if id(n) in user or "lineno" not in n._attributes:
            continue
        n.lineno, n.end_lineno = node.lineno, node.lineno
        n.col_offset, n.end_col_offset = node.col_offset, node.col_offset + 2


def _rewrite(fn: Callable[..., Any], helper: Any) -> Callable[..., Any]:
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or code is None or code.co_flags & (inspect.CO_GENERATOR
                                                                                  | inspect.CO_COROUTINE):
        return fn
    try:
        lines, first = inspect.findsource(code)[0], code.co_firstlineno
        block = "".join(inspect.getblock(lines[first - 1:]))
        # an indented definition (a kernel made in a function) is parsed as the body of an `if`, so that
        # columns stay the file's (error carets point at the user's text)
        indented = block[:1] in (" ", "\t")
        tree = ast.parse("if 1:\n" + block if indented else block)
    except (OSError, TypeError, SyntaxError, IndentationError, IndexError):
        return fn
    body = tree.body[0].body if indented and tree.body and isinstance(tree.body[0], ast.If) else tree.body
    if not body or not isinstance(body[0], ast.FunctionDef) or body[0].name != code.co_name:
        return fn
    fdef = body[0]
    tree = ast.Module(body=[fdef], type_ignores=[])
    ast.increment_lineno(tree, first - 1 - (1 if indented else 0))
    rw = _IfRewriter(first)
    fdef.body = [s for stmt in fdef.body for s in _as_list(rw.visit(stmt))]
    if not rw.changed:
        return fn
    fdef.decorator_list = []
    fdef.lineno = first                     # co_firstlineno as the original's (its decorators' line)
    # a factory whose locals are the kernel's free variables, so that the kernel compiles as a closure
    # over them; the real cells are put back below
    free = list(code.co_freevars) + [_HELPER]
    factory = ast.FunctionDef(name="__asc_factory", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(n) for n in free], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[], returns=None)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.copy_location(factory, fdef)
    try:
        compiled = compile(module, code.co_filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return fn
    fcode = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    kcode = next(c for c in fcode.co_consts if isinstance(c, types.CodeType) and c.co_name == code.co_name)
    kcode = _named(kcode, code.co_name, code.co_qualname)
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    cells[_HELPER] = types.CellType(helper)
    closure = tuple(cells[n] for n in kcode.co_freevars)
    new = types.FunctionType(kcode, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(fn.__dict__)
    new.__qualname__, new.__module__, new.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    new.__annotations__ = fn.__annotations__
    new.__asc_original__ = fn       # type: ignore[attr-defined]
    return new


def _named(code: types.CodeType, name: str, qualname: str) -> types.CodeType:
    """The branch functions' code objects carry the kernel's name, so that errors and dumps say
    `in kernel`, not `in __asc_then0`."""
    consts = tuple(_named(c, name, qualname) if isinstance(c, types.CodeType) and c.co_name.startswith("__asc_")
                   else c for c in code.co_consts)
    if code.co_name.startswith("__asc_"):
        return code.replace(co_consts=consts, co_name=name, co_qualname=qualname)
    return code.replace(co_consts=consts)


def _as_list(x: Any) -> list[ast.stmt]:
    return x if isinstance(x, list) else [x]
