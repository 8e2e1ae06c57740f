"""The TPipe's event-id pool (issue 21, i21f): `asc.get_tpipe_ptr()`, `alloc_event_id`, `release_event_id`,
`fetch_event_id`. An id the kernel reserves is its own from the reservation to its release: the scheduler's
inserted flags of that event take other ids there; hand-written flags on reserved ids run on every backend;
misuse is an asc_trace error at the user's line, the same class on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import SyncError, TraceError
from helpers import assert_points_at, every_backend

EV = asc.HardEvent
N = 1024


def _gm(x, z, n):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    return xg, zg


@asc.jit
def reserved_across_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, hold: asc.ConstExpr[int]):
    """A flag-free loop; with `hold`, MTE2_V ids 0 and 1 are the kernel's around it."""
    pipe = asc.TPipe()
    xg, zg = _gm(x, z, n)
    ids = [asc.get_tpipe_ptr().alloc_event_id(EV.MTE2_V), pipe.alloc_event_id(event=EV.MTE2_V)] if hold else []
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 256)
    for i in range(n // 256):
        asc.data_copy(a, xg[i * 256:], 256)
        asc.adds(b, a, 1.0, 256)
        asc.data_copy(zg[i * 256:], b, 256)
    for e in ids:
        pipe.release_event_id(e, EV.MTE2_V)


def _auto_ids(g, event):
    return {n.args[1].value for n in g if n.op in ("set_flag", "wait_flag") and n.attr("auto") and n.args[0] == event}


def test_the_scheduler_avoids_reserved_ids():
    x = np.arange(N, dtype=np.float32)
    free = asc.compile(reserved_across_loop, (x, np.zeros_like(x), N, 0)).graph
    held = asc.compile(reserved_across_loop, (x, np.zeros_like(x), N, 1)).graph
    assert _auto_ids(free, EV.MTE2_V) & {0, 1}          # without the reservation the scheduler takes the low ids
    assert _auto_ids(held, EV.MTE2_V) and not _auto_ids(held, EV.MTE2_V) & {0, 1}


@asc.jit
def reserve_after(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """The loop's flags run before the reservation: id 0 stays the scheduler's there."""
    pipe = asc.TPipe()
    xg, zg = _gm(x, z, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 256)
    for i in range(n // 256):
        asc.data_copy(a, xg[i * 256:], 256)
        asc.adds(b, a, 1.0, 256)
        asc.data_copy(zg[i * 256:], b, 256)
    e = pipe.alloc_event_id(EV.MTE2_V)
    pipe.release_event_id(e, EV.MTE2_V)


def test_an_id_is_held_only_from_its_reservation():
    x = np.arange(N, dtype=np.float32)
    assert 0 in _auto_ids(asc.compile(reserve_after, (x, np.zeros_like(x), N)).graph, EV.MTE2_V)


@asc.jit
def hand_synced(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """pyasc's documented use: reserve ids, synchronise by hand with them, release them."""
    pipe = asc.TPipe()
    xg, zg = _gm(x, z, n)
    e_in = asc.get_tpipe_ptr().alloc_event_id(EV.MTE2_V)
    e_out = asc.get_tpipe_ptr().alloc_event_id(EV.V_MTE3)
    e_back = pipe.alloc_event_id(EV.MTE3_MTE2)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 256)
    for i in range(n // 256):
        asc.data_copy(a, xg[i * 256:], 256)
        asc.set_flag(EV.MTE2_V, e_in)
        asc.wait_flag(EV.MTE2_V, e_in)
        asc.muls(b, a, 2.0, 256)
        asc.set_flag(EV.V_MTE3, e_out)
        asc.wait_flag(EV.V_MTE3, e_out)
        asc.data_copy(zg[i * 256:], b, 256)
        asc.set_flag(EV.MTE3_MTE2, e_back)
        asc.wait_flag(EV.MTE3_MTE2, e_back)
    pipe.release_event_id(e_in, EV.MTE2_V)
    pipe.release_event_id(e_out, EV.V_MTE3)
    pipe.release_event_id(e_back, EV.MTE3_MTE2)


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("auto", [True, False])
def test_hand_synchronised_on_reserved_ids_runs_everywhere(backend, auto):
    x = np.random.default_rng(1).standard_normal(N).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(hand_synced, backend=backend, auto_sync=auto)[1](x, z, N)
    np.testing.assert_array_equal(z, x * 2)


def test_fetch_returns_the_first_unreserved_id():
    # the kernel writes the ids into z (a list outside the kernel that it appends to is refused)
    @asc.jit
    def k(z: asc.GlobalAddress):
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z, 4)
        pipe = asc.TPipe()
        zg.set_value(0, pipe.fetch_event_id(EV.V_S))
        e = asc.get_tpipe_ptr().alloc_event_id()           # pyasc's default event: V_S
        zg.set_value(1, e)
        zg.set_value(2, asc.get_tpipe_ptr().fetch_event_id(event=EV.V_S))
        pipe.release_event_id(id=e)
        zg.set_value(3, pipe.fetch_event_id(EV.V_S))
    z = np.full(4, -1, np.int32)
    k[1](z)
    assert list(z) == [0, 0, 1, 0]


@asc.jit
def release_twice():
    pipe = asc.TPipe()
    e = pipe.alloc_event_id(EV.V_S)
    pipe.release_event_id(e, EV.V_S)
    pipe.release_event_id(e, EV.V_S)  # twice


@asc.jit
def nine_ids():
    pipe = asc.TPipe()
    for _ in asc.static_range(9):
        pipe.alloc_event_id(EV.S_V)  # ninth


@asc.jit
def in_a_loop(n: int):
    pipe = asc.TPipe()
    for i in range(n):
        pipe.alloc_event_id(EV.S_V)  # in loop


@asc.jit
def no_pipe():
    asc.get_tpipe_ptr()  # no pipe


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("kernel, args, cls, marker", [
    (release_twice, (), SyncError, "twice"), (nine_ids, (), SyncError, "ninth"),
    (in_a_loop, (3,), TraceError, "in loop"), (no_pipe, (), TraceError, "no pipe")])
def test_misuse_is_an_error_at_the_users_line(backend, kernel, args, cls, marker):
    with pytest.raises(cls) as ei:
        asc.jit(kernel, backend=backend)[1](*args)
    assert_points_at(ei.value, marker)
