"""What a traced graph depends on besides its arguments, so that a launch never reuses a stale kernel.

A launch compares the kernel's fingerprint with the one its cached graph was traced under and
traces again when they differ. The fingerprint captures (docs/caching.md):

- the code of the kernel and of every function, method and @asc.jit sub-kernel it reaches, with their
  default arguments and closure cells;
- every global those functions load (a name used only as an attribute, `asc.add`, is not one), by value: numbers (bit for bit, so -0.0 is not 0.0), strings,
  NumPy scalars and arrays (their bytes), and the elements of tuples, lists, sets and dicts;
- the attributes that the code names (`cfg.tile`, `Config.TILE`, `mod.TILE`, `ns.field`) of user
  objects, classes, SimpleNamespaces and user modules, recursively, including properties and the
  methods the code calls (whose own code and `self.x` reads are captured the same way);
- library modules (numpy, torch, math, asc_trace, ...) by name only: their contents count as API; a
  library function by its name, closure cells and defaults (not the library state its code reads).

A value that cannot be captured this way (an object of a C extension type that is not a number or
an array, a structure nested deeper than 32 levels, a name read through `getattr(obj, name_string)`
is simply not seen) makes the fingerprint *unstable*: it never equals another, so the kernel is
traced again at every launch instead of being reused.
"""
from __future__ import annotations

import dis
import enum
import functools
import operator
import types
import weakref
from functools import lru_cache
from typing import Any

import numpy as np

from .dtypes import DataType

_SIMPLE = (int, str, bytes, bool, complex, type(None))
# Modules (and their sub-modules) whose attributes are library API, not user configuration.
_LIBRARY = frozenset({"asc_trace", "numpy", "torch", "torch_npu", "builtins", "math", "typing", "networkx", "os",
                      "sys", "functools", "itertools", "operator", "collections", "dataclasses", "enum",
                      "hypothesis", "pytest"})
MAX_DEPTH = 32


class Unstable:
    """A part of the fingerprint that cannot be compared: unequal to everything, itself included."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Unstable({self.why})"


@lru_cache(maxsize=2048)
def global_names(code: types.CodeType) -> tuple[str, ...]:
    """Names a code object (and the functions and comprehensions nested in it) may read: globals and
    attribute names alike (both live in co_names). The attribute part is what an object's `_attrs` looks
    at; which globals a function reads is `loaded_globals`."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names.update(global_names(c))
    return tuple(sorted(names))


# The instructions that read a module global by name. LOAD_NAME is a class body's (or module code's) read,
# which falls back to the globals. co_names alone would also hold every attribute name (`asc.add` puts
# `add` there), so a module global that merely shares an attribute's name would enter the fingerprint.
_GLOBAL_READS = frozenset({dis.opmap[op] for op in ("LOAD_GLOBAL", "LOAD_NAME") if op in dis.opmap})


@lru_cache(maxsize=2048)
def loaded_globals(code: types.CodeType) -> tuple[str, ...]:
    """The global names a code object (and the functions, classes and comprehensions nested in it) loads."""
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opcode in _GLOBAL_READS}
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names.update(loaded_globals(c))
    return tuple(sorted(names))


def fingerprint(fn: types.FunctionType, seen: set[int] | None = None) -> tuple:
    seen = set() if seen is None else seen
    seen.add(id(fn))
    code = fn.__code__
    names = global_names(code)
    g = fn.__globals__
    items: list[Any] = [code]
    for name in loaded_globals(code):
        if name in g:
            items.append((name, value_key(g[name], seen, names)))
    # every part after the code is (label, key): a global's name, or <...> for the parts with no name, so a
    # recompilation can say which one changed (recompile_watch.py)
    if fn.__closure__:
        items += ((f"<free {v}>", value_key(_cell(c), seen, names)) for v, c in zip(code.co_freevars, fn.__closure__))
    if fn.__defaults__:
        items.append(("<defaults>", tuple(value_key(d, seen, names) for d in fn.__defaults__)))
    if fn.__kwdefaults__:
        items.append(("<kwdefaults>",
                      tuple((k, value_key(d, seen, names)) for k, d in sorted(fn.__kwdefaults__.items()))))
    return tuple(items)


def _cell(c: Any) -> Any:
    try:
        return c.cell_contents
    except ValueError:
        return None


def _is_library(module_name: str | None) -> bool:
    return bool(module_name) and module_name.split(".", 1)[0] in _LIBRARY  # type: ignore[union-attr]


def value_key(v: Any, seen: set[int], names: tuple[str, ...] = (), depth: int = 0) -> Any:
    """A comparable key of `v` as a kernel's trace can see it (see the module docstring)."""
    if isinstance(v, float):
        return ("float", v.hex())
    if isinstance(v, _SIMPLE):
        return (type(v).__name__, v)
    if depth > MAX_DEPTH:
        return Unstable("nested too deep")
    if isinstance(v, (DataType, enum.Enum)):
        return repr(v)
    if isinstance(v, np.generic):
        return ("np", v.dtype.str, v.tobytes())
    if isinstance(v, np.ndarray):
        return ("arr", v.dtype.str, v.shape, hash(np.ascontiguousarray(v).tobytes()))
    d = depth + 1
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, tuple(value_key(x, seen, names, d) for x in v))
    if isinstance(v, (set, frozenset)):
        keys = [value_key(x, seen, names, d) for x in v]
        if any(_unstable(k) for k in keys):
            return Unstable("set element")
        return (type(v).__name__, tuple(sorted(repr(k) for k in keys)))
    if isinstance(v, dict):
        return ("dict", tuple((repr(k), value_key(x, seen, names, d)) for k, x in v.items()))
    jit_fn = getattr(v, "__asc_jit_fn__", None)
    if jit_fn is not None:
        return ("jit", _fn_key(jit_fn, seen), repr(sorted(v.options.items())))
    if isinstance(v, types.FunctionType):
        if _is_library(v.__module__):
            return ("lfn", v.__module__, v.__qualname__, _library_fn_parts(v, seen, d))
        return ("fn", _fn_key(v, seen))
    if isinstance(v, types.MethodType):            # obj.method: its code, and what it reads of obj
        func = v.__func__
        return ("meth", _fn_key(func, seen) if isinstance(func, types.FunctionType) else repr(func),
                _attrs(v.__self__, seen, _code_names(func), d))
    if isinstance(v, functools.partial):
        return ("partial", value_key(v.func, seen, names, d), value_key(v.args, seen, names, d),
                value_key(v.keywords, seen, names, d))
    if isinstance(v, (property, staticmethod, classmethod)):
        inner = v.fget if isinstance(v, property) else v.__func__
        return ("descr", value_key(inner, seen, names, d))
    if isinstance(v, types.ModuleType):
        if _is_library(v.__name__):
            return ("mod", v.__name__)
        return ("mod", v.__name__, _attrs(v, seen, names, d))
    if isinstance(v, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        owner = getattr(v, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            return ("bfn", getattr(v, "__module__", None), v.__qualname__)
        return Unstable(f"method {v.__qualname__} of a {type(owner).__name__}")
    if isinstance(v, type):
        if _is_library(v.__module__):
            return ("cls", v.__module__, v.__qualname__)
        return ("cls", v.__module__, v.__qualname__, _attrs(v, seen, names, d))
    if _is_library(type(v).__module__) or not hasattr(v, "__dict__") and not hasattr(type(v), "__slots__"):
        return Unstable(f"a {type(v).__qualname__} object")
    # a user object (a SimpleNamespace, a dataclass, any class instance): the attributes the code names
    if id(v) in seen:
        return ("cycle", type(v).__qualname__)
    seen.add(id(v))
    try:
        return ("obj", type(v).__module__, type(v).__qualname__, _attrs(v, seen, names, d))
    finally:
        seen.discard(id(v))


def _library_fn_parts(fn: types.FunctionType, seen: set[int], depth: int) -> tuple:
    """A library function (`asc.adv.gelu` held in a kernel's closure or global) by name, like a library
    module: its code and the globals it reads are API. Walking them instead reached the package's own
    caches (the source-position cache of proxies/source_loc.py, up to 100,000 entries), a cost that grew
    with every kernel the process had traced. Its closure cells and defaults still count: they tell apart
    two functions one library factory made."""
    if id(fn) in seen:
        return ("rec",)
    seen.add(id(fn))
    try:
        cells = tuple(value_key(_cell(c), seen, (), depth) for c in fn.__closure__ or ())
        defaults = tuple(value_key(x, seen, (), depth) for x in fn.__defaults__ or ())
        kwdefaults = tuple((k, value_key(x, seen, (), depth)) for k, x in sorted((fn.__kwdefaults__ or {}).items()))
    finally:
        seen.discard(id(fn))
    return cells, defaults, kwdefaults


def _attrs(obj: Any, seen: set[int], names: tuple[str, ...], depth: int) -> tuple:
    """(name, key) of each attribute of `obj` that `names` mentions; a name the object does not have is
    recorded as missing (adding it later changes the key)."""
    out = []
    for n in names:
        try:
            val = getattr(obj, n)
        except AttributeError:
            continue
        except Exception:  # noqa: BLE001 - a property that raises: cannot be captured
            out.append((n, Unstable(f"attribute {n} raised")))
            continue
        out.append((n, value_key(val, seen, names, depth)))
    return tuple(out)


def _code_names(func: Any) -> tuple[str, ...]:
    code = getattr(func, "__code__", None)
    return global_names(code) if code is not None else ()


def _unstable(k: Any) -> bool:
    if isinstance(k, Unstable):
        return True
    if isinstance(k, tuple):
        return any(_unstable(x) for x in k)
    return False


def _fn_key(fn: types.FunctionType, seen: set[int]) -> Any:
    if id(fn) in seen:
        return ("rec", fn.__qualname__)
    return fingerprint(fn, seen)


# -- a launch's check, without walking the kernel's globals again -----------------------------------------

_MISSING = object()
# Values whose key is a function of the object alone and that cannot change in place: while a name is
# bound to the same one, its part of the fingerprint is the same.
_IMMUTABLE = (int, float, str, bytes, bool, complex, type(None), DataType, enum.Enum)
_SNAPSHOTS: "weakref.WeakKeyDictionary[types.FunctionType, tuple]" = weakref.WeakKeyDictionary()
_MISSINGS: tuple = (_MISSING,) * 64      # each name lookup's default, for map() (it stops at the names' end)


def _grow_missings(n: int) -> None:
    global _MISSINGS
    _MISSINGS = (_MISSING,) * n


def launch_fingerprint(fn: types.FunctionType) -> tuple:
    """`fingerprint(fn)`, reused while the kernel's code is the same and every name its code may read
    is bound (or not) as before, to the same immutable value (a number, a string, a dtype, a library
    module). A kernel that reads anything else (a helper function, a user object, a list) or has a
    closure or defaults is fingerprinted in full at every launch, as before."""
    snap = _SNAPSHOTS.get(fn)
    if snap is not None:
        code, globs, names, values, result = snap
        # identity, name by name, in C loops (a generator here costs more than the rest of the check)
        if (fn.__code__ is code and fn.__globals__ is globs
                and all(map(operator.is_, map(globs.get, names, _MISSINGS), values))):
            return result
    result = fingerprint(fn)
    items = _immutable_bindings(fn)
    if items is not None:
        names = tuple(n for n, _ in items)
        if len(names) > len(_MISSINGS):
            _grow_missings(len(names))
        _SNAPSHOTS[fn] = (fn.__code__, fn.__globals__, names, tuple(v for _, v in items), result)
    else:
        _SNAPSHOTS.pop(fn, None)
    return result


def _immutable_bindings(fn: types.FunctionType) -> tuple | None:
    if fn.__closure__ or fn.__defaults__ or fn.__kwdefaults__:
        return None
    g = fn.__globals__
    items = []
    for name in loaded_globals(fn.__code__):
        v = g.get(name, _MISSING)
        if not (v is _MISSING or isinstance(v, _IMMUTABLE)
                or (isinstance(v, types.ModuleType) and _is_library(v.__name__))):
            return None
        items.append((name, v))
    return tuple(items)
