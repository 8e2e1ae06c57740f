"""HIVM IR (the vendor's MLIR dialect for AscendNPU, `Ascend/AscendNPU-IR`) from a kernel graph.

The second judge of the lowering: `bishengir-opt` (the `ascendnpu-ir` wheel, extra `vendor-ir`) parses
and verifies this text and runs the vendor's own intra-core synchronisation passes on it
(`asc_trace/toolchain/bishengir.py`). Only the vector subset is lowered: GM <-> UB copies (`hivm.hir.load` /
`store`), UB -> UB copies, element-wise, vector-scalar and reduction ops, scalar reads and writes of the
UB (`memref.load` / `store`, the S pipe), runtime loops (`scf.for`), `asc.cond` (`scf.if`) and
`asc.while_loop` (`scf.while`). Anything else is refused with a TraceError at the user's line.

The form is the vendor's post-memory-planning one: every LocalTensor is a `hivm.hir.pointer_cast` at
its own UB byte address (so the vendor sees exactly the aliasing the simulator sees), each operand a
`memref.subview` of its root; a GM parameter is a `memref<?xT>` in the `gm` address space. Sync
operations are left out (`sync="strip"`): the vendor's passes get the flag-free kernel to schedule.
Every op carries `{asc.node = N}`, the graph node it comes from, so that the vendor's schedule can be
mapped back onto the graph (`hivm_sync.py`).

Two ops have no HIVM instruction and become two vector steps through a private scratch buffer above
every LocalTensor of the kernel: `axpy` (scratch = src * a; dst = dst + scratch) and `leaky_relu`
(scratch = src * a; dst = max(src, scratch), exact for 0 <= a <= 1). Both steps stay on the V pipe, so
the dependences the vendor sees between pipes are the op's own.
"""
from __future__ import annotations

from ..dtypes import DataType
from ..errors import TraceError
from ..graph.expr import Const, Expr, binop
from ..graph.kernel_graph import Cond, Item, KernelGraph, Loop, While, loop_var
from ..graph.node import Node, TensorRef
from ..graph.params import DataCopyExtParams, DataCopyParams
from ..graph.ops import REGISTRY, with_role
from .hivm_scalar import MLIR_TYPE, ScalarEmitter

ELEM = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "int8": "i8", "uint8": "i8", "int16": "i16",
        "uint16": "i16", "int32": "i32", "uint32": "i32", "int64": "i64", "uint64": "i64"}
SPACE = {"ub": "#hivm.address_space<ub>", "gm": "#hivm.address_space<gm>"}

# Which op lowers to what is its record's `hivm` form (graph/ops/opdef.py); the sync ops are left out.
SYNC = with_role("flag", "barrier")
# the element-wise families' operand layouts: (the sources' positions, the scalar's position or None)
_LAYOUT = {"vec_binary": ((1, 2), None), "vec_unary": ((1,), None), "vec_scalar": ((1,), 2)}


def _form(n: Node) -> str:
    return REGISTRY[n.op].hivm if n.op in REGISTRY else ""


def is_two_steps(op: str) -> bool:
    """Whether op lowers to two vector steps through the scratch buffer (Axpy, LeakyRelu: no HIVM instruction)."""
    return op in REGISTRY and "+" in REGISTRY[op].hivm


def elem(dt: DataType, node: Node | None = None) -> str:
    if dt.name not in ELEM:
        raise TraceError(f"the HIVM lowering has no element type for {dt.name}", node=node)
    return ELEM[dt.name]


def memref(n: Expr | None, dt: DataType, space: str, strided: bool) -> str:
    size = str(n.value) if isinstance(n, Const) else "?"
    layout = "strided<[1], offset: ?>, " if strided else ""
    return f"memref<{size}x{ELEM[dt.name]}, {layout}{SPACE[space]}>"


class _Lowering:
    def __init__(self, g: KernelGraph) -> None:
        self.g = g
        self.nodes = {n.id: n for n in g}
        self.lines: list[str] = []
        self.depth = 2
        self._count = 0
        self.s = ScalarEmitter(self.line, self.fresh)
        self._scratch: int | None = None

    # -- text ---------------------------------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def fresh(self, prefix: str) -> str:
        self._count += 1
        return f"%{prefix}{self._count}"

    # -- operands -------------------------------------------------------------------------------------
    def root(self, n: Node) -> tuple[str, str]:
        """The whole memref of a LocalTensor (its pointer_cast, made where the tensor is declared)."""
        ssa = self.s.lookup(("root", n.id))
        if ssa is None:
            raise TraceError("the HIVM lowering found a LocalTensor used outside the region that declares it", node=n)
        return ssa, memref(n.args[2], n.attr("dtype"), "ub", False)

    def view(self, ref: TensorRef, count: Expr, first: Expr = Const(0), node: Node | None = None) -> tuple[str, str]:
        """A memref of `count` elements of `ref` from element `first`: a subview of its root."""
        root = self.nodes.get(ref.root)
        if root is None or _form(root) not in ("root:ub", "root:gm"):
            what = root.op if root is not None else f"%{ref.root}"
            raise TraceError(f"the HIVM lowering takes LocalTensor and GlobalTensor operands only, not a tensor of "
                             f"{what} (TQue / TBuf buffers rotate at run time)", node=node,
                             hint="write the kernel with asc.LocalTensor at fixed UB addresses to compare it with "
                                  "the vendor's compiler")
        rdt: DataType = root.attr("dtype")
        if ref.dtype is not rdt:
            raise TraceError(f"the HIVM lowering has no reinterpreting view ({rdt.name} tensor read as "
                             f"{ref.dtype.name})", node=node)
        elem(ref.dtype, node)
        off = binop("+", ref.offset, first)
        if _form(root) == "root:gm":
            param, base, _size = root.args
            base_ssa = self.s.lookup(("param", param.index))
            if self.g.signature.params[param.index].dtype is not rdt:
                raise TraceError("the HIVM lowering needs a GlobalTensor of its parameter's own dtype", node=node)
            src_type = memref(None, rdt, "gm", False)
            off = binop("+", base, off)
            space = "gm"
        else:
            base_ssa, src_type = self.root(root)
            if isinstance(off, Const) and off.value == 0 and count == root.args[2]:
                return base_ssa, src_type
            space = "ub"
        size = str(count.value) if isinstance(count, Const) else self.s.index(count)
        out = self.fresh("sv")
        typ = memref(count, rdt, space, True)
        self.line(f"{out} = memref.subview {base_ssa}[{self.s.index(off)}] [{size}] [1] : {src_type} to {typ}")
        return out, typ

    def scalar_as(self, e: Expr, dt: DataType) -> tuple[str, str]:
        """A scalar operand in the tensors' element type (the API rounds it to that type)."""
        t = elem(dt)
        if dt.is_float:
            v = self.s.value(e, "float")
            if t == "f32":
                return v, t
            out = self.fresh("tr")
            self.line(f"{out} = arith.truncf {v} : f32 to {t}")
            return out, t
        v = self.s.value(e, "int")
        if t == "i64":
            return v, t
        out = self.fresh("tr")
        self.line(f"{out} = arith.trunci {v} : i64 to {t}")
        return out, t

    def scratch(self, n: Node, count: Expr, dt: DataType) -> tuple[str, str]:
        """A private UB buffer above every LocalTensor of the kernel (for the two-step ops)."""
        if self._scratch is None:
            end = 0
            for m in self.g:
                if m.op == "local_tensor":
                    addr, size = m.args[1], m.args[2]
                    if not (isinstance(addr, Const) and isinstance(size, Const)):
                        raise TraceError(f"asc.{n.op} needs a scratch buffer in the HIVM lowering, and the kernel's "
                                         "UB layout is not constant", node=n)
                    end = max(end, addr.value + size.value * m.attr("dtype").itemsize)
            self._scratch = -(-end // 32) * 32
        out = self.fresh("scr")
        addr = self.s.value(Const(self._scratch))
        if isinstance(count, Const):
            self.line(f"{out} = hivm.hir.pointer_cast({addr}) : {memref(count, dt, 'ub', False)}")
        else:
            self.line(f"{out} = hivm.hir.pointer_cast({addr}) [{self.s.index(count)}] : {memref(count, dt, 'ub', False)}")
        return out, memref(count, dt, "ub", False)

    # -- ops ------------------------------------------------------------------------------------------
    def vec(self, n: Node, name: str, ins: list[tuple[str, str]], out: tuple[str, str], extra: str = "") -> None:
        srcs = ", ".join(s for s, _ in ins)
        types = ", ".join(t for _, t in ins)
        self.line(f"hivm.hir.{name} {{asc.node = {n.id} : i64}} ins({srcs} : {types}) "
                  f"outs({out[0]} : {out[1]}){extra}")

    def op(self, n: Node) -> None:
        a = n.args
        dt: DataType | None = n.attr("dtype")
        form, family = _form(n), REGISTRY[n.op].family if n.op in REGISTRY else ""
        # no instruction: the sync (stripped), a GM binding, printf (a host-visible side effect, no UB access)
        if form in ("root:gm", "none") or n.op in SYNC:
            return
        if n.attr("form") == "mask":
            raise TraceError(f"the HIVM lowering has no mask / repeat form of asc.{n.op}", node=n)
        if form == "root:ub":
            _pos, addr, size = a
            out = self.fresh("ub")
            dyn = "" if isinstance(size, Const) else f" [{self.s.index(size)}]"
            self.line(f"{out} = hivm.hir.pointer_cast({self.s.value(addr, 'int')}){dyn} : "
                      f"{memref(size, dt, 'ub', False)}")
            self.s.bind(("root", n.id), out)
        elif is_two_steps(n.op):
            count = a[3]
            src, dst = self.view(a[1], count, node=n), self.view(a[0], count, node=n)
            tmp = self.scratch(n, count, dt)
            first, second = form.split("+")
            self.vec(n, first, [src, self.scalar_as(a[2], dt)], tmp)
            self.vec(n, second, [dst if REGISTRY[n.op].reads_dst() else src, tmp], dst)
        elif form and family in _LAYOUT:
            srcs, scalar = _LAYOUT[family]
            count = a[-1]
            ins = [self.view(a[i], count, node=n) for i in srcs]
            if scalar is not None:
                ins.append(self.scalar_as(a[scalar], n.attr("src_dtype") or dt))
            self.vec(n, form, ins, self.view(a[0], count, node=n))
        elif form == "vbrc":
            self.vec(n, "vbrc", [self.scalar_as(a[1], dt)], self.view(a[0], a[2], node=n))
        elif form.startswith("vreduce:"):
            self.reduce(n)
        elif form == "copy":
            self.copy(n)
        elif form == "memref":
            self.scalar_access(n)
        else:
            raise TraceError(f"asc.{n.op} has no HIVM lowering", node=n,
                             hint="the vendor-IR judge covers copies, element-wise, scalar and reduction ops, "
                                  "loops and branches")

    def reduce(self, n: Node) -> None:
        dst, src, tmp, count = n.args[:4]
        if n.attr("cal_index") or n.attr("mask_form"):
            form = "cal_index" if n.attr("cal_index") else "the mask form"
            raise TraceError(f"the HIVM lowering has no asc.{n.op} with {form}", node=n)
        from ..graph.ops import accesses
        tmp_count = accesses(n)[1][2]        # [(dst, ...), (tmp, first, count, write), (src, ...)]
        s = self.view(src, count, node=n)
        d = self.view(dst, Const(1), node=n)
        t = self.view(tmp, tmp_count, node=n)
        self.line(f"hivm.hir.vreduce {{asc.node = {n.id} : i64}} <{_form(n).split(':')[1]}> ins({s[0]} : {s[1]}) "
                  f"outs({d[0]} : {d[1]}) temp_buffer({t[0]} : {t[1]}) reduce_dims = [0]")

    def copy(self, n: Node) -> None:
        dst, src, p = n.args[:3]
        size = dst.dtype.itemsize
        if isinstance(p, DataCopyParams):
            if not (p.src_stride == Const(0) and p.dst_stride == Const(0)):
                raise TraceError("the HIVM lowering has no strided asc.data_copy (DataCopyParams with gaps)", node=n)
            count = binop("//", binop("*", binop("*", p.block_count, p.block_len), Const(32)), Const(size))
        elif isinstance(p, DataCopyExtParams):
            if p.block_count != Const(1):
                raise TraceError("the HIVM lowering has asc.data_copy_pad of one row only (block_count=1)", node=n)
            count = binop("//", p.block_len, Const(size))
        else:
            count = p
        d, s = self.view(dst, count, node=n), self.view(src, count, node=n)
        kind = {("ub", "gm"): "load", ("gm", "ub"): "store", ("ub", "ub"): "copy"}.get((dst.space, src.space))
        if kind is None:
            raise TraceError("the HIVM lowering has no GM -> GM copy", node=n)
        self.line(f"hivm.hir.{kind} ins({s[0]} : {s[1]}) outs({d[0]} : {d[1]}) {{asc.node = {n.id} : i64}}")

    def scalar_access(self, n: Node) -> None:
        ref, index = n.args[0], n.args[1]
        m, typ = self.view(ref, binop("+", index, Const(1)), node=n)
        ix = self.s.index(index)
        t = elem(ref.dtype, n)
        if n.op == "set_value":
            v, _t = self.scalar_as(n.args[2], ref.dtype)
            self.line(f"memref.store {v}, {m}[{ix}] {{asc.node = {n.id} : i64}} : {typ}")
            return
        raw = self.fresh("ld")
        self.line(f"{raw} = memref.load {m}[{ix}] {{asc.node = {n.id} : i64}} : {typ}")
        if ref.dtype.is_float:
            val = raw
            if t != "f32":
                val = self.fresh("ext")
                self.line(f"{val} = arith.extf {raw} : {t} to f32")
        else:
            val = raw
            if t != "i64":
                val = self.fresh("ext")
                ext = "arith.extui" if ref.dtype.kind in ("uint", "bool") else "arith.extsi"
                self.line(f"{val} = {ext} {raw} : {t} to i64")
        self.s.bind(("var", "node", n.id), val)

    # -- regions ----------------------------------------------------------------------------------------
    def body(self, items: tuple[Item, ...]) -> Node | None:
        """Lower a region's items; returns its trailing `yield` node (emitted by the caller)."""
        last_yield = None
        for it in items:
            if isinstance(it, Loop):
                self.loop(it)
            elif isinstance(it, Cond):
                self.cond(it)
            elif isinstance(it, While):
                self.while_(it)
            elif it.op == "yield":
                last_yield = it
            else:
                self.op(it)
        return last_yield

    def loop(self, it: Loop) -> None:
        var, start, stop, step = it.node.args
        if isinstance(step, Const) and step.value <= 0:
            raise TraceError("the HIVM lowering has no loop with a step below 1 (scf.for counts upwards)",
                             node=it.node)
        lb, ub, st = (self.s.value(x, "int") for x in (start, stop, step))
        iv = self.fresh("i")
        self.line(f"scf.for {iv} = {lb} to {ub} step {st} : i64 {{")
        self.enter()
        self.s.bind(loop_var(it.node), iv)
        self.body(it.body)
        self.leave()
        self.line(f"}} {{asc.node = {it.node.id} : i64}}")

    def enter(self) -> None:
        self.depth += 1
        self.s.push()

    def leave(self) -> None:
        self.s.pop()
        self.depth -= 1

    def yield_values(self, y: Node | None, kinds: list[str]) -> None:
        if not kinds:
            return
        assert y is not None      # verify() requires both branches to yield the outputs
        vals = [self.s.value(e, k) for e, k in zip(y.args, kinds)]
        self.line(f"scf.yield {', '.join(vals)} : {', '.join(MLIR_TYPE[k] for k in kinds)}")

    def cond(self, it: Cond) -> None:
        pred, outs = it.node.args
        kinds = [v.type for v in outs]
        p = self.s.value(pred, "bool")
        res = self.fresh("if") if outs else ""
        types = ", ".join(MLIR_TYPE[k] for k in kinds)
        head = (f"{res}:{len(outs)} = " if len(outs) > 1 else f"{res} = " if outs else "")
        self.line(f"{head}scf.if {p}{f' -> ({types})' if outs else ''} {{")
        for k, branch in enumerate((it.then_body, it.else_body)):
            if k == 1:
                if not branch and not outs:
                    break
                self.lines.append("  " * self.depth + "} else {")
            self.enter()
            self.yield_values(self.body(branch), kinds)
            self.leave()
        self.line(f"}} {{asc.node = {it.node.id} : i64}}")
        for i, v in enumerate(outs):
            self.s.bind(v, f"{res}#{i}" if len(outs) > 1 else res)

    def while_(self, it: While) -> None:
        carried, inits, cond = it.node.args
        kinds = [v.type for v in carried]
        types = ", ".join(MLIR_TYPE[k] for k in kinds)
        init = [self.s.value(e, k) for e, k in zip(inits, kinds)]
        res = self.fresh("w")
        before = [self.fresh("a") for _ in carried]
        after = [self.fresh("b") for _ in carried]
        head = f"{res}:{len(carried)} = " if len(carried) > 1 else f"{res} = " if carried else ""
        args = ", ".join(f"{b} = {i}" for b, i in zip(before, init))
        self.line(f"{head}scf.while ({args}) : ({types}) -> ({types}) {{")
        self.enter()
        for v, b in zip(carried, before):
            self.s.bind(v, b)
        c = self.s.value(cond, "bool")
        fwd = f" {', '.join(before)} : {types}" if carried else ""
        self.line(f"scf.condition({c}){fwd}")
        self.leave()
        self.lines.append("  " * self.depth + "} do {")
        self.enter()
        sig = ", ".join(f"{b}: {MLIR_TYPE[k]}" for b, k in zip(after, kinds))
        self.lines.append("  " * (self.depth - 1) + f"^bb0({sig}):")
        for v, b in zip(carried, after):
            self.s.bind(v, b)
        y = self.body(it.body)
        if carried:
            self.yield_values(y, kinds)
        else:
            self.line("scf.yield")
        self.leave()
        self.line(f"}} attributes {{asc.node = {it.node.id} : i64}}")
        for i, v in enumerate(carried):
            self.s.bind(v, f"{res}#{i}" if len(carried) > 1 else res)

    # -- the module ---------------------------------------------------------------------------------------
    def render(self) -> str:
        g = self.g
        params = []
        for p in g.signature.runtime:
            name = f"%p{p.index}"
            if p.kind == "gm":
                typ = memref(None, p.dtype, "gm", False)
                self.s.bind(("param", p.index), name)
            else:
                typ = MLIR_TYPE[p.kind]
            self.s.bind(("var", "param", p.index), name)
            params.append(f"{name}: {typ}")
        self.s.bind(("var", "block_idx", 0), "%block_idx")
        self.s.bind(("var", "block_num", 0), "%block_num")
        self.line("%block_idx = hivm.hir.get_block_idx -> i64")
        self.line("%block_num = hivm.hir.get_block_num -> i64")
        self.body(g.structured())
        self.line("return")
        attrs = "attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>}"
        head = [f"// HIVM IR generated by asc_trace from kernel `{g.name}`: the flag-free vector kernel, for the "
                "vendor's passes", "module {", f"  func.func @{_symbol(g.name)}({', '.join(params)}) {attrs} {{"]
        return "\n".join(head + self.lines + ["  }", "}", ""])


def _symbol(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name) or "kernel"


def lower_hivm(g: KernelGraph) -> str:
    """The HIVM module of a kernel graph's vector subset, without its sync operations.

    Raises:
        TraceError: a node the lowering does not cover (at the node's line).
    """
    return _Lowering(g).render()


def strip_sync(g: KernelGraph) -> KernelGraph:
    """The kernel without its set_flag / wait_flag / pipe_barrier nodes: what the vendor's passes schedule."""
    out = g.copy()
    out.set_order([nid for nid in g.order if g.node(nid).op not in SYNC])
    return out


__all__ = ["lower_hivm", "strip_sync", "ELEM"]
