"""Ascend C source from a scheduled KernelGraph.

The skeleton (includes, helpers, the `extern "C" __global__ __aicore__` function, declarations of
tensors, queues and loops) is here; each op's statement comes from its record's `emit` template
(tinygrad's `render_kernel` / `code_for_op` split). Every statement is preceded by a
`// file.py:LINE` comment, so that a compiler error leads back to the user's code. A runtime loop is
a C loop: the source does not grow with the trip count. asc.cond is a C `if` / `else` and
asc.while_loop a C `while`, their outputs and carried values locals declared before the region.
"""
from __future__ import annotations

from typing import Any

from .._version import __version__
from ..dtypes import DataType
from ..enums import HardEvent
from ..errors import TraceError
from ..graph.expr import Const, Expr, Var, free_vars
from ..graph.cube_graph import is_cube_graph
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node, TensorRef, exprs_in
from ..graph.ops import REGISTRY
from ..graph.ops.adv_common import adv_includes
from ..graph.ops.control import REGION_CLOSE, REGION_ELSE, REGION_OPEN, REGION_YIELD
from ..graph.ops.masked import mask_fields
from ..graph.operand_checks import Ranges, can_fault, loop_range, node_checks
from ..graph.scalar_ops import fits_int64
from .ascendc_pipe import PLACEMENT, plan_pipe
from .cexpr import BLOCK_IDX, BLOCK_NUM, CNames, c_const, c_expr, c_ident, c_string

# The emitted source depends on kernel_operator.h (the Ascend C API) and on asc_trace_prelude.h
# (toolchain/prelude/: the scalar helpers and the ASC_CHECK_* macros, compiled out on the NPU).
from ..toolchain.sources import BISHENG_VIEW_HEADER, PRELUDE_DIR, host_view, prelude_digest  # noqa: E402,F401


PRELUDE = """\
#include "asc_trace_prelude.h"
#ifndef ASC_TRACE_NODE
#define ASC_TRACE_NODE(n)
#endif
#ifndef ASC_TRACE_API_TENSORS
#define ASC_TRACE_API_TENSORS(dst, src0, src1) static_cast<void>(0)
#endif
"""

def c_type(dt: DataType) -> str:
    return dt.c_name


class _Emitter:
    def __init__(self, g: KernelGraph, overflow_param: str | None = None, generation: int | None = None) -> None:
        self.g = g
        self.overflow_param = overflow_param
        self.generation = generation     # the CANN headers it is for (ops refuse calls those do not declare)
        params = {p.index: c_ident(p.name) for p in g.signature.runtime}
        self.names = CNames(params)
        self.nodes = {n.id: n for n in g}
        self.ranges = self._loop_ranges()
        self.known: list[set] = [set()]      # operand checks already emitted, per open loop
        self._text: dict[Expr, str] = {}
        self._utext: dict[Expr, str] = {}
        self.lines: list[str] = []
        self.pre: list[str] = []
        self.pipe = plan_pipe(g, generation)
        self.cube = is_cube_graph(g)
        self.pipe_var = self.pipe.var
        self.placement = PLACEMENT

    # -- helpers ----------------------------------------------------------------------------------
    def _loop_ranges(self) -> Ranges:
        """The values each loop index can take, where its bounds are known (proves checks and
        divisions safe)."""
        out: Ranges = {}
        for n in self.g:
            if n.op == "for":
                var, start, stop, step = n.args
                r = loop_range(start, stop, step, out)
                if r is not None:
                    out[var.env_key] = r
        return out

    def e(self, x: Expr) -> str:
        text = self._text.get(x)
        if text is None:        # an operand and its check print the same expression: render it once
            text = self._text[x] = c_expr(x, self.names, self.ranges)
        return text

    def ue(self, x: Expr) -> str:
        """The expression without the parentheses c_expr puts around a binary operation (for
        places that are already inside a call's parentheses)."""
        text = self._utext.get(x)
        if text is None:
            text = self._utext[x] = _unparen(self.e(x))
        return text

    def ref(self, r: TensorRef) -> str:
        base = f"asct_t{r.root}"
        root = self.nodes.get(r.root)
        if root is not None and root.attr("dtype") is not None and root.attr("dtype") is not r.dtype:
            base = f"{base}.ReinterpretCast<{c_type(r.dtype)}>()"
        if isinstance(r.offset, Const) and r.offset.value == 0:
            return base
        cast = "uint64_t" if r.space == "gm" else "uint32_t"
        return f"{base}[{self.cast(r.offset, cast)}]"

    def scalar(self, x: Expr, dt: DataType) -> str:
        if dt.is_float:
            inner = self.ue(x) if x.type == "float" else self.cast(x, "float")
            return f"static_cast<{c_type(dt)}>({inner})"
        return self.cast(x, c_type(dt))

    def cast(self, x: Expr, ctype: str = "int32_t") -> str:
        """`static_cast<ctype>(x)`: every operand of the API is converted explicitly to its parameter's
        type, so that bisheng's narrowing and exact-scalar-type rules never see another type."""
        return f"static_cast<{ctype}>({self.ue(x)})"

    # -- event ids ----------------------------------------------------------------------------------
    def event_id(self, ev: HardEvent, eid: Expr) -> str:
        table = self.pipe.event_id(ev, self.ue(eid))
        return table if table is not None else self.cast(eid, "int32_t")

    # -- statements ---------------------------------------------------------------------------------
    def emit(self, depth: int, n: Node, text: str) -> None:
        pad = "    " * depth
        comment = f"// {n.loc.short} (%{n.id})" if n.loc.line else f"// (%{n.id})"
        why = n.attr("why")
        if why:
            comment = f"{comment}  {why}"
        self.lines.append(pad + comment)
        for line in text.splitlines():
            self.lines.append(pad + line)

    def param(self, index: int) -> str:
        return self.names.params[index]

    def c_string(self, s: str) -> str:
        return c_string(s)

    def statement(self, n: Node) -> str:
        """The node's Ascend C, from its record (graph/ops): a function of this emitter, or a template and
        the function that fills it; `pre` collects what must come first (a mask array)."""
        op = REGISTRY[n.op]
        self.pre = []
        if n.attr("form") == "mask":
            if op.emit_mask is None:
                raise TraceError(f"asc.{n.op} has no mask form in Ascend C", n.loc)
            text = op.emit_mask.format(**mask_fields(self, n))
            if n.attr("set_mask") is False:     # reads the mask register: Op<T, isSetMask = false>(...)
                text = text.replace(f"AscendC::{op.c_name}(", f"AscendC::{op.c_name}<{c_type(n.attr('dtype'))}, false>(", 1)
        elif isinstance(op.emit, str):
            text = op.emit.format(**op.emit_fields(self, n))
        elif callable(op.emit):
            text = op.emit(self, n)
        else:       # NA: a structural op, which render() handles
            raise TraceError(f"asc.{n.op} is not a statement ({op.emit.reason})", n.loc)
        return "\n".join(self.pre + [text]) if self.pre else text

    def mask(self, n: Node, m: Any, const: bool = False) -> str:
        """A mask operand: a count, or a named uint64_t[2] array declared before the statement."""
        if m.bits is None:
            return self.cast(m.count, "int32_t" if const else "uint64_t")
        name = f"asct_mask{n.id}"
        self.pre.append(f"{'const ' if const else ''}uint64_t {name}[2] = {{{m.bits[0]}ULL, {m.bits[1]}ULL}};")
        return name

    def checks(self, n: Node) -> str:
        """The node's operand checks (graph/operand_checks.py) as ASC_CHECK_* statements, in the
        order the simulator runs them; compiled out on the NPU."""
        out = []
        for c in node_checks(n, self.ranges, self.known[-1]):
            text = self.ue(c.expr)
            if c.lo is None:
                out.append(f"ASC_CHECK_EVAL({text});\n")
            elif c.sentence:
                out.append(f"ASC_CHECK_HOLDS({text}, ASC_TRACE_KIND_{c.above.upper()}, {c_string(c.what)});\n")
            else:
                out.append(f"ASC_CHECK_RANGE({text}, {c_const(c.lo)}, {c_const(c.hi)}, "
                           f"ASC_TRACE_KIND_{c.below.upper()}, ASC_TRACE_KIND_{c.above.upper()}, {c_string(c.what)});\n")
        return "".join(out)

    def loop_header(self, n: Node) -> str:
        """`range(start, stop, step)` as a C loop. Constant bounds give the plain loop; otherwise the
        trip count is computed first (asct_trip_count: no overflow, a zero step is an error), so
        that the index never wraps past `stop`."""
        var, start, stop, step = n.args
        i = self.names.var(var)
        if isinstance(start, Const) and isinstance(stop, Const) and isinstance(step, Const) and step.value != 0 \
                and fits_int64(stop.value + step.value):
            cond = f"{i} > {self.e(stop)}" if step.value < 0 else f"{i} < {self.e(stop)}"
            return f"for (int64_t {i} = {self.ue(start)}; {cond}; {i} += {self.ue(step)}) {{"
        return (f"int64_t {i} = {self.ue(start)};\n"
                f"for (uint64_t {i}_n = asct_trip_count({i}, {self.ue(stop)}, {self.ue(step)}); {i}_n != 0; "
                f"--{i}_n, {i} += {self.ue(step)}) {{")

    def local_type(self, v: Var) -> str:
        return "float" if v.type == "float" else "int64_t"

    def if_header(self, n: Node) -> str:
        """asc.cond: its outputs declared before the `if` (each branch's yield assigns them)."""
        pred, outs = n.args
        decls = "".join(f"{self.local_type(v)} {self.names.var(v)} = {'0.0f' if v.type == 'float' else '0'};\n"
                        for v in outs)
        return f"{decls}if ({self.ue(pred)}) {{"

    def while_header(self, n: Node) -> str:
        """asc.while_loop: the carried values declared with their initial values, then the loop (its
        condition tested in the loop when evaluating it can fail, see render)."""
        carried, inits, cond = n.args
        decls = "".join(f"{self.local_type(v)} {self.names.var(v)} = {self.ue(e)};\n" for v, e in zip(carried, inits))
        if can_fault(cond):
            return f"{decls}while (true) {{"
        return f"{decls}while ({self.ue(cond)}) {{"

    def yield_assign(self, n: Node, targets: tuple[Var, ...]) -> str:
        """A yield's assignments; through temporaries when a value reads a Var assigned before it."""
        values = [self.ue(e) for e in n.args]     # same kinds (verify); a bool converts to int64_t
        names = [self.names.var(v) for v in targets]
        if len(targets) > 1 and any(free_vars(e) & set(targets[:i]) for i, e in enumerate(n.args)):
            tmp = [f"const {self.local_type(v)} asct_next{i} = {x};" for i, (v, x) in enumerate(zip(targets, values))]
            return "{\n" + "\n".join("    " + t for t in tmp) + "\n" + "\n".join(
                f"    {name} = asct_next{i};" for i, name in enumerate(names)) + "\n}"
        return "\n".join(f"{name} = {x};" for name, x in zip(names, values))

    # -- the kernel --------------------------------------------------------------------------------
    def render(self) -> str:
        g = self.g
        used = set()
        for n in g:
            for x in exprs_in(n.args):
                used |= {v.kind for v in free_vars(x)}
        params = []
        for p in g.signature.runtime:
            ctype = {"gm": "GM_ADDR", "int": "int64_t", "float": "float"}[p.kind]
            params.append(f"{ctype} {self.names.params[p.index]}")
        if self.overflow_param:   # the NPU build's -cce-aicore-record-overflow=true slot (toolchain/bisheng.py)
            params.append(f"GM_ADDR {self.overflow_param}")
        first = next(iter(g), None)
        origin = f" ({first.loc.short})" if first is not None else ""
        head = [f"// Ascend C generated by asc_trace {__version__} from kernel `{g.name}`{origin}. Do not edit.",
                f"// {'Cube' if self.cube else 'Vector'}-only kernel for Atlas A2 (dav-c220-{'cube' if self.cube else 'vec'}).",
                '#include "kernel_operator.h"', *adv_includes(g), PRELUDE,
                f'extern "C" __global__ __aicore__ void {c_ident(g.name)}({", ".join(params)})', "{",
                f"    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_{'AIC' if self.cube else 'AIV'}_ONLY);"]
        # bisheng defines block_idx / block_num as macros in every aicore compile (its force-included
        # __clang_cce_aicore_builtin_vars.h): the locals take the reserved prefix like every other name
        if "block_idx" in used:
            head.append(f"    const int64_t {BLOCK_IDX} = AscendC::GetBlockIdx();")
        if "block_num" in used:
            head.append(f"    const int64_t {BLOCK_NUM} = AscendC::GetBlockNum();")
        if self.pipe.var is not None and (self.pipe.user is None or self.pipe.hoist):
            # ReduceSum/Max/Min fetch event ids from the TPipe; raw LocalTensors are placed through it
            head += ["    " + line for line in self.pipe.declaration()]
        depth = 1
        targets = g.region_table().yield_targets
        for n in g:
            if n.op in REGION_OPEN:
                self.emit(depth, n, self.loop_header(n) if n.op == "for" else
                          self.if_header(n) if n.op == "if" else self.while_header(n))
                if n.op == "while" and can_fault(n.args[2]):
                    # the condition checks itself where the simulator evaluates it: at every iteration
                    self.emit(depth + 1, n, f"if (!({self.ue(n.args[2])})) break;")
                self.known.append(set(self.known[-1]))   # what a body checks holds only inside it
                depth += 1
                continue
            if n.op == REGION_ELSE:
                self.known.pop()
                self.known.append(set(self.known[-1]))
                self.lines.append("    " * (depth - 1) + "} else {")
                continue
            if n.op in REGION_CLOSE:
                self.known.pop()
                depth -= 1
                self.lines.append("    " * depth + "}")
                continue
            if n.op == REGION_YIELD:
                if targets[n.id]:           # a branch without outputs assigns nothing
                    self.emit(depth, n, self.yield_assign(n, targets[n.id]))
                continue
            self.emit(depth, n, self.checks(n) + self.statement(n))
        self.lines += ["    " + line for line in self.pipe.release()]
        return "\n".join(head + self.lines + ["}", ""])


def _unparen(text: str) -> str:
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(text) - 1:
            return text     # the outer parentheses do not enclose everything
    return text[1:-1]


def lower(g: KernelGraph, overflow_param: str | None = None, generation: int | None = None) -> str:
    """The Ascend C source of a (scheduled) kernel graph; `overflow_param` names a trailing GM_ADDR
    parameter for the overflow record, which only the NPU build with record_overflow=True declares;
    `generation` the CANN headers it is for (8: 8.x, 9: 8.5+ and asc-devkit; None: the host backends),
    see lower/ascendc_pipe.py."""
    from ..graph.mix_split import MixGraph
    if isinstance(g, MixGraph):             # a mixed cube + vector kernel: each side in its own block
        from .mix_emit import lower_mix
        return lower_mix(g, lower, overflow_param, generation)
    return _Emitter(g, overflow_param, generation).render()


__all__ = ["lower", "PRELUDE", "PRELUDE_DIR", "prelude_digest", "host_view", "BISHENG_VIEW_HEADER", "c_type",
           "c_const"]
