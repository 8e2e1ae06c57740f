"""The graph: its dump, its invariants, and the README's tour."""
import re
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import asc_trace as asc
import vadd
from asc_trace.graph.node import Node
from asc_trace.graph.verify import GraphError, verify

ROOT = Path(__file__).resolve().parents[1]


def _graph():
    x = np.zeros(8 * 256, np.float32)
    return asc.compile(vadd.vadd_kernel, (x, x, x, 256)).graph


def test_dump_shows_loops_pipes_and_locations():
    text = str(_graph())
    lines = text.splitlines()
    assert lines[0] == "kernel vadd_kernel(x: gm f32*, y: gm f32*, z: gm f32*, block_length: int)"
    assert any(re.match(r"  %\d+ = for i0 in range\(0, 16, 1\):\s+# vadd.py:\d+", ln) for ln in lines)
    body = [ln for ln in lines if ln.startswith("    %")]
    assert any("= add %" in ln and "@V" in ln for ln in body)
    assert any("= data_copy %" in ln and "@MTE2" in ln for ln in body)
    assert any("= data_copy %2[" in ln and "@MTE3" in ln for ln in body)
    assert all("# vadd.py:" in ln for ln in lines[1:] if not ln.startswith("  # "))


def test_dump_is_deterministic_and_locs_optional():
    g1, g2 = _graph(), _graph()
    assert str(g1) == str(g2)
    assert "vadd.py" not in g1.dump(locs=False)


def test_nodes_are_frozen_and_edges_carry_operand_index():
    g = _graph()
    n = g.node(g.order[-2])
    with pytest.raises(Exception):
        n.op = "sub"   # frozen dataclass
    assert isinstance(g.nx, nx.MultiDiGraph)
    add = next(x for x in g if x.op == "add")
    preds = {u: d["idx"] for u, _, d in g.nx.in_edges(add.id, data=True) if d["kind"] == "data"}
    assert set(preds.values()) == {0, 1, 2}
    assert all(g.nx.nodes[i]["n"].op == "local_tensor" for i in preds)


def test_every_node_has_a_user_location():
    for n in _graph():
        assert n.loc.file.endswith("vadd.py") and n.loc.line > 0 and n.loc.code


def test_verify_catches_broken_graphs():
    g = _graph().copy()
    verify(g)
    broken = g.copy()
    broken.set_order([i for i in g.order if g.node(i).op != "end_for"])
    with pytest.raises(GraphError):
        verify(broken)
    broken = g.copy()
    broken.set_order(list(reversed(g.order)))
    with pytest.raises(GraphError):
        verify(broken)


def test_copy_is_independent():
    g = _graph()
    h = g.copy()
    h.replace(Node(h.order[0], "tpipe", (), h.node(h.order[0]).loc))
    assert g.node(g.order[0]).op == "global_tensor"


def test_readme_tour_runs():
    text = (ROOT / "README.md").read_text()
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "the README has a python example"
    # compiled at its own lines of README.md, where the tracer's source lookup will read them
    code = "\n" * text.count("\n", 0, match.start(1)) + match.group(1)
    exec(compile(code, str(ROOT / "README.md"), "exec"), {"__name__": "readme"})
