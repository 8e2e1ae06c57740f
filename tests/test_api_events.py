"""Event ids the API takes itself (issue 19, defect 3). On A2, ReduceSum/Max/Min synchronise the scalar
unit with V inside the call (V_S, then S_V and S_MTE3), each on `FetchEventID`'s id: the first the
kernel's TPipe has not reserved, 0 for the TPipe the lowering adds. The pipe model (graph/hb.py) issues
those sets and waits after the call, so the scheduler keeps id 0 of those events for the API and orders
by them, and sim, eager and cpp report a kernel's own flag that clashes with them as cpu_debug does."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.graph.hb import API_EVENT_ID, api_events
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at

EV = asc.HardEvent
ROWS, COLS, CORES = 4, 256, 2
CPU_DEBUG = ["cpu_debug"] if headers_if_configured() is not None else []


def _tensors(x, z, rows):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * rows * COLS, rows * COLS)
    zg.set_global_buffer(z + asc.get_block_idx() * rows * 8, rows * 8)
    row = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, COLS)
    tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, COLS * 4, COLS)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, COLS * 8, 8)
    acc2 = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, COLS * 8 + 64, 8)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, COLS * 8 + 128, 8)
    return xg, zg, row, tmp, acc, acc2, out


@asc.jit
def row_stats(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int):
    """The issue's kernel: a plain loop, reduce_sum -> get_value -> reduce_max -> get_value per row."""
    xg, zg, row, tmp, acc, acc2, out = _tensors(x, z, rows)
    for r in range(rows):
        asc.data_copy(row, xg[r * COLS:], COLS)
        asc.reduce_sum(acc, row, tmp, COLS)
        s = acc.get_value(0)
        asc.reduce_max(acc2, row, tmp, COLS)
        m = acc2.get_value(0)
        asc.duplicate(out, s + m, 8)
        asc.data_copy(zg[r * 8:], out, 8)


def _data():
    x = np.random.default_rng(0).standard_normal((CORES * ROWS, COLS)).astype(np.float32)
    return x, np.zeros((CORES * ROWS, 8), np.float32)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp", *CPU_DEBUG])
def test_the_issues_kernel_runs_on_every_backend(backend):
    x, z = _data()
    asc.jit(row_stats, backend=backend)[CORES](x, z, ROWS)
    np.testing.assert_allclose(z, np.repeat((x.sum(1) + x.max(1))[:, None], 8, 1), rtol=1e-5)


def test_the_scheduler_leaves_the_apis_ids_alone():
    x, z = _data()
    g = asc.compile(row_stats, (x, z, ROWS), core_num=CORES).graph
    taken = {ev for n in g for ev in api_events(n)}
    assert taken == {EV.V_S, EV.S_V, EV.S_MTE3}
    flags = [(n.args[0], n.args[1]) for n in g if n.op in ("set_flag", "wait_flag")]
    assert flags and not [f for f in flags if f[0] in taken and getattr(f[1], "value", None) == API_EVENT_ID]
    # the calls' own V -> S handshake orders the scalar reads after them: no flag of the kernel's is needed
    assert not [f for f in flags if f[0] in taken]


@asc.jit(auto_sync=False)
def hand_synced(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, own_id: asc.ConstExpr[int]):
    """The schedule the scheduler used to make, written by hand: its S_V flag (guarding acc's next write
    against this row's read) stays set across ReduceMax, which sets S_V itself."""
    xg, zg, row, tmp, acc, acc2, out = _tensors(x, z, rows)
    asc.set_flag(EV.S_V, own_id)
    asc.set_flag(EV.MTE3_V, 0)
    for r in range(rows):
        asc.data_copy(row, xg[r * COLS:], COLS)
        asc.set_flag(EV.MTE2_V, 0)
        asc.wait_flag(EV.MTE2_V, 0)
        asc.wait_flag(EV.S_V, own_id)
        asc.reduce_sum(acc, row, tmp, COLS)
        s = acc.get_value(0)
        asc.set_flag(EV.S_V, own_id)
        asc.reduce_max(acc2, row, tmp, COLS)  # MARK-api-clash
        m = acc2.get_value(0)
        asc.wait_flag(EV.MTE3_V, 0)
        asc.duplicate(out, s + m, 8)
        asc.set_flag(EV.V_MTE3, 0)
        asc.wait_flag(EV.V_MTE3, 0)
        asc.data_copy(zg[r * 8:], out, 8)
        asc.set_flag(EV.MTE3_V, 0)
    asc.wait_flag(EV.S_V, own_id)
    asc.wait_flag(EV.MTE3_V, 0)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp", *CPU_DEBUG])
def test_a_flag_clashing_with_the_apis_id_is_a_double_set_everywhere(backend):
    x, z = _data()
    with pytest.raises(asc.SyncError, match="S_V|pipe 0 -> pipe 1") as ei:   # (cpu_debug names pipes)
        asc.jit(hand_synced, backend=backend)[CORES](x, z, ROWS, API_EVENT_ID)
    assert_points_at(ei.value, "MARK-api-clash")
    assert not z.any()                                     # a refused launch writes nothing
    asc.jit(hand_synced, backend=backend)[CORES](x, z, ROWS, 1)     # another id: fine
    np.testing.assert_allclose(z[:, 0], x.sum(1) + x.max(1), rtol=1e-5)


def test_the_clash_says_the_api_made_the_set():
    x, z = _data()
    with pytest.raises(asc.SyncError) as ei:
        asc.jit(hand_synced, backend="sim")[CORES](x, z, ROWS, API_EVENT_ID)
    assert "made inside ReduceMax" in str(ei.value) and "HardEvent.S_V id 0" in str(ei.value)


@asc.jit(auto_sync=False)
def with_own_pipe(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, ids: asc.ConstExpr[int]):
    """With the kernel's own TPipe its flags' ids are reserved from it, so the API takes another: S_V 0
    held across ReduceMax is fine; but flags that take all 8 ids leave the call none."""
    asc.TPipe()
    xg, zg, row, tmp, acc, acc2, out = _tensors(x, z, rows)
    for i in asc.static_range(ids):
        asc.set_flag(EV.S_V, i)
    asc.data_copy(row, xg, COLS)
    asc.set_flag(EV.MTE2_V, 0)
    asc.wait_flag(EV.MTE2_V, 0)
    asc.reduce_max(acc2, row, tmp, COLS)  # MARK-api-full
    for i in asc.static_range(ids):
        asc.wait_flag(EV.S_V, i)
    asc.duplicate(out, acc2.get_value(0), 8)
    asc.set_flag(EV.V_MTE3, 0)
    asc.wait_flag(EV.V_MTE3, 0)
    asc.data_copy(zg, out, 8)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp", *CPU_DEBUG])
def test_with_its_own_tpipe_the_kernels_ids_are_reserved(backend):
    x, z = _data()
    asc.jit(with_own_pipe, backend=backend)[CORES](x, z, 1, 7)
    np.testing.assert_allclose(z[:CORES, 0], x[:CORES].max(1), rtol=1e-6)
    with pytest.raises(asc.SyncError, match="all 8 ids of HardEvent.S_V") as ei:
        asc.jit(with_own_pipe, backend=backend)[CORES](x, np.zeros_like(z), 1, 8)
    assert_points_at(ei.value, "MARK-api-full")
