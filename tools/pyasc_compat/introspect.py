"""Read pyasc's public surface from an installed pyasc (run with the Python that has pyasc 1.1.x, e.g.
.venv-pyasc/bin/python): every public name of `asc` (its language core / basic / fwk and `asc.adv`)
and of its host modules, with each overload's parameters and defaults, the Ascend C prototypes its
docstring names, enum members, and the public methods of its classes.

    python introspect.py out.json

Only facts about the API are written (names, parameters, defaults, the C++ names it maps to), for
tools/pyasc_surface.py to compare with asc_trace. Standard library only: it runs in pyasc's environment.
"""
from __future__ import annotations

import enum
import importlib
import inspect
import json
import re
import sys
import typing
from typing import Any

# (pyasc path prefix, module to read, which names): the top level and the host modules.
NAMESPACES = (
    ("asc", "asc", "all"),
    ("asc.adv", "asc.language.adv", "all"),
    ("asc.runtime.config", "asc.runtime.config", ("Backend", "Platform", "KernelType", "set_platform")),
    ("asc.lib.runtime", "asc.lib.runtime", "all"),
    ("asc.lib.host", "asc.lib.host", "all"),
    # not re-exported by `asc`, but imported by pyasc's own kernel files
    ("asc.language.core.struct", "asc.language.core.struct", ("Struct", "Field", "StructField")),
    ("asc.language.core.dtype", "asc.language.core.dtype", ("KnownTypes",)),
)
# Dunder methods that are API (operator[] and operator() of the tensors).
API_DUNDERS = ("__getitem__", "__call__")
# Methods every IR value has: plumbing of pyasc's code generator, not API.
PLUMBING = frozenset({"from_ir", "to_ir", "from_ir_value", "materialize", "get_ir_type", "ensure_shape"})
# A declaration line: qualifiers and a return type, then the declared name and its parenthesis.
_DECL = re.compile(r"^(?:[\w:]+(?:<[^()]*>)?[\s*&]+)*?(?:\w+::)*(\w+)\s*\(")


def _text(value: Any) -> str:
    if value is inspect.Parameter.empty:
        return ""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, type):
        return value.__name__
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))   # no addresses: the output is compared across runs


def _annotation(ann: Any) -> str:
    if ann is inspect.Parameter.empty:
        return ""
    text = ann if isinstance(ann, str) else getattr(ann, "__name__", None) or str(ann)
    return re.sub(r"\b(?:asc|typing)\.(?:[\w]+\.)*", "", str(text))


def _signature(fn: Any, drop_self: bool) -> dict[str, Any] | None:
    """One signature as data, or None for pyasc's internal IR-handle constructors."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = []
    for i, p in enumerate(sig.parameters.values()):
        if drop_self and i == 0 and p.name in ("self", "cls"):
            continue
        ann = _annotation(p.annotation)
        if p.name == "handle" or "IRHandle" in ann:
            if p.default is inspect.Parameter.empty:
                return None         # the constructor pyasc's code generator uses
            continue                # an optional handle argument of the user-facing form
        params.append({"name": p.name, "kind": p.kind.name.lower(), "annotation": ann,
                       "default": None if p.default is inspect.Parameter.empty else _text(p.default)})
    return {"params": params, "returns": _annotation(sig.return_annotation)}


def _overloads(fn: Any, drop_self: bool = False) -> list[dict[str, Any]]:
    target = inspect.unwrap(fn)
    registered = typing.get_overloads(target) if inspect.isfunction(target) else []
    forms = [s for s in (_signature(o, drop_self) for o in registered) if s is not None]
    if not forms:
        s = _signature(fn, drop_self)
        forms = [s] if s is not None else []
    return forms


_NOT_NAMES = frozenset({"if", "for", "while", "sizeof", "decltype", "operator", "__attribute__", "return",
                        "static_assert", "alignas"})


def _prototypes(doc: str | None) -> list[str]:
    """The Ascend C functions the docstring's C++ prototypes declare (the first `name(` of each
    declaration line in its `.. code-block:: c++` sections), in order, without repeats."""
    names: list[str] = []
    in_block, indent = False, 0
    for line in (doc or "").splitlines():
        stripped = line.strip()
        if stripped.startswith(".. code-block::"):
            in_block, indent = "c++" in stripped, len(line) - len(line.lstrip())
            continue
        if in_block and stripped and len(line) - len(line.lstrip()) <= indent:
            in_block = False
        if not in_block or not stripped or stripped.startswith(("template", "//", ",", ")")):
            continue
        m = _DECL.match(stripped)
        if m and m.group(1) not in _NOT_NAMES and m.group(1) not in names:
            names.append(m.group(1))
    return names


def _methods(cls: type) -> list[dict[str, Any]]:
    out = []
    seen: set[str] = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("asc"):
            continue
        for name, raw in vars(klass).items():
            if name in seen or name in PLUMBING or (name.startswith("_") and name not in API_DUNDERS):
                continue
            seen.add(name)
            if isinstance(raw, property):
                out.append({"name": name, "kind": "property", "overloads": [], "ascendc": _prototypes(raw.__doc__),
                            "defined_in": klass.__name__})
                continue
            fn = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
            if not callable(fn):
                continue
            out.append({"name": name, "kind": "method", "overloads": _overloads(fn, not isinstance(raw, staticmethod)),
                        "ascendc": _prototypes(getattr(fn, "__doc__", None)), "defined_in": klass.__name__})
    return sorted(out, key=lambda m: m["name"])


def describe(path: str, value: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": path, "module": getattr(value, "__module__", None) or ""}
    if inspect.ismodule(value):
        entry.update(kind="module", module=value.__name__)
    elif isinstance(value, type) and issubclass(value, enum.Enum):
        entry.update(kind="enum", members=[{"name": n, "value": _text(m.value) if not isinstance(m.value, int)
                                            else m.value} for n, m in value.__members__.items()])
    elif isinstance(value, type):
        init = vars(value).get("__init__") or value.__init__
        entry.update(kind="class", overloads=_overloads(init, True), methods=_methods(value),
                     ascendc=_prototypes(value.__doc__) + _prototypes(getattr(init, "__doc__", None)))
    elif callable(value) and (inspect.isfunction(value) or inspect.isfunction(inspect.unwrap(value))):
        entry.update(kind="function", overloads=_overloads(value), ascendc=_prototypes(value.__doc__))
    else:
        entry.update(kind="value", type=type(value).__name__, value=_text(value)[:80], module="")
        if type(value).__name__ == "DataType":
            entry["kind"] = "dtype"
    return entry


def public_names(module: Any, which: Any) -> list[str]:
    if which != "all":
        return list(which)
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    return [n for n in dict.fromkeys(names) if isinstance(n, str) and hasattr(module, n)]


def main(out_path: str) -> int:
    import asc
    entries = []
    for prefix, module_name, which in NAMESPACES:
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # noqa: BLE001 - a host module pyasc cannot import here
            entries.append({"path": prefix, "kind": "module", "module": module_name, "error": str(exc)[:200]})
            continue
        for name in public_names(module, which):
            try:
                value = getattr(module, name)
                if prefix == "asc" and inspect.ismodule(value) and name != "adv":
                    continue    # asc.basic / asc.core / asc.fwk / asc.language: packages, not API
                entries.append(describe(f"{prefix}.{name}", value))
            except Exception as exc:  # noqa: BLE001 - e.g. asc.lib.host's bindings need a CANN toolkit
                entries.append({"path": f"{prefix}.{name}", "kind": "binding", "module": module_name,
                                "error": str(exc)[:200]})
    version = getattr(asc, "__version__", None)
    try:
        from importlib.metadata import version as dist_version
        version = dist_version("pyasc")
    except Exception:  # noqa: BLE001
        pass
    with open(out_path, "w") as f:
        json.dump({"pyasc_version": version, "entries": entries}, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
