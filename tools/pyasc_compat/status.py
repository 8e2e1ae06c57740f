"""Is a pyasc name present in asc_trace, missing, or different? A name is present when asc_trace has it
at the same path and every pyasc overload binds to it both by position and by keyword, with the same
parameter names in the same positional order and the same defaults; classes also need every pyasc
method, enums every member.

Works on the data tools/pyasc_compat/introspect.py writes (pyasc's side) and on the imported
asc_trace (ours); nothing here imports pyasc.
"""
from __future__ import annotations

import enum
import inspect
import re
from typing import Any

import asc_trace

_SKIP_KINDS = ("var_positional", "var_keyword")
_S = object()     # a stand-in argument


def resolve(path: str) -> Any:
    """asc_trace's object at pyasc path `path` (asc.x.y), or None."""
    obj: Any = asc_trace
    for part in path.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:      # NotProvidedError included
            return None
    return obj


def _default_text(value: Any) -> str | None:
    if value is inspect.Parameter.empty:
        return None
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def check_overload(sig: inspect.Signature, form: dict[str, Any], bound_self: bool = False) -> list[str]:
    """What keeps pyasc's overload `form` from being called the same way on `sig` (empty: nothing)."""
    if any(p["kind"] in _SKIP_KINDS for p in form["params"]):
        return []       # pyasc declares only (*args, **kwargs): nothing to hold asc_trace to
    params = form["params"]
    ours = list(sig.parameters.values())
    if bound_self and ours and ours[0].name in ("self", "cls"):
        ours = ours[1:]
    problems: list[str] = []
    names = {p.name for p in ours}
    has_var_kw = any(p.kind is p.VAR_KEYWORD for p in ours)
    missing = [p["name"] for p in params if p["name"] not in names and not has_var_kw and p["kind"] != "positional_only"]
    if missing:
        problems.append("keywords not taken: " + ", ".join(missing))
    self_arg = (_S,) if bound_self and len(ours) < len(sig.parameters) else ()
    positional = [_S for p in params if p["kind"] in ("positional_only", "positional_or_keyword")]
    keyword_only = {p["name"]: _S for p in params if p["kind"] == "keyword_only"}
    try:
        sig.bind(*self_arg, *positional, **keyword_only)
    except TypeError as exc:
        problems.append(f"{len(positional)} positional arguments not taken ({exc})")
    else:
        slots = [p for p in ours if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for i, p in enumerate(params[:len(positional)]):
            if i < len(slots) and slots[i].name != p["name"]:
                problems.append(f"positional argument {i + 1} is {slots[i].name!r} here, {p['name']!r} in pyasc")
                break
    by_name = {p.name: p for p in ours}
    for p in params:
        mine = by_name.get(p["name"])
        if p["default"] is None or mine is None:
            continue
        ours_default = _default_text(mine.default)
        if ours_default is None:
            problems.append(f"{p['name']} has no default here (pyasc: {p['default']})")
        elif ours_default != p["default"]:
            problems.append(f"default {p['name']}={ours_default} here, {p['default']} in pyasc")
    return problems


def _callable_status(obj: Any, forms: list[dict[str, Any]], bound_self: bool) -> list[str]:
    sig = _signature(obj)
    if sig is None:
        return ["its signature cannot be read"] if forms else []
    found: dict[str, list[int]] = {}
    for i, form in enumerate(forms):
        for p in check_overload(sig, form, bound_self):
            found.setdefault(p, []).append(i + 1)
    if len(forms) <= 1:
        return list(found)
    return [f"form{'s' if len(ix) > 1 else ''} {', '.join(map(str, ix))}: {p}" for p, ix in found.items()]


def status(entry: dict[str, Any]) -> dict[str, Any]:
    """{"status": present / missing / different, "notes": [...], "methods": {name: {"status", "notes"}}}
    for one pyasc entry."""
    obj = resolve(entry["path"])
    if obj is None:
        return {"status": "missing", "notes": []}
    kind = entry["kind"]
    notes: list[str] = []
    methods: dict[str, str] = {}
    if kind == "function":
        notes = _callable_status(obj, entry["overloads"], False)
    elif kind == "class":
        if not isinstance(obj, type):
            # a function standing for a class (asc.range) is called the same way; methods it cannot have
            notes = _callable_status(obj, entry["overloads"], False) if callable(obj) else [
                f"a {type(obj).__name__} here, a class in pyasc"]
            if entry.get("methods"):
                notes.append(f"a {type(obj).__name__} here: no methods " + ", ".join(m["name"] for m in entry["methods"]))
        else:
            init = obj.__init__
            notes = [f"constructor: {n}" for n in _callable_status(init, entry["overloads"], True)]
            for m in entry.get("methods", []):
                ours = getattr(obj, m["name"], None)
                if m["name"].startswith("__"):   # operator[] / operator(): defined by the class itself, not type
                    ours = next((vars(k)[m["name"]] for k in obj.__mro__ if k is not object and m["name"] in vars(k)),
                                None)
                if ours is None:
                    methods[m["name"]] = {"status": "missing", "notes": []}
                    continue
                if m["name"].startswith("__"):   # called through syntax: only the positional arity matters
                    problems = [] if _signature(ours) is None else [
                        p for p in check_overload(_signature(ours), m["overloads"][0], True)
                        if p.startswith(tuple("0123456789"))] if m["overloads"] else []
                else:
                    problems = _callable_status(ours, m["overloads"], True) if m["kind"] == "method" else []
                methods[m["name"]] = {"status": "different" if problems else "present", "notes": problems}
            for state in ("missing", "different"):
                names = [n for n, s in methods.items() if s["status"] == state]
                if names:
                    notes.append(f"methods {state}: " + ", ".join(names))
    elif kind == "enum":
        members = [m["name"] for m in entry["members"]]
        absent = [m for m in members if not hasattr(obj, m)]
        if absent:
            notes.append("members missing: " + ", ".join(absent))
    elif kind == "dtype":
        if type(obj).__name__ != "DataType":
            notes.append(f"a {type(obj).__name__} here, a DataType in pyasc")
    elif kind == "value":
        if entry.get("value") not in (None, "") and _default_text(obj) != entry["value"]:
            notes.append(f"value {_default_text(obj)} here, {entry['value']} in pyasc")
    return {"status": "different" if notes else "present", "notes": notes, "methods": methods}
