"""`tools/pyasc_surface.py --restatus`: asc_trace's status of each pyasc name recomputed from the stored JSON
against the asc_trace imported now (the statuses `make surface` writes are a snapshot; it needs pyasc)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import pyasc_surface  # noqa: E402


def test_restatus_sees_what_asc_trace_has_now():
    names = json.loads((ROOT / "docs" / "pyasc-surface.json").read_text())["names"]
    by = {r["name"]: r for r in names}
    by["get_tpipe_ptr"]["status"] = "missing"          # as a stale snapshot would say
    by["TPipe"]["methods"][0]["status"] = "missing"
    pyasc_surface.restatus(names)
    assert by["get_tpipe_ptr"]["status"] == "present"
    tpipe = {m["name"]: m["status"] for m in by["TPipe"]["methods"]}
    assert tpipe["alloc_event_id"] == tpipe["release_event_id"] == tpipe["fetch_event_id"] == "present"
    assert by["TensorDesc"]["status"] == "missing"     # still absent: NotProvidedError is no name
