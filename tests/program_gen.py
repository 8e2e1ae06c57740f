"""Random kernels for differential testing: a small program language, a Hypothesis strategy for it,
and the @asc.jit kernel that runs a program (interpreting it while it is traced or run eagerly).

Programs are data (frozen dataclasses of tuples), so Hypothesis can shrink them. Each statement kind
is one `Stmt` record: how to draw it and how to emit it; a new construct (asc.cond, asc.while_loop,
...) is one more record registered with `@statement`. Scalar expressions mix the runtime arguments
(drawn with edge values: 0, -1, huge, NaN, -0.0, ...), the block index, loop indices and values read
from the UB, with + - * // % and float math, and feed counts, offsets, loop bounds, repeat times and
vector scalars; so programs hit every runtime check as well as the arithmetic.
"""
from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

import asc_trace as asc
from asc_trace.graph.ops import REGISTRY

L = 64                     # elements per UB buffer
NBUF = 3
XLEN = 4 * L               # GM elements per core, input
ZLEN = 4 * L               # GM elements per core, output
INT_ARGS = ("a0", "a1", "a2")
EDGE_INTS = (0, 1, -1, 2, 3, 8, 64, 255, 256, 2**31 - 1, 2**31, -2**31, 2**32 + 8, 2**62, -2**63, 2**63 - 1)
EDGE_FLOATS = (0.0, -0.0, 1.0, -1.5, 0.5, 3.0, 1e30, -1e30, 16777217.0, 1e-40, float("nan"), float("inf"),
               float("-inf"))


@dataclass(frozen=True)
class Program:
    dtype: str
    body: tuple
    shared_out: bool = False          # every core writes the same output window (a cross-core race)


@dataclass
class Ctx:
    """What a statement being drawn can refer to."""

    dtype: str
    depth: int = 0
    loops: int = 0                      # enclosing runtime loops (indices "i0".."i{loops-1}")
    values: list = field(default_factory=list)   # names of values read from the UB so far


# -- expressions --------------------------------------------------------------------------------

def int_leaf(ctx: Ctx) -> st.SearchStrategy:
    leaves = [st.tuples(st.just("arg"), st.sampled_from(INT_ARGS)), st.tuples(st.just("blk")),
              st.tuples(st.just("const"), st.sampled_from((0, 1, 2, 3, 8, 16, 32, 64, -1, -8)))]
    if ctx.loops:
        leaves.append(st.tuples(st.just("loop"), st.integers(0, ctx.loops - 1)))
    if ctx.dtype == "int32" and ctx.values:
        leaves.append(st.tuples(st.just("val"), st.sampled_from(ctx.values)))
    return st.one_of(leaves)


def int_expr(ctx: Ctx, depth: int = 2) -> st.SearchStrategy:
    if depth == 0:
        return int_leaf(ctx)
    sub = int_expr(ctx, depth - 1)
    return st.one_of(int_leaf(ctx), st.tuples(st.sampled_from(["+", "-", "*", "//", "%"]), sub, sub))


def float_expr(ctx: Ctx) -> st.SearchStrategy:
    leaves = [st.tuples(st.just("arg"), st.just("f0")), st.tuples(st.just("fconst"), st.sampled_from(EDGE_FLOATS)),
              int_leaf(ctx)]
    if ctx.dtype != "int32" and ctx.values:
        leaves.append(st.tuples(st.just("val"), st.sampled_from(ctx.values)))
    leaf = st.one_of(leaves)
    return st.one_of(leaf, st.tuples(st.sampled_from(["+", "-", "*", "/"]), leaf, leaf))


def scalar_expr(ctx: Ctx) -> st.SearchStrategy:
    return int_expr(ctx, 1) if ctx.dtype == "int32" else float_expr(ctx)


def count_expr(ctx: Ctx) -> st.SearchStrategy:
    """Mostly valid counts, sometimes whatever an argument holds."""
    return st.one_of(st.tuples(st.just("const"), st.sampled_from((L, L, 32, 0, 1, 37))),
                     st.tuples(st.just("%"), st.tuples(st.just("arg"), st.sampled_from(INT_ARGS)),
                               st.tuples(st.just("const"), st.just(L + 1))),
                     st.tuples(st.just("arg"), st.sampled_from(INT_ARGS)))


def gm_offset(ctx: Ctx, per32: int) -> st.SearchStrategy:
    """A GM element offset: usually a 32-byte multiple inside the window, sometimes anything."""
    base = st.tuples(st.just("const"), st.sampled_from(tuple(range(0, XLEN - L + 1, L))))
    parts = [base, base, st.tuples(st.just("*"), st.tuples(st.just("const"), st.just(per32)), int_expr(ctx, 1))]
    if ctx.loops:
        parts.append(st.tuples(st.just("*"), st.tuples(st.just("loop"), st.just(ctx.loops - 1)),
                               st.tuples(st.just("const"), st.just(L))))
    return st.one_of(parts)


def ev(e: tuple, env: dict) -> Any:
    """Evaluate an expression on the kernel's values (Scalars while tracing: this builds the Expr)."""
    kind = e[0]
    if kind in ("const", "fconst"):
        return e[1]
    if kind == "arg":
        return env[e[1]]
    if kind == "blk":
        return env["blk"]
    if kind == "loop":
        return env["loops"][e[1]]
    if kind == "val":
        return env["values"][e[1]]
    a, b = ev(e[1], env), ev(e[2], env)
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "//": lambda: a // b,
            "%": lambda: a % b, "/": lambda: a / b}[kind]()


# -- statements -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Stmt:
    """A statement kind: `draw(ctx)` is a strategy of its argument tuple, `emit(args, k)` runs it
    inside the kernel (`k` holds the buffers, the GlobalTensors and the environment)."""

    name: str
    draw: Callable[[Ctx], st.SearchStrategy]
    emit: Callable[[tuple, "KernelState"], None]
    weight: int = 1
    nested: bool = False               # has a body of statements (limited by depth)
    when: Callable[[Ctx], bool] = lambda ctx: True     # whether it applies (e.g. to the program's dtype)


STATEMENTS: dict[str, Stmt] = {}


def statement(name: str, weight: int = 1, nested: bool = False, when: Callable[[Ctx], bool] = lambda ctx: True):
    def deco(pair):
        draw, emit = pair
        STATEMENTS[name] = Stmt(name, draw, emit, weight, nested, when)
        return pair
    return deco


@dataclass
class KernelState:
    dt: Any
    bufs: list
    xg: Any
    zg: Any
    env: dict
    tmp: Any = None             # the shared tmp buffer of reductions
    mask: Any = None            # a uint8 bit mask for compare / select


def _ops(family: str, dtype: str) -> list[str]:
    skip = {"axpy", "leaky_relu", "bitwise_and", "bitwise_or", "bitwise_not", "exp", "ln", "sqrt", "rsqrt",
            "reciprocal", "div"}
    return sorted(op.name for op in REGISTRY.values() if op.family == family and op.supports(dtype)
                  and op.name not in skip)


buf = st.integers(0, NBUF - 1)


def _per32(dtype: str) -> int:
    return 32 // np.dtype(dtype).itemsize


statement("load", weight=3)((
    lambda ctx: st.tuples(buf, gm_offset(ctx, _per32(ctx.dtype))),
    lambda a, k: asc.data_copy(k.bufs[a[0]], k.xg[ev(a[1], k.env):], L)))
statement("store", weight=3)((
    lambda ctx: st.tuples(buf, gm_offset(ctx, _per32(ctx.dtype))),
    lambda a, k: asc.data_copy(k.zg[ev(a[1], k.env):], k.bufs[a[0]], L)))
statement("binary", weight=3)((
    lambda ctx: st.tuples(st.sampled_from(_ops("vec_binary", ctx.dtype)), buf, buf, buf, count_expr(ctx)),
    lambda a, k: getattr(asc, a[0])(k.bufs[a[1]], k.bufs[a[2]], k.bufs[a[3]], ev(a[4], k.env))))
statement("unary")((
    lambda ctx: st.tuples(st.sampled_from(_ops("vec_unary", ctx.dtype)), buf, buf, count_expr(ctx)),
    lambda a, k: getattr(asc, a[0])(k.bufs[a[1]], k.bufs[a[2]], ev(a[3], k.env))))
statement("scalar", weight=3)((
    lambda ctx: st.tuples(st.sampled_from(_ops("vec_scalar", ctx.dtype)), buf, buf, scalar_expr(ctx),
                          count_expr(ctx)),
    lambda a, k: getattr(asc, a[0])(k.bufs[a[1]], k.bufs[a[2]], ev(a[3], k.env), ev(a[4], k.env))))
statement("duplicate")((
    lambda ctx: st.tuples(buf, scalar_expr(ctx), count_expr(ctx)),
    lambda a, k: asc.duplicate(k.bufs[a[0]], ev(a[1], k.env), ev(a[2], k.env))))
statement("masked")((
    lambda ctx: st.tuples(st.sampled_from(_ops("vec_binary", ctx.dtype)), buf, buf, buf,
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((8, 16, 64))), int_expr(ctx, 0)),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((0, 1))), int_expr(ctx, 1)),
                          st.sampled_from(((1, 1, 1, 8, 8, 8), (1, 1, 1, 0, 0, 0), (2, 1, 1, 1, 1, 1)))),
    lambda a, k: getattr(asc, a[0])(k.bufs[a[1]], k.bufs[a[2]], k.bufs[a[3]], ev(a[4], k.env), ev(a[5], k.env),
                                    asc.BinaryRepeatParams(*a[6]))))
statement("printf")((
    lambda ctx: st.tuples(st.sampled_from(("%d", "%u", "%x", "%5d")), int_expr(ctx, 1), float_expr(ctx),
                          st.sampled_from(("%f", "%.3e", "%g"))),
    lambda a, k: asc.printf(f"i={a[0]} f={a[3]}\\n", ev(a[1], k.env), ev(a[2], k.env))))
statement("get_value")((
    lambda ctx: st.tuples(buf, st.one_of(st.tuples(st.just("const"), st.integers(0, L - 1)), int_expr(ctx, 1))),
    lambda a, k: k.env["values"].append(k.bufs[a[0]].get_value(ev(a[1], k.env)))))


statement("reduce", when=lambda ctx: bool(_ops("vec_reduce", ctx.dtype)))((
    lambda ctx: st.tuples(st.sampled_from(_ops("vec_reduce", ctx.dtype)), buf, buf, count_expr(ctx)),
    lambda a, k: getattr(asc, a[0])(k.bufs[a[1]], k.bufs[a[2]], k.tmp, ev(a[3], k.env))))
statement("copy_params")((
    lambda ctx: st.tuples(buf, st.booleans(), st.tuples(st.just("const"), st.sampled_from((0, 32))),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((1, 2, 4))), int_expr(ctx, 0)),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((1, 2))), int_expr(ctx, 0)),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((0, 1))), int_expr(ctx, 0))),
    lambda a, k: asc.data_copy(*((k.bufs[a[0]], k.xg[ev(a[2], k.env):]) if a[1] else
                                 (k.zg[ev(a[2], k.env):], k.bufs[a[0]])),
                               asc.DataCopyParams(ev(a[3], k.env), ev(a[4], k.env), ev(a[5], k.env), 0))))
statement("copy_pad")((
    lambda ctx: st.tuples(buf, st.booleans(),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((1, 2))), int_expr(ctx, 0)),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((4, 12, 100))), int_expr(ctx, 0)),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((0, 1))), int_expr(ctx, 0))),
    lambda a, k: asc.data_copy_pad(*((k.bufs[a[0]], k.xg) if a[1] else (k.zg, k.bufs[a[0]])),
                                   asc.DataCopyExtParams(ev(a[2], k.env), ev(a[3], k.env) * k.dt.sizeof(), 0,
                                                         0, 0),
                                   *((asc.DataCopyPadExtParams(True, ev(a[4], k.env), 0, 0),) if a[1] else ()))))


statement("whole_reduce", when=lambda ctx: bool(_ops("vec_whole_reduce", ctx.dtype)))((
    lambda ctx: st.tuples(st.sampled_from(_ops("vec_whole_reduce", ctx.dtype)), buf, buf,
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((8, 64))), int_expr(ctx, 0)),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((1, 2))), int_expr(ctx, 0)),
                          st.tuples(st.just("const"), st.sampled_from((0, 1, 2))),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((0, 1))), int_expr(ctx, 0)),
                          st.tuples(st.just("const"), st.sampled_from((1, 8)))),
    lambda a, k: getattr(asc, a[0])(k.bufs[a[1]], k.bufs[a[2]], *(ev(x, k.env) for x in a[3:8]))))
statement("compare_select", when=lambda ctx: ctx.dtype != "int32")((
    lambda ctx: st.tuples(buf, buf, buf, st.sampled_from(("LT", "GE", "NE")), scalar_expr(ctx),
                          st.one_of(st.tuples(st.just("const"), st.sampled_from((256 // np.dtype(ctx.dtype).itemsize,
                                                                                 0))), int_expr(ctx, 0))),
    lambda a, k: (asc.compare(k.mask, k.bufs[a[1]], k.bufs[a[2]], getattr(asc.CMPMODE, a[3]), ev(a[5], k.env)),
                  asc.select(k.bufs[a[0]], k.mask, k.bufs[a[1]], ev(a[4], k.env), asc.SELMODE.VSEL_TENSOR_SCALAR_MODE,
                             ev(a[5], k.env)))))
statement("set_value")((
    lambda ctx: st.tuples(buf, st.one_of(st.tuples(st.just("const"), st.integers(0, L - 1)), int_expr(ctx, 1)),
                          scalar_expr(ctx)),
    lambda a, k: k.bufs[a[0]].set_value(ev(a[1], k.env), ev(a[2], k.env))))
statement("dump")((
    lambda ctx: st.tuples(buf, st.one_of(st.tuples(st.just("const"), st.sampled_from((4, 8))), int_expr(ctx, 0))),
    lambda a, k: asc.dump_tensor(k.bufs[a[0]], 7, ev(a[1], k.env))))


def _loop_bound(ctx: Ctx) -> st.SearchStrategy:
    """Bounds that keep every loop short: constants, or an argument modulo a small number."""
    small = st.tuples(st.just("const"), st.integers(-1, 4))
    mod = st.tuples(st.just("%"), st.tuples(st.just("arg"), st.sampled_from(INT_ARGS)),
                    st.tuples(st.just("const"), st.sampled_from((3, 4))))
    return st.one_of(small, small, mod)


def _loop_step() -> st.SearchStrategy:
    return st.one_of(st.tuples(st.just("const"), st.sampled_from((1, 1, 2, -1))),
                     st.tuples(st.just("-"), st.tuples(st.just("%"), st.tuples(st.just("arg"), st.just("a2")),
                                                       st.tuples(st.just("const"), st.just(3))),
                               st.tuples(st.just("const"), st.just(1))))


def _draw_loop(ctx: Ctx) -> st.SearchStrategy:
    inner = Ctx(ctx.dtype, ctx.depth + 1, ctx.loops + 1, list(ctx.values))
    return st.tuples(_loop_bound(ctx), _loop_bound(ctx), _loop_step(), body(inner, 1, 4))


def _emit_loop(a: tuple, k: KernelState) -> None:
    values = k.env["values"]
    outer = len(values)
    for i in asc.range(ev(a[0], k.env), ev(a[1], k.env), ev(a[2], k.env)):   # a runtime loop
        k.env["loops"].append(i)
        run_body(a[3], k)
        k.env["loops"].pop()
        # The body's values are this iteration's: dropped before the iteration ends, so the body leaves
        # the Python list as it found it (a body that changes it is refused: it is traced once).
        del values[outer:]


statement("loop", weight=2, nested=True)((_draw_loop, _emit_loop))


def body(ctx: Ctx, min_size: int, max_size: int) -> st.SearchStrategy:
    """A list of statements; statements with a body appear only up to depth 2."""
    @st.composite
    def draw(d):
        out = []
        for _ in range(d(st.integers(min_size, max_size))):
            kinds = [s for s in STATEMENTS.values() if not (s.nested and ctx.depth >= 2) and s.when(ctx)]
            kind = d(st.sampled_from([s.name for s in kinds for _ in range(s.weight)]))
            args = d(STATEMENTS[kind].draw(ctx))
            if kind == "get_value":
                ctx.values.append(len(ctx.values))
            out.append((kind, args))
        return tuple(out)
    return draw()


def run_body(stmts: tuple, k: KernelState) -> None:
    for kind, args in stmts:
        STATEMENTS[kind].emit(args, k)


@st.composite
def programs(draw, dtypes=("float32", "float16", "int32")) -> Program:
    dtype = draw(st.sampled_from(dtypes))
    return Program(dtype, draw(body(Ctx(dtype), 2, 7)), draw(st.sampled_from((False,) * 9 + (True,))))


def make_kernel(prog: Program):
    dt = getattr(asc, prog.dtype)

    @asc.jit
    def fuzz_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, a0: int, a1: int, a2: int, f0: float):
        blk = asc.get_block_idx()
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + blk * XLEN, XLEN)
        zg.set_global_buffer(z + (0 if prog.shared_out else blk * ZLEN), ZLEN)
        bufs = [asc.LocalTensor(dt, asc.TPosition.VECCALC, i * L * dt.sizeof(), L) for i in range(NBUF)]
        tmp = asc.LocalTensor(dt, asc.TPosition.VECCALC, NBUF * L * dt.sizeof(), L)
        mask = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, (NBUF + 1) * L * dt.sizeof(), 32)
        env = {"a0": a0, "a1": a1, "a2": a2, "f0": f0, "blk": blk, "loops": [], "values": []}
        run_body(prog.body, KernelState(dt, bufs, xg, zg, env, tmp, mask))
    return fuzz_kernel


# -- arguments ------------------------------------------------------------------------------------

int_args = st.one_of(st.sampled_from(EDGE_INTS), st.integers(-70, 70))
float_args = st.one_of(st.sampled_from(EDGE_FLOATS), st.floats(-100, 100, width=32))


@st.composite
def launches(draw) -> tuple:
    """(cores, a0, a1, a2, f0, data seed)."""
    return (draw(st.integers(1, 3)), draw(int_args), draw(int_args), draw(int_args), draw(float_args),
            draw(st.integers(0, 2**16)))


def input_data(dtype: str, cores: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Inputs with special values sprinkled in (NaN, infinities, signed zeros, huge), and an output
    array with recognisable contents."""
    rng = np.random.default_rng(seed)
    n = cores * XLEN
    if dtype == "int32":
        x = rng.integers(-1000, 1000, n).astype(np.int32)
        x[rng.random(n) < 0.05] = np.iinfo(np.int32).max
        x[rng.random(n) < 0.05] = np.iinfo(np.int32).min
    else:
        x = (rng.standard_normal(n) * 4).astype(dtype)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 65504.0, -65504.0], dtype=dtype)
        pick = rng.random(n) < 0.08
        x[pick] = specials[rng.integers(0, len(specials), int(pick.sum()))]
    z = np.full(cores * ZLEN, 7, dtype=dtype)
    return x, z


def outcome(kernel, backend: str, prog: Program, launch: tuple) -> tuple:
    """("ok", output bytes, printed text) or ("error", the AscTraceError class name, whether the output
    was left untouched) of one launch on one backend."""
    cores, a0, a1, a2, f0, seed = launch
    x, z = input_data(prog.dtype, cores, seed)
    text = io.StringIO()
    try:
        with contextlib.redirect_stdout(text):
            asc.jit(kernel, backend=backend)[cores](x, z, a0, a1, a2, f0)
    except asc.AscTraceError as e:
        return ("error", type(e).__name__, z.tobytes() == input_data(prog.dtype, cores, seed)[1].tobytes())
    return ("ok", z.tobytes(), text.getvalue())
