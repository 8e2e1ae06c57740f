"""One hazard model (graph/hazards.py) for the scheduler and the race checker: every hazard the
scheduler synchronises is reported by the checker when the kernel lacks it (auto_sync=False), with
both accesses named and the fix suggested, and fixed by the scheduler (auto_sync=True); correct
hand-synchronised kernels are not reported."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.graph import hazards as H
from asc_trace.graph.node import Pipe
from asc_trace.toolchain.real_api import headers_if_configured
from asc_trace.runtime.args import bind_args
from asc_trace.runtime.base import LaunchJob
from asc_trace.runtime.sim import SimArtifact, SimRuntime
from helpers import assert_points_at, rand

F32 = asc.float32
HE = asc.HardEvent
VECIN = asc.TPosition.VECIN
CPU_DEBUG = headers_if_configured() is not None


def _gm(addr, n=None):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, n)
    return g


def _local(addr: int, n: int = 64):
    return asc.LocalTensor(F32, VECIN, addr, n)


def _sync(event, i: int = 0):
    asc.set_flag(event, i)
    asc.wait_flag(event, i)


# -- the model itself ------------------------------------------------------------------------------------

def test_the_model_names_each_hazard_and_its_fix():
    assert H.dependence(True, False) == "RAW" and H.dependence(False, True) == "WAR"
    assert H.dependence(True, True) == "WAW" and H.dependence(False, False) is None
    assert H.strongest({"WAW", "RAW"}) == "RAW" and H.strongest(set()) is None
    assert H.classify(Pipe.MTE3, True, Pipe.MTE2, False) == H.Hazard("RAW", "flag", event=HE.MTE3_MTE2)
    assert H.classify(Pipe.MTE2, False, Pipe.MTE3, True).event is HE.MTE2_MTE3
    assert H.classify(Pipe.MTE2, True, Pipe.MTE2, True) == H.Hazard("WAW", "barrier", pipe=Pipe.MTE2)
    assert H.classify(Pipe.MTE3, True, Pipe.MTE3, True).pipe is Pipe.MTE3
    assert H.classify(Pipe.V, True, Pipe.V, False).fix == "barrier"
    assert H.classify(Pipe.V, True, Pipe.V, False, compiler_sync=True) is None   # bisheng's auto-sync adds it
    assert H.classify(Pipe.S, True, Pipe.S, False) is None                       # no PIPE_S barrier
    assert H.classify(Pipe.MTE3, True, Pipe.MTE2, False, same_core=False).fix == "error"
    assert H.classify(Pipe.MTE2, False, Pipe.V, False) is None
    assert not H.needs_barrier(Pipe.MTE2, "RAW") and H.needs_barrier(Pipe.MTE3, "WAW")
    assert H.fixing_event(Pipe.V, Pipe.S) is HE.V_S
    pipes = (Pipe.S, Pipe.MTE2, Pipe.V, Pipe.MTE3)
    assert all(H.valid_on_aiv(H.fixing_event(a, b)) for a in pipes for b in pipes if a != b)
    assert H.cross_core_conflict(False, True) and not H.cross_core_conflict(False, False)


# -- helpers ---------------------------------------------------------------------------------------------

def _refused(kernel, args, cores: int, this: str, other: str, *parts: str, backend: str = "sim"):
    """With auto_sync=False the launch raises a RaceError naming both marked lines and `parts`, and
    writes nothing."""
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    with pytest.raises(asc.RaceError) as ei:
        asc.jit(kernel, auto_sync=False, backend=backend)[cores](*args)
    assert_points_at(ei.value, this)
    assert_points_at(ei.value, other)
    text = str(ei.value)
    for p in parts:
        assert p in text, f"{p!r} not in:\n{text}"
    assert all(a.tobytes() == b.tobytes() for a, b in zip(before, [a for a in args if isinstance(a, np.ndarray)]))
    return ei.value


def _fixed(kernel, make_args, cores: int, outputs: list[int], reference) -> None:
    """With auto_sync=True the launch equals the NumPy reference and the eager backend."""
    args = make_args()
    asc.jit(kernel, auto_sync=True)[cores](*args)
    eager = make_args()
    asc.jit(kernel, auto_sync=True, backend="eager")[cores](*eager)
    want = reference(*make_args())
    for i, w in zip(outputs, want):
        np.testing.assert_array_equal(args[i], w)
        assert args[i].tobytes() == eager[i].tobytes()


# -- (a) an MTE3 write to GM, then an MTE2 read of the same bytes ------------------------------------------

@asc.jit
def gm_roundtrip(x: asc.GlobalAddress, z: asc.GlobalAddress, tmp: asc.GlobalAddress, fix: asc.ConstExpr[bool]):
    """Each core stages its x part through `tmp` in GM and reads it back, doubled into z."""
    blk = asc.get_block_idx()
    xg, zg, tg = _gm(x + blk * 64, 64), _gm(z + blk * 64, 64), _gm(tmp + blk * 64, 64)
    a, b = _local(0), _local(256)
    asc.data_copy(a, xg, 64)
    _sync(HE.MTE2_MTE3)
    asc.data_copy(tg, a, 64)  # MARK-gm-write
    if fix:
        _sync(HE.MTE3_MTE2)
    asc.data_copy(b, tg, 64)  # MARK-gm-read
    _sync(HE.MTE2_V)
    asc.muls(b, b, 2.0, 64)
    _sync(HE.V_MTE3)
    asc.data_copy(zg, b, 64)


def _roundtrip_args(cores: int, fix: bool = False):
    return lambda: (rand(64 * cores, np.float32, 3), np.zeros(64 * cores, np.float32),
                    np.zeros(64 * cores, np.float32), fix)


@pytest.mark.parametrize("cores", [1, 4])
def test_gm_read_after_write_without_a_flag_is_reported(cores):
    on = " on core 0" if cores > 1 else ""
    _refused(gm_roundtrip, _roundtrip_args(cores)(), cores, "MARK-gm-read", "MARK-gm-write",
             f"data race (RAW) on global memory argument 'tmp' bytes [0, 256) (elements [0, 64)){on}",
             "this MTE2 instruction reads them while the MTE3 instruction at",
             "the last write of these bytes",
             "asc.set_flag(asc.HardEvent.MTE3_MTE2, 0) after the MTE3 instruction and "
             "asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0) before this one")


@pytest.mark.parametrize("cores", [1, 4])
def test_gm_read_after_write_is_fixed_by_the_scheduler(cores):
    _fixed(gm_roundtrip, _roundtrip_args(cores), cores, [1, 2], lambda x, z, t, f: (x * np.float32(2), x))
    g = asc.compile(gm_roundtrip, _roundtrip_args(cores)(), core_num=cores).graph
    assert [n.args[0] for n in g if n.attr("auto")] == [HE.MTE3_MTE2, HE.MTE3_MTE2]
    # the hand-synchronised kernel is not reported, and needs nothing more
    args = _roundtrip_args(cores, True)()
    asc.jit(gm_roundtrip, auto_sync=False)[cores](*args)
    np.testing.assert_array_equal(args[1], args[0] * np.float32(2))
    assert not [n for n in asc.compile(gm_roundtrip, _roundtrip_args(cores, True)(), core_num=cores).graph
                if n.attr("auto")]


@asc.jit
def own_region(x: asc.GlobalAddress, z: asc.GlobalAddress, fix: asc.ConstExpr[bool]):
    """Core c writes z[64c:64c+64] and reads back z[65c:65c+32] (inside its own part): two GM accesses
    whose addresses move by different steps from core to core."""
    blk = asc.get_block_idx()
    zg, xg = _gm(z), _gm(x + blk * 64, 64)
    a, b = _local(0), _local(256, 32)
    asc.data_copy(a, xg, 64)
    _sync(HE.MTE2_MTE3)
    asc.data_copy(zg[blk * 64:], a, 64)  # MARK-own-write
    if fix:
        _sync(HE.MTE3_MTE2)
    asc.data_copy(b, zg[blk * 65:], 32)  # MARK-own-read
    _sync(HE.MTE2_MTE3)
    asc.data_copy(zg[1024 + blk * 32:], b, 32)


def test_gm_shadow_follows_each_core_when_steps_differ():
    def args(fix=False):
        return rand(256, np.float32, 4), np.zeros(1024 + 128, np.float32), fix
    _refused(own_region, args(), 4, "MARK-own-read", "MARK-own-write", "data race (RAW)", "on core 0",
             "HardEvent.MTE3_MTE2")
    good = args(True)
    asc.jit(own_region, auto_sync=False)[4](*good)

    def ref(x, z, fix):
        z[:256] = x
        for c in range(4):
            z[1024 + 32 * c:1024 + 32 * c + 32] = x[65 * c:65 * c + 32]
        return (z,)
    np.testing.assert_array_equal(good[1], ref(*args())[0])
    _fixed(own_region, args, 4, [1], ref)


# -- (b) back-to-back copies on one pipe into overlapping destinations ---------------------------------------

@asc.jit
def copy_twice(x: asc.GlobalAddress, z: asc.GlobalAddress, defect: asc.ConstExpr[str]):
    xg, zg = _gm(x), _gm(z)
    a = _local(0)
    asc.data_copy(a, xg, 64)  # MARK-first-copy
    if defect == "barrier":
        asc.pipe_barrier(asc.PipeID.PIPE_MTE2)
    elif defect == "wrong-barrier":
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.data_copy(a, xg[64:], 64)  # MARK-second-copy
    _sync(HE.MTE2_MTE3)
    asc.data_copy(zg, a, 64)


@asc.jit
def store_twice(x: asc.GlobalAddress, z: asc.GlobalAddress, fix: asc.ConstExpr[bool]):
    xg, zg = _gm(x), _gm(z)
    a, b = _local(0), _local(256)
    asc.data_copy(a, xg, 64)
    asc.data_copy(b, xg[64:], 64)
    _sync(HE.MTE2_MTE3)
    asc.data_copy(zg, a, 64)  # MARK-first-store
    if fix:
        asc.pipe_barrier(asc.PipeID.PIPE_MTE3)
    asc.data_copy(zg, b, 64)  # MARK-second-store


def _xz(defect):
    return lambda: (rand(128, np.float32, 5), np.zeros(64, np.float32), defect)


def test_overlapping_copies_on_one_pipe_need_its_barrier():
    _refused(copy_twice, _xz("none")(), 1, "MARK-second-copy", "MARK-first-copy",
             "MTE2 pipe hazard (WAW) on UB bytes [0, 256)", "with no pipe_barrier of PIPE_MTE2 between",
             "add asc.pipe_barrier(asc.PipeID.PIPE_MTE2) between the two")
    _refused(copy_twice, _xz("wrong-barrier")(), 1, "MARK-second-copy", "MARK-first-copy",
             "orders the V pipe, not MTE2")
    _refused(store_twice, _xz(False)(), 1, "MARK-second-store", "MARK-first-store",
             "MTE3 pipe hazard (WAW) on global memory argument 'z' bytes [0, 256)",
             "add asc.pipe_barrier(asc.PipeID.PIPE_MTE3)")
    for kernel, fix in ((copy_twice, "barrier"), (store_twice, True)):
        args = _xz(fix)()
        asc.jit(kernel, auto_sync=False)[1](*args)         # the hand-placed barrier is enough
        np.testing.assert_array_equal(args[1], args[0][64:])


@pytest.mark.parametrize("kernel,defect", [(copy_twice, "none"), (store_twice, False)])
def test_overlapping_copies_are_fixed_by_the_scheduler(kernel, defect):
    _fixed(kernel, _xz(defect), 1, [1], lambda x, z, d: (x[64:],))
    g = asc.compile(kernel, _xz(defect)()).graph
    assert [n.op for n in g if n.attr("auto")] == ["pipe_barrier"]


@asc.jit
def vector_chain(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = _gm(x), _gm(z)
    a, b = _local(0), _local(256)
    asc.data_copy(a, xg, 64)
    _sync(HE.MTE2_V)
    asc.exp(b, a, 64)  # MARK-exp
    asc.muls(b, b, 2.0, 64)  # MARK-muls
    _sync(HE.V_MTE3)
    asc.data_copy(zg, b, 64)


def test_vector_dependences_need_a_barrier_only_without_bisheng_auto_sync():
    x = rand(64, np.float32, 6)
    want = np.exp(x) * np.float32(2)
    z = np.zeros_like(x)
    # auto_sync=False builds with bisheng's --cce-auto-sync, which inserts the V barrier (docs/facts.md#facts-3)
    asc.jit(vector_chain, auto_sync=False)[1](x, z)
    np.testing.assert_allclose(z, want, rtol=1e-6)
    # our scheduler owns the V barrier when auto_sync=True: it inserts it, and the checker holds it to it
    g = asc.compile(vector_chain, (x, z)).graph
    bars = [n for n in g if n.op == "pipe_barrier"]
    assert [n.args[0] for n in bars] == [asc.PipeID.PIPE_V]
    bare = g.copy()
    bare.set_order([nid for nid in g.order if nid != bars[0].id])
    with pytest.raises(asc.RaceError) as ei:
        _run_graph(vector_chain, bare, x, np.zeros_like(x))
    assert_points_at(ei.value, "MARK-muls")
    assert_points_at(ei.value, "MARK-exp")
    assert "V pipe hazard (RAW) on UB bytes [256, 512)" in str(ei.value)
    assert "asc.pipe_barrier(asc.PipeID.PIPE_V)" in str(ei.value)
    assert "auto_sync=True" not in str(ei.value).split("hint:")[1]
    _fixed(vector_chain, lambda: (x.copy(), np.zeros_like(x)), 1, [1],
           lambda x, z: (asc.jit(vector_chain, backend="eager")[1](x, z) or z,))


def _run_graph(k, graph, *arrays):
    bound = bind_args(k.name, k.specs, arrays, {}, None)
    SimRuntime().launch(SimArtifact(graph), LaunchJob(k.name, k.fn, graph, bound, 1, None, None, k.options))


# -- (c) one core reads GM bytes another core writes -------------------------------------------------------

@asc.jit
def neighbour(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """Core c copies z's part of core c + 1 into its own part: the neighbour writes what it reads."""
    blk = asc.get_block_idx()
    zg, ng = _gm(z + blk * 64, 64), _gm(z + (blk + 1) * 64, 64)
    a = _local(0)
    asc.data_copy(a, ng, 64)  # MARK-neighbour-read
    _sync(HE.MTE2_MTE3)
    asc.data_copy(zg, a, 64)  # MARK-own-part-write


@pytest.mark.parametrize("auto_sync", [False, True])
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_a_core_reading_what_another_core_writes_is_an_error(auto_sync, backend):
    x, z = rand(64, np.float32), rand(64 * 5, np.float32, 7)
    before = z.copy()
    with pytest.raises(asc.RaceError) as ei:
        asc.jit(neighbour, auto_sync=auto_sync, backend=backend)[4](x, z)
    assert_points_at(ei.value, "MARK-neighbour-read")
    assert_points_at(ei.value, "MARK-own-part-write")
    text = str(ei.value)
    assert "core 0 reads elements [64, 128) of global memory argument 'z' that core 1 writes" in text
    assert "core 1's write, the last write of these bytes" in text
    assert np.array_equal(z, before)
    asc.jit(neighbour, auto_sync=auto_sync)[1](x, z)       # one core alone: nothing to race with
    np.testing.assert_array_equal(z[:64], before[64:128])


def test_cores_reading_one_input_and_writing_their_own_parts_are_not_reported():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, w: asc.GlobalAddress, z: asc.GlobalAddress):
        blk = asc.get_block_idx()
        xg, wg, zg = _gm(x + blk * 64, 64), _gm(w, 64), _gm(z + blk * 64, 64)
        a, b = _local(0), _local(256)
        asc.data_copy(a, xg, 64)
        asc.data_copy(b, wg, 64)                 # every core reads the same weights
        _sync(HE.MTE2_V)
        asc.add(a, a, b, 64)
        _sync(HE.V_MTE3)
        asc.data_copy(zg, a, 64)
        _sync(HE.MTE3_MTE2)
        asc.data_copy(b, zg, 64)                 # and reads back its own part
        _sync(HE.MTE2_MTE3)
        asc.data_copy(xg, b, 64)                 # in place: its own part of x
    x, w, z = rand(512, np.float32, 1), rand(64, np.float32, 2), np.zeros(512, np.float32)
    want = x + np.tile(w, 8)
    k[8](x, w, z)
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(x, want)


# -- the suggested fix never repeats a flag the kernel has; a misplaced one is explained ------------------

@asc.jit
def handshake(x: asc.GlobalAddress, z: asc.GlobalAddress, tmp: asc.GlobalAddress, defect: asc.ConstExpr[str]):
    xg, zg, tg = _gm(x), _gm(z), _gm(tmp)
    a, b = _local(0), _local(256)
    E = HE.MTE3_MTE2
    asc.data_copy(a, xg, 64)
    _sync(HE.MTE2_MTE3)
    if defect in ("waited-before-set", "set-before-write"):
        asc.set_flag(E, 0)  # MARK-early-set
    elif defect == "ids":
        asc.set_flag(E, 1)
    asc.data_copy(tg, a, 64)  # MARK-hs-write
    if defect == "ids":
        asc.set_flag(E, 0)
        asc.wait_flag(E, 1)
    elif defect in ("waited-before-set", "set-before-write"):
        asc.wait_flag(E, 0)  # MARK-early-wait
    elif defect == "wrong-pipe":
        _sync(HE.V_MTE2)
    elif defect == "no-wait":
        asc.set_flag(E, 3)
    elif defect == "ok":
        _sync(E)
    asc.data_copy(b, tg, 64)  # MARK-hs-read
    if defect == "waited-before-set":
        asc.set_flag(E, 0)
    if defect in ("waited-before-set", "ids"):
        asc.wait_flag(E, 0)
    elif defect == "no-wait":
        asc.wait_flag(E, 3)
    _sync(HE.MTE2_MTE3)
    asc.data_copy(zg, b, 64)
    if defect == "missing":
        _sync(E)                # the kernel's own MTE3_MTE2 id 0, in the right place for another pair


@pytest.mark.parametrize("defect,parts", [
    ("missing", ["add asc.set_flag(asc.HardEvent.MTE3_MTE2, 1) after the MTE3 instruction and "
                 "asc.wait_flag(asc.HardEvent.MTE3_MTE2, 1) before this one"]),
    ("waited-before-set", ["wait_flag(HardEvent.MTE3_MTE2, 0) at test_hazards.py:", "is waited before it is set",
                           "which the MTE3 pipe ran before the MTE3 instruction",
                           "put asc.set_flag(asc.HardEvent.MTE3_MTE2, 0) right after that instruction"]),
    ("set-before-write", ["consumes the set_flag at test_hazards.py:",
                          "put asc.set_flag(asc.HardEvent.MTE3_MTE2, 0) right after that instruction"]),
    ("ids", ["the kernel has the HardEvent.MTE3_MTE2 pair here but with different ids",
             "set_flag(HardEvent.MTE3_MTE2, 0)", "wait_flag(HardEvent.MTE3_MTE2, 1)"]),
    ("wrong-pipe", ["on the wrong pipes for this pair", "wait_flag(HardEvent.V_MTE2, 0)", "waits for V",
                    "needs HardEvent.MTE3_MTE2"]),
    ("no-wait", ["set_flag(HardEvent.MTE3_MTE2, 3) at test_hazards.py:",
                 "follows the MTE3 instruction, but this instruction does not wait for it",
                 "add asc.wait_flag(asc.HardEvent.MTE3_MTE2, 3) right before it"]),
])
def test_the_report_explains_the_kernels_own_flags(defect, parts):
    args = (rand(64, np.float32, 8), np.zeros(64, np.float32), np.zeros(64, np.float32), defect)
    err = _refused(handshake, args, 1, "MARK-hs-read", "MARK-hs-write", "data race (RAW)", *parts)
    hint = str(err).split("hint:")[1]
    assert hint.rstrip().endswith("or launch with auto_sync=True")
    if defect == "missing":
        assert "MTE3_MTE2, 0" not in hint


def test_a_correct_handshake_is_not_reported():
    x = rand(64, np.float32, 8)
    args = (x, np.zeros(64, np.float32), np.zeros(64, np.float32), "ok")
    asc.jit(handshake, auto_sync=False)[1](*args)
    np.testing.assert_array_equal(args[1], x)


# -- no false positives on the Ascend C way of writing kernels ------------------------------------------------

def test_tque_and_hand_synced_multi_core_kernels_are_not_reported():
    import cann_elementwise
    import vadd
    import vadd_tque
    x, y = rand(8 * 2048, np.float32, 1), rand(8 * 2048, np.float32, 2)
    for kernel, extra in ((vadd.vadd_kernel, ()), (vadd_tque.vadd_kernel, (128,))):
        z = np.zeros_like(x)
        asc.jit(kernel, auto_sync=False)[8](x, y, z, 2048, *extra)
        np.testing.assert_array_equal(z, x + y)
    args = cann_elementwise.launch_args("gelu", 83 * 128, np.float32, cores=8)
    asc.jit(cann_elementwise.KERNELS["gelu"][0], auto_sync=False)[8](*args)
    np.testing.assert_allclose(args[1], cann_elementwise.reference("gelu", args[0]), rtol=1e-5, atol=1e-6)


# -- the cpu_debug backend runs the same check before the kernel ----------------------------------------------

@pytest.mark.skipif(not CPU_DEBUG, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
def test_cpu_debug_reports_and_runs_the_same():
    from asc_trace.runtime.cpu_debug import prebuild
    racy = [(gm_roundtrip, _roundtrip_args(2)(), 2, "MARK-gm-read", "MARK-gm-write", "HardEvent.MTE3_MTE2"),
            (copy_twice, _xz("none")(), 1, "MARK-second-copy", "MARK-first-copy", "PIPE_MTE2"),
            (neighbour, (rand(64, np.float32), rand(320, np.float32)), 4, "MARK-neighbour-read",
             "MARK-own-part-write", "that core 1 writes")]
    good = [(gm_roundtrip, _roundtrip_args(2, True), 2), (copy_twice, _xz("barrier"), 1)]
    prebuild([asc.compile(asc.jit(k, auto_sync=False), a, core_num=c).graph for k, a, c, *_ in racy] +
             [asc.compile(asc.jit(k, auto_sync=False), a(), core_num=c).graph for k, a, c in good])
    for kernel, args, cores, this, other, part in racy:
        _refused(kernel, args, cores, this, other, part, backend="cpu_debug")
    for kernel, make, cores in good:
        got, want = make(), make()
        asc.jit(kernel, auto_sync=False, backend="cpu_debug")[cores](*got)
        asc.jit(kernel, auto_sync=False)[cores](*want)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(got, want) if isinstance(a, np.ndarray))
