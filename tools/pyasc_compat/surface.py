"""The pyasc surface list: every public pyasc name as one record (its signatures, the Ascend C it maps
to, the issue that owns it, asc_trace's status, how pyasc's kernels use it), and its Markdown form."""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from .owners import FAMILY, owner
from .status import status

# Ascend C counterparts pyasc's docstrings do not state (no C++ prototype in them), and names that
# are Python helpers of pyasc's front end rather than API calls.
ASCENDC_EXTRA: dict[str, str] = {
    "ascend_is_aic": "ASCEND_IS_AIC", "ascend_is_aiv": "ASCEND_IS_AIV", "get_arch_version": "GetArchVersion",
    "get_sub_block_num": "GetSubBlockNum", "get_gather_mask_remain_count": "GetGatherMaskRemainCount",
    "set_sys_workspace": "SetSysWorkspace", "adv.rmsnorm": "RmsNorm", "adv.quant": "AscendQuant",
    "TQue": "TQue", "GlobalTensor": "GlobalTensor", "LocalTensor": "LocalTensor", "GlobalAddress": "__gm__ T*",
    "property": "(constants of platform)", "jit": "(host: kernel definition)", "range": "for loop",
    "static_range": "(unrolled by the front end)", "array": "(C array)", "inline": "(front end)",
    "number": "(front end)", "ceildiv": "(front end)", "static_assert": "static_assert",
}
HOST_PREFIXES = ("runtime.", "lib.", "CodegenOptions", "CompileOptions", "LaunchOptions", "jit")
LAYERS = (("adv", "asc.adv"), ("runtime", "host: asc.runtime"), ("lib", "host: asc.lib"),
          ("language.core", "core"), ("language.basic", "basic"), ("language.fwk", "fwk"))


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def ascendc_name(name: str, entry: dict[str, Any]) -> str:
    """The Ascend C call or type a pyasc name maps to."""
    if name in ASCENDC_EXTRA:
        return ASCENDC_EXTRA[name]
    if name.startswith(HOST_PREFIXES):
        return "(host)"
    protos = entry.get("ascendc") or []
    short = name.split(".")[-1]
    want = _camel(short).lower()
    for p in protos:
        if p.lower() == want:
            return p
    if protos:
        return protos[0]
    if entry["kind"] in ("class", "enum"):
        return short
    if entry["kind"] == "dtype":
        return "(element type)"
    return ""


def layer(entry: dict[str, Any]) -> str:
    path, module = entry["path"], entry.get("module") or ""
    if path.startswith("asc.adv."):
        return "asc.adv"
    if path.startswith(("asc.runtime.", "asc.lib.")):
        return "host: " + ".".join(path.split(".")[:3])
    for prefix, label in LAYERS:
        if module.startswith(f"asc.{prefix}"):
            return label
    return "top level"


def family(entry: dict[str, Any]) -> str:
    """The source module's name (vec_binary, tpipe, types, ...), pyasc's own grouping."""
    module = entry.get("module") or ""
    return module.rsplit(".", 1)[-1] if module.startswith("asc") else entry["kind"]


def build_records(raw: dict[str, Any], usage: dict[str, Any]) -> list[dict[str, Any]]:
    records = []
    for e in raw["entries"]:
        name = e["path"].removeprefix("asc.")
        st = status(e) if e["kind"] not in ("binding",) else {"status": "missing", "notes": []}
        u = usage.get(name, {})
        methods = []
        for m in e.get("methods", []):
            ms = st.get("methods", {}).get(m["name"], {"status": "missing", "notes": []})
            # a method call the census could not tie to one class (`.enque`) counts for each class with it
            mu = usage.get(f"{name.split('.')[-1]}.{m['name']}") or usage.get(f".{m['name']}") or {}
            methods.append({"name": m["name"], "kind": m["kind"], "overloads": m["overloads"],
                            "ascendc": ascendc_name(m["name"], m) if m.get("ascendc") else "",
                            "status": ms["status"], "notes": ms["notes"], "usage": _use(mu),
                            "keywords": mu.get("keywords", {})})
        records.append({
            "name": name, "kind": e["kind"], "layer": layer(e), "family": family(e), "issue": owner(name),
            "ascendc": ascendc_name(name, e), "overloads": e.get("overloads", []), "methods": methods,
            "members": [m["name"] for m in e.get("members", [])], "status": st["status"], "notes": st["notes"],
            "usage": _use(u), "keywords": u.get("keywords", {}), "used_by": u.get("used_by", []),
        })
    return records


def _use(u: dict[str, Any]) -> dict[str, int]:
    return {"unit_kernels": u.get("unit", {}).get("kernels", 0), "reference_kernels": u.get("reference", {}).get("kernels", 0),
            "uses": u.get("unit", {}).get("uses", 0) + u.get("reference", {}).get("uses", 0)}


# -- Markdown ------------------------------------------------------------------------------------

def _forms(name: str, forms: list[dict[str, Any]]) -> list[str]:
    """Each overload as `name(a, b=1)`; with the parameters' types when two would read the same."""
    plain = [_form(name, f) for f in forms]
    if len(set(plain)) == len(plain):
        return plain
    return [_form(name, f, typed=True) for f in forms]


def _form(name: str, form: dict[str, Any], typed: bool = False) -> str:
    parts = []
    for p in form["params"]:
        text = {"var_positional": "*", "var_keyword": "**"}.get(p["kind"], "") + p["name"]
        if typed and p["annotation"]:
            text += f": {p['annotation']}"
        if p["default"] is not None:
            text += f"={p['default']}"
        parts.append(text)
    return f"{name}({', '.join(parts)})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_MARK = {"present": "present", "missing": "**missing**", "different": "*different*"}


def _status_cell(r: dict[str, Any]) -> str:
    text = _MARK[r["status"]]
    if r["notes"]:
        shown = "; ".join(r["notes"][:4]) + (f"; +{len(r['notes']) - 4} more" if len(r["notes"]) > 4 else "")
        text += f": {shown}"
    return _cell(text)


def _usage_cell(r: dict[str, Any]) -> str:
    u = r["usage"]
    if not (u["unit_kernels"] or u["reference_kernels"]):
        return ""
    kw = [k for k in r.get("keywords", {}) if not k.startswith("#")]
    text = f"{u['unit_kernels']} / {u['reference_kernels']}"
    return text + (f" (kw: {', '.join(kw)})" if kw else "")


def _signature_cell(r: dict[str, Any]) -> str:
    short = r["name"].split(".")[-1]
    if r["kind"] == "enum":
        return _cell(", ".join(r["members"]))
    return "<br>".join(_cell(f) for f in _forms(short, r["overloads"]))


def markdown(records: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """The surface list as Markdown: a summary, then one table per issue and pyasc module."""
    out = [
        "# pyasc's public surface, and asc_trace's status",
        "",
        "Generated by `tools/pyasc_surface.py` from pyasc " + str(meta.get("pyasc_version")) + " (the installed "
        "package read by `tools/pyasc_compat/introspect.py`) and from the census (`docs/pyasc-census.json`); "
        "do not edit by hand. The data is `docs/pyasc-surface.json`.",
        "",
        "- **signature**: each overload pyasc declares, with its keywords and defaults (`handle` forms, pyasc's "
        "internal constructors, left out).",
        "- **Ascend C**: the call or type the name maps to (from the C++ prototypes of pyasc's documentation).",
        "- **status**: `present` = asc_trace has the name at the same path and each overload binds the same way "
        "(by position and by keyword, same positional order, same defaults); `different` = it exists but "
        "something in the note differs; `missing` = not there.",
        "- **used**: kernels of pyasc's API unit tests / of its reference-checked files that use the name "
        "(sub-kernels included), and the keywords they pass.",
        "",
        "| issue | names | present | different | missing |",
        "|---|---:|---:|---:|---:|",
    ]
    by_issue: dict[int, list[dict]] = defaultdict(list)
    for r in records:
        by_issue[r["issue"]].append(r)
    for issue in sorted(by_issue):
        rs = by_issue[issue]
        counts = {s: sum(r["status"] == s for r in rs) for s in ("present", "different", "missing")}
        out.append(f"| #{issue} {FAMILY[issue]} | {len(rs)} | {counts['present']} | {counts['different']} | "
                   f"{counts['missing']} |")
    for issue in sorted(by_issue):
        out += ["", f"## #{issue}: {FAMILY[issue]}", ""]
        groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for r in by_issue[issue]:
            groups[(r["layer"], r["family"])].append(r)
        for (lay, fam) in sorted(groups):
            out += [f"### {lay} / {fam}", "", "| name | kind | signature | Ascend C | status | used (unit / ref) |",
                    "|---|---|---|---|---|---|"]
            for r in sorted(groups[(lay, fam)], key=lambda r: r["name"]):
                out.append(f"| `{r['name']}` | {r['kind']} | {_signature_cell(r)} | {_cell(r['ascendc'])} | "
                           f"{_status_cell(r)} | {_usage_cell(r)} |")
                for m in r["methods"]:
                    sig = "<br>".join(_cell(f) for f in _forms(m["name"], m["overloads"])) or m["kind"]
                    out.append(f"| &nbsp;&nbsp;`.{m['name']}` | {m['kind']} | {sig} | {_cell(m['ascendc'])} | "
                               f"{_status_cell(m)} | {_usage_cell(m)} |")
            out.append("")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).rstrip() + "\n"
