"""The census's result: every kernel's status, the names that block kernels (by how many they block),
the names kernels use (with their keywords), as JSON and as a printed table."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from .kernels import Kernel, closure
from .owners import FAMILY, family, owner

OTHER = ("refused", "crash", "script")
MAX_USED_BY = 40
CATEGORIES = ("missing-name", "missing-method", "signature", *OTHER)


@dataclass
class FileResult:
    rel: str
    group: str
    kind: str
    kernels: list[Kernel]
    shadowed: set[int] = field(default_factory=set)      # lines of test functions pyasc never runs


def _method_name(name: str, methods: dict[str, list[str]]) -> str:
    """`.get_length` -> `LocalTensor.get_length` when exactly one pyasc class has the method."""
    if name.startswith("."):
        classes = methods.get(name[1:], [])
        return f"{classes[0]}{name}" if len(classes) == 1 else name
    return name


def kernel_status(f: FileResult, k: Kernel, launches: list[dict], tests: list[dict], imports: dict[str, dict],
                  scripts: dict[str, dict]) -> dict[str, Any]:
    """One kernel's outcome: ok / refused (with the classified error) / not-run / sub-kernel / skipped."""
    if not k.launched and k.test is None:
        return {"status": "sub-kernel", "reason": "called from other kernels"}
    imp = imports.get(f.rel)
    if imp is not None and not imp["ok"]:
        if "error" in imp:
            return {"status": "refused", "stage": "import", "error": imp["error"]}
        return {"status": "skipped", "reason": imp.get("skip_reason", "")}
    if launches:
        bad = [r for r in launches if not r["ok"]]
        if bad:
            return {"status": "refused", "stage": bad[0]["stage"], "error": bad[0]["error"],
                    "launches": len(launches), "refused_launches": len(bad)}
        return {"status": "ok", "launches": len(launches)}
    if k.line in f.shadowed or (k.def_line in f.shadowed):
        return {"status": "not-run", "reason": "its test function is replaced by a later one of the same name"}
    if not k.launched:
        return {"status": "not-run", "reason": "pyasc's test never launches it"}
    mine = [t for t in tests if k.test is None or t.get("test") == k.test]
    for t in mine:
        if t.get("error"):
            return {"status": "refused", "stage": f"test {t['when']}", "error": t["error"]}
    if any(t["outcome"] == "skipped" for t in mine):
        return {"status": "skipped", "reason": next(t.get("skip_reason", "") for t in mine if t["outcome"] == "skipped")}
    if f.kind == "script" and scripts.get(f.rel, {}).get("error"):
        return {"status": "refused", "stage": "script", "error": scripts[f.rel]["error"]}
    return {"status": "not-reached", "reason": "an earlier launch of its test or script failed"}


def build(files: list[FileResult], records: list[dict], methods: dict[str, list[str]]) -> dict[str, Any]:
    launches: dict[tuple[str, int], list[dict]] = defaultdict(list)
    tests: dict[str, list[dict]] = defaultdict(list)
    imports: dict[str, dict] = {}
    scripts: dict[str, dict] = {}
    for r in records:
        if r["event"] == "launch":
            launches[(r["file"], r["line"])].append(r)
        elif r["event"] == "test":
            tests[r["file"]].append(r)
        elif r["event"] == "import":
            imports[r["file"]] = r
        elif r["event"] == "script":
            scripts[r["file"]] = r
    kernels = []
    for f in files:
        for k in f.kernels:
            names, options = closure(k, f.kernels)
            names = Counter({_method_name(n, methods): c for n, c in names.items()})
            fam = family(set(names), options)
            st = kernel_status(f, k, launches.get((f.rel, k.line), []), tests.get(f.rel, []), imports, scripts)
            err = st.get("error")
            if err is not None:
                # a missing or different name is its owner's to add; a refusal of a present name is the
                # issue of the kernel's family (a cube position refused by LocalTensor is the cube's)
                err["issue"] = owner(err["name"]) if err.get("name") and err["category"] not in OTHER else fam
            kernels.append({"file": f.rel, "group": f.group, "kernel": k.qualname, "line": k.line, "family": fam,
                            "options": k.options, "names": dict(sorted(names.items())), **st})
    # the outcomes of the reference tests (a unit test's outcome says nothing: its launches are only compiled)
    group = {f.rel: f.group for f in files}
    file_tests = {rel: [{k: t[k] for k in ("nodeid", "outcome", "when") if k in t} | (
        {"error": t["error"]} if "error" in t else {}) for t in ts] for rel, ts in tests.items()
        if group.get(rel) == "reference"}
    failed_imports = {rel: r for rel, r in imports.items() if not r["ok"]}
    return {"kernels": kernels, "tests": file_tests, "scripts": scripts, "imports": failed_imports,
            "summary": summarise(kernels, files, tests, scripts),
            "blockers": blockers(kernels), "names": name_use(files, methods)}


def _count(kernels: list[dict]) -> dict[str, Any]:
    counted = [k for k in kernels if k["status"] in ("ok", "refused")]
    ok = sum(k["status"] == "ok" for k in counted)
    cats = Counter(k["error"]["category"] for k in counted if k["status"] == "refused")
    return {"kernels": len(counted), "ok": ok, "refused": len(counted) - ok,
            "by_category": {c: cats.get(c, 0) for c in CATEGORIES},
            "not_counted": dict(Counter(k["status"] for k in kernels if k not in counted))}


def summarise(kernels: list[dict], files: list[FileResult], tests: dict[str, list[dict]],
              scripts: dict[str, dict]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for group in ("unit", "reference"):
        ks = [k for k in kernels if k["group"] == group]
        out[group] = {"files": sum(f.group == group for f in files), **_count(ks),
                      "by_family": {f"#{fam} {FAMILY[fam]}": _count([k for k in ks if k["family"] == fam])
                                    for fam in FAMILY}}
    ref_files = [f for f in files if f.group == "reference"]
    passing = []
    for f in ref_files:
        results = [t["outcome"] for t in tests.get(f.rel, [])] if f.kind == "pytest" else \
            [scripts.get(f.rel, {}).get("outcome", "not run")]
        if results and all(r == "passed" for r in results):
            passing.append(f.rel)
    out["reference"]["files_passing"] = len(passing)
    out["reference"]["passing"] = passing
    return out


def blockers(kernels: list[dict]) -> list[dict[str, Any]]:
    """The names that stop kernels, most blocking first."""
    by: dict[tuple[str, str], dict[str, Any]] = {}
    for k in kernels:
        if k["status"] != "refused":
            continue
        e = k["error"]
        key = (e["category"], e.get("name") or "?")
        b = by.setdefault(key, {"category": key[0], "name": key[1], "issue": e["issue"], "unit": 0,
                                "reference": 0, "example": e["message"], "where": e.get("where")})
        b[k["group"]] += 1
    return sorted(by.values(), key=lambda b: (-(b["unit"] + b["reference"]), b["category"], b["name"]))


def name_use(files: list[FileResult], methods: dict[str, list[str]]) -> dict[str, Any]:
    """For every pyasc name the kernels use: in how many kernels and files of each group, how often,
    and with which keywords. A name counts for its prefixes too (`TPosition.VECIN` for `TPosition`,
    `adv.softmax` for `adv`), once per kernel."""
    out: dict[str, Any] = {}
    for f in files:
        for k in f.kernels:
            seen: set[str] = set()
            for raw, uses in k.names.items():
                name = _method_name(raw, methods)
                parts = name.split(".")
                keys = [".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i])]
                for key in keys:
                    u = out.setdefault(key, {"issue": owner(key), "keywords": Counter(), "used_by": [],
                                             "unit": {"kernels": 0, "files": set(), "uses": 0},
                                             "reference": {"kernels": 0, "files": set(), "uses": 0}})
                    g = u[f.group]
                    if key not in seen:
                        g["kernels"] += 1
                        seen.add(key)
                        u["used_by"].append(f"{f.rel.rsplit('/', 1)[-1]}::{k.qualname.split('.')[-1]}")
                    g["files"].add(f.rel)
                    g["uses"] += uses
                    if key == name:
                        u["keywords"].update(k.keywords.get(raw, {}))
    for u in out.values():
        for g in ("unit", "reference"):
            u[g]["files"] = len(u[g]["files"])
        u["keywords"] = dict(sorted(u["keywords"].items()))
        # which kernels (file::kernel) use it; for the few names nearly every kernel uses, only the count
        u["used_by"] = sorted(u["used_by"]) if len(u["used_by"]) <= MAX_USED_BY else f"{len(u['used_by'])} kernels"
    return dict(sorted(out.items()))


def table(result: dict[str, Any], top: int = 40) -> str:
    """The census as text."""
    s = result["summary"]
    lines = []
    for group, title in (("unit", "API unit-test kernels (trace + lower)"),
                         ("reference", "reference-checked kernels (trace + lower + run)")):
        g = s[group]
        pct = 100.0 * g["ok"] / g["kernels"] if g["kernels"] else 0.0
        cats = ", ".join(f"{c} {n}" for c, n in g["by_category"].items())
        lines.append(f"{title}: {g['files']} files, {g['kernels']} kernels, {g['ok']} ok ({pct:.0f} %), "
                     f"{g['refused']} refused: {cats}")
        if g["not_counted"]:
            lines.append("    not counted: " + ", ".join(f"{n} {st}" for st, n in sorted(g["not_counted"].items())))
        for fam, c in g["by_family"].items():
            if c["kernels"]:
                lines.append(f"    {fam:<24} {c['kernels']:>4} kernels  {c['ok']:>4} ok  {c['refused']:>4} refused")
    lines.append(f"reference files whose tests all pass: {s['reference']['files_passing']} of "
                 f"{s['reference']['files']}")
    lines.append("")
    lines.append(f"{'blocking name':<34} {'category':<15} {'issue':>5} {'unit':>5} {'ref':>4}  example")
    for b in result["blockers"][:top]:
        lines.append(f"{b['name'][:34]:<34} {b['category']:<15} {'#' + str(b['issue']):>5} {b['unit']:>5} "
                     f"{b['reference']:>4}  {b['example'][:70]}")
    if len(result["blockers"]) > top:
        lines.append(f"... {len(result['blockers']) - top} more in the JSON")
    return "\n".join(lines)


def markdown(result: dict[str, Any]) -> str:
    """The census as Markdown: the summary, every blocking name, and each refusal by asc_trace's own
    checks with its message (those need a judgment: a missing feature, or a kernel asc_trace rightly refuses)."""
    p, r = result["pyasc"], result["run"]
    out = ["# pyasc census", "",
           f"Generated by `tools/pyasc_census.py` on {p['checkout']} (groups {', '.join(r['groups'])}, "
           f"{r['seconds']} s); the data is `docs/pyasc-census.json`. Do not edit by hand.", "",
           "```", table(result, top=0).split("\n\nblocking name")[0], "```", "",
           "## Blocking names", "",
           "The name that stopped each refused kernel (the first refusal of its trace), by how many kernels it "
           "stops.", "",
           "| name | category | issue | unit kernels | reference kernels | example |", "|---|---|---|---:|---:|---|"]
    for b in result["blockers"]:
        out.append(f"| `{b['name']}` | {b['category']} | #{b['issue']} | {b['unit']} | {b['reference']} | "
                   f"{b['example'].replace('|', '/')[:140]} |")
    out += ["", "## Refused by asc_trace's own checks", "",
            "| kernel | group | error | where | message |", "|---|---|---|---|---|"]
    for k in result["kernels"]:
        e = k.get("error") or {}
        if k["status"] == "refused" and e.get("category") in OTHER:
            out.append(f"| `{k['kernel'].split('.')[-1]}` ({k['file'].rsplit('/', 1)[-1]}) | {k['group']} | "
                       f"{e['exc']} | {e.get('where') or ''} | {e['message'].replace('|', '/')[:160]} |")
    return "\n".join(out) + "\n"
