"""The scheduler on the kernels users write: nested and per-core loops, many live tiles, the dataflow
graph it leaves in `ck.graph.nx` (issue: every loop nest schedules, ids are reused, the graph is real)."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import asc_trace as asc
from helpers import rand

T = 64


def rows_kernel(tile: int):
    """rows x tiles of `tile` floats per core: copy -> muls -> copy, two nested runtime loops, no flags."""
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, tiles: int):
        n = rows * tiles * tile
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + asc.get_block_idx() * n, n)
        zg.set_global_buffer(z + asc.get_block_idx() * n, n)
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, tile)
        b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * tile, tile)
        for r in range(rows):
            for t in range(tiles):
                o = (r * tiles + t) * tile
                asc.data_copy(a, xg[o:], tile)
                asc.muls(b, a, 2.0, tile)
                asc.data_copy(zg[o:], b, tile)
    return k


rows_of_tiles = rows_kernel(T)


@asc.jit
def row_sums(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, tiles: int):
    """Accumulate over the tiles of a row, then store the row's sum: an accumulator and a row buffer."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, rows * tiles * T)
    zg.set_global_buffer(z, rows * T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * T, T)
    for r in range(rows):
        asc.duplicate(acc, 0.0, T)
        for t in range(tiles):
            asc.data_copy(a, xg[(r * tiles + t) * T:], T)
            asc.add(acc, acc, a, T)
        asc.data_copy(zg[r * T:], acc, T)


def many_tiles(n: int):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, n * T)
        zg.set_global_buffer(z, T)
        tiles = [asc.LocalTensor(asc.float32, asc.TPosition.VECIN, i * 4 * T, T) for i in range(n)]
        acc = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, n * 4 * T, T)
        for i, t in enumerate(tiles):
            asc.data_copy(t, xg[i * T:], T)
        asc.add(acc, tiles[0], tiles[1], T)
        for t in tiles[2:]:
            asc.add(acc, acc, t, T)
        asc.data_copy(zg, acc, T)
    return k


BACKENDS = ["sim", "eager"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows,tiles", [(3, 4), (1, 1), (2, 0), (0, 3), (4, 5)])
def test_nested_runtime_loops(backend, rows, tiles):
    x = rand(max(1, rows * tiles) * T, np.float32)
    z = np.zeros_like(x)
    asc.jit(rows_of_tiles, backend=backend)[1](x, z, rows, tiles)
    ref = np.zeros_like(x)
    ref[:rows * tiles * T] = x[:rows * tiles * T] * np.float32(2)
    np.testing.assert_array_equal(z, ref)


@pytest.mark.parametrize("multi_buffer", ["auto", "off"])
def test_nested_loops_with_and_without_multi_buffer(multi_buffer):
    x = rand(3 * 4 * T, np.float32)
    z = np.zeros_like(x)
    asc.jit(rows_of_tiles, multi_buffer=multi_buffer)[1](x, z, 3, 4)
    np.testing.assert_array_equal(z, x * np.float32(2))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows,tiles", [(3, 4), (2, 1), (1, 0)])
def test_accumulate_over_tiles_per_row(backend, rows, tiles):
    x = rand(max(1, rows * tiles) * T, np.float32)
    z = np.full(rows * T, 7.0, np.float32)
    asc.jit(row_sums, backend=backend)[1](x, z, rows, tiles)
    ref = np.zeros((rows, T), np.float32)
    for r in range(rows):
        for t in range(tiles):
            ref[r] += x[(r * tiles + t) * T:(r * tiles + t + 1) * T]
    np.testing.assert_array_equal(z, ref.ravel())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("per_core", [0, 1, 5])
def test_loop_with_a_runtime_start(backend, per_core):
    import tile_range           # examples/tile_range.py: core b takes tiles [b * per_core, (b + 1) * per_core)
    got, want = tile_range.run(backend, cores=4, per_core=per_core)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [9, 12, 20])
def test_event_ids_are_reused(n):
    k = many_tiles(n)
    x = rand(n * T, np.float32)
    z = np.zeros(T, np.float32)
    k[1](x, z)
    np.testing.assert_allclose(z, x.reshape(n, T).sum(0, dtype=np.float32), rtol=1e-5)
    g = asc.compile(k, (x, z)).graph
    ids = {n.args[1].value for n in g if n.op == "set_flag" and n.args[0] == asc.HardEvent.MTE2_V}
    assert ids <= set(range(8))


def test_a_kernel_that_truly_needs_more_ids_gets_a_pipe_all_naming_its_tensors():
    """The kernel's own flags hold all 8 MTE2_V ids across the copies, so none is left for auto_sync:
    the pair falls back to a PIPE_ALL barrier whose line names the tensors, and the kernel runs."""
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, 2 * T)
        zg.set_global_buffer(z, T)
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
        b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4 * T, T)
        c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 8 * T, T)
        for i in asc.static_range(8):
            asc.set_flag(asc.HardEvent.MTE2_V, i)
        asc.data_copy(a, xg, T)
        asc.data_copy(b, xg[T:], T)
        asc.add(c, a, b, T)
        for i in asc.static_range(8):
            asc.wait_flag(asc.HardEvent.MTE2_V, i)
        asc.data_copy(zg, c, T)
    x = rand(2 * T, np.float32)
    z = np.zeros(T, np.float32)
    g = asc.compile(k, (x, z)).graph
    why = [n.attr("why") for n in g if n.op == "pipe_barrier" and n.attr("auto")]
    assert any("more than the 8 ids of HardEvent.MTE2_V" in w and "guarding the tensors %" in w for w in why), str(g)
    k[1](x, z)
    np.testing.assert_array_equal(z, x[:T] + x[T:])


def test_nested_kernel_pipelines():
    """Flag-free rows x tiles: modeled cycles within 25 % of the busiest pipe of the slowest block."""
    rows, tiles, tile = 8, 16, 2048
    x = rand(2 * rows * tiles * tile, np.float32)
    z = np.zeros_like(x)
    prof = asc.profile(rows_kernel(tile), x, z, rows, tiles, core_num=2)
    np.testing.assert_array_equal(z, x * np.float32(2))
    busiest = max(prof.pipe_busy.values())
    assert prof.slowest_block_cycles <= 1.25 * busiest, prof.summary()


def _tour():
    @asc.jit
    def scale(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, alpha: float):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + asc.get_block_idx() * n, n)
        zg.set_global_buffer(z + asc.get_block_idx() * n, n)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        for i in range(n // 256):
            asc.data_copy(t, xg[i * 256:], 256)
            asc.muls(t, t, alpha, 256)
            asc.data_copy(zg[i * 256:], t, 256)
    x = rand(8 * 1024, np.float32)
    return asc.compile(scale, (x, np.zeros_like(x), 1024, 2.0), core_num=8).graph


def test_the_tours_graph_is_a_dataflow_graph():
    g = _tour()
    G = g.nx
    assert isinstance(G, nx.MultiDiGraph)
    copy_in, muls, copy_out = (n for n in g if n.op in ("data_copy", "muls") and not n.attr("auto"))
    assert muls.op == "muls"

    def deps(u, v):
        return [d for _, w, d in G.out_edges(u.id, data=True) if w == v.id and d["kind"] == "dep"]
    raw_in = deps(copy_in, muls)
    assert any(d["hazard"] == "RAW" and d["pipes"] == "MTE2->V" and d["distance"] == 0 for d in raw_in)
    assert any(d["hazard"] == "RAW" and d["pipes"] == "V->MTE3" for d in deps(muls, copy_out))
    carried = deps(copy_out, copy_in) + deps(muls, copy_in)
    assert any(d["hazard"] == "WAR" and d["distance"] >= 1 and d["loop"] is not None for d in carried)
    # the in-place muls reads and writes one tensor: two data edges join that pair
    root = muls.args[0].root
    assert G.number_of_edges(root, muls.id) == 2
    # every inserted flag is connected: set -> wait, producer -> set, wait -> consumer
    for n in g:
        if n.attr("auto") and n.op in ("set_flag", "wait_flag"):
            assert G.degree(n.id) > 0, f"%{n.id} is isolated"
    sync = [(u, v) for u, v, d in G.edges(data=True) if d["kind"] == "sync"]
    assert sync and all(g.node(u).op == "set_flag" and g.node(v).op == "wait_flag" for u, v in sync)
    orders = [(u, v) for u, v, d in G.edges(data=True) if d["kind"] == "orders"]
    assert (copy_in.id, next(v for u, v in orders if u == copy_in.id)) in orders
    assert G.nodes[muls.id]["pipe"] == "V" and G.nodes[muls.id]["scope"] == muls.regions != ()


def test_every_inserted_sync_explains_itself():
    x = rand(3 * 4 * T, np.float32)
    g = asc.compile(rows_of_tiles, (x, np.zeros_like(x), 3, 4)).graph
    auto = [n for n in g if n.attr("auto")]
    assert auto and all(n.attr("why", "").startswith("auto: ") for n in auto)
    text = str(g)
    assert "carried" in text and "prime for loop" in text and "drain after loop" in text


def test_branch_outputs_flow_from_their_yields():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
        count = asc.cond(n > T, lambda: T, lambda: n)
        asc.data_copy(a, xg, T)
        asc.adds(a, a, 1.0, count)
        asc.data_copy(zg, a, T)
    x = rand(T, np.float32)
    g = asc.compile(k, (x, np.zeros_like(x), 16)).graph
    adds = next(n for n in g if n.op == "adds")
    sources = {g.node(u).op for u, _, d in g.nx.in_edges(adds.id, data=True) if d["kind"] == "value"}
    assert sources == {"yield"}
    assert sum(1 for _, _, d in g.nx.in_edges(adds.id, data=True) if d["kind"] == "value") == 2


def test_a_hand_synchronised_kernel_has_its_dataflow_edges_too():
    import vadd                 # the seed article's kernel: its own set_flag / wait_flag, auto_sync=False
    x = np.zeros(8 * 2048, np.float32)
    g = asc.compile(asc.jit(vadd.vadd_kernel, auto_sync=False), (x, x, x, 2048)).graph
    deps = [(g.node(u).op, g.node(v).op, d["hazard"]) for u, v, d in g.nx.edges(data=True) if d["kind"] == "dep"]
    assert ("data_copy", "add", "RAW") in deps and ("add", "data_copy", "RAW") in deps
