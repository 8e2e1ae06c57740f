"""The pyasc census: run pyasc's own kernels with only `import asc` changed to asc_trace, and say which
trace, lower (and, for the reference-checked ones, run and pass), and what stops the others.

    python tools/pyasc_census.py /tmp/pyasc-src [--json docs/pyasc-census.json] [--markdown docs/pyasc-census.md]
                                                [--group unit] [-k vadd]

The checkout is pyasc's repository (`fetch` hicann/pyasc, then `git archive <commit> | tar -x`); its
files are rewritten into a temporary folder, never into this repository. The kernels run in a child
process (tools/pyasc_compat/runner.py). Prints a table; writes the whole result as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from pyasc_compat.jsonio import dumps  # noqa: E402
from pyasc_compat.kernels import scan, shadowed_lines  # noqa: E402
from pyasc_compat.report import FileResult, build, markdown, table  # noqa: E402
from pyasc_compat.sources import find_files, write_tree  # noqa: E402

SURFACE = REPO / "docs" / "pyasc-surface.json"


def _git_commit(path: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except OSError:
        return None


def method_index(surface: Path = SURFACE) -> dict[str, list[str]]:
    """method name -> the pyasc classes that have it, from the surface list (empty without it)."""
    if not surface.is_file():
        return {}
    data = json.loads(surface.read_text())
    index: dict[str, list[str]] = {}
    for entry in data["names"]:
        for m in entry.get("methods", []):
            index.setdefault(m["name"], []).append(entry["name"])
    return {m: sorted(set(c)) for m, c in index.items()}


def run(checkout: Path, groups: set[str], pattern: str | None, timeout: float, keep: bool,
        origin: str | None = None) -> dict:
    files = [f for f in find_files(checkout) if f.group in groups and (not pattern or pattern in f.rel)]
    results = []
    for f in files:
        src = f.source(checkout)
        results.append(FileResult(f.rel, f.group, f.kind, scan(src), shadowed_lines(src)))
    methods = method_index()
    tmp = Path(tempfile.mkdtemp(prefix="pyasc_census_"))
    try:
        write_tree(checkout, files, tmp)
        shutil.copy(HERE / "pyasc_compat" / "glue" / "conftest.py", tmp / "conftest.py")
        manifest = {"files": [{"rel": f.rel, "group": f.group, "kind": f.kind} for f in files], "methods": methods}
        (tmp / "manifest.json").write_text(json.dumps(manifest))
        records_path = tmp / "records.jsonl"
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(HERE / "pyasc_compat" / "runner.py"), str(tmp),
                               str(tmp / "manifest.json"), str(records_path)], cwd=tmp, capture_output=True,
                              text=True, timeout=timeout, env={**os.environ, "PYTHONHASHSEED": "0"})
        seconds = time.perf_counter() - t0
        records = [json.loads(line) for line in records_path.read_text().splitlines()] if records_path.exists() else []
        if proc.returncode != 0 or not records:
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
    finally:
        if keep:
            print(f"rewritten files kept in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    result = build(results, records, methods)
    result["pyasc"] = {"checkout": origin or str(checkout), "commit": _git_commit(checkout)}
    result["asc_trace"] = {"commit": _git_commit(REPO), "backend": os.environ.get("ASC_TRACE_BACKEND") or
                           "set_platform's (Model: sim)"}
    result["run"] = {"groups": sorted(groups), "filter": pattern, "seconds": round(seconds, 1),
                     "runner_exit": proc.returncode}
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkout", type=Path, help="a pyasc checkout (its python/ folder holds the kernels)")
    p.add_argument("--json", type=Path, help="write the result here")
    p.add_argument("--markdown", type=Path, help="write the summary and every blocking name here")
    p.add_argument("--group", choices=("unit", "reference", "all"), default="all")
    p.add_argument("-k", dest="pattern", help="only files whose path contains this")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds for the child process")
    p.add_argument("--keep", action="store_true", help="keep the rewritten files")
    p.add_argument("--origin", help="what the checkout is, for the JSON (e.g. hicann/pyasc@a03f876)")
    p.add_argument("--top", type=int, default=40, help="blocking names to print")
    a = p.parse_args(argv)
    groups = {"unit", "reference"} if a.group == "all" else {a.group}
    result = run(a.checkout.resolve(), groups, a.pattern, a.timeout, a.keep, a.origin)
    print(table(result, a.top))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(dumps(result))
    if a.markdown:
        a.markdown.write_text(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
