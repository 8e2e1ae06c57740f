"""Generate docs/api-reference.md from asc_trace's docstrings and its op registry.

    python tools/gen_api_docs.py            # rewrite docs/api-reference.md
    python tools/gen_api_docs.py --check    # exit 1 if the file is not what this script writes

Every name of `asc_trace.__all__` (plus `asc.range` and pyasc's host modules) gets an entry with its
signature and docstring; a vector op's entry adds what its `OpDef` record knows (Ascend C call, pipe,
A2 dtypes, cost and its source, tolerance). pyasc 1.1.1's counterpart and its status come from
docs/pyasc-surface.json (written by tools/pyasc_surface.py). The output depends on nothing but the code
and that file, so tests/test_docs.py can check that the committed page is current.
"""
from __future__ import annotations

import argparse
import enum
import inspect
import json
import re
import sys
import types
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "api-reference.md"
SURFACE = ROOT / "docs" / "pyasc-surface.json"

# Sections for the names that are neither ops, dtypes, enums nor errors (those are found by kind).
# A public name missing here still gets an entry, under "Other names", so nothing goes undocumented.
SECTIONS: list[tuple[str, str, tuple[str, ...]]] = [
    ("kernels", "Kernels: define, compile, launch, profile, tune",
     ("jit", "JitFunction", "compile", "CompiledKernel", "KernelGraph", "profile", "Profile", "autotune",
      "Config", "Autotuner", "ConstExpr", "torch_op")),
    ("tensors", "Kernel parameters, tensors and scalars",
     ("GlobalAddress", "GlobalTensor", "LocalTensor", "Scalar", "get_block_idx", "get_block_num")),
    ("framework", "TPipe, TQue, TBuf", ("TPipe", "TQue", "TBuf")),
    ("data-movement", "Data movement", ("data_copy", "data_copy_pad", "DataCopyParams", "DataCopyExtParams",
                                        "DataCopyPadExtParams")),
    ("sync", "Synchronisation", ("set_flag", "wait_flag", "pipe_barrier")),
    ("control-flow", "Control flow", ("range", "static_range", "cond", "while_loop")),
    ("repeat-params", "Mask / repeat forms", ("BinaryRepeatParams", "UnaryRepeatParams")),
    ("debug", "Debug output", ("printf", "dump_tensor", "ShapeInfo", "array", "Array")),
]
HOST_MODULES = ("asc_trace.runtime.config", "asc_trace.lib.runtime")


def _clean(text: str) -> str:
    """Object addresses differ from run to run; the page must not."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", text)


def _signature(obj: Any) -> str | None:
    try:
        return _clean(str(inspect.signature(obj)))
    except (TypeError, ValueError):
        return None


def _own_doc(obj: Any) -> str:
    """The docstring the object itself defines (an enum's inherited `IntEnum` text is no help)."""
    if isinstance(obj, type):
        doc = obj.__dict__.get("__doc__")
        return inspect.cleandoc(doc) if isinstance(doc, str) else ""
    return inspect.getdoc(obj) or ""


def _markdown(doc: str) -> str:
    """Google-style sections (`Args:` then indented `name: text` lines) and `name: text` attribute
    paragraphs as Markdown lists; indented lines would otherwise run into one paragraph."""
    out: list[str] = []
    in_section = False
    for line in doc.split("\n"):
        stripped = line.strip()
        listy = bool(out) and out[-1].startswith("- ")
        if re.fullmatch(r"[A-Z][A-Za-z ]*:", line):
            out += ["", f"**{line}**", ""]
            in_section = True
        elif not stripped:
            in_section = False
            out.append("")
        elif in_section and line.startswith("    ") and not line.startswith("        "):
            out.append("- " + stripped)
        elif listy and line.startswith("    "):
            out[-1] += " " + stripped
        elif re.match(r"[a-z_][\w.]*(\(.*?\))?: ", line) and (not out or out[-1] == "" or listy):
            out.append("- " + line)
        else:
            out.append(line)
    text = "\n".join(out).strip()
    # a docstring's citation of the facts page becomes a link the link test checks
    return re.sub(r"docs/facts\.md#([\w-]+)", r"[facts.md#\1](facts.md#\1)", text)


def _anchor(name: str) -> str:
    """GitHub's heading anchor for `### asc.<name>`."""
    return "asc" + re.sub(r"[^a-z0-9_-]", "", name.lower())


def _pyasc_index() -> dict[str, dict]:
    if not SURFACE.exists():
        return {}
    names = json.loads(SURFACE.read_text())["names"]
    return {n["name"]: n for n in names if not n["layer"].startswith("host")}


def _pyasc_line(name: str, pyasc: dict[str, dict]) -> str | None:
    entry = pyasc.get(name)
    if entry is None:
        return None
    status = entry["status"]
    where = "[pyasc surface](pyasc-surface.md)"
    if status == "present":
        return f"pyasc 1.1.1: `asc.{name}`, same binding ({where})"
    return f"pyasc 1.1.1: `asc.{name}`, {status}: {'; '.join(entry['notes']) or 'see ' + where}"


def _methods(cls: type) -> list[str]:
    """Public methods and properties a class defines itself (aliases listed once, with their twin)."""
    lines: list[str] = []
    seen: dict[int, str] = {}
    for mname, member in cls.__dict__.items():
        if mname.startswith("_"):
            continue
        fn = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        if not callable(fn) and not isinstance(member, property):
            continue
        if id(fn) in seen:
            lines.append(f"- `{mname}`: alias of `{seen[id(fn)]}`")
            continue
        seen[id(fn)] = mname
        doc = (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
        if isinstance(member, property):
            lines.append(f"- `.{mname}` (property){': ' + doc if doc else ''}")
        else:
            sig = _signature(fn) or "(...)"
            sig = re.sub(r"^\(self,? ?", "(", sig)
            lines.append(f"- `.{mname}{sig}`{': ' + doc if doc else ''}")
    return lines


def _op_facts(name: str) -> list[str]:
    from asc_trace.graph.ops import REGISTRY
    op = REGISTRY.get(name)
    if op is None:
        return []
    facts = [f"Ascend C: `AscendC::{op.c_name}`" if op.c_name else None,
             f"pipe: {op.pipe.name if op.pipe is not None else 'depends on the operands'}",
             f"A2 dtypes: {', '.join(sorted(op.dtypes)) if op.dtypes else 'any'}",
             f"registry family: `{op.family}`"]
    if op.cost is not None:
        per = op.cost.per_repeat
        slope = per if not isinstance(per, dict) else ", ".join(f"{k} {v}" for k, v in sorted(per.items()))
        facts.append(f"cost: {op.cost.startup} + {slope} cycles per 256-byte repeat ({op.cost.source})")
    if op.tol:
        facts.append("tolerance against NumPy (rtol, atol): "
                     + ", ".join(f"{k} {v}" for k, v in sorted(op.tol.items())))
    return [f for f in facts if f]


def _entry(name: str, obj: Any, pyasc: dict[str, dict], qual: str = "asc") -> list[str]:
    out = [f"### {qual}.{name}", ""]
    sig = _signature(obj)
    kind = "class" if isinstance(obj, type) else "function"
    if sig is not None:
        out += ["```python", f"{qual}.{name}{sig}" if kind == "function" else f"class {qual}.{name}{sig}", "```", ""]
    doc = _own_doc(obj)
    if doc:
        out += [_markdown(doc), ""]
    facts = _op_facts(name) if qual == "asc" else []
    ascendc = pyasc.get(name, {}).get("ascendc", "") if qual == "asc" else ""
    if not facts and ascendc and not ascendc.startswith("("):
        # not an op record: the Ascend C name pyasc's documentation maps it to
        facts.append(f"Ascend C: {ascendc}" if re.fullmatch(r"[a-z ]+", ascendc) else f"Ascend C: `{ascendc}`")
    line = _pyasc_line(name, pyasc) if qual == "asc" else None
    if line:
        facts.append(line)
    out += [f"- {f}" for f in facts]
    if facts:
        out.append("")
    if isinstance(obj, type) and not issubclass(obj, BaseException):
        methods = _methods(obj)
        if methods:
            out += ["Methods:", ""] + methods + [""]
    return out


def _classify(asc: types.ModuleType) -> dict[str, list[str]]:
    from asc_trace.dtypes import DataType
    from asc_trace.graph.ops import REGISTRY
    groups: dict[str, list[str]] = {"ops": [], "dtypes": [], "enums": [], "errors": [], "other": []}
    placed = {n for _, _, names in SECTIONS for n in names}
    for name in list(asc.__all__) + ["range"]:
        obj = getattr(asc, name)
        if name in placed:
            continue
        if isinstance(obj, DataType) or name == "DataType":
            groups["dtypes"].append(name)
        elif isinstance(obj, type) and issubclass(obj, enum.Enum):
            groups["enums"].append(name)
        elif isinstance(obj, type) and issubclass(obj, BaseException):
            groups["errors"].append(name)
        elif name in REGISTRY:
            groups["ops"].append(name)
        else:
            groups["other"].append(name)
    return groups


def _ops_table() -> list[str]:
    from asc_trace.graph.ops import REGISTRY
    rows = ["| op | family | pipe | Ascend C | A2 dtypes | public |", "|---|---|---|---|---|---|"]
    import asc_trace as asc
    for name, op in sorted(REGISTRY.items(), key=lambda kv: (kv[1].family, kv[0])):
        public = f"[`asc.{name}`](#{_anchor(name)})" if name in asc.__all__ else "(internal node)"
        rows.append(f"| `{name}` | {op.family} | {op.pipe.name if op.pipe is not None else '-'} | "
                    f"{op.c_name or '-'} | {', '.join(sorted(op.dtypes)) if op.dtypes else 'any'} | {public} |")
    return rows


def generate() -> str:
    import importlib

    import asc_trace as asc
    from asc_trace.dtypes import DataType
    pyasc = _pyasc_index()
    groups = _classify(asc)
    out = ["# API reference", "",
           "Generated by `tools/gen_api_docs.py` from the docstrings of `asc_trace` and its op registry",
           "(`asc_trace/graph/ops/`); do not edit by hand. Regenerate with `python tools/gen_api_docs.py`;",
           "`tests/test_docs.py` fails when this page is out of date. pyasc counterparts and their status come",
           "from [`pyasc-surface.json`](pyasc-surface.json) ([the name-by-name table](pyasc-surface.md)).",
           "", "Every name below is reached as `asc.<name>` after `import asc_trace as asc`.", "",
           "## Contents", ""]
    toc = [(slug, title) for slug, title, _ in SECTIONS] + [
        ("vector-operations", "Vector operations"), ("data-types", "Data types"), ("enums", "Enums"),
        ("errors", "Errors"), ("op-registry", "Op registry"), ("host-modules", "Host modules")]
    if groups["other"]:
        toc.append(("other-names", "Other names"))
    out += [f"- [{title}](#{slug})" for slug, title in toc] + [""]

    def section(slug: str, title: str, names: list[str], fn: Callable[[str], list[str]] | None = None) -> None:
        out.extend([f'<a id="{slug}"></a>', "", f"## {title}", ""])
        for name in names:
            out.extend(fn(name) if fn else _entry(name, getattr(asc, name), pyasc))

    for slug, title, names in SECTIONS:
        section(slug, title, [n for n in names if hasattr(asc, n)])
    section("vector-operations", "Vector operations", sorted(groups["ops"]))

    dt_rows = ["| name | aliases | bytes | Ascend C | NumPy storage |", "|---|---|---|---|---|"]
    by_type: dict[str, list[str]] = {}
    for name in groups["dtypes"]:
        obj = getattr(asc, name)
        if isinstance(obj, DataType):
            by_type.setdefault(obj.name, []).append(name)
    for tname, names in sorted(by_type.items()):
        obj = getattr(asc, tname) if tname in names else getattr(asc, names[0])
        aliases = ", ".join(f"`asc.{n}`" for n in sorted(names) if n != obj.name)
        dt_rows.append(f"| `asc.{obj.name}` | {aliases or '-'} | {obj.itemsize} | `{obj.c_name}` | {obj.storage} |")
    out.extend(['<a id="data-types"></a>', "", "## Data types", ""] + dt_rows + [""])
    out.extend(_entry("DataType", DataType, pyasc))

    def enum_entry(name: str) -> list[str]:
        cls = getattr(asc, name)
        members = ", ".join(f"`{m.name}`" for m in cls)
        lines = [f"### asc.{name}", ""]
        if _own_doc(cls):
            lines += [_own_doc(cls), ""]
        lines += [f"Members: {members}", ""]
        ascendc = pyasc.get(name, {}).get("ascendc", "")
        if ascendc and not ascendc.startswith("("):
            lines += [f"- Ascend C: `{ascendc}`"]
        same = [o for o in groups["enums"] if o != name and getattr(asc, o) is cls]
        if same:
            lines += [f"The same enum as {', '.join(f'`asc.{o}`' for o in same)}.", ""]
        line = _pyasc_line(name, pyasc)
        return lines + ([f"- {line}", ""] if line else [])

    section("enums", "Enums", sorted(groups["enums"]), enum_entry)
    section("errors", "Errors", sorted(groups["errors"]))
    out.extend(['<a id="op-registry"></a>', "", "## Op registry", "",
                "Every record of `asc_trace.graph.ops.REGISTRY`: the graph's node kinds. Vector ops, copies,",
                "sync and debug calls are public functions; the others are nodes the tracer records for",
                "framework calls and control flow.", ""] + _ops_table() + [""])

    out.extend(['<a id="host-modules"></a>', "", "## Host modules", "",
                "pyasc's host modules have counterparts reached through the package (`asc.runtime.config`,",
                "`asc.lib.runtime`).", ""])
    for modname in HOST_MODULES:
        mod = importlib.import_module(modname)
        names = getattr(mod, "__all__", [n for n in vars(mod) if not n.startswith("_")])
        out.extend([f"### {modname}", ""] + ([inspect.getdoc(mod), ""] if inspect.getdoc(mod) else []))
        for name in names:
            out.extend(["#" + line if line.startswith("### ") else line
                        for line in _entry(name, getattr(mod, name), pyasc, qual=modname)])
    if groups["other"]:
        section("other-names", "Other names", sorted(groups["other"]))
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/api-reference.md is stale")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python tools/gen_api_docs.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
