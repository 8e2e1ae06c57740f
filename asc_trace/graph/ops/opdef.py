"""The `OpDef` record and the helpers every op family builds its records with.

Kept apart from the package's `__init__` so that the family files import it without importing each
other (the package imports every family to fill `REGISTRY`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..node import Pipe, TensorRef


@dataclass(frozen=True, slots=True, eq=False)
class OpDef:
    """Everything asc_trace knows about one operation.

    family: "vec_binary", "vec_unary", "vec_scalar", "vec_duplicate", "data_copy", "sync",
        "framework", "control", "debug", "scalar", ...: selects the API shape, the executor and the emitter.
    pipe: the pipe the instruction runs on; None when it depends on the operands (data_copy) or the
        node is bookkeeping only.
    c_name: the Ascend C function, e.g. "Add".
    arity: number of tensor sources of a vector op.
    ref: NumPy semantics on compute-dtype arrays (float16 stays float16, bfloat16 is widened).
    dtypes: element types the A2 hardware supports for this op (None: any).
    cost: cycles of one instruction on the vector pipe (startup + per-repeat slope, with its source);
        None for ops that are not vector instructions (copies to or from GM are costed by the platform).
    emit: its Ascend C statement: a template `emit_fields(ctx, node)` fills, a function
        `(ctx, node) -> str` (ctx: lower/ascendc.py's emitter, the `EmitContext` below), or NA for the
        region walker's structural ops (control.py).
    emit_fields: (ctx, node) -> the template's fields, for a template `emit`.
    emit_mask: the template of the mask / repeat form (masked.py `mask_fields` fills it); None: no such form.
    cpp_model: the C++ model the cpp backend compiles (`CppModel`), or NA.
    printer: the body of the node's line in graph/printer.py: "dst" (`dst <- srcs`), "args", or a function
        node -> text.
    values: positions of operands that are values: they change what an instruction computes, not when or
        where it runs (a kernel whose values depend on tensor data can still be timed); VALUES_ALL: every one.
    per_core: positions of operands that may differ from core to core (the executors take one value per
        core); None: the same as `values`.
    declared: the Ascend C declarations its emission uses, key (lower/api_symbols.py's `Name/N`) ->
        (asc-devkit `path:line`, CANN 8.1.RC1 `path:line` or "-"), for lower/api_symbols.py; ops from
        before the registry carried them have theirs in lower/api_symbols.txt.
    tol: (rtol, atol) by dtype name where the hardware is not bit-exact with NumPy.
    writes: positions of the tensor operands the op writes.
    reads: positions of the tensor operands whose data it reads (None: every other tensor operand).
    accesses: node -> [(TensorRef, first element, element count, is_write)] when the op does not
        touch `count` elements from each operand's start (reductions, strided copies, masks, ...).
    api_sync: for an API call that sets and waits events itself (graph/hb.py `ApiStep`):
        (node, value) -> its steps in order, () when this call has none, None when that depends on an
        operand `value` (an Expr -> int or None) cannot tell; `api_events` the events it takes ids of.
    operands: for the family "vec_record" (an op whose record states its whole call, so that the front end,
        the executors and the emitter need nothing of their own for it): the parameter names in order;
        "name" is a LocalTensor (written when its position is in `writes`), "name:int" an integer value,
        "name:scalar" a value of the tensors' element type (Ascend C's `const T&`). The executor reads the
        regions `accesses` gives and computes `ref(*read regions, *values)`: an int value a plain int, a
        scalar one rounded to the element type (a column of one per core when it differs by core).
    intrinsic: for the element-wise families, the vector instruction the API call issues (vadd, vexp, ...):
        cpu_debug's stub layer models it from this record (graph/ops/cpp_model.py `stub_ops_header`).
    other_forms: for "vec_record": why the API's other call forms are not provided (a call with other
        operands raises NotProvidedError with it); "" when the record states the only form.
    role: the part the op plays for the passes that treat ops by kind (the scheduler's analysis, the sync
        proof, the race checker, the emitter's event table): "flag" (sets or waits a hardware event:
        operands (event, id), `sync_side` says which), "barrier" (orders a pipe: PipeBarrier), "block_sync"
        (synchronises the cores; begins with PIPE_ALL), "queue" (a TQue step, graph/queue_model.py),
        "storage" (declares or hands out memory the access model follows: tensors, TQue / TBuf and their
        buffers); "" for the rest (instructions, scalar and structural ops).
    sync_side: for a "flag" op, "set" or "wait".
    hivm: its form in the HIVM IR lowering (lower/hivm.py, the vendor-IR judge): for the element-wise
        families and Duplicate the `hivm.hir` vector op ("vadd", "vbrc"); "vmul+vadd" / "vmul+vmax": two
        steps through a scratch buffer (scratch = src * scalar, then dst = step2(dst or src, scratch): dst when
        the op reads dst); "vreduce:<kind>" a reduction; "copy" a copy (load / store / UB copy by the spaces);
        "memref" a scalar read / write of the UB; "root:ub" / "root:gm" a LocalTensor / GlobalTensor (the roots
        of the views); "none" no instruction (printf); "" not lowered (the lowering refuses it).
    shift_scalar: its scalar operand is a shift count, 0 .. bits-1 of the element (graph/operand_checks.py
        checks it; the vendor's ShiftLeft / ShiftRight check it in CPU-debug mode).
    repeat_at: the operand position of a uint8_t repeat time, for an op whose other operands need no range
        (Brcb, Gatherb; Gather's mask form); -1: none.
    defines: what the node's result is: "tensor" (a tensor root: its TensorRef's `root` is this node),
        or the kind of the ObjRef it creates ("que", "tbuf", "pipe", "pool"); "" when it defines neither.
    """

    name: str
    family: str
    pipe: Pipe | None = None
    c_name: str = ""
    arity: int = 0
    ref: Callable[..., Any] | None = None
    dtypes: frozenset[str] | None = None
    cost: "VecCost | None" = None
    emit: "str | Callable[[Any, Any], str] | NA | None" = None
    emit_fields: Callable[[Any, Any], dict[str, str]] | None = None
    emit_mask: str | None = None
    cpp_model: "CppModel | NA | None" = None
    printer: "str | Callable[[Any], str]" = "args"
    values: "tuple[int, ...] | str" = ()
    per_core: tuple[int, ...] | None = None
    declared: dict[str, tuple[str, str]] = field(default_factory=dict)
    tol: dict[str, tuple[float, float]] = field(default_factory=dict)
    writes: tuple[int, ...] = ()
    reads: tuple[int, ...] | None = None
    accesses: Callable[[Any], list] | None = None
    api_sync: Callable[[Any, Callable[[Any], int | None]], tuple | None] | None = None
    api_events: tuple = ()
    operands: tuple[str, ...] = ()
    intrinsic: str = ""
    other_forms: str = ""
    role: str = ""
    sync_side: str = ""
    shift_scalar: bool = False
    hivm: str = ""
    repeat_at: int = -1
    defines: str = ""
    doc: str = ""

    def supports(self, dtype_name: str) -> bool:
        return self.dtypes is None or dtype_name in self.dtypes

    def tolerance(self, dtype_name: str) -> tuple[float, float]:
        return self.tol.get(dtype_name, (0.0, 0.0))

    def __repr__(self) -> str:
        return f"OpDef({self.name})"


    def reads_dst(self) -> bool:
        """Whether the op's result depends on its destination's old value (Axpy, FusedMulAdd, MulAddDst)."""
        return self.reads is not None and 0 in self.reads

    def value_positions(self, nargs: int, per_core: bool = False) -> "tuple[int, ...] | range":
        """The operand positions that are values (`per_core`: that may differ between cores)."""
        v = self.per_core if per_core and self.per_core is not None else self.values
        return range(nargs) if v == VALUES_ALL else v


@dataclass(frozen=True, slots=True)
class NA:
    """A facet an op does not have, with the reason (a record states it rather than leaving it out)."""

    reason: str


@dataclass(frozen=True, slots=True)
class CppModel:
    """The op's model in the cpp backend's C++ API model (toolchain/include/kernel_operator.h).

    expr: for the element-wise families, the C++ expression of one element (operands `a`, `b`, scalar
        `s`), instantiated from the registry into every overload of the API call (runtime/cpp_model_ops.py);
    header: otherwise, the hand-written function(s) of kernel_operator.h that model it.
    source: or the model's own C++ definitions, carried by the record: graph/ops/cpp_model.py puts them into
        the generated header (`ASC_TRACE_RECORD_MODELS`), which kernel_operator.h expands inside namespace
        AscendC after the element-wise ops, so the op needs no edit of the header (no `//` comments and no
        preprocessor lines: it becomes a macro's body).
    """

    expr: str | None = None
    header: str = ""
    source: str = ""


VALUES_ALL = "all"

REGISTRY: dict[str, OpDef] = {}


def register(*ops: OpDef) -> None:
    for op in ops:
        if op.name in REGISTRY:
            raise ValueError(f"op {op.name!r} registered twice")
        REGISTRY[op.name] = op


def get(name: str) -> OpDef:
    return REGISTRY[name]


def with_role(*roles: str) -> frozenset[str]:
    """The names of the registered ops whose record gives one of `roles` (call it once the registry is
    filled, i.e. from a layer above graph/ops, not while the record files import)."""
    return frozenset(op.name for op in REGISTRY.values() if op.role in roles)


def family(name: str) -> list[OpDef]:
    return [op for op in REGISTRY.values() if op.family == name]


# the families whose call is a count form: tensor operands, scalars, then the element count (the last operand)
COUNT_FORM_FAMILIES = frozenset({"vec_binary", "vec_unary", "vec_scalar", "vec_duplicate", "vec_cast", "vec_reduce",
                                 "vec_cmpsel", "data_copy"})


# A2 dtype groups (docs/facts.md#facts-5)
ARITH = frozenset({"int16", "float16", "int32", "float32"})
FLOATS = frozenset({"float16", "float32"})
REPEAT_BYTES = 256      # one vector repeat: 8 blocks of 32 bytes


@dataclass(frozen=True, slots=True)
class VecCost:
    """Cycles of one vector instruction: `startup + per_repeat x repeats`, one repeat = 256 bytes of the
    wider operand type (timing facts, PTO-ISA cost model for A2). The count form of an API is one
    instruction in counter mode (asc-devkit impl/basic_api/dav_c220: SetMaskCount, then one v-instruction).

    per_repeat: cycles per repeat, one figure or one per dtype name.
    levels: reductions repeat over their partial results until one value is left (ReduceSum/Max are
        sequences of whole-repeat reductions).
    source: where the figures come from ("fitted: ...", "assumed: ...").
    """

    startup: float
    per_repeat: float | dict[str, float]
    source: str
    levels: bool = False

    def slope(self, dtype_name: str) -> float:
        if isinstance(self.per_repeat, dict):
            return self.per_repeat.get(dtype_name, max(self.per_repeat.values()))
        return self.per_repeat

    def cycles(self, dtype_name: str, elems: int, itemsize: int) -> float:
        """Cycles for `elems` elements of `itemsize` bytes (the wider of source and destination)."""
        per = REPEAT_BYTES // itemsize
        repeats = -(-elems // per)
        slope = self.slope(dtype_name)
        total = self.startup + slope * repeats
        while self.levels and repeats > 1:         # the next level reduces one value per repeat
            repeats = -(-repeats // per)
            total += self.startup + slope * repeats
        return total


_PTO = "fitted: PTO-ISA cost model for A2 (timing facts, costmodel/a2a3/cce_cycle_profiles.csv)"
# vadds / vmuls / vrelu / vabs: 4-7 cycles startup (midpoint taken) + 1.0 per repeat
UNARY_SIMPLE = VecCost(5.5, 1.0, f"{_PTO}: vadds/vmuls/vrelu/vabs 4-7 + 1.0 (startup: midpoint)")
# ops the cost model does not list that read one operand at the simple rate (docs/facts.md#facts-10 table)
UNARY_LIKE = VecCost(5.5, 1.0, "assumed as vadds/vabs (not in the cost model; the A2 throughput table "
                               "lists it at the simple-op rate, ascendc-facts §10)")
BINARY = VecCost(5.9, 2.07, f"{_PTO}: vadd 5.9 + 2.07")
BINARY_LIKE = VecCost(5.9, 2.07, "assumed as vadd (two sources, not in the cost model)")
MUL = VecCost(6.9, 2.13, f"{_PTO}: vmul 6.9 + 2.13")
EXP = VecCost(12, {"float16": 4, "float32": 2}, f"{_PTO}: vexp 12 + 4 (fp16) / 2 (fp32)")
LN_SQRT = VecCost(13.5, {"float16": 4, "float32": 2}, f"{_PTO}: vln, vsqrt 13-14 + 4 / 2 (startup: midpoint)")
DIV = VecCost(13, {"float16": 8, "float32": 4}, f"{_PTO}: vdiv 13 + 8 / 4")


def vec_cost(node) -> tuple[VecCost, str, int]:
    """(the op's cost record, the dtype its slope is read for, the widest operand's element size)."""
    op = REGISTRY[node.op]
    if op.cost is None:
        raise NotImplementedError(f"op {node.op!r} runs on the vector pipe but its record has no cost")
    if hasattr(op.cost, "for_node"):     # a high-level call: the sum of the instructions it issues (adv_common)
        return op.cost.for_node(node), "", 1
    if op.family in ("data_copy", "data_copy_pad"):     # UB -> UB: the work is in bytes
        return op.cost, "", 1
    dtype = node.attr("dtype")
    sizes = [a.dtype.itemsize for a in node.args if isinstance(a, TensorRef)]
    return op.cost, dtype.name if dtype else "", max(sizes, default=dtype.itemsize if dtype else 4)


def accesses(node) -> list:
    """[(TensorRef, first element, element count, is_write)] of every tensor operand a node touches."""
    from ..expr import Const, Expr
    op = REGISTRY[node.op]
    if node.attr("form") == "mask":
        from .masked import mask_accesses
        return mask_accesses(node, reads_dst=op.reads_dst())
    if op.accesses is not None:
        return op.accesses(node)
    count = node.args[-1] if node.args else None
    if not isinstance(count, Expr):
        return []
    return [(r, Const(0), count, True) for r in written(node)] + [(r, Const(0), count, False) for r in read(node)]


def written(node) -> list:
    """The tensor operands a node writes."""
    from ..node import TensorRef
    op = REGISTRY[node.op]
    n = len(node.args)      # an optional operand (an adv call's temporary buffer) may be absent
    return [node.args[i] for i in op.writes if i < n and isinstance(node.args[i], TensorRef)]


def read(node) -> list:
    """The tensor operands whose data a node reads."""
    from ..node import TensorRef
    op = REGISTRY[node.op]
    idx = op.reads if op.reads is not None else [i for i in range(len(node.args)) if i not in op.writes]
    return [node.args[i] for i in idx if i < len(node.args) and isinstance(node.args[i], TensorRef)]
