"""Property tests of the scheduler on structured programs, written with no flags at all.

Programs: statements in sequence, loops nested up to three deep whose bounds are constants or runtime
arguments (drawn 0, 1 or more trips, with runtime starts), static LocalTensors that may overlap, or a
TQue / TBuf; sometimes more than 8 tiles loaded before their first use. Properties:
- the auto-synced program is race-free (the simulator's checker) and equals `eager`, byte for byte;
- deleting any one inserted synchronisation is either reported by the checker on the run, or provably
  redundant: the analysis, under every profile, finds nothing left to order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asc_trace as asc
from asc_trace.graph.analysis import abstract_trace, find_needs, profiles
from asc_trace.runtime.args import bind_args
from asc_trace.runtime.base import LaunchJob
from asc_trace.runtime.sim import SimArtifact, SimRuntime
from helpers import rand

L = 32            # elements per buffer (128 B of float32)
SLOT = 128        # bytes between candidate addresses: buffers may overlap when two share a slot
MAX_TRIP = 3
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@dataclass(frozen=True)
class Loop:
    start: int            # a runtime argument's index (s0..s2) when `runtime`, else a constant
    trip: int
    runtime: bool
    body: tuple


def op(nbuf: int):
    b = st.integers(0, nbuf - 1)
    return st.one_of(
        st.tuples(st.just("in"), b),
        st.tuples(st.just("out"), b),
        st.tuples(st.just("bin"), st.sampled_from(["add", "mul", "max"]), b, b, b),
        st.tuples(st.just("sca"), st.sampled_from(["adds", "muls"]), b, b, st.sampled_from([0.5, -1.0])),
        st.tuples(st.just("dup"), b, st.sampled_from([1.0, 3.0])),
    )


def block(nbuf: int, depth: int):
    stmt = op(nbuf)
    if depth < 3:
        stmt = st.one_of(stmt, stmt, loop(nbuf, depth + 1))
    return st.lists(stmt, min_size=1, max_size=4).map(tuple)


@st.composite
def loop(draw, nbuf: int, depth: int):
    return Loop(draw(st.integers(0, 2)), draw(st.sampled_from([0, 1, 2, 3])), draw(st.booleans()),
                draw(block(nbuf, depth)))


@dataclass(frozen=True)
class Prog:
    addrs: tuple[int, ...]
    body: tuple
    many: int             # tiles loaded before their first use (0 = none)


@st.composite
def programs(draw):
    nbuf = draw(st.integers(2, 4))
    addrs = tuple(draw(st.lists(st.integers(0, 5), min_size=nbuf, max_size=nbuf)))
    return Prog(tuple(a * SLOT for a in addrs), draw(block(nbuf, 0)), draw(st.sampled_from([0, 0, 10])))


def make_kernel(prog: Prog):
    counter = iter(range(10_000))
    out_slots: dict[int, int] = {}

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, s0: int, s1: int, s2: int, t0: int, t1: int, t2: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        bufs = [asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, a, L) for a in prog.addrs]
        starts, trips = (s0, s1, s2), (t0, t1, t2)
        if prog.many:
            far = 6 * SLOT
            tiles = [asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, far + i * SLOT, L) for i in range(prog.many)]
            for i, t in enumerate(tiles):
                asc.data_copy(t, xg[i * L:], L)
            for t in tiles:
                asc.add(bufs[0], bufs[0], t, L)
        emit(prog.body, bufs, xg, zg, 0, starts, trips, counter, out_slots)
    return k


def emit(items, bufs, xg, zg, flat, starts, trips, counter, out_slots) -> None:
    """`flat` numbers the iteration of the enclosing loop nest (0 outside loops), for GM offsets."""
    for s in items:
        if isinstance(s, Loop):
            lo, n = (starts[s.start], trips[s.start]) if s.runtime else (s.start, s.trip)
            for i in asc.range(lo, lo + n):
                emit(s.body, bufs, xg, zg, flat * (MAX_TRIP + 1) + (i - lo) + 1, starts, trips, counter, out_slots)
            continue
        kind = s[0]
        if kind == "in":
            asc.data_copy(bufs[s[1]], xg[(flat % 64) * L:], L)
        elif kind == "out":
            slot = out_slots.setdefault(id(s), next(counter))
            asc.data_copy(zg[(slot * 128 + flat % 128) * L:], bufs[s[1]], L)
        elif kind == "bin":
            getattr(asc, s[1])(bufs[s[2]], bufs[s[3]], bufs[s[4]], L)
        elif kind == "sca":
            getattr(asc, s[1])(bufs[s[2]], bufs[s[3]], s[4], L)
        else:
            asc.duplicate(bufs[s[1]], s[2], L)


def _args(prog: Prog, trips: tuple[int, int, int]):
    x = rand(L * 80, np.float32, 5)
    z = np.zeros(L * 128 * 40, np.float32)
    return x, z, 0, 1, 2, *trips


def _run_graph(k, graph, args):
    bound = bind_args(k.name, k.specs, args, {}, None)
    SimRuntime().launch(SimArtifact(graph), LaunchJob(k.name, k.fn, graph, bound, 1, None, None, k.options))


@st.composite
def cases(draw):
    return draw(programs()), draw(st.tuples(*[st.integers(0, MAX_TRIP)] * 3))


@SETTINGS
@given(case=cases())
def test_auto_sync_is_race_free_and_matches_eager(case):
    prog, trips = case
    k = make_kernel(prog)
    x, z_sim, *rest = _args(prog, trips)
    z_eager = z_sim.copy()
    k[1](x, z_sim, *rest)                                  # sim, race checker on: must not raise
    asc.jit(k, backend="eager")[1](x, z_eager, *rest)
    np.testing.assert_array_equal(z_sim, z_eager)


def _left(graph) -> list:
    return [n for p in profiles(graph) for n in find_needs(abstract_trace(graph, p))]


@settings(SETTINGS, max_examples=25)
@given(case=cases())
def test_deleting_any_sync_is_caught_or_redundant(case):
    prog, trips = case
    k = make_kernel(prog)
    args = _args(prog, trips)
    g = asc.compile(k, args).graph
    groups = sorted({n.attr("sync") for n in g if n.attr("auto") and n.op != "pipe_barrier"})
    for grp in groups:
        trial = g.copy()
        trial.set_order([nid for nid in g.order if g.node(nid).attr("sync") != grp or not g.node(nid).attr("auto")])
        caught = False
        for t in {trips, (1, 1, 1), (2, 3, 2)}:
            x, z, *rest = _args(prog, t)
            try:
                _run_graph(k, trial, (x, z, *rest))
            except (asc.RaceError, asc.SyncError):
                caught = True
                break
        if not caught:
            assert not _left(trial), f"sync group {grp} was neither caught nor redundant:\n{trial}"
