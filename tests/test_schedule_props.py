"""Property tests of the scheduler against the race checker.

Random programs of copies and vector ops over random (sometimes overlapping) UB buffers, with and
without a loop, written with no flags at all:
- the auto-synced schedule is race-free by the checker and computes what `eager` computes.
The generator is shared by the backend differential tests; the deletion property, on structured
programs with every loop shape and branch, is in test_schedule_fuzz.py.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asc_trace as asc
from asc_trace.runtime.args import bind_args
from asc_trace.runtime.base import LaunchJob
from asc_trace.runtime.sim import SimArtifact, SimRuntime
from helpers import rand

L = 64           # elements per buffer (256 B of float32)
SLOT = 256       # bytes between candidate buffer addresses: buffers may overlap by half


@dataclass(frozen=True)
class Prog:
    dtype: str
    addrs: tuple[int, ...]
    pre: tuple
    body: tuple
    post: tuple
    trip: int


def ops(nbuf: int):
    b = st.integers(0, nbuf - 1)
    return st.one_of(
        st.tuples(st.just("in"), b, st.integers(0, 3)),
        st.tuples(st.just("out"), b, st.integers(0, 2)),
        st.tuples(st.just("bin"), st.sampled_from(["add", "sub", "mul", "max", "min"]), b, b, b),
        st.tuples(st.just("sca"), st.sampled_from(["adds", "muls"]), b, b, st.sampled_from([0.5, 2.0, -1.0])),
        st.tuples(st.just("una"), st.sampled_from(["abs", "relu"]), b, b),
        st.tuples(st.just("dup"), b, st.sampled_from([1.0, 3.0])),
    )


@st.composite
def programs(draw):
    nbuf = draw(st.integers(2, 4))
    addrs = tuple(draw(st.lists(st.integers(0, 7), min_size=nbuf, max_size=nbuf)))
    looped = draw(st.booleans())
    pre = tuple(draw(st.lists(ops(nbuf), min_size=0 if looped else 2, max_size=4)))
    body = tuple(draw(st.lists(ops(nbuf), min_size=2, max_size=6))) if looped else ()
    post = tuple(draw(st.lists(ops(nbuf), min_size=0, max_size=3)))
    return Prog(draw(st.sampled_from(["float32", "float16"])), tuple(a * SLOT for a in addrs), pre, body, post,
                draw(st.integers(3, 5)) if looped else 0)


def _emit(steps, bufs, xg, zg, it, zbase):
    for s in steps:
        kind = s[0]
        if kind == "in":
            asc.data_copy(bufs[s[1]], xg[(it * 4 + s[2]) * L:], L)
        elif kind == "out":
            asc.data_copy(zg[zbase + (it * 3 + s[2]) * L:], bufs[s[1]], L)
        elif kind == "bin":
            getattr(asc, s[1])(bufs[s[2]], bufs[s[3]], bufs[s[4]], L)
        elif kind == "sca":
            getattr(asc, s[1])(bufs[s[2]], bufs[s[3]], s[4], L)
        elif kind == "una":
            getattr(asc, s[1])(bufs[s[2]], bufs[s[3]], L)
        else:
            asc.duplicate(bufs[s[1]], s[2], L)


def make_kernel(prog: Prog):
    dt = getattr(asc, prog.dtype)

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z)
        bufs = [asc.LocalTensor(dt, asc.TPosition.VECCALC, a, L) for a in prog.addrs]
        _emit(prog.pre, bufs, xg, zg, 0, 0)
        for i in range(prog.trip):
            _emit(prog.body, bufs, xg, zg, i, 3 * L)
        _emit(prog.post, bufs, xg, zg, 0, 3 * L * (prog.trip + 2))
    return k


def _data(prog: Prog):
    dt = np.dtype(prog.dtype)
    x = rand(L * (4 * prog.trip + 8), dt, 5)
    z = np.zeros(3 * L * (prog.trip + 4), dt)
    return x, z


def _run_graph(k, graph, x, z):
    bound = bind_args(k.name, k.specs, (x, z), {}, None)
    SimRuntime().launch(SimArtifact(graph), LaunchJob(k.name, k.fn, graph, bound, 1, None, None, k.options))


@settings(max_examples=180, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prog=programs())
def test_auto_sync_is_race_free_and_matches_eager(prog):
    k = make_kernel(prog)
    x, z_sim = _data(prog)
    z_eager = z_sim.copy()
    k[1](x, z_sim)                                    # sim, race checker on: must not raise
    asc.jit(k, backend="eager")[1](x, z_eager)
    np.testing.assert_array_equal(z_sim, z_eager)
