"""Every registered op reaches every layer: taking one node of each op from the suite's kernels
(tests/suite_kernels.py, which uses every record), the emitter wrote its Ascend C call, an executor binds
it (its NumPy semantics), the vector pipe can cost it, the printer prints it, the cpp backend has its C++
model or refuses it with the record's reason, cpu_debug's stub layer models the instruction of an
element-wise op, and the front end offers it. `missing_layers` is checked on
made-up records too, so that the test can fail."""
from __future__ import annotations

import re
from functools import lru_cache

import asc_trace as asc
import suite_framework
import suite_kernels
from asc_trace.errors import ToolchainError
from asc_trace.graph.node import Node, Pipe
from asc_trace.graph.ops import NA, REGISTRY, CppModel, OpDef, vec_cost
from asc_trace.graph.ops.cpp_model import model_ops_header, stub_ops_header
from asc_trace.graph.printer import node_text
from asc_trace.runtime import cube_sim, executors, mix_sim  # noqa: F401 (cube_sim registers the L1 Fixpipe)
from asc_trace.errors import NotProvidedError
from asc_trace.runtime.cpp import refuse_unmodeled
from asc_trace.runtime.cube_exec import BINDERS as CUBE_BINDERS


# The suite's kernel sets, the cheap ones first: the search stops at the first set after which every
# registered op has a node, so the fast lane compiles about half of the suite's kernels (the random
# programs and most examples add no op; test_op_registry checks that every record is emitted by them all).
_SETS = (suite_framework.framework_kernels, suite_kernels.extra_kernels, suite_kernels.parity_kernels,
         suite_kernels.block_sync_kernels, suite_kernels.adv_variant_kernels, suite_kernels.vec_more_kernels,
         suite_kernels.registry_kernels, suite_kernels.adv_kernels, suite_kernels.example_kernels,
         suite_kernels.random_kernels)


@lru_cache(maxsize=1)
def _examples() -> dict[str, tuple[Node, str]]:
    """op name -> (one node of it, the emitted source of its kernel)."""
    out: dict[str, tuple[Node, str]] = {}
    for kernels in _SETS:
        for k in kernels():
            for n in k.graph:
                out.setdefault(n.op, (n, k.source))
        if REGISTRY.keys() <= out.keys():
            break
    return out


# the element-wise families reach cpu_debug through the vendor's own implementation, which issues one vector
# intrinsic that the stub layer models from the record (graph/ops/cpp_model.py stub_ops_header:
# ASC_STUB_BINARY(vadd, Add) and the element's expression)
@lru_cache(maxsize=1)
def _stub_ops() -> set[str]:
    text = stub_ops_header()
    declared = set(re.findall(r"ASC_STUB_(?:BINARY|UNARY|SCALAR)\(v\w+, (\w+)\)", text))
    computed = set(re.findall(r"case VOp::(\w+): return", text)) | {"Axpy"}   # Axpy: stub/src/vector.cpp's own loop
    return declared & computed


class _OneNode:
    """A graph of one node, as refuse_unmodeled walks it."""

    def __init__(self, node: Node) -> None:
        self.node = node

    def __iter__(self):
        return iter([self.node])


def missing_layers(op: OpDef, node: Node, source: str) -> list[str]:
    """The layers `op` lacks, judged on `node` (a node of it) and `source` (its kernel's Ascend C)."""
    missing = []
    if not isinstance(op.emit, NA):
        if not (op.emit is not None and f"{op.c_name}" in source):
            missing.append("emit")
    if op.family == "control":
        pass                    # structure: the region walker runs it (graph/regions.py)
    elif op.family == "cube":
        if node.op not in CUBE_BINDERS:
            missing.append("executor")
    elif op.family == "cross_core":     # flags between the cube and vector cores: the mixed-kernel runner's
        if not callable(getattr(mix_sim._Side, "bind_cross", None)):
            missing.append("executor")
    else:
        try:
            executors.bind(node, checks=False)
        except NotProvidedError:
            pass                # an op no backend runs (graph/ops/vec_fused_cast.py): refused with its reason
        except NotImplementedError:
            missing.append("executor")
    if op.pipe is Pipe.V and node.pipe is Pipe.V:
        try:
            cost, dtype, size = vec_cost(node)
            # a VecCost, or a high-level call's bound cost (the instructions it issues, graph/ops/adv_common.py)
            if not (callable(getattr(cost, "cycles", None)) and cost.cycles(dtype, 256, size) > 0):
                missing.append("cost")
        except NotImplementedError:
            missing.append("cost")
    try:
        if not node_text(node).startswith(f"%{node.id} = {node.op}"):
            missing.append("printer")
    except Exception:           # any failure of the printer's form is the finding
        missing.append("printer")
    m = op.cpp_model
    if isinstance(m, CppModel):
        if m.expr is not None and f"({op.c_name}, {m.expr})" not in model_ops_header():
            missing.append("cpp model")
    elif isinstance(m, NA) and (op.family == "adv" or op.family.startswith("vec_")):
        try:                    # no model: the cpp backend must say so, with the record's reason
            refuse_unmodeled(_OneNode(node))
            missing.append("cpp refusal")
        except ToolchainError as e:
            if m.reason not in str(e):
                missing.append("cpp refusal")
    elif not isinstance(m, NA):
        missing.append("cpp model")
    if op.family in ("vec_binary", "vec_unary", "vec_scalar") and op.c_name not in _stub_ops():
        missing.append("cpu_debug model")
    if op.family.startswith("vec_") and not callable(getattr(asc, op.name, None)):
        missing.append("front end")
    if op.family == "adv" and not callable(getattr(asc.adv, op.name[4:], None)):
        missing.append("front end")
    return missing


def test_every_registered_op_reaches_every_layer():
    # one test, not one per op: under xdist each worker running one of them compiled the kernels again
    # (pytest-xdist 3.8's --dist loadgroup does not group under pytest 9 here); the message names each op
    examples = _examples()
    assert REGISTRY.keys() <= examples.keys(), sorted(REGISTRY.keys() - examples.keys())
    missing = {name: gaps for name in sorted(REGISTRY) if (gaps := missing_layers(REGISTRY[name], *examples[name]))}
    assert missing == {}


def test_a_record_that_lacks_layers_is_caught():
    """The check itself can fail: the transpose node judged against records each missing one layer."""
    node, source = _examples()["transpose"]
    real = REGISTRY["transpose"]

    def variant(**changes) -> OpDef:
        fields = {f: getattr(real, f) for f in real.__dataclass_fields__}
        return OpDef(**{**fields, **changes})

    assert missing_layers(real, node, source) == []
    assert missing_layers(variant(c_name="NotEmitted"), node, source) == ["emit"]
    assert missing_layers(variant(cpp_model=None), node, source) == ["cpp model"]
    assert missing_layers(variant(cpp_model=CppModel("detail::nothing(a)")), node, source) == ["cpp model"]
    assert missing_layers(variant(name="no_such_front_end"), node, source) == ["front end"]
    add_node, add_source = _examples()["add"]
    assert missing_layers(REGISTRY["add"], add_node, add_source) == []
    fake_add = OpDef(**{**{f: getattr(REGISTRY["add"], f) for f in real.__dataclass_fields__}, "c_name": "Addx"})
    assert "cpu_debug model" in missing_layers(fake_add, add_node, add_source + "Addx")
    # an op of a family no executor knows, without a cost
    orphan = variant(family="vec_orphan", cost=None)
    REGISTRY["transpose"] = orphan          # the executor and the cost read the registry by the node's op
    try:
        assert missing_layers(orphan, node, source) == ["executor", "cost"]
    finally:
        REGISTRY["transpose"] = real
