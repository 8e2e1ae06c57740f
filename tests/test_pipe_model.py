"""The pipe model: the race checker, event checks, the scheduler's synchronisation and
multi-buffering, and the timing model with its exports."""
import json
import re

import numpy as np
import pytest

import asc_trace as asc
import vadd
import vadd_noflags
import vadd_tque
from helpers import assert_points_at, rand

F32 = asc.float32
HE = asc.HardEvent


def _gm(addr, n=None):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, n)
    return g


@asc.jit
def seed_no_handshake(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    """The seed's manual kernel with its MTE3 -> MTE2 handshake removed."""
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm, z_gm = _gm(x + offset, block_length), _gm(y + offset, block_length), _gm(z + offset, block_length)
    tile = block_length // 16
    size = tile * 2 * x.dtype.sizeof()
    x_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile * 2)
    y_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, size, tile * 2)
    z_local = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * size, tile * 2)
    for i in range(16):
        b = i % 2
        asc.data_copy(x_local[b * tile:], x_gm[i * tile:], tile)  # MARK-copy-x
        asc.data_copy(y_local[b * tile:], y_gm[i * tile:], tile)
        asc.set_flag(HE.MTE2_V, b)
        asc.wait_flag(HE.MTE2_V, b)
        asc.add(z_local[b * tile:], x_local[b * tile:], y_local[b * tile:], tile)  # MARK-add
        asc.set_flag(HE.V_MTE3, b)
        asc.wait_flag(HE.V_MTE3, b)
        asc.data_copy(z_gm[i * tile:], z_local[b * tile:], tile)


def _xyz(n=8 * 2048, dtype=np.float32):
    return rand(n, dtype, 1), rand(n, dtype, 2), np.zeros(n, dtype)


def test_seed_kernel_without_auto_sync_has_no_race():
    x, y, z = _xyz()
    asc.jit(vadd.vadd_kernel, auto_sync=False)[8](x, y, z, x.size // 8)
    np.testing.assert_array_equal(z, x + y)


def test_seed_kernel_needs_no_extra_sync():
    x, y, z = _xyz()
    g = asc.compile(vadd.vadd_kernel, (x, y, z, x.size // 8)).graph
    assert not [n for n in g if n.attr("auto")]
    g = asc.compile(vadd_tque.vadd_kernel, (x, y, z, x.size // 8, 128)).graph
    assert not [n for n in g if n.attr("auto")]


def test_removed_handshake_is_a_race_naming_both_lines():
    x, y, z = _xyz()
    with pytest.raises(asc.RaceError) as ei:
        asc.jit(seed_no_handshake, auto_sync=False)[8](x, y, z, x.size // 8)
    assert_points_at(ei.value, "MARK-copy-x")
    assert_points_at(ei.value, "MARK-add")
    assert "V_MTE2" in str(ei.value)
    # a loop-carried race: the copy of iteration 2 reuses buffer 0 while iteration 0's add may still run
    first = str(ei.value).splitlines()[0]
    assert re.search(r"MTE2 instruction \(loop at test_pipe_model.py:\d+: index 2\)", first), first
    assert re.search(r"V instruction at test_pipe_model.py:\d+ \(loop at test_pipe_model.py:\d+: index 0\)", first), first
    assert np.all(z == 0)   # a refused kernel writes nothing


def test_removed_handshake_with_auto_sync_is_exact():
    x, y, z = _xyz()
    seed_no_handshake[8](x, y, z, x.size // 8)
    np.testing.assert_array_equal(z, x + y)
    g = asc.compile(seed_no_handshake, (x, y, z, x.size // 8)).graph
    inserted = [n for n in g if n.attr("auto")]
    assert {n.args[0] for n in inserted} == {HE.V_MTE2, HE.MTE3_V}
    text = str(g)
    assert "auto: WAR" in text and "carried 2 iteration(s)" in text


def test_wait_without_set_would_hang():
    @asc.jit
    def k(x: asc.GlobalAddress):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.wait_flag(HE.MTE2_V, 3)  # MARK-lonely-wait
        asc.duplicate(t, 1.0, 64)

    with pytest.raises(asc.SyncError, match="never satisfied") as ei:
        asc.jit(k, auto_sync=False)[1](np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-lonely-wait")


def test_double_set_and_flag_left_set():
    @asc.jit
    def twice(x: asc.GlobalAddress):
        asc.set_flag(HE.MTE2_V, 0)
        asc.set_flag(HE.MTE2_V, 0)  # MARK-second-set
        asc.wait_flag(HE.MTE2_V, 0)

    @asc.jit
    def left(x: asc.GlobalAddress):
        asc.set_flag(HE.V_MTE3, 2)  # MARK-left-set

    with pytest.raises(asc.SyncError, match="still set") as ei:
        twice[1](np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-second-set")
    with pytest.raises(asc.SyncError, match="still set") as ei:
        left[1](np.zeros(8, np.float32))
    assert_points_at(ei.value, "MARK-left-set")


def test_wait_before_its_set_in_program_order_is_fine():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        t = asc.LocalTensor(F32, asc.TPosition.VECOUT, 0, 64)
        asc.wait_flag(HE.V_MTE3, 0)      # MTE3 waits; V sets it later in program order
        asc.data_copy(_gm(z), t, 64)
        asc.duplicate(t, 5.0, 64)
        asc.set_flag(HE.V_MTE3, 0)

    z = np.zeros(64, np.float32)
    asc.jit(k, auto_sync=False)[1](np.zeros(8, np.float32), z)
    assert np.all(z == 5.0)       # the copy ran after the duplicate, as on the NPU


def test_cores_writing_the_same_gm_is_a_race():
    """Different bytes to the same elements (equal bytes are defined: tests/test_vector_equal_writes.py)."""
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        t = asc.LocalTensor(F32, asc.TPosition.VECOUT, 0, 64)
        asc.data_copy(t, _gm(x)[asc.get_block_idx() * 64:], 64)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(_gm(z), t, 64)  # MARK-same-gm

    with pytest.raises(asc.RaceError, match="cores") as ei:
        k[4](np.arange(256, dtype=np.float32), np.zeros(64, np.float32))
    assert_points_at(ei.value, "MARK-same-gm")


def test_sanitizer_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("ASC_TRACE_SANITIZE", "0")
    x, y, z = _xyz()
    asc.jit(seed_no_handshake, auto_sync=False)[8](x, y, z, x.size // 8)
    np.testing.assert_array_equal(z, x + y)     # program order hides the race


def test_flag_free_vadd_is_pipelined_and_exact():
    x, y, z = _xyz(8 * 4096)
    k = vadd_noflags.vadd_noflags
    k[8](x, y, z, 4096, 256)
    np.testing.assert_array_equal(z, x + y)
    g = asc.compile(k, (x, y, z, 4096, 256)).graph
    mb = [n for n in g if n.op == "local_tensor" and n.regions]
    assert len(mb) == 3 and all("% 2" in str(n.args[1]) for n in mb)
    prof = asc.profile(k, x, y, z, 4096, 256, core_num=8)
    seed = asc.profile(vadd.vadd_kernel, x, y, z, 4096, core_num=8)
    busiest = max(prof.pipe_busy[p] for p in ("MTE2", "V", "MTE3"))
    # the overlap of the pipes, without the first copy's latency no overlap can hide
    latency = prof.platform.us_to_cycles(prof.platform.first_copy_latency_us)
    assert prof.core_cycles - latency <= 1.10 * busiest
    assert prof.core_cycles - latency <= 0.75 * (seed.core_cycles - latency)
    assert prof.bound == "launch floor" and prof.work_bound == "MTE2 pipe"


def test_multi_buffer_option():
    x, y, z = _xyz(8 * 4096)
    k = vadd_noflags.vadd_noflags
    for option, copies in (("off", 0), (3, 3), ("auto", 2)):
        kk = asc.jit(k, multi_buffer=option)
        z[:] = 0
        kk[8](x, y, z, 4096, 256)
        np.testing.assert_array_equal(z, x + y)
        g = asc.compile(kk, (x, y, z, 4096, 256)).graph
        mb = [n for n in g if n.op == "local_tensor" and n.regions]
        assert len(mb) == (3 if copies else 0)
        if copies:
            assert f"% {copies}" in str(mb[0].args[1])


def test_auto_sync_off_inserts_nothing():
    x, y, z = _xyz(8 * 4096)
    k = asc.jit(vadd_noflags.vadd_noflags, auto_sync=False)
    g = asc.compile(k, (x, y, z, 4096, 256)).graph
    assert not [n for n in g if n.op in ("set_flag", "wait_flag", "pipe_barrier")]
    with pytest.raises(asc.RaceError):
        k[8](x, y, z, 4096, 256)


def test_vector_chain_gets_pipe_barriers():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        a = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        b = asc.LocalTensor(F32, asc.TPosition.VECCALC, 256, 64)
        asc.data_copy(a, _gm(x), 64)
        asc.exp(b, a, 64)
        asc.muls(b, b, 2.0, 64)
        asc.data_copy(_gm(z), b, 64)

    x = rand(64, np.float32)
    z = np.zeros_like(x)
    k[1](x, z)
    np.testing.assert_allclose(z, np.exp(x) * 2, rtol=1e-6)
    g = asc.compile(k, (x, z)).graph
    bars = [n for n in g if n.op == "pipe_barrier"]
    assert len(bars) == 1 and bars[0].args[0] == asc.PipeID.PIPE_V


def test_profile_and_chrome_trace(tmp_path):
    x, y, z = _xyz()
    prof = asc.profile(vadd.vadd_kernel, x, y, z, x.size // 8, core_num=8)
    np.testing.assert_array_equal(z, x + y)
    assert prof.cycles > 0 and prof.time_us == pytest.approx(prof.cycles / 1800)
    assert set(prof.pipe_busy) == {"MTE2", "V", "MTE3", "S"}
    assert 0 < prof.utilization["MTE2"] <= 1
    text = prof.summary()
    for pipe in ("MTE2", "V", "MTE3", "S"):
        assert pipe in text
    path = prof.save_chrome_trace(tmp_path / "trace.json")
    data = json.loads(path.read_text())
    slices = [e for e in data["traceEvents"] if e["ph"] == "X"]
    per_core = [e for e in slices if e["pid"] == 3]
    tracks = {e["tid"] for e in per_core}
    assert tracks >= {1, 2, 3}          # MTE2, V, MTE3
    ops = [e["name"] for e in per_core]
    assert ops.count("add") == 16 and ops.count("data_copy") == 48
    assert all("vadd.py:" in e["args"]["source"] for e in per_core)
    names = {e["args"]["name"] for e in data["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 3}
    assert names == {"S", "MTE2", "V", "MTE3"}


def test_png_timeline(tmp_path):
    pytest.importorskip("matplotlib")
    x, y, z = _xyz(4 * 2048)
    prof = asc.profile(vadd.vadd_kernel, x, y, z, 2048, core_num=4)
    path = prof.save_png(tmp_path / "t.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_platform_presets_change_the_model():
    x, y, z = _xyz()
    b2 = asc.profile(vadd.vadd_kernel, x, y, z, x.size // 8, core_num=8, platform="Ascend910B2")
    b4 = asc.profile(vadd.vadd_kernel, x, y, z, x.size // 8, core_num=8, platform="Ascend910B4")
    assert b4.time_us > b2.time_us            # a slower clock, half the GM bandwidth
    assert b2.retimed("Ascend910B4").cycles == pytest.approx(b4.cycles)     # the same launch, re-timed
    from asc_trace.runtime.platform import PARAMETERS, platform
    assert all(src for _, src in PARAMETERS.values())
    assert {name for name, _, _ in platform("Ascend910B3").table()} == set(PARAMETERS)
    with pytest.raises(asc.LaunchError):
        asc.profile(vadd.vadd_kernel, x, y, z, x.size // 8, core_num=8, platform="Ascend310")
