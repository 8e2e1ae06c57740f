"""A loop whose iterations are independent, on a tape as one run over a stacked axis: its iterations
become cores.

A recorded run (runtime/tape.py) first runs such a loop iteration by iteration, as program order does,
watching what each iteration touches (`Rows`). The iterations are independent when

- every UB byte an iteration reads before writing it is written by no iteration (renaming: a buffer the
  loop reuses is written before it is read in each iteration), and
- on every GM argument the loop writes, the elements each iteration touches on a core are disjoint from
  those of every other iteration on that core (across cores the race checker already rules).

Then the body runs once more, on a machine whose cores are the loop's (core, iteration) pairs, core
after core, and with its own small UB: every operand that depended on the loop index is a per-core
value there, the inner loops batch as usual over the stacked cores, and the run is recorded as the
loop's tape. That run works on copies of the arguments as they were before the loop; it must leave the
bytes the iteration-by-iteration run left, in the arguments and in the UB, or the loop stays on the tape
iteration by iteration. A replay then copies the bytes the loop reads but no iteration writes into each
iteration's UB, runs the stacked tape, and copies the last iteration's UB back.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from ..graph.ops import REGISTRY
from .interpreter import LoopStep, NodeStep
from .machine import GmRoot, Machine, NullJournal
from .tape import _UB_ONLY, TapeBuilder

MAX_ROWS = 4096                 # iterations watched at most
MAX_STACKED_BYTES = 64 << 20    # the stacked machine's UB at most


def body_fits(steps: list) -> bool:
    """Whether a loop body holds only what a stacked run can do: tensor definitions, copies between GM
    and the UB by count, UB-only ops, sync, and loops of the same."""
    for it in steps:
        if isinstance(it, LoopStep):
            if not body_fits(it.body):
                return False
            continue
        if not isinstance(it, NodeStep):
            return False            # asc.cond / asc.while_loop: their branches may differ by iteration
        n = it.node
        fam = REGISTRY[n.op].family
        if fam == "framework":
            if n.op != "local_tensor" and n.op != "global_tensor":
                return False        # queues and buffers hand out a different buffer per iteration
        elif fam == "data_copy":
            if n.attr("form") == "params":
                return False
        elif fam not in _UB_ONLY and fam != "sync":
            return False
    return True


class Rows:
    """What each iteration of a watched loop touches (the tape's probe while it runs)."""

    def __init__(self, C: int) -> None:
        self.C = C
        self.before = np.zeros(config.UB_BYTES, bool)    # written by an earlier iteration
        self.live = np.zeros(config.UB_BYTES, bool)      # read before written, in some iteration
        self.carried = False
        self.gm_rows: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        self.gm_written: set[int] = set()

    def start(self) -> None:
        self.w = np.zeros(config.UB_BYTES, bool)
        self.r = np.zeros(config.UB_BYTES, bool)
        self.cur: dict[int, list[np.ndarray]] = {}

    def ub(self, lo: int, hi: int, write: bool) -> None:
        if write:
            self.w[lo:hi] = True
        else:
            self.r[lo:hi] |= ~self.w[lo:hi]

    def gm(self, param: int, lo: Any, hi: Any, write: bool) -> None:
        lo = np.broadcast_to(np.asarray(lo, dtype=np.int64), (self.C,))
        hi = np.broadcast_to(np.asarray(hi, dtype=np.int64), (self.C,))
        e = self.cur.get(param)
        if e is None:
            self.cur[param] = [lo.copy(), hi.copy()]
        else:
            np.minimum(e[0], lo, out=e[0])
            np.maximum(e[1], hi, out=e[1])
        if write:
            self.gm_written.add(param)

    def end(self) -> None:
        if (self.r & self.before).any():
            self.carried = True            # reads what an earlier iteration wrote
        self.before |= self.w
        self.live |= self.r
        for p, (lo, hi) in self.cur.items():
            self.gm_rows.setdefault(p, []).append((lo, hi))

    def independent(self) -> bool:
        if self.carried or (self.live & self.before).any():     # or what a later one writes
            return False
        for p in self.gm_written:
            lo = np.stack([r[0] for r in self.gm_rows[p]])      # (iterations, cores)
            hi = np.stack([r[1] for r in self.gm_rows[p]])
            order = np.argsort(lo, axis=0, kind="stable")
            lo_s, hi_s = np.take_along_axis(lo, order, axis=0), np.take_along_axis(hi, order, axis=0)
            if np.any(hi_s[:-1] > lo_s[1:]):
                return False
        return True


def _ranges(mask: np.ndarray) -> list[tuple[int, int]]:
    """The runs of True in a byte mask, as [lo, hi) pairs."""
    d = np.diff(np.concatenate(([0], mask.view(np.int8), [0])))
    return list(zip(np.flatnonzero(d == 1).tolist(), np.flatnonzero(d == -1).tolist()))


def _stack(v: Any, C: int, T: int) -> Any:
    """A per-core value as a value per (core, iteration) pair, core after core."""
    if isinstance(v, np.ndarray) and v.shape == (C,):
        return np.repeat(v, T)
    return v


def _stack_root(r: Any, C: int, T: int) -> Any:
    if isinstance(r, GmRoot) and isinstance(r.start, np.ndarray):
        w = np.repeat(r.window, T) if isinstance(r.window, np.ndarray) else r.window
        return GmRoot.make(r.param, np.repeat(r.start, T), w, r.name)
    return r


def run_loop(interp: Any, st: LoopStep, m: Machine) -> bool:
    """Run loop `st` for a recording interpreter, iteration by iteration, and put it on the tape over a
    stacked axis when its iterations are independent; False when it is not one to try (nothing ran)."""
    tape: TapeBuilder = interp.tape
    if not tape.ok or not body_fits(st.body):
        return False
    env = m.env
    start = m.uniform_int(st.start(env), st.node, "the loop start")
    stop = m.uniform_int(st.stop(env), st.node, "the loop bound")
    step = m.uniform_int(st.step(env), st.node, "the loop step")
    values = np.arange(start, stop, step, dtype=np.int64) if step else np.zeros(0, np.int64)
    if not 2 <= len(values) <= MAX_ROWS:
        return False
    pre_env, pre_roots = dict(env), dict(m.roots)
    gm_before = [None if a is None else a.copy() for a in m.gm]
    pos, counts = len(tape.entries), len(tape.loop_counts)
    rows = Rows(m.C)
    try:
        for v in values.tolist():
            env[st.key] = v
            rows.start()
            tape.probe = rows
            interp.run_block(st.body, m)
            tape.probe = None
            rows.end()
    finally:
        tape.probe = None
    if tape.ok and rows.independent():
        region = _stacked(interp, st, m, values, pre_env, pre_roots, gm_before, rows)
        if region is not None:
            entries, enter_reads, cell = region
            tape.truncate(pos, counts)
            tape.add_region(entries, enter_reads, cell)
            tape.rows.append(len(values))
    return True


def _stacked(interp: Any, st: LoopStep, m: Machine, values: np.ndarray, pre_env: dict, pre_roots: dict,
             gm_before: list, rows: Rows) -> tuple[list, bool, list] | None:
    """The loop's tape over a stacked axis, checked against the iteration-by-iteration run; None when
    it cannot be made or does not give the same bytes."""
    C, T = m.C, len(values)
    hi = -(-max(m.ub_hi, 32) // 32) * 32
    if C * T * hi > MAX_STACKED_BYTES:
        return None
    venv = {k: _stack(v, C, T) for k, v in pre_env.items()}
    venv[st.key] = np.tile(values, C)
    gm = [None if a is None else a.copy() for a in gm_before]
    vm = Machine(np.repeat(m.cores, T), m.core_num, gm, venv, NullJournal(), ub_bytes=hi)
    vm.roots = {k: _stack_root(r, C, T) for k, r in pre_roots.items()}
    live = _ranges(rows.live[:hi])
    wrote = _ranges(rows.before[:hi])
    for lo, up in live:
        vm.ub[:, lo:up] = np.repeat(m.ub[:, lo:up], T, axis=0)
    vb = TapeBuilder(vm, interp)
    saved = interp.tape
    interp.tape = vb
    try:
        with np.errstate(all="ignore"):
            interp.run_block(st.body, vm)
    except Exception:       # an operand that differs between iterations where it must not: not stacked
        return None
    finally:
        interp.tape = saved
    if not vb.ok or any(m.out) or any(vm.out):
        return None
    # the same bytes as the iteration-by-iteration run, or the loop stays on the tape as it ran
    for p in rows.gm_written:
        if not np.array_equal(gm[p].view(np.uint8), m.gm[p].view(np.uint8)):
            return None
    last = vm.ub[T - 1::T]
    for lo, up in wrote:
        if not np.array_equal(last[:, lo:up], m.ub[:, lo:up]):
            return None
    vb.finish(tail_reads=True)
    vm.keep = True
    data = interp.data_keys
    refresh = [k for k in pre_env if k in data]           # values read before the loop, used in it
    out = [k for k in vm.env if k in data and k not in pre_env]   # read in it: the last iteration's
    cell = [True]

    def enter(arrays: list) -> None:
        for lo, up in live:
            vm.ub[:, lo:up] = np.repeat(m.ub[:, lo:up], T, axis=0)
        for k in refresh:
            vm.env[k] = _stack(m.env[k], C, T)

    def leave(arrays: list) -> None:
        if cell[0]:
            for lo, up in wrote:
                m.ub[:, lo:up] = vm.ub[T - 1::T, lo:up]
        for k in out:
            v = vm.env[k][T - 1::T]
            m.env[k] = v if C > 1 else v[0].item()
    return [enter, *vb.entries, leave], bool(live), cell
