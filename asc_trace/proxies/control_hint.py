"""The hint of the TraceError for a Python `if` / `while` / `and` / `or` / `not` / `bool()` on a runtime
value: the asc.cond / asc.while_loop form of the user's own line, written from its source.

    if t < n:              ->  x = asc.cond(t < n, lambda: ..., lambda: ...)
    while k < n and s > 0: ->  k, s = asc.while_loop(lambda k, s: (k < n) & (s > 0), body, (k, s))

Runtime conditions combine with `&`, `|` and `== 0` (`and`, `or` and `not` ask Python for a
truth value), so the condition is rewritten that way. When the source cannot be read (exec'd code,
a condition the parser does not find) the hint is the general one.
"""
from __future__ import annotations

import ast
import linecache
from functools import lru_cache

from ..graph.source_loc import SourceLoc

GENERAL = ("the value is only known when the kernel runs: choose at run time with asc.cond(pred, true_fn, false_fn), "
           "loop with asc.while_loop(cond_fn, body_fn, init), combine runtime conditions with `&`, `|` and "
           "`== 0` instead of `and`, `or` and `not`; or branch on an asc.ConstExpr parameter or a Python constant")


def bool_hint(loc: SourceLoc) -> str:
    """The hint for asking Python for the truth value of a runtime scalar at `loc`."""
    try:
        node = _construct_at(loc.file, loc.line)
    except (SyntaxError, ValueError, RecursionError):
        node = None
    if isinstance(node, ast.If):
        return _if_hint(node)
    if isinstance(node, ast.While):
        return _while_hint(node)
    if isinstance(node, ast.IfExp):
        return ("a Python conditional expression runs once while tracing; for a choice at run time write "
                f"`asc.cond({_cond_text(node.test)}, lambda: {ast.unparse(node.body)}, "
                f"lambda: {ast.unparse(node.orelse)})`")
    if isinstance(node, (ast.BoolOp, ast.UnaryOp)):
        return ("`and`, `or` and `not` ask Python for a truth value; combine runtime conditions as "
                f"`{_cond_text(node)}` instead (`&`, `|`, `== 0`)")
    return GENERAL


_IF_TAIL = ("; a Python `if` on a runtime value is traced as such only in a function whose source can be read and "
            "when its sides do not `return`, `yield`, `break` / `continue` out of a loop around the `if`, `del` a "
            "name or declare `global` / `nonlocal`; a chained comparison splits only when its middle operands are names or constants (docs/control-flow.md); a choice known while tracing (an "
            "asc.ConstExpr parameter, a Python constant) stays a Python `if`")
_WHILE_TAIL = "; a loop whose trip count is known while tracing can stay a Python loop or use asc.static_range"


def _if_hint(node: ast.If) -> str:
    return _if_text(node) + _IF_TAIL


def _while_hint(node: ast.While) -> str:
    return _while_text(node) + _WHILE_TAIL


def _if_text(node: ast.If) -> str:
    cond = _cond_text(node.test)
    outs = _assigned(node.body + node.orelse)
    if outs:
        lhs = ", ".join(outs)
        ret = lhs if len(outs) == 1 else f"({lhs})"
        return (f"a Python `if` runs once while tracing; for a choice at run time write `{lhs} = asc.cond({cond}, "
                f"lambda: ..., lambda: ...)`: both branches are traced, the taken one runs, and each returns "
                f"{ret} (the same scalars); longer branches are functions (`def then(): ...; return {lhs}`)")
    if not node.orelse:
        return (f"a Python `if` runs once while tracing; for a choice at run time write `asc.cond({cond}, then, "
                "lambda: None)` with the if-block in `def then(): ...` (traced once, run when the condition holds)")
    return (f"a Python `if` runs once while tracing; for a choice at run time write `asc.cond({cond}, then, "
            "otherwise)` with the if-block in `def then(): ...` and the else-block in `def otherwise(): ...` "
            "(both traced, the taken one runs)")


def _while_text(node: ast.While) -> str:
    cond = _cond_text(node.test)
    changed = _assigned(node.body)
    tested = [n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)]
    carried = [n for n in dict.fromkeys(tested) if n in changed] or changed or ["x"]
    names = ", ".join(carried)
    init = carried[0] if len(carried) == 1 else f"({names})"
    ret = names if len(carried) == 1 else f"({names})"
    return (f"a Python `while` runs while tracing; for a loop at run time write `{names} = asc.while_loop(lambda "
            f"{names}: {cond}, body, {init})` with the loop body in `def body({names}): ...; return {ret}`: the "
            "values the loop changes are carried, cond_fn and body_fn take them and body_fn returns their next "
            "values")


def _assigned(stmts: list[ast.stmt]) -> list[str]:
    """Names the statements assign (not inside nested functions), in order of first appearance."""
    out: dict[str, None] = {}

    def visit(n: ast.AST) -> None:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.setdefault(n.id)
        for c in ast.iter_child_nodes(n):
            visit(c)
    for s in stmts:
        visit(s)
    return list(out)


class _Runtime(ast.NodeTransformer):
    """`a and b` -> `a & b`, `a or b` -> `a | b`, `not a` -> `a == 0`, `a < b < c` -> `(a < b) & (b < c)`."""

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        vals = [self.visit(v) for v in node.values]
        op = ast.BitAnd() if isinstance(node.op, ast.And) else ast.BitOr()
        out = vals[0]
        for v in vals[1:]:
            out = ast.BinOp(out, op, v)
        return out

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        if isinstance(node.op, ast.Not):
            return ast.Compare(self.visit(node.operand), [ast.Eq()], [ast.Constant(0)])
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        if len(node.ops) == 1:
            return self.generic_visit(node)
        parts, left = [], node.left
        for op, right in zip(node.ops, node.comparators):
            parts.append(ast.Compare(left, [op], [right]))
            left = right
        out: ast.AST = parts[0]
        for p in parts[1:]:
            out = ast.BinOp(out, ast.BitAnd(), p)
        return out


def _cond_text(test: ast.expr) -> str:
    import copy
    return ast.unparse(ast.fix_missing_locations(_Runtime().visit(copy.deepcopy(test))))


@lru_cache(maxsize=64)
def _tree(path: str, text: str) -> ast.Module:
    return ast.parse(text, path)


def _construct_at(path: str, line: int) -> ast.AST | None:
    """The innermost if / while statement whose condition spans `line` (else a conditional expression,
    `and` / `or` or `not` there)."""
    lines = linecache.getlines(path)
    if not lines or line <= 0:
        return None
    tree = _tree(path, "".join(lines))
    best: ast.AST | None = None
    best_rank = None
    for n in ast.walk(tree):
        if isinstance(n, (ast.If, ast.While)):
            span, rank = n.test, 1
        elif isinstance(n, (ast.IfExp, ast.BoolOp)) or (isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not)):
            span, rank = n, 0
        else:
            continue
        if span.lineno <= line <= (span.end_lineno or span.lineno):
            key = (rank, span.lineno, span.col_offset)
            if best_rank is None or key > best_rank:
                best, best_rank = n, key
    return best
