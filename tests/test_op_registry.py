"""The op registry (graph/ops) is the one place that knows an op: every record states each facet or
says why it has none, the layers read the records, and no other module keeps a table of op names."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import suite_kernels
from asc_trace.graph.ops import NA, REGISTRY, VALUES_ALL, CppModel, VecCost
from asc_trace.graph.ops.control import REGION_OPS
from asc_trace.graph.ops.cpp_model import model_ops_header
from asc_trace.graph.node import Pipe

PKG = Path(__file__).resolve().parents[1] / "asc_trace"
MODEL_HEADER = "\n".join(p.read_text() for p in sorted((PKG / "toolchain" / "include").glob("*.h")))
OPS = sorted(REGISTRY)
ELEMENTWISE = ("vec_binary", "vec_unary", "vec_scalar")


def _na(x) -> bool:
    return isinstance(x, NA) and len(x.reason) > 10


@pytest.mark.parametrize("name", OPS)
def test_every_record_has_an_emission(name):
    op = REGISTRY[name]
    if name in REGION_OPS:      # structure: the region walker writes the C block, and the record says so
        assert _na(op.emit), name
        return
    assert isinstance(op.emit, str) and callable(op.emit_fields) or callable(op.emit), name
    if isinstance(op.emit, str):
        assert f"AscendC::{op.c_name}" in op.emit, name
    if op.family in ELEMENTWISE:
        assert op.emit_mask is not None and f"AscendC::{op.c_name}(" in op.emit_mask, name


@pytest.mark.parametrize("name", OPS)
def test_every_record_has_a_cpp_model_or_says_why_not(name):
    op = REGISTRY[name]
    m = op.cpp_model
    assert isinstance(m, CppModel) or _na(m), name
    if isinstance(m, CppModel):
        if m.expr is not None:               # instantiated from the record into the generated header
            assert op.family in ELEMENTWISE and f"({op.c_name}, {m.expr})" in model_ops_header(), name
        elif m.source:                       # carried by the record, put into the generated header
            assert f"{op.c_name}(" in m.source and m.source.strip().splitlines()[0] in model_ops_header(), name
        else:                                # hand-written in the model header: the names it gives exist there
            assert m.header, name
            for word in re.findall(r"[A-Za-z_]+(?=\s*(?:/|\(|$))", m.header.split(" (")[0]):
                assert re.search(rf"\b{word}\b", MODEL_HEADER), (name, word)


@pytest.mark.parametrize("name", OPS)
def test_every_record_has_a_printer_form_values_and_access_facets(name):
    op = REGISTRY[name]
    assert op.printer in ("dst", "args") or callable(op.printer), name
    for positions in (op.values, op.per_core):
        assert positions is None or positions == VALUES_ALL or all(isinstance(i, int) and i >= 0 for i in positions)
    assert all(isinstance(i, int) for i in op.writes)
    # cost: every vector-pipe instruction has one; copies to / from GM are costed by the platform, and the
    # other ops are not instructions of a compute pipe
    if op.pipe is Pipe.V or op.family in ("data_copy", "data_copy_pad"):
        assert isinstance(op.cost, VecCost) and op.cost.source, name
    else:
        assert op.cost is None, name
    # NumPy semantics: the element-wise families compute with `ref`; the others' semantics are their
    # executors' (runtime/executors_ops.py), checked against NumPy in tests/test_ops.py
    if op.family in ELEMENTWISE + ("vec_duplicate", "vec_cast"):
        assert callable(op.ref), name


def test_every_record_is_emitted_by_the_suite():
    """Each op's emission runs in tests/test_api_symbols.py's kernels (so the real-API check sees it)."""
    used = {n.op for k in suite_kernels.all_kernels() for n in k.graph}
    assert set(REGISTRY) - used == set()


# -- no other table of op names -------------------------------------------------------------------------

# Modules whose tables named ops before the registry carried that knowledge: they must name none now.
READ_THE_REGISTRY = ("lower/ascendc.py", "graph/printer.py", "runtime/interpreter.py", "runtime/sim.py",
                     "runtime/batch.py", "runtime/batch_ops.py", "runtime/executors_ops.py", "runtime/cpp.py")


def _op_tables(path: Path) -> list[tuple[int, list[str]]]:
    """(line, op names) of each dict / set / tuple / list literal in `path` that names a registered op
    (comparisons `n.op == "for"` of a region walker are not tables). A table is a collection of names: a
    set / tuple / list with an item that is not a string constant is a record (`("tbuf", root)`, a memory
    space's tag and its buffer; `("min", 60)`, a time unit and its seconds), not a table of op names. A
    module's `__all__` lists the Python functions it defines (`asc.printf` is a function of proxies/api.py),
    not facts about ops."""
    out = []
    tree = ast.parse(path.read_text())
    exports = {id(a.value) for a in ast.walk(tree) if isinstance(a, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in a.targets)}
    for node in ast.walk(tree):
        if id(node) in exports:
            continue
        if isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        elif isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            items = node.elts
            if not all(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in items):
                continue
        else:
            continue
        names = [c.value for c in items if isinstance(c, ast.Constant) and c.value in REGISTRY]
        if names:
            out.append((node.lineno, names))
    return out


@pytest.mark.parametrize("module", READ_THE_REGISTRY)
def test_no_table_of_op_names_outside_the_registry(module):
    assert _op_tables(PKG / module) == [], module


# No module outside the registry keeps a table of op names (the ratchet that listed the scheduler, the front
# end, the HIVM emitter, ... is empty now). The region walker's structural ops are allowed through
# graph/ops/control.py's REGION_OPS.
def _naming_modules(pkg: Path) -> dict[str, list]:
    out = {}
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel.startswith("graph/ops/"):
            continue
        tables = [(line, names) for line, names in _op_tables(path) if not set(names) <= set(REGION_OPS)]
        if tables:
            out[rel] = tables
    return out


def test_no_module_outside_the_registry_names_ops():
    assert _naming_modules(PKG) == {}, "a table of op names: put the knowledge in the op's record"


def test_the_table_finder_finds_tables(tmp_path):
    """The check above can fail: a table of op names is found, a tag-and-value tuple, a region walker's
    tuple and a module's __all__ are not."""
    (tmp_path / "m.py").write_text(
        'A = ("set_flag", "wait_flag")\nB = {"alloc_tensor": 1}\nC = ("tbuf", 3)\nD = ("for", "end_for")\n'
        '__all__ = ["printf"]\n')
    assert _naming_modules(tmp_path) == {"m.py": [(1, ["set_flag", "wait_flag"]), (2, ["alloc_tensor"])]}


def test_a_records_cpp_source_may_not_end_the_generated_macro(monkeypatch):
    """CppModel.source becomes the body of ASC_TRACE_RECORD_MODELS: a // comment would swallow the rest."""
    from asc_trace.graph.ops.cpp_model import record_model_lines
    from asc_trace.graph.ops.opdef import OpDef
    for bad in ("inline void Zz() {}  // a comment", "#include <x>\ninline void Zz() {}"):
        monkeypatch.setitem(REGISTRY, "zz_model", OpDef("zz_model", "vec_record", cpp_model=CppModel(source=bad)))
        with pytest.raises(ValueError, match="zz_model"):
            record_model_lines()
    monkeypatch.setitem(REGISTRY, "zz_model", OpDef("zz_model", "vec_record",
                                                    cpp_model=CppModel(source="inline void Zz() {}  /* ok */")))
    assert "inline void Zz() {}  /* ok */" in record_model_lines()
