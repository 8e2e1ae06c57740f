"""Write docs/pyasc-surface.json and docs/pyasc-surface.md: every public name of pyasc 1.1.x with its
signatures, its Ascend C counterpart, the issue that owns it, asc_trace's status and its use by
pyasc's kernels.

    python tools/pyasc_surface.py [--pyasc-python .venv-pyasc/bin/python] [--census docs/pyasc-census.json]
    python tools/pyasc_surface.py --render     # only rewrite the Markdown from the JSON

pyasc's side is read from an installed pyasc (`make .venv-pyasc/bin/python` installs pyasc==1.1.1) by
tools/pyasc_compat/introspect.py in a child process; asc_trace's status is computed here.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from pyasc_compat.jsonio import dumps  # noqa: E402
from pyasc_compat.surface import build_records, markdown  # noqa: E402

DOCS = REPO / "docs"
JSON_OUT = DOCS / "pyasc-surface.json"
MD_OUT = DOCS / "pyasc-surface.md"


def read_pyasc(python: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "raw.json"
        env = {**os.environ, "PYASC_COMPILER": os.environ.get("PYASC_COMPILER", "true"),
               "PYASC_LINKER": os.environ.get("PYASC_LINKER", "true")}
        subprocess.run([str(python), str(HERE / "pyasc_compat" / "introspect.py"), str(out)], check=True, env=env,
                       cwd=tmp)
        return json.loads(out.read_text())


def restatus(records: list[dict]) -> None:
    """asc_trace's side of each record again, against the asc_trace imported now: the statuses `make surface`
    wrote are a snapshot of the day it ran (it needs pyasc installed), and asc_trace moves on without it.
    A value's pyasc text is not stored, so values keep their status."""
    from pyasc_compat.status import status
    for r in records:
        if r["kind"] in ("binding", "value"):
            continue
        entry = {"path": "asc." + r["name"], "kind": r["kind"], "overloads": r.get("overloads", []),
                 "methods": [{"name": m["name"], "kind": m["kind"], "overloads": m["overloads"]}
                             for m in r.get("methods", [])],
                 "members": [{"name": m} for m in r.get("members", [])]}
        st = status(entry)
        r["status"], r["notes"] = st["status"], st["notes"]
        for m in r.get("methods", []):
            ms = st.get("methods", {}).get(m["name"], {"status": "missing", "notes": []})
            m["status"], m["notes"] = ms["status"], ms["notes"]


def render(data: dict) -> str:
    return markdown(data["names"], data["meta"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pyasc-python", type=Path, default=REPO / ".venv-pyasc" / "bin" / "python")
    p.add_argument("--census", type=Path, default=DOCS / "pyasc-census.json")
    p.add_argument("--render", action="store_true", help="only rewrite the Markdown from the JSON")
    p.add_argument("--restatus", action="store_true",
                   help="recompute asc_trace's status of every name from the JSON's pyasc side (no pyasc install needed)")
    a = p.parse_args(argv)
    if a.render:
        MD_OUT.write_text(render(json.loads(JSON_OUT.read_text())))
        return 0
    if a.restatus:
        data = json.loads(JSON_OUT.read_text())
        restatus(data["names"])
        JSON_OUT.write_text(dumps(data))
        MD_OUT.write_text(render(data))
        return 0
    raw = read_pyasc(a.pyasc_python)
    usage = json.loads(a.census.read_text())["names"] if a.census.is_file() else {}
    census_meta = json.loads(a.census.read_text()).get("pyasc", {}) if a.census.is_file() else {}
    data = {"meta": {"pyasc_version": raw["pyasc_version"], "census": census_meta},
            "names": build_records(raw, usage)}
    DOCS.mkdir(exist_ok=True)
    JSON_OUT.write_text(dumps(data))
    MD_OUT.write_text(render(data))
    counts: dict[str, int] = {}
    for r in data["names"]:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"{len(data['names'])} pyasc names: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
