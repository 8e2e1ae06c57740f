"""Why a pyasc kernel was refused: one category and the pyasc name that stopped it.

Categories:
- `missing-name`: a module has no such name (`asc.copy`, `asc.adv`, `asc.lib.host`), or a module
  cannot be imported (`asc.language.core.struct`);
- `missing-method`: a class or value has no such attribute (`LocalTensor.get_length`, `TPosition.MAX`);
- `signature`: the name exists but does not take the call's arguments (`add() got an unexpected
  keyword argument 'mask'`);
- `refused`: asc_trace understood the call and refused it with one of its own errors (a bounds check,
  a position it does not support, ...);
- `crash`: any other exception raised inside asc_trace (a bug to fix);
- `script`: an exception in the script's own code (its host glue, torch, its result check).
"""
from __future__ import annotations

import ast
import re
import types
from pathlib import Path
from typing import Any

import asc_trace

_PKG = str(Path(asc_trace.__file__).resolve().parent)
_SIGNATURE = re.compile(r"^(?P<fn>[\w.<>]+)\(\) (got an unexpected keyword argument '(?P<kw>\w+)'|missing \d+ required "
                        r"(positional|keyword-only) arguments?|takes (from )?\d+ (to \d+ )?positional arguments? but"
                        r"|got multiple values for argument '\w+'|got some positional-only arguments)")


def _pyasc_path(module: str) -> str:
    """asc_trace.runtime.config -> asc.runtime.config"""
    return "asc" + module[len("asc_trace"):] if module.startswith("asc_trace") else module


def _frames(exc: BaseException) -> list[tuple[str, int, str]]:
    out = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        out.append((code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return out


def _user_frame(exc: BaseException, root: Path) -> tuple[str, int] | None:
    """The innermost frame in a rewritten pyasc file (under `root`)."""
    r = str(root)
    for filename, line, _ in reversed(_frames(exc)):
        if filename.startswith(r):
            return filename, line
    return None


def _raised_inside_asc_trace(exc: BaseException) -> bool:
    frames = _frames(exc)
    return bool(frames) and frames[-1][0].startswith(_PKG)


def call_name(code: str, lookup: dict[str, list[str]] | None = None) -> str | None:
    """The pyasc name of the outermost call on a source line: `data_copy` for `asc.data_copy(...)`,
    `TPipe.init_buffer` for `pipe.init_buffer(...)` when `lookup` (method -> classes) knows one class."""
    try:
        text = code.strip().rstrip(":").removeprefix("@").removeprefix("return ").removeprefix("yield ")
        tree = ast.parse(text or "None")
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            parts = []
            while isinstance(func, ast.Attribute):
                parts.append(func.attr)
                func = func.value
            if isinstance(func, ast.Name) and func.id == "asc" and parts:
                return ".".join(reversed(parts))
            if parts:
                classes = (lookup or {}).get(parts[0], [])
                return f"{classes[0]}.{parts[0]}" if len(classes) == 1 else f".{parts[0]}"
            return func.id if isinstance(func, ast.Name) else None
    return None


_NOT_CALLABLE = re.compile(r"^'(\w+)' object is not callable")


def _imported(code: str, exc: ImportError) -> str:
    """The pyasc module or name an import line asked for: `language.fwk.tpipe.TQueBind` for
    `from asc_trace.language.fwk.tpipe import TQueBind` (the first name it imports)."""
    m = re.match(r"\s*from ([\w.]+) import \(?\s*(\w+)", code) or re.match(r"\s*import ([\w.]+)()", code)
    if m and m.group(1).startswith("asc_trace"):
        return _pyasc_path(m.group(1)) + (f".{m.group(2)}" if m.group(2) else "")
    m = re.search(r"cannot import name '(\w+)' from '([\w.]+)'", str(exc))
    if m:
        return f"{_pyasc_path(m.group(2))}.{m.group(1)}"
    return _pyasc_path(getattr(exc, "name", None) or "?")


def _line_text(where: tuple[str, int] | None) -> str:
    if where is None:
        return ""
    try:
        return Path(where[0]).read_text().splitlines()[where[1] - 1]
    except (OSError, IndexError):
        return ""


def _attribute_name(exc: AttributeError) -> tuple[str, str]:
    """(category, name) of an AttributeError from the object and attribute it names."""
    obj, attr = getattr(exc, "obj", None), getattr(exc, "name", None)
    if attr is None:
        m = re.search(r"'(\w+)' object has no attribute '(\w+)'|module '([\w.]+)' has no attribute '(\w+)'"
                      r"|type object '(\w+)' has no attribute '(\w+)'|asc_trace(\.[\w.]+)?\.(\w+) \(", str(exc))
        if m is None:
            return "missing-name", "?"
        if m.group(3):
            return "missing-name", f"{_pyasc_path(m.group(3))}.{m.group(4)}"
        if m.group(8):
            return "missing-name", f"{_pyasc_path('asc_trace' + (m.group(7) or ''))}.{m.group(8)}"
        cls, attr = (m.group(1), m.group(2)) if m.group(1) else (m.group(5), m.group(6))
        return "missing-method", f"{cls}.{attr}"
    if isinstance(obj, types.ModuleType):
        return "missing-name", f"{_pyasc_path(obj.__name__)}.{attr}"
    cls = obj if isinstance(obj, type) else type(obj)
    return "missing-method", f"{cls.__name__}.{attr}"


def classify(exc: BaseException, root: Path, methods: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The category, the blocking pyasc name (without `asc.`), and where, for one exception."""
    cause = exc.__cause__
    if (isinstance(exc, asc_trace.TraceError) and cause is not None and not isinstance(cause, asc_trace.AscTraceError)
            and f"{type(cause).__name__} while tracing " in str(exc)):
        exc = cause             # the tracer's wrapper around a Python error in the kernel body
    where = _user_frame(exc, root)
    loc = getattr(exc, "loc", None)
    if where is None and loc is not None and str(loc.file).startswith(str(root)):
        where = (str(loc.file), loc.line)      # raised while running: the error names the kernel's line
    code = _line_text(where)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    info: dict[str, Any] = {"exc": type(exc).__name__, "message": first[:300], "code": code.strip()[:200],
                            "where": None if where is None else f"{Path(where[0]).relative_to(root)}:{where[1]}"}
    if isinstance(exc, (ModuleNotFoundError, ImportError)) and not isinstance(exc, asc_trace.AscTraceError):
        info.update(category="missing-name", name=_imported(code, exc))
        if not info["name"].startswith("asc"):
            info["category"] = "script"
    elif isinstance(exc, TypeError) and _NOT_CALLABLE.match(first) and not _raised_inside_asc_trace(exc):
        info.update(category="missing-method", name=f"{_NOT_CALLABLE.match(first).group(1)}.__call__")
    elif isinstance(exc, AttributeError) and (where is not None or isinstance(exc, asc_trace.AscTraceError)):
        cat, name = _attribute_name(exc)
        deeper = re.search(r"\basc\." + re.escape(name.removeprefix("asc.")) + r"\.(\w+)", code)
        if cat == "missing-name" and deeper:     # a missing namespace: name what the line takes from it
            name = f"{name}.{deeper.group(1)}"
        if cat == "missing-method" and name.split(".")[0] in ("NoneType", "Tensor", "ndarray", "int", "float"):
            cat = "script" if not _raised_inside_asc_trace(exc) else "crash"
        info.update(category=cat, name=name)
    elif (isinstance(exc, TypeError) and not isinstance(exc, asc_trace.AscTraceError) and _SIGNATURE.match(first)
          and not _raised_inside_asc_trace(exc)):      # a binding error is raised in the caller's frame
        fn = _SIGNATURE.match(first).group("fn")
        name = fn.removesuffix(".__init__")
        info.update(category="signature", name=name, keyword=_SIGNATURE.match(first).group("kw"))
    elif isinstance(exc, asc_trace.AscTraceError):
        info.update(category="refused", name=call_name(code, methods))
    elif _raised_inside_asc_trace(exc):
        info.update(category="crash", name=call_name(code, methods))
    else:
        info.update(category="script", name=call_name(code, methods))
    if (info.get("name") or "").startswith("asc."):
        info["name"] = info["name"][4:]
    return info
