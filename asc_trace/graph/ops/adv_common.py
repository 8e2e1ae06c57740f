"""What the high-level API records (`asc.adv`, Ascend C `include/adv_api`) share.

An adv call is one node of family "adv" whose operands are, in order: the tensors it writes, the tensors it
reads, the shared temporary buffer when the caller passes one (attr `tmp`), its scalars, and the element
count when the call takes one. `AdvSpec` says which is which and carries the call's algorithm, written once
against `Steps`: run on NumPy arrays it is the simulator's semantics (each step is the basic op's own record
`ref`, so a step is bit-exact with the same basic instruction in a kernel); run on zeros with a log it is
the list of vector instructions the call issues, which is its cost (`AdvCost`) and its profile slices.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ...dtypes import DataType, float16, float32
from ..expr import Const, Expr
from ..node import Pipe, TensorRef
from ..numerics import cast_values, tree_sum
from .opdef import REGISTRY, OpDef, VecCost, register

ONE_REPEAT = 256          # bytes of one vector repeat (the vendor's ONE_REPEAT_BYTE_SIZE)
BLOCK = 32                # bytes of one data block (ONE_BLK_SIZE)


class Steps:
    """The vector instructions an adv algorithm issues, on (cores, n) arrays of compute values.

    With `log`, each instruction is appended as (basic op, dtype name, elements, widest item size); the
    arrays then only carry shapes (the cost run uses zeros)."""

    def __init__(self, log: list | None = None) -> None:
        self.log = log

    def _note(self, op: str, x: np.ndarray, itemsize: int | None = None) -> None:
        if self.log is not None:
            self.log.append((op, x.dtype.name, int(x.shape[-1]) * int(np.prod(x.shape[1:-1], dtype=np.int64)),
                             itemsize or x.dtype.itemsize))

    def cast(self, x: np.ndarray, to: DataType, mode: str = "none") -> np.ndarray:
        """Cast<to, from>(..., RoundMode::CAST_<mode>): `none` rounds to nearest even where it narrows."""
        src = float16 if x.dtype == np.float16 else float32
        self._note("cast", x, max(x.dtype.itemsize, to.itemsize))
        return cast_values(x, src, to, mode)

    def unary(self, op: str, x: np.ndarray) -> np.ndarray:
        self._note(op, x)
        return REGISTRY[op].ref(x).astype(x.dtype)

    def scalar(self, op: str, x: np.ndarray, s: Any) -> np.ndarray:
        """adds / muls / maxs / mins with a scalar of the element type."""
        self._note(op, x)
        s = np.asarray(s, dtype=x.dtype)
        return REGISTRY[op].ref(x, s[..., None] if s.ndim else s).astype(x.dtype)

    def binary(self, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self._note(op, a)
        return REGISTRY[op].ref(a, b).astype(a.dtype)

    def row_sum(self, x: np.ndarray) -> np.ndarray:
        """Sum of the last axis by repeat-wise vcadd levels (RepeatReduceSum until one value is left)."""
        per = ONE_REPEAT // x.dtype.itemsize
        n = x.shape[-1]
        while n > 1:
            self._note_n("whole_reduce_sum", x, x.shape[-2] * n if x.ndim > 2 else n)
            n = -(-n // per)
        return tree_sum(x, x.dtype, per)

    def row_max(self, x: np.ndarray) -> np.ndarray:
        per = ONE_REPEAT // x.dtype.itemsize
        n = x.shape[-1]
        while n > 1:
            self._note_n("whole_reduce_max", x, x.shape[-2] * n if x.ndim > 2 else n)
            n = -(-n // per)
        with np.errstate(invalid="ignore"):
            return np.max(x, axis=-1)

    def _note_n(self, op: str, x: np.ndarray, n: int) -> None:
        if self.log is not None:
            self.log.append((op, x.dtype.name, int(n), x.dtype.itemsize))


@dataclass(frozen=True)
class AdvSpec:
    """The operand layout and the vendor's algorithm of one adv call.

    outs / ins: tensor operand names, written / read. scalars: scalar operand names. counted: the last
    operand is calCount. algo(steps, ins, scalars, node) -> {out name: compute array}; ins are (cores, n)
    compute arrays, shaped by `shape(node)` when the call works on rows. extent(node, name) -> elements of
    that operand the call touches (an Expr). min_tmp / max_tmp(node, count) -> bytes: the vendor's host
    helpers (GetXxxMaxMinTmpSize). dtypes: element types of the main operand (the vendor's checks).
    """

    outs: tuple[str, ...]
    ins: tuple[str, ...]
    algo: Callable[..., dict[str, np.ndarray]]
    min_tmp: Callable[[Any, int], int]
    max_tmp: Callable[[Any, int], int]
    scalars: tuple[str, ...] = ()
    counted: bool = True
    extent: Callable[[Any, str], Expr] | None = None
    source: str = ""
    header: str = ""              # the vendor header, relative to the API's include root ("math/tanh.h")
    # Pairs of operands ("tmp": the temporary buffer) the vendor's API check refuses to be one tensor (the
    # same start and the same size: impl/adv_api/detail/api_check, TensorReuseVerifyingParameters). None:
    # every destination against every other operand, the rule most calls' checks follow.
    distinct: tuple[tuple[str, str], ...] | None = None
    # Pairs of operands whose GetSize() (a view's size runs to its storage's end) the vendor asserts equal
    # (SwiGLU and GeGLU on A2: "Input params.GetSize must be equal with each other").
    same_size: tuple[tuple[str, str], ...] = ()
    # the host helper that sizes the temporary buffer, named in a too-small-buffer error ("": get_<name>_max_min_tmp_size)
    tmp_helper: str = ""

    @property
    def reuse_pairs(self) -> tuple[tuple[str, str], ...]:
        if self.distinct is not None:
            return self.distinct
        outs = self.outs
        return tuple((a, b) for i, a in enumerate(outs) for b in outs[i + 1:] + self.ins)

    @property
    def tensors(self) -> tuple[str, ...]:
        return self.outs + self.ins


ADV: dict[str, AdvSpec] = {}


def operands(node) -> tuple[dict[str, TensorRef], TensorRef | None, dict[str, Any], Expr | None]:
    """(tensor operands by name, the temporary buffer or None, scalars by name, the count or None)."""
    spec = ADV[node.op]
    args = list(node.args)
    k = len(spec.tensors)
    tens = dict(zip(spec.tensors, args[:k]))
    rest = args[k:]
    tmp = rest.pop(0) if node.attr("tmp") else None
    scal = dict(zip(spec.scalars, rest[:len(spec.scalars)]))
    count = rest[len(spec.scalars)] if spec.counted else None
    return tens, tmp, scal, count


def extent(node, name: str) -> Expr:
    spec = ADV[node.op]
    if spec.extent is not None:
        return spec.extent(node, name)
    return operands(node)[3]


def tmp_extent(node) -> Expr:
    """Bytes of the temporary buffer the scheduler holds the call to touch: the vendor's maximum for this
    size, which is all the call can use (with a larger buffer it still splits at that size)."""
    spec = ADV[node.op]
    count = operands(node)[3]
    if isinstance(count, Const) or count is None:
        return Const(spec.max_tmp(node, count.value if count is not None else 0))
    from ..expr import binop
    # a runtime count: the maximum is linear in it for every counted call (proc x max(n x size, 256))
    per = spec.max_tmp(node, ONE_REPEAT * 64) // (ONE_REPEAT * 64)
    return binop("max", Const(spec.max_tmp(node, 1)), binop("*", count, Const(max(per, 1))))


def adv_accesses(node) -> list:
    tens, tmp, _s, _c = operands(node)
    spec = ADV[node.op]
    out = [(tens[n], Const(0), extent(node, n), True) for n in spec.outs]
    if tmp is not None:
        out.append((tmp, Const(0), tmp_extent(node), True))
    out += [(tens[n], Const(0), extent(node, n), False) for n in spec.ins]
    return out


class AdvCost(VecCost):
    """The cost of an adv call: the sum of the costs of the vector instructions its algorithm issues
    (each from its own basic record), found by running the algorithm on zeros with a log."""

    def for_node(self, node) -> "BoundAdvCost":
        return BoundAdvCost(node)


@dataclass(frozen=True)
class BoundAdvCost:
    node: Any
    source: str = "the instructions the call issues, each at its basic record's cost"

    def cycles(self, dtype_name: str, elems: int, itemsize: int) -> float:
        return sum(c for _op, c in instruction_costs(self.node.op, self.node.attrs, int(elems)))


@lru_cache(maxsize=512)
def instruction_costs(op: str, attrs: tuple, elems: int) -> tuple[tuple[str, float], ...]:
    """(basic op, cycles) of each vector instruction one call with `elems` work issues."""
    from ..node import Node
    node = Node(-1, op, (), None, attrs=attrs)   # type: ignore[arg-type]
    log: list = []
    run_algo(node, Steps(log), elems, zeros=True)
    out = []
    for name, dt, n, size in log:
        c = REGISTRY[name].cost
        out.append((name, c.cycles(dt, n, size)))
    return tuple(out)


def run_algo(node, steps: Steps, elems: int, arrays: dict | None = None, scalars: dict | None = None,
             zeros: bool = False) -> dict[str, np.ndarray]:
    """Run the call's algorithm; `zeros`: on zero inputs of the right shapes (the cost run)."""
    spec = ADV[node.op]
    dt: DataType = node.attr("dtype")
    if zeros:
        shape = node.attr("shape")
        arrays = {}
        for n in spec.ins:
            in_dt = node.attr(f"{n}_dtype") or dt
            arrays[n] = np.zeros((1, _elems_of(node, n, elems)), dtype=np.float32 if in_dt.name == "bfloat16"
                                 else in_dt.np)
        scalars = {n: 0.0 for n in spec.scalars}
        del shape
    return spec.algo(steps, arrays, scalars, node)


def _elems_of(node, name: str, elems: int) -> int:
    spec = ADV[node.op]
    if spec.extent is None:
        return elems
    e = spec.extent(node, name)
    return e.value if isinstance(e, Const) else elems


def adv_fields(ctx, node) -> dict[str, str]:
    """Operand text for an adv emission template: each tensor by name, `tmp`, scalars, `count`."""
    tens, tmp, scal, count = operands(node)
    dt: DataType = node.attr("dtype")
    out = {n: ctx.ref(r) for n, r in tens.items()}
    out["tmp"] = ctx.ref(tmp) if tmp is not None else ""
    out["tmp_arg"] = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    for n, v in scal.items():      # each scalar as the parameter type the vendor declares
        out[n] = ctx.scalar(v, float32 if n in ("scale", "offset", "scalar_value") else node.attr("src_dtype") or dt)
    if count is not None:
        out["count"] = ctx.cast(count, "uint32_t")
    out["T"] = dt.c_name
    out["level"] = str(node.attr("level") or 0)
    return out


def adv_includes(nodes) -> list[str]:
    """The include lines for the adv headers `nodes` use: CANN 8.x keeps the high-level API under `lib/`,
    asc-devkit under `adv_api/`; one source serves both (the cpp backend's model declares the calls itself)."""
    headers = sorted({ADV[n.op].header for n in nodes if n.op in ADV and ADV[n.op].header})   # "": a basic API call
    lines = []
    for h in headers:
        lines += [f'#if __has_include("lib/{h}")', f'#include "lib/{h}"', f'#elif __has_include("adv_api/{h}")',
                  f'#include "adv_api/{h}"', "#endif"]
    return lines


def adv_record(name: str, c_name: str, spec: AdvSpec, emit: str | Callable, dtypes: frozenset[str],
               declared: dict[str, tuple[str, str]], tol: dict[str, tuple[float, float]], header: str,
               doc: str = "", api_sync: Callable | None = None, api_events: tuple = (),
               cpp_model: Any = None) -> OpDef:
    from dataclasses import replace

    from .opdef import NA
    ADV[name] = replace(spec, header=header)
    return OpDef(name, "adv", Pipe.V, c_name, arity=len(spec.ins), dtypes=dtypes,
                 cost=AdvCost(0.0, 0.0, "fitted: the sum of the vector instructions the call issues, each at its "
                                        "basic record's cost (graph/ops/adv_common.py Steps); for a call whose "
                                        "semantics are a reference (docs/adv.md), assumed: its vendor impl's "
                                        "count of vector calls at the simple rate"),
                 emit=emit, emit_fields=adv_fields if isinstance(emit, str) else None,
                 cpp_model=cpp_model or NA("the cpp backend's C++ model has no high-level API yet; sim, eager and "
                                           "cpu_debug (the vendor's own implementation) run it"),
                 printer="args", values=(), declared=declared, tol=tol,
                 writes=tuple(range(len(spec.outs))) + (len(spec.tensors),),   # the tmp buffer's place, when given
                 reads=tuple(range(len(spec.outs), len(spec.tensors))), accesses=adv_accesses,
                 api_sync=api_sync, api_events=api_events, doc=doc)


def register_adv(*ops: OpDef) -> None:
    register(*ops)
