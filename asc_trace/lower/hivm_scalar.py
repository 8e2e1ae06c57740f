"""Scalar expressions of a kernel graph as MLIR `arith` / `math` SSA values, for the HIVM lowering.

Integers are i64, floats f32 and booleans i1, the types the simulator computes scalars in. Python's
floor division and modulo are spelled out (`arith.floordivsi`, and `a - b * (a // b)` for `%`), since
the C-style `arith.remsi` rounds differently. Values are memoised per region: an SSA value made inside
an `scf.for` body is not visible after it, so each region opens a scope (`push` / `pop`).
"""
from __future__ import annotations

import struct
from typing import Callable

from ..errors import TraceError
from ..graph.expr import Bin, Const, Expr, Un, Var
from ..graph.scalar_ops import Fn

MLIR_TYPE = {"int": "i64", "float": "f32", "bool": "i1"}

_INT_BIN = {"+": "arith.addi", "-": "arith.subi", "*": "arith.muli", "//": "arith.floordivsi",
            "<<": "arith.shli", ">>": "arith.shrsi", "&": "arith.andi", "|": "arith.ori", "^": "arith.xori",
            Fn.MIN: "arith.minsi", Fn.MAX: "arith.maxsi"}
_FLOAT_BIN = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf", "/": "arith.divf",
              Fn.MIN: "arith.minimumf", Fn.MAX: "arith.maximumf"}
_INT_CMP = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
# Python's comparisons are false on NaN except !=, which is true: ordered predicates and `une`.
_FLOAT_CMP = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}


def f32_literal(value: float) -> str:
    """A float32 constant by its bits (MLIR reads a hexadecimal float literal as the bit pattern), so
    that NaN, infinities and every rounding survive the text exactly."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return f"0x{bits:08X}"


class ScalarEmitter:
    """Turns Exprs into SSA values, writing the defining lines through `emit`."""

    def __init__(self, emit: Callable[[str], None], fresh: Callable[[str], str]) -> None:
        self._emit = emit
        self._fresh = fresh
        self._scopes: list[dict[object, str]] = [{}]

    # -- scopes -------------------------------------------------------------------------------------
    def push(self) -> None:
        self._scopes.append({})

    def pop(self) -> None:
        self._scopes.pop()

    def bind(self, var: Var | tuple, ssa: str) -> None:
        """A Var (or another key) names `ssa` in the current scope."""
        self._scopes[-1][var if isinstance(var, tuple) else ("var", var.kind, var.key)] = ssa

    def lookup(self, key: object) -> str | None:
        for scope in reversed(self._scopes):
            if key in scope:
                return scope[key]
        return None

    # -- values ---------------------------------------------------------------------------------------
    def value(self, e: Expr, want: str | None = None) -> str:
        """The SSA value of `e`, converted to `want` ("int", "float", "bool") when given."""
        ssa = self._value(e)
        return self.convert(ssa, e.type, want) if want and want != e.type else ssa

    def index(self, e: Expr) -> str:
        """`e` as an MLIR `index` (subview offsets and sizes, memref.load indices)."""
        key = ("index", e)
        hit = self.lookup(key)
        if hit is None:
            hit = self._fresh("ix")
            self._emit(f"{hit} = arith.index_cast {self.value(e, 'int')} : i64 to index")
            self._scopes[-1][key] = hit
        return hit

    def convert(self, ssa: str, have: str, want: str) -> str:
        if have == want:
            return ssa
        out = self._fresh("cv")
        if have == "bool" and want == "int":
            self._emit(f"{out} = arith.extui {ssa} : i1 to i64")
        elif have == "bool" and want == "float":
            self._emit(f"{out} = arith.uitofp {ssa} : i1 to f32")
        elif have == "int" and want == "float":
            self._emit(f"{out} = arith.sitofp {ssa} : i64 to f32")
        elif have == "float" and want == "int":
            self._emit(f"{out} = arith.fptosi {ssa} : f32 to i64")
        elif want == "bool":      # a runtime condition written as a number: true when non-zero
            zero = self._const(Const(0.0) if have == "float" else Const(0))
            op = "arith.cmpf une" if have == "float" else "arith.cmpi ne"
            self._emit(f"{out} = {op}, {ssa}, {zero} : {MLIR_TYPE[have]}")
        else:
            raise ValueError(f"no conversion {have} -> {want}")
        return out

    def _value(self, e: Expr) -> str:
        if isinstance(e, Var):
            ssa = self.lookup(("var", e.kind, e.key))
            if ssa is None:
                raise TraceError(f"the HIVM lowering has no value for `{e.name}` here", None)
            return ssa
        hit = self.lookup(("expr", e))
        if hit is not None:
            return hit
        if isinstance(e, Const):
            out = self._const(e)
        elif isinstance(e, Bin):
            out = self._bin(e)
        elif isinstance(e, Un):
            out = self._un(e)
        else:
            raise TraceError(f"the HIVM lowering cannot express `{e}`", None)
        self._scopes[-1][("expr", e)] = out
        return out

    def _const(self, c: Const) -> str:
        key = ("const", c)
        hit = self.lookup(key)
        if hit is not None:
            return hit
        out = self._fresh("c")
        if c.type == "bool":
            self._emit(f"{out} = arith.constant {'true' if c.value else 'false'}")
        elif c.type == "int":
            self._emit(f"{out} = arith.constant {int(c.value)} : i64")
        else:
            self._emit(f"{out} = arith.constant {f32_literal(float(c.value))} : f32")
        self._scopes[-1][key] = out
        return out

    def _bin(self, e: Bin) -> str:
        if e.op in _INT_CMP:
            kind = "float" if "float" in (e.a.type, e.b.type) else "int"
            a, b = self.value(e.a, kind), self.value(e.b, kind)
            out = self._fresh("cmp")
            if kind == "float":
                self._emit(f"{out} = arith.cmpf {_FLOAT_CMP[e.op]}, {a}, {b} : f32")
            else:
                self._emit(f"{out} = arith.cmpi {_INT_CMP[e.op]}, {a}, {b} : i64")
            return out
        kind = e.type
        if kind == "bool" and e.op in ("&", "|", "^"):
            a, b = self.value(e.a, "bool"), self.value(e.b, "bool")
            out = self._fresh("b")
            self._emit(f"{out} = {_INT_BIN[e.op]} {a}, {b} : i1")
            return out
        a, b = self.value(e.a, kind), self.value(e.b, kind)
        out = self._fresh("s")
        if kind == "int":
            if e.op == "%":      # Python's modulo takes the divisor's sign: a - b * floor(a / b)
                q = self._fresh("q")
                self._emit(f"{q} = arith.floordivsi {a}, {b} : i64")
                p = self._fresh("p")
                self._emit(f"{p} = arith.muli {q}, {b} : i64")
                self._emit(f"{out} = arith.subi {a}, {p} : i64")
                return out
            if e.op not in _INT_BIN:
                raise TraceError(f"the HIVM lowering has no integer `{e.op}`", None)
            self._emit(f"{out} = {_INT_BIN[e.op]} {a}, {b} : i64")
            return out
        if e.op == "//":
            q = self._fresh("q")
            self._emit(f"{q} = arith.divf {a}, {b} : f32")
            self._emit(f"{out} = math.floor {q} : f32")
            return out
        if e.op not in _FLOAT_BIN:
            raise TraceError(f"the HIVM lowering has no float `{e.op}`", None)
        self._emit(f"{out} = {_FLOAT_BIN[e.op]} {a}, {b} : f32")
        return out

    def _un(self, e: Un) -> str:
        if e.op == "int":
            return self.value(e.a, "int")
        if e.op == "float":
            return self.value(e.a, "float")
        out = self._fresh("u")
        if e.op == "not":
            a = self.value(e.a, "bool")
            self._emit(f"{out} = arith.xori {a}, {self._const(Const(True))} : i1")
        elif e.op == "neg" and e.type == "float":
            self._emit(f"{out} = arith.negf {self.value(e.a)} : f32")
        elif e.op == "neg":
            self._emit(f"{out} = arith.subi {self._const(Const(0))}, {self.value(e.a, 'int')} : i64")
        elif e.op == Fn.ABS:
            fn = "math.absf" if e.type == "float" else "math.absi"
            self._emit(f"{out} = {fn} {self.value(e.a)} : {MLIR_TYPE[e.type]}")
        else:
            raise TraceError(f"the HIVM lowering has no `{e.op}`", None)
        return out
