"""An outsider's (x37) random flag-free kernel generator for #18, independent of tests/program_gen.py.

A program is a small tree of statements over four fixed 64-float UB tiles (plus one raw tile that
straddles tiles 0 and 1) and two GM arguments x and z: copies in (from x or z: GM read-after-write
through MTE3 -> MTE2), copies out, binary / scalar / unary vector ops (in place included), scalar reads
and writes (`get_value` / `set_value`, the S pipe), runtime `for` loops whose start / stop / step are
kernel arguments (zero trips, backwards, step 2 or 3), `asc.cond` on runtime bits or on a loop index,
`asc.while_loop` over a runtime count and a data-dependent one, calls of `@asc.jit` sub-kernels, and
correct user flags (a set immediately waited) or barriers mixed in.

The same tree is walked twice: once inside an `@asc.jit` kernel (so it is traced by asc_trace), once
by `reference()` in NumPy, in program order. Every value is a small integer in float32, every result
exact, so the bytes of z must equal the reference on every backend. Launch modes: separate x and z,
z passed as x itself (one array twice), z an overlapping view of x."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

import asc_trace as asc

T = 64                       # floats per tile: 256 bytes, a whole number of 32-byte blocks
NTILE = 4                    # tiles 0..3 at 256-byte steps; tile 4 is raw at byte 128 (over tiles 0 and 1)
NSLOT = 48                   # GM slots of T floats per core in x and in z
NPARAM = 12                  # p0..p8: three (start, stop, step) loop triples; p9..p11: while / call counts
LOOP_TRIPLES = [(0, 3, 1), (3, -1, -1), (2, 2, 1), (0, 4, 2), (4, 0, -2), (1, 0, 1), (0, 4, 3), (3, 0, -3),
                (0, 1, 1), (0, 0, -1)]


@dataclass
class Prog:
    body: list
    params: list            # values of p0..p5
    bits: int
    cores: int
    alias: str              # "none" | "same" | "shift"
    seed: int
    nvars: int = 0
    sub_used: bool = False
    text: list = field(default_factory=list)


def _slot(rng: random.Random, depth_vars: list) -> tuple:
    """A GM slot: a constant plus at most two loop / while variables (each in 0..4)."""
    terms = []
    if depth_vars and rng.random() < 0.8:
        terms.append((rng.choice(depth_vars), 1))
        if len(depth_vars) > 1 and rng.random() < 0.4:
            other = rng.choice([v for v in depth_vars if v != terms[0][0]])
            terms.append((other, 5))
    return (rng.randrange(0, 12), tuple(terms))


def _block(rng: random.Random, prog: Prog, depth: int, vars_: list, budget: list) -> list:
    out = []
    for _ in range(rng.randint(1, 4)):
        if budget[0] <= 0:
            break
        budget[0] -= 1
        r = rng.random()
        if depth < 3 and r < 0.16:
            v = prog.nvars
            prog.nvars += 1
            p = rng.randrange(0, 3)      # triples live in params: p index base
            out.append(("for", v, p, _block(rng, prog, depth + 1, vars_ + [v], budget)))
        elif depth < 3 and r < 0.26:
            if vars_ and rng.random() < 0.4:
                pred = ("var", rng.choice(vars_), rng.randrange(0, 4))
            else:
                pred = ("bit", rng.randrange(0, 12))
            other = _block(rng, prog, depth + 1, vars_, budget) if rng.random() < 0.7 else []
            out.append(("cond", pred, _block(rng, prog, depth + 1, vars_, budget), other))
        elif depth < 3 and r < 0.31:
            v = prog.nvars
            prog.nvars += 1
            out.append(("while", v, rng.randrange(0, 3), _block(rng, prog, depth + 1, vars_ + [v], budget)))
        elif depth < 3 and r < 0.34:
            v = prog.nvars
            prog.nvars += 1
            out.append(("whiledata", v, rng.randrange(NTILE), float(rng.randrange(2, 9)),
                        _block(rng, prog, depth + 1, vars_ + [v], budget)))
        elif r < 0.50:
            src = "z" if rng.random() < 0.25 else "x"
            out.append(("in", rng.randrange(NTILE + 1), src, _slot(rng, vars_)))
        elif r < 0.64:
            out.append(("out", _slot(rng, vars_), rng.randrange(NTILE + 1)))
        elif r < 0.76:
            dst = rng.randrange(NTILE)
            a = dst if rng.random() < 0.4 else rng.randrange(NTILE)
            out.append(("bin", rng.choice(["add", "sub", "max", "min"]), dst, a, rng.randrange(NTILE)))
        elif r < 0.84:
            dst = rng.randrange(NTILE)
            a = dst if rng.random() < 0.5 else rng.randrange(NTILE)
            op = rng.choice(["adds", "muls", "abs", "maxs"])
            out.append(("sc", op, dst, a, rng.choice([1.0, -1.0, 2.0, 0.5, -3.0])))
        elif r < 0.90:
            out.append(("scalar", rng.randrange(NTILE), rng.randrange(T), rng.randrange(NTILE), rng.randrange(T),
                        rng.random() < 0.5))
        elif r < 0.95:
            prog.sub_used = True
            out.append(("call", rng.randrange(NTILE), rng.randrange(NTILE), rng.randrange(0, 3)))
        elif depth == 0:          # a set at once waited is correct only where no loop repeats it unordered
            out.append(("flag", rng.choice(["MTE2_V", "V_MTE3", "MTE3_MTE2", "V_MTE2", "MTE3_V", "S_V", "V_S",
                                            "barrier_all", "barrier_v"]), rng.randrange(0, 8)))
    return out


def gen_program(seed: int) -> Prog:
    rng = random.Random(seed)
    alias = rng.choice(["none"] * 6 + ["same", "shift"])
    cores = 1 if alias != "none" else rng.choice([1, 2])
    prog = Prog([], [], rng.randrange(1 << 12), cores, alias, seed)
    triples = [rng.choice(LOOP_TRIPLES) for _ in range(3)]
    prog.params = [v for t in triples for v in t] + [rng.randrange(0, 5) for _ in range(3)]
    big = seed >= 1000                      # seeds from 1000 on: long programs, deep nests
    prog.body = _block(rng, prog, 0, [], [rng.randint(25, 60) if big else rng.randint(6, 22)])
    while big and len(prog.body) < 6 and prog.nvars < 40:
        prog.body += _block(rng, prog, 0, [], [rng.randint(8, 20)])
    prog.body.append(("out", (NSLOT - 1, ()), rng.randrange(NTILE)))   # something always written
    return prog


# ---- the kernel: the tree walked while tracing ---------------------------------------------------------

@asc.jit
def x37_sub_kernel(dst: asc.LocalTensor, src: asc.LocalTensor, reps: int):
    """A sub-kernel with its own runtime loop: dst = dst + |src| + 1, `reps` times."""
    for _ in asc.range(reps):
        asc.adds(dst, dst, 1.0, T)
        asc.add(dst, dst, src, T)


def _tiles():
    ts = [asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 256 * k, T) for k in range(NTILE)]
    ts.append(asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 128, T))
    return ts


def _slot_expr(slot, env):
    c, terms = slot
    e = c
    for v, coef in terms:
        e = e + env[v] * coef
    return e


_EVENTS = {"MTE2_V": ("MTE2_V",), "V_MTE3": ("V_MTE3",), "MTE3_MTE2": ("MTE3_MTE2",), "V_MTE2": ("V_MTE2",),
           "MTE3_V": ("MTE3_V",), "S_V": ("S_V",), "V_S": ("V_S",)}


def _walk(block, st, env):
    ts, xg, zg, ps, bits = st
    for node in block:
        kind = node[0]
        if kind == "for":
            _, v, p, body = node
            for i in asc.range(ps[3 * p], ps[3 * p + 1], ps[3 * p + 2]):
                _walk(body, st, {**env, v: i})
        elif kind == "cond":
            _, pred, yes, no = node
            cond = ((bits >> pred[1]) & 1) == 1 if pred[0] == "bit" else env[pred[1]] == pred[2]
            asc.cond(cond, lambda: _walk(yes, st, env), lambda: _walk(no, st, env))
        elif kind == "while":
            _, v, p, body = node
            limit = ps[9 + p]

            def wbody(k, body=body, v=v):
                _walk(body, st, {**env, v: k})
                return k + 1
            asc.while_loop(lambda k, limit=limit: k < limit, wbody, 0)
        elif kind == "whiledata":
            _, v, tile, limit, body = node

            def dbody(k, val, body=body, v=v, tile=tile):
                asc.adds(ts[tile], ts[tile], 1.0, T)
                _walk(body, st, {**env, v: k})
                return k + 1, ts[tile].get_value(0)
            asc.while_loop(lambda k, val, limit=limit: (val < limit) & (k < 4), dbody, (0, ts[tile].get_value(0)))
        elif kind == "in":
            _, tile, src, slot = node
            g = xg if src == "x" else zg
            asc.data_copy(ts[tile], g[_slot_expr(slot, env) * T:], T)
        elif kind == "out":
            _, slot, tile = node
            asc.data_copy(zg[_slot_expr(slot, env) * T:], ts[tile], T)
        elif kind == "bin":
            _, op, d, a, b = node
            getattr(asc, op)(ts[d], ts[a], ts[b], T)
        elif kind == "sc":
            _, op, d, a, s = node
            if op == "abs":
                asc.abs(ts[d], ts[a], T)
            else:
                getattr(asc, op)(ts[d], ts[a], s, T)
        elif kind == "scalar":
            _, ta, ia, tb, ib, dup = node
            val = ts[ta].get_value(ia)
            if dup:
                asc.duplicate(ts[tb], val, T)
            else:
                ts[tb].set_value(ib, val + 1.0)
        elif kind == "call":
            _, d, s, p = node
            x37_sub_kernel(ts[d], ts[s], ps[9 + p])
        elif kind == "flag":
            _, ev, eid = node
            if ev == "barrier_all":
                asc.pipe_barrier(asc.PipeID.PIPE_ALL)
            elif ev == "barrier_v":
                asc.pipe_barrier(asc.PipeID.PIPE_V)
            else:
                asc.set_flag(getattr(asc.HardEvent, ev), eid)
                asc.wait_flag(getattr(asc.HardEvent, ev), eid)
        else:
            raise ValueError(kind)


def build_kernel(prog: Prog):
    body = prog.body

    def x37_random(x: asc.GlobalAddress, z: asc.GlobalAddress, p0: int, p1: int, p2: int, p3: int, p4: int,
                   p5: int, p6: int, p7: int, p8: int, p9: int, p10: int, p11: int, bits: int):
        blk = asc.get_block_idx()
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + blk * (NSLOT * T), NSLOT * T)
        zg.set_global_buffer(z + blk * (NSLOT * T), NSLOT * T)
        ts = _tiles()
        for t in ts[:NTILE]:
            asc.duplicate(t, 0.0, T)
        _walk(body, (ts, xg, zg, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11), bits), {})
    x37_random.__name__ = x37_random.__qualname__ = f"x37_random_{prog.seed}"
    return asc.jit(x37_random)


# ---- the NumPy reference ---------------------------------------------------------------------------------

class _Ref:
    def __init__(self, x: np.ndarray, z: np.ndarray, prog: Prog):
        self.ub = np.zeros(256 * NTILE // 4, np.float32)
        self.x, self.z, self.ps, self.bits = x, z, prog.params, prog.bits

    def tile(self, k):
        off = 64 * k if k < NTILE else 32
        return self.ub[off:off + T]

    def run(self, block, env):
        f32 = np.float32
        for node in block:
            kind = node[0]
            if kind == "for":
                _, v, p, body = node
                for i in range(self.ps[3 * p], self.ps[3 * p + 1], self.ps[3 * p + 2]):
                    self.run(body, {**env, v: i})
            elif kind == "cond":
                _, pred, yes, no = node
                c = ((self.bits >> pred[1]) & 1) == 1 if pred[0] == "bit" else env[pred[1]] == pred[2]
                self.run(yes if c else no, env)
            elif kind == "while":
                _, v, p, body = node
                k = 0
                while k < self.ps[9 + p]:
                    self.run(body, {**env, v: k})
                    k += 1
            elif kind == "whiledata":
                _, v, tile, limit, body = node
                k, val = 0, self.tile(tile)[0]
                while val < f32(limit) and k < 4:
                    self.tile(tile)[:] += f32(1.0)
                    self.run(body, {**env, v: k})
                    k, val = k + 1, self.tile(tile)[0]
            elif kind == "in":
                _, tile, src, slot = node
                g = self.x if src == "x" else self.z
                s = _slot_val(slot, env)
                self.tile(tile)[:] = g[s * T:(s + 1) * T]
            elif kind == "out":
                _, slot, tile = node
                s = _slot_val(slot, env)
                self.z[s * T:(s + 1) * T] = self.tile(tile)
            elif kind == "bin":
                _, op, d, a, b = node
                fn = {"add": np.add, "sub": np.subtract, "max": _ieee_max, "min": _ieee_min}[op]
                self.tile(d)[:] = fn(self.tile(a), self.tile(b))
            elif kind == "sc":
                _, op, d, a, s = node
                src = self.tile(a)
                res = {"adds": lambda: src + f32(s), "muls": lambda: src * f32(s), "abs": lambda: np.abs(src),
                       "maxs": lambda: _ieee_max(src, np.full_like(src, s))}[op]()
                self.tile(d)[:] = res
            elif kind == "scalar":
                _, ta, ia, tb, ib, dup = node
                val = self.tile(ta)[ia]
                if dup:
                    self.tile(tb)[:] = val
                else:
                    self.tile(tb)[ib] = val + f32(1.0)
            elif kind == "call":
                _, d, s, p = node
                for _ in range(self.ps[9 + p]):
                    self.tile(d)[:] += f32(1.0)
                    self.tile(d)[:] = self.tile(d) + self.tile(s)


def _ieee_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE 754-2019 minimum (docs/numerics.md): min(-0.0, +0.0) is -0.0 whichever operand it is."""
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), a, b), np.minimum(a, b)).astype(np.float32)


def _ieee_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), b, a), np.maximum(a, b)).astype(np.float32)


def _slot_val(slot, env):
    c, terms = slot
    return c + sum(env[v] * coef for v, coef in terms)


def make_args(prog: Prog):
    """(x, z, kernel args, the arrays to compare) for a launch in the program's alias mode."""
    rng = np.random.default_rng(prog.seed)
    n = prog.cores * NSLOT * T
    if prog.alias == "none":
        x = rng.integers(-4, 5, n).astype(np.float32)
        z = np.zeros(n, np.float32)
        return (x, z), (x, z)
    base = rng.integers(-4, 5, n + 8 * T).astype(np.float32)
    if prog.alias == "same":
        return (base[:n], base[:n]), (base,)
    return (base[:n], base[8 * T:8 * T + n]), (base,)


def reference(prog: Prog, arrays: tuple) -> None:
    """Run the program on the (already aliased) arrays in program order, one core after the other."""
    x, z = arrays
    for blk in range(prog.cores):
        w = slice(blk * NSLOT * T, (blk + 1) * NSLOT * T)
        _Ref(x[w], z[w], prog).run(prog.body, {})


def run_program(prog: Prog, backend: str) -> tuple:
    """(got arrays, want arrays) for one launch on `backend`."""
    (x, z), keep = make_args(prog)
    want_keep = tuple(a.copy() for a in keep)
    if prog.alias == "none":
        wx, wz = want_keep
    elif prog.alias == "same":
        wx = wz = want_keep[0][:x.size]
    else:
        wx, wz = want_keep[0][:x.size], want_keep[0][8 * T:8 * T + z.size]
    reference(prog, (wx, wz))
    k = asc.jit(build_kernel(prog), backend=backend)
    k[prog.cores](x, z, *prog.params, prog.bits)
    return keep, want_keep
