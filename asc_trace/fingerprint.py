"""What a traced graph depends on besides its arguments: the code of the kernel and of everything it
calls, and the module globals (and closure cells) that code reads. A launch whose fingerprint
differs from the cached one traces again, because a stale kernel is a silent wrong answer."""
from __future__ import annotations

import enum
import types
from functools import lru_cache
from typing import Any

import numpy as np

from .dtypes import DataType

_SIMPLE = (int, float, str, bytes, bool, complex, type(None))
# Modules whose attributes are library API, not user configuration.
_LIBRARY_PREFIXES = ("asc_trace", "numpy", "torch", "builtins", "math", "typing", "networkx", "os", "sys")


@lru_cache(maxsize=2048)
def global_names(code: types.CodeType) -> tuple[str, ...]:
    """Names a code object (and the functions and comprehensions nested in it) may read."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names.update(global_names(c))
    return tuple(sorted(names))


def fingerprint(fn: types.FunctionType, seen: set[int] | None = None) -> tuple:
    seen = set() if seen is None else seen
    seen.add(id(fn))
    code = fn.__code__
    names = global_names(code)
    g = fn.__globals__
    items: list[Any] = [code]
    for name in names:
        if name in g:
            items.append((name, value_key(g[name], seen, names)))
    if fn.__closure__:
        items.append(tuple(value_key(_cell(c), seen, names) for c in fn.__closure__))
    if fn.__defaults__:
        items.append(tuple(value_key(d, seen, names) for d in fn.__defaults__))
    return tuple(items)


def _cell(c: Any) -> Any:
    try:
        return c.cell_contents
    except ValueError:
        return None


def value_key(v: Any, seen: set[int], names: tuple[str, ...] = (), depth: int = 0) -> Any:
    if isinstance(v, _SIMPLE):
        return (type(v).__name__, v)
    if depth > 6:
        return ("deep", id(v))
    if isinstance(v, (DataType, enum.Enum)):
        return repr(v)
    if isinstance(v, np.generic):
        return ("np", v.dtype.str, v.item())
    if isinstance(v, np.ndarray):
        body = v.tobytes() if v.nbytes <= (1 << 20) else id(v)
        return ("arr", v.dtype.str, v.shape, hash(body))
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, tuple(value_key(x, seen, names, depth + 1) for x in v))
    if isinstance(v, (set, frozenset)):
        return (type(v).__name__, tuple(sorted(repr(value_key(x, seen, names, depth + 1)) for x in v)))
    if isinstance(v, dict):
        return ("dict", tuple((repr(k), value_key(x, seen, names, depth + 1)) for k, x in v.items()))
    jit_fn = getattr(v, "__asc_jit_fn__", None)
    if jit_fn is not None:
        return ("jit", _fn_key(jit_fn, seen), repr(sorted(v.options.items())))
    if isinstance(v, types.FunctionType):
        return ("fn", _fn_key(v, seen))
    if isinstance(v, types.ModuleType):
        mod = v.__name__
        if mod.startswith(_LIBRARY_PREFIXES):
            return ("mod", mod)
        # `config.TILE` reads an attribute of a user module: include the attributes the code names
        return ("mod", mod, tuple((n, value_key(getattr(v, n), seen, (), depth + 1)) for n in names
                                  if hasattr(v, n) and isinstance(getattr(v, n), _SIMPLE + (tuple,))))
    if isinstance(v, type):
        return ("cls", v.__module__, v.__qualname__)
    if isinstance(v, (types.BuiltinFunctionType, types.MethodType)):
        return ("bfn", getattr(v, "__qualname__", repr(v)), id(v))
    return ("obj", type(v).__qualname__, id(v))


def _fn_key(fn: types.FunctionType, seen: set[int]) -> Any:
    if id(fn) in seen:
        return ("rec", fn.__qualname__)
    return fingerprint(fn, seen)
