"""Python objects a traced region mutates in place: `scale[0] = scale[0] * 2.0`, `d.update(...)`,
`lst.append(...)`, `next(it)` on an iterator made outside, `obj.attr = ...` on an object made outside.

A runtime loop's body and the branches of asc.cond / the body of asc.while_loop are traced once, so
such a change would happen once (or once per branch) while eager, which runs the Python, does it n
times: the backends would silently differ. proxies/python_state.py refuses *rebinding* a name; this
module refuses *mutation*, by value snapshots taken before the region is traced and compared after.

What is watched (the roots): the objects bound to the locals of the function holding the region
(cells and free variables included), the globals its code names, and, through every Python function
reached that way (a helper, a method of a user object), that function's closure cells, the globals
it names, its defaults and its attributes; the object behind a bound method; a user class's own
attributes (of a class the code names, or of a user object's class). From each root the snapshot follows lists, tuples, dicts, sets, bytearrays, NumPy arrays
(their bytes, up to 4 MB), user objects' attributes and iterators (their pickling state, or a
generator's position and locals), array.array's bytes, a functools.partial's function and arguments,
and a user function met inside a container (its defaults, attributes and closure cells).

What is not a change: asc_trace's own objects (tensors, queues) are API and their attributes are
left out; a user object's attribute rebound from one tensor to another is not a Python value.

Random generators (random.Random, the `random` module's own, NumPy's Generator and RandomState) are
compared by their state, and an unbounded functools.lru_cache / functools.cache helper by the results it
keeps (what a kernel reaches through a call of it).

Limits (documented in docs/scheduler-aliasing.md): state reached only through a library module, a bounded
lru_cache's results (kept in C links Python cannot read), an object of a C extension type other than the
kinds above, an iterator that neither pickles its state
nor is a generator, an array over 4 MB, or more than 20 000 objects in all is not compared; a
generator advanced by a whole cycle of an identical loop (same position, same locals) is not seen.
"""
from __future__ import annotations

import array
import functools
import gc
import hashlib
import random
import sys
import types
import warnings
from typing import Any

import numpy as np

from .scalar import Scalar

_LIBRARY = frozenset({"asc_trace", "numpy", "torch", "torch_npu", "builtins", "math", "typing", "networkx",
                      "os", "sys", "functools", "itertools", "operator", "collections", "dataclasses", "enum",
                      "hypothesis", "pytest", "inspect", "re", "abc"})
_SIMPLE = (bool, int, str, bytes, complex, type(None))
MAX_OBJECTS = 20_000
MAX_ARRAY_BYTES = 4 << 20
PROXY = ("proxy",)


def _library(module: Any) -> bool:
    return isinstance(module, str) and module.split(".", 1)[0] in _LIBRARY


def _is_proxy(v: Any) -> bool:
    """asc_trace's own objects (tensors, queues, dtypes): API, not Python state."""
    return str(type(v).__module__).startswith("asc_trace") and not isinstance(v, Scalar)


class Snapshot:
    """Value tokens of every object reachable from a region's roots, taken before the region runs."""

    def __init__(self, frame: types.FrameType | None) -> None:
        self.roots: list[tuple[str, str, Any]] = []
        self._ids: set[int] = set()
        self.alive: list[Any] = []          # keeps compared objects alive, so their ids stay theirs
        self._codes: set[int] = set()
        if frame is not None:
            self._add_scope(frame.f_locals, frame.f_globals, frame.f_code, "")
        self.tokens = [self._token(v) for _, _, v in self.roots]

    @classmethod
    def of_function(cls, fn: types.FunctionType, args: dict[str, Any] | None = None) -> Snapshot:
        """The objects a whole kernel could mutate that outlive it: its closure cells, the globals it names,
        and those of the functions it reaches (its own locals are made at every run, so they are free), and
        `args`, the objects the caller passes in as they are (ConstExpr arguments: the same object at every
        trace and every eager run)."""
        snap = cls(None)
        if args:
            # first, so that an object that is also a global is named as the kernel's parameter
            snap._add_scope(dict(args), {}, fn.__code__, "")
        snap._add_function(fn)
        snap.tokens = [snap._token(v) for _, _, v in snap.roots]
        return snap

    # -- the roots --------------------------------------------------------------------------------
    def _add_scope(self, local: dict[str, Any], glob: dict[str, Any], code: types.CodeType, where: str) -> None:
        named = [(n, v) for n, v in local.items()]
        named += [(n, glob[n]) for n in sorted(_names(code)) if n in glob and n not in local]
        later: list[types.FunctionType] = []
        for name, v in named:     # the scope's own objects first, so they are named as the user wrote them
            if isinstance(v, types.MethodType):
                # the object a bound method mutates through `self` outlives the kernel like the method
                owner = v.__self__
                if not (isinstance(owner, (types.ModuleType, type)) or _is_proxy(owner)) and id(owner) not in self._ids:
                    self._ids.add(id(owner))
                    self.roots.append((f"{name}.__self__", where, owner))
                v = v.__func__
            if isinstance(v, types.FunctionType):
                later.append(v)
            elif v is random:
                # `random.randint(...)`: the module's functions draw from its hidden generator
                if id(random._inst) not in self._ids:      # type: ignore[attr-defined]
                    self._ids.add(id(random._inst))        # type: ignore[attr-defined]
                    self.roots.append((name, where, random._inst))    # type: ignore[attr-defined]
            elif isinstance(v, type):
                view = _user_class_view(v)
                if view is not None and id(v) not in self._ids:
                    self._ids.add(id(v))
                    self.roots.append((name, where, view))
            elif isinstance(v, types.ModuleType):
                view = _user_module_view(v, code)
                if view is not None and id(v) not in self._ids:
                    self._ids.add(id(v))
                    self.roots.append((name, where, view))
                    later.extend(f for f in view.values() if isinstance(f, types.FunctionType))
            elif not (isinstance(v, (types.ModuleType, type)) or _is_proxy(v)
                      or isinstance(v, _SIMPLE + (float, Scalar))) and id(v) not in self._ids:
                self._ids.add(id(v))
                self.roots.append((name, where, v))
                later.extend(f for f in vars(type(v)).values() if isinstance(f, types.FunctionType))
                view = _user_class_view(type(v))     # `type(self).count += 1`: the class's own attributes
                if view is not None and id(type(v)) not in self._ids:
                    self._ids.add(id(type(v)))
                    self.roots.append((f"type({name})", where, view))
        for fn in later:
            self._add_function(fn)

    def _add_function(self, fn: types.FunctionType) -> None:
        if id(fn.__code__) in self._codes or len(self._codes) > 200 or _library(fn.__globals__.get("__name__")):
            return
        self._codes.add(id(fn.__code__))
        cells = {}
        for name, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                cells[name] = c.cell_contents
            except ValueError:
                pass
        self._add_scope(cells, fn.__globals__, fn.__code__, f"seen by {fn.__qualname__}")
        # a mutable default (`def helper(acc=[])`) and a function attribute (`helper.calls += 1`) are
        # module-lifetime objects too; watched through a view that reads them again at each comparison
        view = _FunctionStateView(fn)      # watched even when empty: `fn.calls = 1` may be its first attribute
        if id(fn) not in self._ids:
            self._ids.add(id(fn))
            self.roots.append((fn.__qualname__, "", view))

    # -- the tokens -------------------------------------------------------------------------------
    def _token(self, v: Any, seen: dict[int, int] | None = None) -> Any:
        seen = {} if seen is None else seen
        return _Walker(self, seen).token(v)

    def changed(self) -> tuple[str, str, str] | None:
        """The path of the first watched object the region changed, what changed, and the function
        it was reached through ("" for the region's own function); None when nothing changed."""
        for (name, where, v), before in zip(self.roots, self.tokens):
            after = self._token(v)
            if after != before:
                return (*_path(name, before, after), where)
        return None


class _Walker:
    def __init__(self, snap: Snapshot, seen: dict[int, int]) -> None:
        self.snap = snap
        self.seen = seen

    def token(self, v: Any) -> Any:
        if isinstance(v, (_ModuleView, _FunctionStateView)):
            return ("obj", type(v).kind, tuple((n, self.token(x)) for n, x in v.values_now()))
        if isinstance(v, types.FunctionType) and not _library(v.__module__) and id(v) not in self.seen:
            # a function held in a container (`STATE = {"f": lambda c=[0]: ...}`): its defaults,
            # attributes and closure cells are its state
            self.seen[id(v)] = len(self.seen)
            self.snap.alive.append(v)
            view = _FunctionStateView(v, cells=True)
            return ("fnstate", id(v), tuple((n, self.token(x)) for n, x in view.values_now()))
        if isinstance(v, functools.partial):
            return ("partial", self.token(v.func), self.token(v.args), self.token(v.keywords))
        if isinstance(v, float):
            return ("float", v.hex())
        if isinstance(v, _SIMPLE):
            return (type(v).__name__, v)
        if isinstance(v, Scalar):
            self.snap.alive.append(v)
            return ("scalar", id(v))
        if isinstance(v, np.generic):
            return ("np", v.dtype.str, v.tobytes())
        if _is_proxy(v):
            return PROXY
        if isinstance(v, (types.ModuleType, type, types.FunctionType, types.MethodType, types.BuiltinFunctionType,
                          types.CodeType)):
            return ("fn", id(v))
        if id(v) in self.seen:
            return ("ref", self.seen[id(v)])
        if len(self.seen) >= MAX_OBJECTS:
            return ("budget",)
        self.seen[id(v)] = len(self.seen)
        self.snap.alive.append(v)
        t = self.token
        if isinstance(v, np.ndarray):
            if v.nbytes > MAX_ARRAY_BYTES:
                return ("array", id(v))
            return ("array", v.dtype.str, v.shape, hashlib.blake2b(np.ascontiguousarray(v).tobytes()).digest())
        if isinstance(v, (bytearray, memoryview)):
            return ("bytes", bytes(v))
        if isinstance(v, array.array):
            return ("bytes", v.typecode, v.tobytes())
        if isinstance(v, (list, tuple)) or type(v).__name__ == "deque":
            return ("seq", tuple(t(x) for x in v))
        if isinstance(v, dict):
            return ("dict", tuple((_key(k), t(k), t(x)) for k, x in v.items()))
        if isinstance(v, (set, frozenset)):
            return ("set", tuple(sorted(repr(t(x)) for x in v)))
        if isinstance(v, types.GeneratorType):
            frame = v.gi_frame
            if frame is None:
                return ("gen", "done")
            return ("gen", frame.f_lasti, tuple((n, t(x)) for n, x in frame.f_locals.items()))
        if hasattr(type(v), "__next__"):
            return ("iter", self._reduced(v))
        rng = _generator_state(v)
        if rng is not None:
            return ("rng", type(v).__qualname__, t(rng))
        if type(v) is _LRU_WRAPPER:
            cache = _unbounded_cache(v)
            if cache is not None:
                return ("lru", t(cache))
        attrs = _attrs(v)
        if attrs is None:
            return ("opaque", id(v))
        toks = ((n, t(x)) for n, x in attrs)
        return ("obj", type(v).__qualname__, tuple((n, x) for n, x in toks if x != PROXY))

    def _reduced(self, v: Any) -> Any:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                red = v.__reduce__()
        except Exception:  # noqa: BLE001 - an iterator that does not pickle: not compared
            return ("opaque", id(v))
        if not isinstance(red, tuple) or len(red) < 2:
            return ("opaque", id(v))
        return tuple(self.token(x) for x in red[1:])


_LRU_WRAPPER = type(functools.lru_cache(None)(len))


def _generator_state(v: Any) -> Any:
    """The state of a random generator (its draws change it; it lives in C, not in attributes), or None
    for anything else: random.Random (and `random`'s module functions' hidden one), NumPy's Generator and
    legacy RandomState."""
    if isinstance(v, random.Random):
        return v.getstate()
    if isinstance(v, np.random.Generator):
        return v.bit_generator.state
    if isinstance(v, np.random.RandomState):
        return v.get_state()
    return None


def _unbounded_cache(fn: Any) -> dict | None:
    """The results an unbounded functools.lru_cache / functools.cache helper keeps, by call key: objects a
    kernel can reach (and change) through a call, found as the wrapper's one referent dict that is not its
    attribute dict. None for a bounded cache: its entries are links of C objects Python cannot read."""
    if fn.cache_parameters().get("maxsize") is not None:
        return None
    own = getattr(fn, "__dict__", None)
    found = [r for r in gc.get_referents(fn) if type(r) is dict and r is not own]
    return found[0] if len(found) == 1 else None


def _attrs(v: Any) -> list[tuple[str, Any]] | None:
    out: list[tuple[str, Any]] = []
    d = getattr(v, "__dict__", None)
    if isinstance(d, dict):
        out.extend(sorted(d.items()))
    for cls in type(v).__mro__:
        for s in getattr(cls, "__slots__", ()):
            if isinstance(s, str) and s not in ("__dict__", "__weakref__") and hasattr(v, s):
                out.append((s, getattr(v, s)))
    if not out and d is None and not getattr(type(v), "__slots__", None):
        return None
    return out


class _ModuleView:
    """The attributes of a user's module that a function names (`cfg.COUNT += 1` in a kernel, with
    `import cfg`): a module is not a container, but its attributes outlive the kernel as globals do.
    Only the names the code uses are watched (a module can be large); library and standard modules,
    and installed packages, are left out as before."""
    kind = "module"

    def __init__(self, module: types.ModuleType, names: list[str]) -> None:
        self.module, self.names = module, names

    def values_now(self) -> list[tuple[str, Any]]:
        d = vars(self.module)
        return [(n, d.get(n, _MISSING)) for n in self.names]

    def values(self) -> list[Any]:
        return [v for _, v in self.values_now()]


_MISSING = ("missing",)


class _FunctionStateView:
    """What a user function keeps between calls: its default values, its attributes (`fn.calls`) and,
    for a function found inside a container, the contents of its closure cells. Read again at every
    comparison, so a rebound `fn.calls = 2` is seen as well as a mutated default list."""
    kind = "function"

    def __init__(self, fn: types.FunctionType, cells: bool = False) -> None:
        self.fn, self.cells = fn, cells

    def values_now(self) -> list[tuple[str, Any]]:
        fn = self.fn
        out: list[tuple[str, Any]] = []
        if fn.__defaults__:
            out.append(("__defaults__", fn.__defaults__))
        if fn.__kwdefaults__:
            out.append(("__kwdefaults__", fn.__kwdefaults__))
        out.extend((n, v) for n, v in sorted(vars(fn).items()) if not n.startswith("__"))
        if self.cells:
            for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
                try:
                    out.append((n, c.cell_contents))
                except ValueError:
                    pass
        return out


class _ClassView(_FunctionStateView):
    """A user class's own attributes (`Cfg.n = Cfg.n * 2`, `type(self).count += 1`): class state outlives
    the kernel as a module global does. Methods and dunder entries are left out (they are code)."""
    kind = "class"

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def values_now(self) -> list[tuple[str, Any]]:
        return [(n, v) for n, v in sorted(vars(self.cls).items())
                if not n.startswith("__") and not isinstance(v, (types.FunctionType, staticmethod, classmethod, property))]


def _user_class_view(cls: type) -> _ClassView | None:
    """The view of a class written by the user (not a library's, the standard library's or asc_trace's)."""
    module = getattr(cls, "__module__", "") or ""
    top = module.split(".", 1)[0]
    m = sys.modules.get(module)
    path = str(getattr(m, "__file__", "") or "")
    if module != "__main__" and (_library(module) or top in sys.stdlib_module_names or top.startswith("_")
                                 or "site-packages" in path or "dist-packages" in path):
        return None
    return _ClassView(cls)


def _user_module_view(module: types.ModuleType, code: types.CodeType) -> _ModuleView | None:
    name = getattr(module, "__name__", "") or ""
    top = name.split(".", 1)[0]
    path = str(getattr(module, "__file__", "") or "")
    if (_library(name) or top in sys.stdlib_module_names or top.startswith("_")
            or "site-packages" in path or "dist-packages" in path):
        return None
    d = vars(module)
    names = sorted(n for n in _names(code) if n in d and not n.startswith("__"))
    return _ModuleView(module, names) if names else None


def _key(k: Any) -> str:
    r = repr(k)
    return r if len(r) <= 40 else r[:37] + "..."


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


def _path(path: str, a: Any, b: Any) -> tuple[str, str]:
    """A readable path (`scale[0]`, `d['k']`, `obj.attr`) to the first difference between two tokens."""
    while isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == b[:1] and a[:1] in (("seq",), ("dict",), ("obj",)):
        if a[0] == "seq":
            if len(a[1]) != len(b[1]):
                return path, "its length"
            i = next(i for i, (x, y) in enumerate(zip(a[1], b[1])) if x != y)
            path, a, b = f"{path}[{i}]", a[1][i], b[1][i]
        elif a[0] == "dict":
            if [x[1] for x in a[1]] != [x[1] for x in b[1]]:
                return path, "its keys"
            i = next(i for i, (x, y) in enumerate(zip(a[1], b[1])) if x != y)
            path, a, b = f"{path}[{a[1][i][0]}]", a[1][i][2], b[1][i][2]
        else:
            if a[1] != b[1] or [x[0] for x in a[2]] != [x[0] for x in b[2]]:
                return path, "its attributes"
            i = next(i for i, (x, y) in enumerate(zip(a[2], b[2])) if x != y)
            path, a, b = f"{path}.{a[2][i][0]}", a[2][i][1], b[2][i][1]
    if isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == b[:1] == ("lru",):
        a_items, b_items = a[1][1], b[1][1]
        if [x[1] for x in a_items] != [x[1] for x in b_items]:
            return f"the cache of {path}", "its keys"
        i = next(i for i, (x, y) in enumerate(zip(a_items, b_items)) if x != y)
        return _path(f"{path}(...)", a_items[i][2], b_items[i][2])
    if isinstance(a, tuple) and a[:1] in (("iter",), ("gen",)):
        return path, "an iterator the region advances"
    if isinstance(a, tuple) and a[:1] == ("rng",):
        return path, "a random generator's state (it drew a number)"
    return path, "its value"
