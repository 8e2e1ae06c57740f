"""A kernel whose Python rebinds state that outlives it, at every run, is refused while it is traced.

A kernel's Python runs when it is traced: once per compilation on sim, cpp, cpu_debug and the NPU
(where nothing of the Python is left), but eager traces it and then runs it again on every core of
every launch. A kernel (or a helper it calls) that doubles a module global or rebinds a `nonlocal` of
the function that made it would therefore leave different Python state, and compute with different
values, on eager than elsewhere - silently. Runtime regions already refuse this for their bodies
(proxies/python_state.py); this is the same rule for the kernel's Python as a whole, for rebinding: a
module global of the kernel or of any function it reaches (through the globals it loads and its closure
cells), or a closure cell of one of them, that the trace rebinds is a TraceError on every backend alike,
at the line that stores it.

Except when it changes nothing more the next time: a helper that binds a global on its first call
(`if _TABLE is None: _TABLE = build()`) gives every later run, eager's included, the same values. So a
trace that rebound something is run once more (only then: a kernel that rebinds nothing pays one copy of
its modules' namespaces and one comparison, about 10 us), and the kernel is refused only when that second
trace rebinds something again; its graph is the one kept, since it saw the state every later run sees.

The same holds for mutating in place a list, dict, set, array, iterator or user object made outside the
kernel and reached from it (through the globals it and its helpers name, or their closure cells):
`seen.append(n)`, `scale[0] *= 2`, `d.update(...)`, `next(it)`, `COUNTER.n += 1` change once per compilation
on sim and cpp but once per core and launch on eager. Compared by value snapshots
(proxies/python_containers.py); refused by the same two-trace rule, at the line that mutates it, so a
cache a helper fills on its first call (`_CACHE.setdefault(key, build())`) stays allowed. Objects the
kernel makes itself (a list of tensors it builds) are new at every run and not watched. A ConstExpr argument
is the caller's own object, the same one at every trace and every eager run (a list or dict cannot be one:
it is not hashable, refused at launch; a user object holding one can), so it is watched as a global is.
"""
from __future__ import annotations

import dis
import linecache
import re
import types
from functools import lru_cache
from typing import Any

from ..errors import TraceError
from ..graph.source_loc import SourceLoc
from .python_containers import Snapshot, _library
from .source_loc import loc_of_def

_MISSING = object()
_GLOBAL_READS = frozenset({dis.opmap[op] for op in ("LOAD_GLOBAL", "LOAD_NAME") if op in dis.opmap})
MAX_FUNCTIONS = 200


class _Watched:
    """The bindings of every module namespace and closure cell of the kernel and of the functions it reaches
    through the globals it loads and its closure cells (helpers, @asc.jit sub-kernels, methods of classes)."""

    def __init__(self, fn: types.FunctionType, args: dict[str, Any] | None = None) -> None:
        self.namespaces: dict[int, tuple[dict[str, Any], dict[str, Any], str]] = {}
        self.cells: list[tuple[types.CellType, Any, str, types.FunctionType]] = []
        self.functions: list[types.FunctionType] = []
        self.args = frozenset(args or ())
        self.contents = Snapshot.of_function(fn, args)
        seen: set[int] = set()
        todo = [fn]
        while todo and len(self.functions) < MAX_FUNCTIONS:
            f = todo.pop()
            if id(f.__code__) in seen or _library(f.__globals__.get("__name__")):
                continue
            seen.add(id(f.__code__))
            self._note(f)
            g = f.__globals__
            reached = [g[n] for n in _loaded(f.__code__) if n in g]
            reached += list(_cells(f).values())
            for v in reached:
                v = getattr(v, "__asc_jit_fn__", v)
                if isinstance(v, types.MethodType):
                    v = v.__func__
                if isinstance(v, type) and not _library(v.__module__):
                    todo += [m for m in vars(v).values() if isinstance(m, types.FunctionType)]
                elif isinstance(v, types.FunctionType):
                    todo.append(v)

    def _note(self, fn: types.FunctionType) -> None:
        self.functions.append(fn)
        g = fn.__globals__
        if id(g) not in self.namespaces:
            self.namespaces[id(g)] = (g, dict(g), str(g.get("__name__", "?")))
        for name, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                self.cells.append((c, c.cell_contents, name, fn))
            except ValueError:
                self.cells.append((c, _MISSING, name, fn))

    def rebound(self) -> tuple[str, str] | None:
        """(the name, what it is) of the first global or closure cell the trace rebound, or None."""
        for g, before, module in self.namespaces.values():
            for name in sorted(set(before) | set(g)):
                if name.startswith("__") or g.get(name, _MISSING) is before.get(name, _MISSING):
                    continue
                if isinstance(before.get(name), types.ModuleType) or isinstance(g.get(name), types.ModuleType):
                    continue        # an import the kernel's module makes lazily (`global np; import numpy`) is no state
                return name, f"a global of module {module}"
        for c, old, name, fn in self.cells:
            try:
                now = c.cell_contents
            except ValueError:
                now = _MISSING
            if now is not old:
                return name, f"a variable of the function that made {fn.__qualname__} (a closure cell)"
        return None

    def mutated(self) -> tuple[str, str, str] | None:
        """(the path, what changed, through which function) of the first object made outside the kernel
        that the trace mutated in place, or None."""
        return self.contents.changed()


def watch(fn: Any, args: dict[str, Any] | None = None) -> _Watched | None:
    """The state a kernel function's trace must leave as it found (None: not a plain Python function).
    `args`: the kernel's parameters bound to objects the caller made (its ConstExpr arguments), by name."""
    return _Watched(fn, args) if isinstance(fn, types.FunctionType) else None


def changed_any(held: _Watched | None) -> bool:
    return held is not None and (held.rebound() is not None or held.mutated() is not None)


def check_unchanged(held: _Watched | None, fn: Any, name: str) -> None:
    """Refuse the kernel when its second trace changed Python state made before it again (see the module
    docstring)."""
    if held is None:
        return
    found = held.rebound()
    if found is not None:
        var, what = found
        loc = _store_line(held.functions, var) or loc_of_def(fn)
        _refuse(name, f"rebinds `{var}` ({what})", loc, var)
    mutated = held.mutated()
    if mutated is not None:
        path, what, where = mutated
        root = re.match(r"[A-Za-z_]\w*", path)
        var = root.group(0) if root else path
        via = f", reached through `{where.removeprefix('seen by ')}`" if where else ""
        arg = var in held.args and not where
        loc = _mutation_line(held.functions, var, param=arg) or loc_of_def(fn)
        made = "a ConstExpr argument, a Python object made outside the kernel" if arg else \
            "a Python object made outside the kernel"
        hint = (f"pass `{var}` unchanged (compute what changes outside the kernel, before the launch), or copy what "
                "the kernel changes into a local object first") if arg else None
        _refuse(name, f"changes `{path}` in place ({what}; `{var}` is {made}{via})", loc, var, hint)


def _refuse(name: str, change: str, loc: SourceLoc | None, var: str, hint: str | None = None) -> None:
    raise TraceError(f"kernel {name}'s Python {change} at every run (traced twice, it changed it both times): a "
                     "kernel's Python runs once per compilation on sim, cpp and the NPU, but on every core of every "
                     "launch on eager, so the backends would see different values", loc,
                     hint=hint or f"compute `{var}` outside the kernel and pass what the kernel needs as an argument "
                                  "(a runtime int/float, or an asc.ConstExpr), or keep the state local to the kernel")


def _store_line(functions: list[types.FunctionType], var: str) -> SourceLoc | None:
    """Where one of the traced functions stores `var` as a global or a cell (the user's line to show)."""
    for fn in functions:
        for code in _codes(fn.__code__):
            for ins in dis.get_instructions(code):
                if ins.opname in ("STORE_GLOBAL", "STORE_DEREF", "DELETE_GLOBAL") and ins.argval == var \
                        and ins.positions is not None and ins.positions.lineno is not None:
                    line = ins.positions.lineno
                    text = linecache.getline(code.co_filename, line).rstrip("\n")
                    return SourceLoc(code.co_filename, line, code.co_name, text,
                                     ins.positions.col_offset if ins.positions.col_offset is not None else -1,
                                     ins.positions.end_col_offset if ins.positions.end_col_offset is not None else -1)
    return None


# what changes an object in place: stores into it, and calls of the mutating methods of lists, dicts, sets,
# deques and arrays (an attribute load of that name on the object's line) or of next()
_MUTATING_OPS = frozenset({"STORE_SUBSCR", "DELETE_SUBSCR", "STORE_ATTR", "DELETE_ATTR", "STORE_SLICE"})
# (Python's container methods, written as one string: they are no asc op names, whatever they share)
_MUTATING_METHODS = frozenset("append extend insert pop popitem remove clear update setdefault add discard sort "
                              "reverse appendleft extendleft popleft rotate fill put resize __setitem__ "
                              "__delitem__ __setattr__ send difference_update intersection_update "
                              "symmetric_difference_update".split())
_NAME_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"})


def _mutation_line(functions: list[types.FunctionType], var: str, param: bool = False) -> SourceLoc | None:
    """The line of one of the traced functions that loads `var` (a global or a cell; with `param`, the
    kernel's parameter of that name) and mutates something on that line (the user's line to show); failing
    that, the first line that loads it."""
    first: tuple[types.CodeType, dis.Instruction] | None = None
    loads_of = _NAME_LOADS | {"LOAD_FAST", "LOAD_FAST_CHECK"} if param else _NAME_LOADS
    for fn in functions[:1] if param else functions:
        for code in _codes(fn.__code__):
            by_line: dict[int, list[dis.Instruction]] = {}
            for ins in dis.get_instructions(code):
                if ins.positions is not None and ins.positions.lineno is not None:
                    by_line.setdefault(ins.positions.lineno, []).append(ins)
            for line, group in by_line.items():
                loads = [i for i in group if i.opname in loads_of and i.argval == var]
                if not loads:
                    continue
                first = first or (code, loads[0])
                if any(i.opname in _MUTATING_OPS or (i.opname in ("LOAD_ATTR", "LOAD_METHOD")
                                                     and i.argval in _MUTATING_METHODS)
                       or (i.opname == "LOAD_GLOBAL" and i.argval == "next") for i in group):
                    return _loc(code, loads[0])
    return _loc(*first) if first is not None else None


def _loc(code: types.CodeType, ins: dis.Instruction) -> SourceLoc:
    p = ins.positions
    line = p.lineno
    text = linecache.getline(code.co_filename, line).rstrip("\n")
    return SourceLoc(code.co_filename, line, code.co_name, text,
                     p.col_offset if p.col_offset is not None else -1,
                     p.end_col_offset if p.end_col_offset is not None else -1)


@lru_cache(maxsize=2048)
def _loaded(code: types.CodeType) -> frozenset[str]:
    """The global names a code object and the code nested in it load (not attribute names)."""
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opcode in _GLOBAL_READS}
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _loaded(c)
    return frozenset(names)


def _cells(fn: types.FunctionType) -> dict[str, Any]:
    out = {}
    for name, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = c.cell_contents
        except ValueError:
            pass
    return out


def _codes(code: types.CodeType):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)
