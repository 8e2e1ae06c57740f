"""Every refusal hint that tells the user to use `asc.X` names an API that exists: the "did you mean / use X
instead" texts of the NotProvidedError tables and of every `hint=` in the package's source. A hint naming an
absent API sends the user from one refusal to the next."""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import asc_trace
from asc_trace.proxies.not_provided import ADV_NOT_PROVIDED, NOT_PROVIDED

PKG = Path(asc_trace.__file__).resolve().parent
NAME = re.compile(r"\basc\.((?:[A-Za-z_]\w*)(?:\.[A-Za-z_]\w*)*)")


def _hint_texts() -> list[tuple[str, str]]:
    """(where, text) of every hint: the tables' alternatives and the literal parts of each `hint=` argument."""
    out = [(f"NOT_PROVIDED[{k!r}]", v[1]) for k, v in NOT_PROVIDED.items()]
    out += [(f"ADV_NOT_PROVIDED[{k!r}]", v[1]) for k, v in ADV_NOT_PROVIDED.items()]
    for path in sorted(PKG.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "hint":
                text = _literal_text(node.value)
                if text:
                    out.append((f"{path.relative_to(PKG.parent)}:{node.value.lineno}", text))
    return out


def _literal_text(e: ast.AST) -> str:
    """The string an expression builds, a formatted value standing as "{}" (a name it ends is not checked)."""
    if isinstance(e, ast.Constant):
        return e.value if isinstance(e.value, str) else ""
    if isinstance(e, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in e.values)
    if isinstance(e, ast.BinOp):
        return _literal_text(e.left) + _literal_text(e.right)
    if isinstance(e, ast.IfExp):
        return _literal_text(e.body) + " | " + _literal_text(e.orelse)
    return " ".join(_literal_text(c) for c in ast.iter_child_nodes(e))


def _resolves(dotted: str) -> bool:
    obj: object = asc_trace
    for i, part in enumerate(dotted.split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            # a submodule not imported by the package itself (asc.lib.host, asc.runtime.config)
            mod = "asc_trace." + ".".join(dotted.split(".")[: i + 1])
            try:
                obj = importlib.import_module(mod)
            except ImportError:
                return False
    return True


def test_the_hint_collector_finds_hints():
    texts = _hint_texts()
    assert len(texts) > 100
    assert any("asc.gather" in t for _, t in texts)


def test_a_missing_name_is_caught():
    assert not _resolves("no_such_api_xyz")
    assert _resolves("add") and _resolves("adv.softmax")


def test_every_name_a_hint_gives_exists():
    bad = []
    for where, text in _hint_texts():
        for m in NAME.finditer(text):
            dotted = m.group(1).rstrip(".")
            if text[m.end():m.end() + 1] == "{":       # completed by a formatted value: not knowable here
                continue
            if not _resolves(dotted):
                bad.append(f"{where}: asc.{dotted} in {text!r}")
    assert not bad, "hints naming an API that does not exist:\n" + "\n".join(bad)
