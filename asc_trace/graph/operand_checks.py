"""The scalar-side checks of each node, stated once for every backend.

Before an instruction runs, the scalar unit computes its operands: offsets, counts, repeat times,
strides, event ids. Ascend C passes them as narrow unsigned types (`uint32_t count`, `uint8_t
repeatTime`, pointer + offset), so a negative or oversized value would silently wrap on the NPU and
in C, and an integer division by zero would kill the process. `node_checks(node)` lists, in one
canonical order, what must hold of each operand: the simulator and `eager` run these checks before
the instruction (runtime/executors.bind), and the lowering emits them as `ASC_CHECK_*` statements in
front of the call (lower/ascendc.py, macros in toolchain/include/asc_trace_prelude.h). Both report the
first failing check, as the same error class with the same message.

A check is elided when it cannot fail: a constant in range, or an expression whose value range
(from constants, the block index and the bounds of enclosing loops) lies inside the range. A new op
gets its operands' ranges in `_operands`; an op not listed there has only its expressions evaluated
in order (so a division by zero in one of them is found at the same point on every backend).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Iterator

from .expr import Bin, Const, Expr, Un, Var, binop, const, to_str, unop
from .node import Node, TensorRef, exprs_in
from .ops import REGISTRY
from .ops.opdef import COUNT_FORM_FAMILIES
from .ops.sync import FLAG_OPS
from .params import DataCopyPadExtParams, DataCopyParams, Mask
from .scalar_ops import INT64_MAX, INT64_MIN, Fn
from ..config import UB_BYTES

U8, U16, U32 = (1 << 8) - 1, (1 << 16) - 1, (1 << 32) - 1
I32 = (1 << 31) - 1
MAX_CORES = 65535
# error kinds: their codes are shared with the C prelude (ASC_TRACE_KIND_*), their classes with the runtime
KIND_CODES = {"bounds": 1, "scalar": 2, "sync": 3, "alignment": 4, "ub": 5, "queue": 6}


@dataclass(frozen=True, slots=True)
class Check:
    """`lo <= expr <= hi`, else an error of kind `below` / `above`; with lo = hi = None only the
    evaluation itself is checked (a division by zero inside it)."""

    expr: Expr
    lo: int | None
    hi: int | None
    below: str
    above: str
    what: str
    # a condition (lo = hi = 1) whose `what` is the whole message: "X is 0, outside 1..1" says nothing
    sentence: bool = False

    def message(self, value: int) -> str:
        if self.sentence:
            return self.what
        return f"{self.what} is {value}, outside {self.lo}..{self.hi}"


Ranges = dict[str, tuple[int, int]]    # env key of a variable -> (lo, hi) of its values


def node_checks(node: Node, ranges: Ranges | None = None, known: set | None = None) -> tuple[Check, ...]:
    """The checks of `node`'s operands in canonical order (see the module docstring).

    `known` holds the (expr, lo, hi) checks already passed in this scope: the same expression has the
    same value until its variables change (a loop's next iteration), so those are left out; the
    new ones are added to it."""
    out: list[Check] = []
    for e, lo, hi, below, above, what, *sentence in _operands(node):
        if e is None:
            continue
        if e.__class__ is Const and (lo is None or (isinstance(e.value, int) and lo <= e.value <= hi)):
            continue                                    # the common case: a constant that fits
        if known is not None:
            if (e, lo, hi) in known:
                continue
            known.add((e, lo, hi))
        faultable = can_fault(e)
        if lo is None:
            if faultable:
                out.append(Check(e, None, None, "scalar", "scalar", what))
            continue
        r = value_range(e, ranges or {})
        if not faultable and r is not None and lo <= r[0] and r[1] <= hi:
            continue
        out.append(Check(e, lo, hi, below, above, what, bool(sentence and sentence[0])))
    return tuple(out)


def _spec(e: Any, lo: int | None, hi: int | None, what: str, below: str = "bounds", above: str = "bounds"):
    return (e if isinstance(e, Expr) else None, lo, hi, below, above, what)


def _holds(e: Any, what: str, kind: str = "bounds"):
    """A condition that must be true (1); `what` is the whole error message when it is not."""
    return (e if isinstance(e, Expr) else None, 1, 1, kind, kind, what, True)


def _value(e: Any, what: str):
    return _spec(e, None, None, what)


def _ref(r: Any, what: str):
    if not isinstance(r, TensorRef):
        return _value(r, what)
    if r.space == "ub":
        return _spec(r.offset, 0, U32, f"the offset of {what}")
    return _spec(r.offset, 0, INT64_MAX // r.dtype.itemsize, f"the offset of {what}")


def _count(e: Any, what: str = "the element count"):
    return _spec(e, 0, I32, what)


def _operands(node: Node) -> Iterator[tuple]:
    """(expr, lo, hi, below, above, what) for every scalar operand, in the order of node.args."""
    op, a = node.op, node.args
    family = REGISTRY[op].family if op in REGISTRY else ""
    if op == "global_tensor":
        _param, off, size = a
        itemsize = node.attr("dtype").itemsize
        yield _spec(off, 0, INT64_MAX // itemsize, "the set_global_buffer offset")
        yield _spec(size, 0, INT64_MAX // itemsize, "the set_global_buffer length")
    elif op == "local_tensor":
        # a negative address is outside the UB as one past its end is (the message says "outside 0..")
        yield _spec(a[1], 0, U32, "the LocalTensor address", "ub", "ub")
        yield _spec(a[2], 0, U32, "the LocalTensor length", "bounds", "ub")
    elif op == "init_buffer":
        yield _spec(a[1], 1, U8, "the buffer count", "queue", "queue")
        yield _spec(a[2], 1, U32 - 31, "the buffer length", "queue", "ub")
    elif op == "tbuf_get":
        yield _spec(a[1], 0, U32, "the element count")
    elif op in FLAG_OPS:
        yield _spec(a[1], 0, 7, "the event id", "sync", "sync")
    elif op == "printf":
        for i, x in enumerate(a[1]):
            yield _value(x, f"argument {i + 1} of printf")
    elif family == "scalar":             # GetValue / SetValue
        yield _ref(a[0], "the tensor")
        yield _spec(a[1], 0, U32, "the index")
        if op == "set_value":
            yield _value(a[2], "the value")
    elif op == "dump_tensor":
        yield _ref(a[0], "the dumped tensor")
        yield _count(a[2])
    elif node.attr("form") == "mask":
        yield from _masked(node)
    elif family == "vec_whole_reduce":
        yield _ref(a[0], "dst")
        yield _ref(a[1], "src")
        yield from _mask(a[2], a[1].dtype)
        yield _spec(a[3], 0, U8, "repeat_time")
        yield _spec(a[4], 0, U8, "dst_rep_stride")
        yield _spec(a[5], 0, U16, "src_blk_stride")
        yield _spec(a[6], 0, U8, "src_rep_stride")
    elif op == "data_copy" and isinstance(a[2], DataCopyParams):
        yield _ref(a[0], "the copy destination")
        yield _ref(a[1], "the copy source")
        p = a[2]
        yield _spec(p.block_count, 0, 4095, "DataCopyParams.block_count")
        yield _spec(p.block_len, 0, U16, "DataCopyParams.block_len")
        yield _spec(p.src_stride, 0, U16, "DataCopyParams.src_stride")
        yield _spec(p.dst_stride, 0, U16, "DataCopyParams.dst_stride")
    elif op == "data_copy_pad":
        yield _ref(a[0], "the copy destination")
        yield _ref(a[1], "the copy source")
        p, pad = a[2], a[3]
        yield _spec(p.block_count, 0, 4095, "DataCopyExtParams.block_count")
        yield _spec(p.block_len, 0, 2097151, "DataCopyExtParams.block_len")
        yield _spec(p.src_stride, 0, U32, "DataCopyExtParams.src_stride")
        yield _spec(p.dst_stride, 0, U32, "DataCopyExtParams.dst_stride")
        yield _value(p.rsv, "DataCopyExtParams.rsv")
        if isinstance(pad, DataCopyPadExtParams):
            yield _value(pad.is_pad, "DataCopyPadExtParams.is_pad")
            yield _spec(pad.left_padding, 0, U8, "DataCopyPadExtParams.left_padding")
            yield _spec(pad.right_padding, 0, U8, "DataCopyPadExtParams.right_padding")
            yield _value(pad.padding_value, "DataCopyPadExtParams.padding_value")
    elif family == "vec_reduce" and node.attr("mask_form"):
        yield _ref(a[0], "dst")
        yield _ref(a[1], "src")
        yield _ref(a[2], "shared_tmp_buffer")
        yield from _mask(a[3], a[1].dtype)
        yield _spec(a[4], 0, U8, "repeat_time")
        yield _spec(a[5], 0, U8, "src_rep_stride")
    elif family == "vec_reduce":
        # the API checks the count itself: 1 ~ TOTAL_UB_SIZE / sizeof(T) (kernel_operator_vec_reduce_intf_impl.h)
        yield _ref(a[0], "dst")
        yield _ref(a[1], "src")
        yield _ref(a[2], "shared_tmp_buffer")
        yield _spec(a[3], 1, UB_BYTES // a[1].dtype.itemsize, f"the {REGISTRY[op].c_name} count")
    elif family in COUNT_FORM_FAMILIES:
        # count forms: tensor operands, scalars, and the element count last
        names = ("dst", "src0", "src1", "src2")
        k = 0
        for i, x in enumerate(a):
            if isinstance(x, TensorRef):
                yield _ref(x, names[min(k, 3)])
                k += 1
            elif isinstance(x, Expr):
                yield _count(x) if i == len(a) - 1 else _scalar(node, x)
        if family in _SAME_LENGTH:
            yield from _partial_overlap(a)
    elif REGISTRY[op].repeat_at >= 0:
        # Brcb / Gatherb / Gather's mask form: the repeat time is a uint8_t field, which would wrap on the NPU
        # and in C (256 -> 0); Gather's src_base_offset is a uint32_t (a negative base would wrap to a huge one
        # there, or cancel a lane's offset on the simulator); the rest evaluated in order as below
        at = REGISTRY[op].repeat_at if op != "gather" or node.attr("mask_form") else -1
        for i, x in enumerate(a):
            if i == at:
                yield _spec(x, 0, U8, f"the repeat_time of asc.{op}")
            elif op == "gather" and i == 3:
                yield _spec(x, 0, U32, "the src_base_offset of asc.gather")
            else:
                for y in exprs_in((x,)):
                    yield _value(y, "an operand")
    elif family != "control":  # any other op (regions evaluate their own expressions:
        for x in exprs_in(a):               # bounds, predicates, yielded values, in program order):
            yield _value(x, "an operand")   # its expressions must at least evaluate in order


# count forms whose destination and sources cover `count` elements each (cast: when the sizes match)
_SAME_LENGTH = frozenset({"vec_binary", "vec_unary", "vec_scalar", "vec_cast"})


def _partial_overlap(a: tuple) -> Iterator[tuple]:
    """A destination that partly overlaps a source of the same storage: the vector unit reads and writes
    in blocks, so what such an op computes is not defined (the vendor's notes allow exactly the same
    address, or none in common). Exact in-place (same offset, same count) and disjoint ranges pass.
    Tensors that alias through different roots (two raw LocalTensors over one address) are not seen
    here (docs/scheduler-aliasing.md)."""
    refs = [x for x in a if isinstance(x, TensorRef)]
    count = a[-1]
    if len(refs) < 2 or not isinstance(count, Expr) or count.type != "int":
        return
    dst = refs[0]
    for k, src in enumerate(refs[1:]):
        if (src.root != dst.root or src.space != dst.space or src.dtype.itemsize != dst.dtype.itemsize
                or src.offset == dst.offset):
            continue
        d = binop("-", dst.offset, src.offset)
        ok = binop("|", binop("==", d, const(0)), binop(">=", unop(Fn.ABS, d), count))
        name = ("src0", "src1", "src2")[min(k, 2)]
        yield _holds(ok, f"dst partly overlaps {name}: dst starts {to_str(d)} elements from {name} and each "
                         f"covers {to_str(count)}; a vector op's destination may not partly overlap a source (it must "
                         f"be that source exactly, or share no element with it)")


def _scalar(node: Node, x: Expr):
    """A vector op's scalar operand; a shift count is 0 .. bits-1 of the element (the vendor's ShiftLeft /
    ShiftRight check it in CPU-debug mode; a constant one is checked while tracing)."""
    if REGISTRY[node.op].shift_scalar:
        bits = node.attr("dtype").itemsize * 8
        return _spec(x, 0, bits - 1, f"the shift count of asc.{node.op} on {node.attr('dtype')}", "scalar", "scalar")
    return _value(x, "the scalar")


def _mask(m: Any, dtype: Any) -> Iterator[tuple]:
    if isinstance(m, Mask) and m.count is not None:
        # a count past the repeat selects the whole repeat (the vendor's SetMask(int32_t len)), so only the
        # lower end and the int32 range are checked
        yield _spec(m.count, 1, I32, "the mask count")


def _masked(node: Node) -> Iterator[tuple]:
    a = node.args
    tensors = [x for x in a if isinstance(x, TensorRef)]
    names = ("dst", "src0", "src1")
    for i, t in enumerate(tensors):
        yield _ref(t, names[i])
    for x in a[len(tensors):-3]:
        yield _scalar(node, x)
    sdt = node.attr("src_dtype") or tensors[0].dtype
    yield from _mask(a[-3], sdt)
    yield _spec(a[-2], 0, U8, "repeat_time")
    p = a[-1]
    for f in fields(p):
        hi = U16 if "blk" in f.name and len(fields(p)) == 4 else U8
        yield _spec(getattr(p, f.name), 0, hi, f.name)


# -- when a check cannot fail -----------------------------------------------------------------------

def can_fault(e: Expr) -> bool:
    """Whether evaluating `e` can fail: an integer // or % by something that may be zero, or a shift by a
    count that may leave 0..63."""
    if isinstance(e, Bin):
        if e.op in ("//", "%") and e.type == "int":
            if not (isinstance(e.b, Const) and e.b.value != 0):
                return True
        if e.op in ("<<", ">>") and not (isinstance(e.b, Const) and 0 <= e.b.value <= 63):
            return True
        return can_fault(e.a) or can_fault(e.b)
    if isinstance(e, Un):
        return can_fault(e.a)
    return False


def value_range(e: Expr, ranges: Ranges) -> tuple[int, int] | None:
    """An interval containing every int64 value of `e`, or None when unknown (or not an integer)."""
    if isinstance(e, Const):
        v = e.value
        return (v, v) if isinstance(v, int) else None
    if isinstance(e, Var):
        if e.kind == "block_idx":
            return (0, MAX_CORES - 1)
        if e.kind == "block_num":
            return (1, MAX_CORES)
        if e.type != "int":
            return None
        return ranges.get(e.env_key, (INT64_MIN, INT64_MAX))
    if isinstance(e, Bin) and e.type == "int":
        ra, rb = value_range(e.a, ranges), value_range(e.b, ranges)
        if ra is None or rb is None:
            return None
        if e.op in ("+", "-", "*", Fn.MIN, Fn.MAX):
            fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
                  Fn.MIN: min, Fn.MAX: max}[e.op]
            vals = [fn(x, y) for x in ra for y in rb]      # extremes of these ops lie at the corners
            lo, hi = min(vals), max(vals)
            return (lo, hi) if INT64_MIN <= lo and hi <= INT64_MAX else None
        if e.op == "//" and rb[0] > 0:                 # monotonic in a, for a positive divisor
            return (min(ra[0] // rb[0], ra[0] // rb[1]), max(ra[1] // rb[0], ra[1] // rb[1]))
        if e.op == "%" and rb[0] > 0:
            return (0, rb[1] - 1)                      # Python's modulo takes the divisor's sign
        return None
    if isinstance(e, Un) and e.op == "neg" and e.type == "int":
        r = value_range(e.a, ranges)
        return None if r is None or r[0] == INT64_MIN else (-r[1], -r[0])
    return None


def loop_range(start: Expr, stop: Expr, step: Expr, ranges: Ranges) -> tuple[int, int] | None:
    """The values a loop index can take, from intervals of its bounds (None: unknown)."""
    rs, re_, rt = value_range(start, ranges), value_range(stop, ranges), value_range(step, ranges)
    if rs is None or re_ is None or rt is None:
        return None
    if rt[0] > 0:
        return (rs[0], max(rs[0], re_[1] - 1))
    if rt[1] < 0:
        return (min(rs[1], re_[0] + 1), rs[1])
    return None

