"""The adversary's findings for issue 25, each a user kernel run on every backend (sim, eager, cpp,
cpu_debug where it runs the kernel): the same asc_trace error class everywhere, at the user's line, and
nothing written when refused."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, every_backend

BACKENDS = every_backend()


def gm(a, n):
    g = asc.GlobalTensor()
    g.set_global_buffer(a, n)
    return g


def refused(kernel, backend: str, cls: type, match: str | None, marker: str, *args) -> Exception:
    """Launch `kernel` on `backend`: it raises `cls` matching `match` at the line marked `marker`, and the
    arrays passed are left as they were."""
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    with pytest.raises(cls, match=match) as ei:
        asc.jit(kernel, backend=backend)[1](*args)
    assert_points_at(ei.value, marker, __file__)
    after = [a for a in args if isinstance(a, np.ndarray)]
    assert all(b.tobytes() == a.tobytes() for b, a in zip(before, after)), "a refused launch wrote its arrays"
    return ei.value


# -- a destination partly overlapping a source: the message says what overlaps what -------------------

def shifted_add(x: asc.GlobalAddress, k: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
    asc.data_copy(a, gm(x, 512), 512)
    asc.add(a[k:], a, a, 256)  # MARK-overlap
    asc.data_copy(gm(x, 512), a, 512)


@pytest.mark.parametrize("backend", BACKENDS)
def test_partial_overlap_says_what_overlaps_what(backend):
    err = refused(shifted_add, backend, asc.OutOfBoundsError, "dst partly overlaps src0", "MARK-overlap",
                  np.ones(512, np.float32), 8)
    text = str(err)
    assert "dst starts k elements from src0 and each covers 256" in text
    assert "outside 1..1" not in text
    x = np.ones(512, np.float32)          # disjoint (k = 256) runs, and is NumPy's answer
    asc.jit(shifted_add, backend=backend)[1](x, 256)
    assert np.array_equal(x, np.r_[np.ones(256), np.full(256, 2.0)].astype(np.float32))


# -- a shift amount known only at run time ------------------------------------------------------------

def shift_by(x: asc.GlobalAddress, z: asc.GlobalAddress, left: int, right: int):
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 1024, 256)
    asc.data_copy(a, gm(x, 256), 256)
    asc.shift_left(b, a, left, 256)  # MARK-shift-left
    asc.shift_right(b, b, right, 256)  # MARK-shift-right
    asc.data_copy(gm(z, 256), b, 256)


@pytest.mark.parametrize("backend", BACKENDS)
def test_runtime_shift_amounts_run_and_are_checked(backend):
    x = np.arange(-128, 128, dtype=np.int32) * 977
    for left, right in ((3, 1), (0, 31), (7, 0)):
        z = np.zeros(256, np.int32)
        asc.jit(shift_by, backend=backend)[1](x, z, left, right)
        assert np.array_equal(z, (x << left) >> right), (left, right)
    refused(shift_by, backend, asc.ScalarError, "shift count of asc.shift_left on int32 is 32, outside 0..31",
            "MARK-shift-left", x, np.zeros(256, np.int32), 32, 0)
    refused(shift_by, backend, asc.ScalarError, "shift count of asc.shift_right on int32 is -1, outside 0..31",
            "MARK-shift-right", x, np.zeros(256, np.int32), 1, -1)


# -- asc.profile with an unknown platform ---------------------------------------------------------------

def test_profile_with_an_unknown_platform_points_at_the_call():
    x = np.arange(256, dtype=np.int32)
    with pytest.raises(asc.LaunchError, match="unknown platform 'Ascend999'") as ei:
        asc.profile(shift_by, x, np.zeros_like(x), 1, 1, platform="Ascend999")  # MARK-profile-str
    assert_points_at(ei.value, "MARK-profile-str", __file__)
    with pytest.raises(asc.LaunchError, match="unknown platform") as ei:
        asc.profile(shift_by, x, np.zeros_like(x), 1, 1, platform=910)  # MARK-profile-int
    assert_points_at(ei.value, "MARK-profile-int", __file__)


# -- a second TPipe: refused while tracing, so every backend says the same ----------------------------------

def two_pipes(x: asc.GlobalAddress):
    first = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    first.init_buffer(q, 1, 1024)
    second = asc.TPipe()  # MARK-second-pipe
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, gm(x, 256), 256)
    asc.data_copy(gm(x, 256), t, 256)
    q.free_tensor(t)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_second_tpipe_is_a_queue_error_at_trace(backend):
    err = refused(two_pipes, backend, asc.QueueError, "exactly one TPipe", "MARK-second-pipe", np.ones(256, np.float32))
    assert "first TPipe" in str(err)
    with pytest.raises(asc.QueueError):
        asc.compile(asc.jit(two_pipes), (np.ones(256, np.float32),))


# -- TBuf.get past its buffer -------------------------------------------------------------------------------

def tbuf_past(x: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    b = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(b, 1024)
    t = b.get(asc.float32, n)  # MARK-tbuf-get
    asc.data_copy(t, gm(x, 1024), n)
    asc.data_copy(gm(x, 1024), t, n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tbuf_get_past_the_buffer_is_out_of_bounds(backend):
    refused(tbuf_past, backend, asc.OutOfBoundsError, None, "MARK-tbuf-get", np.ones(1024, np.float32), 512)
    x = np.arange(1024, dtype=np.float32)
    asc.jit(tbuf_past, backend=backend)[1](x, 256)        # exactly the buffer: runs, and copies back what it read
    assert np.array_equal(x, np.arange(1024, dtype=np.float32))


# -- a runtime repeat time of 256 or more (a uint8_t field: it would wrap to 0 on the NPU) ----------------------

def brcb_rt(x: asc.GlobalAddress, z: asc.GlobalAddress, rep: int):
    a = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 0, 2048)
    asc.data_copy(a, gm(x, 2048), 2048)
    out = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 65536, 16384)
    asc.brcb(out, a, repeat_times=rep, repeat_params=asc.BrcbRepeatParams(1, 8))  # MARK-brcb-rt
    asc.data_copy(gm(z, 16384), out, 16384)


def gatherb_rt(x: asc.GlobalAddress, o: asc.GlobalAddress, z: asc.GlobalAddress, rep: int):
    a = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 0, 2048)
    asc.data_copy(a, gm(x, 2048), 2048)
    off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 16384, 2048)
    asc.data_copy(off, gm(o, 2048), 2048)
    out = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 65536, 16384)
    asc.gatherb(out, a, off, rep, asc.GatherRepeatParams(1, 8))  # MARK-gatherb-rt
    asc.data_copy(gm(z, 16384), out, 16384)


def gather_rt(x: asc.GlobalAddress, o: asc.GlobalAddress, z: asc.GlobalAddress, rep: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 2048)
    asc.data_copy(a, gm(x, 2048), 2048)
    off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 16384, 16384)
    asc.data_copy(off, gm(o, 16384), 16384)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 81920, 16384)
    asc.gather(out, a, off, 0, 64, rep, 8)  # MARK-gather-rt
    asc.data_copy(gm(z, 16384), out, 16384)


@pytest.mark.parametrize("backend", BACKENDS)
def test_brcb_runtime_repeat_256_is_out_of_bounds(backend):
    x = np.arange(2048, dtype=np.uint32)
    z = np.zeros(16384, np.uint32)
    asc.jit(brcb_rt, backend=backend)[1](x, z, 2)
    assert np.array_equal(z[:128], np.repeat(x[:16], 8))
    refused(brcb_rt, backend, asc.OutOfBoundsError, "repeat_time of asc.brcb is 256, outside 0..255", "MARK-brcb-rt",
            x, np.zeros(16384, np.uint32), 256)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gather_runtime_repeat_256_is_out_of_bounds(backend):
    x = np.arange(2048, dtype=np.uint32)
    o = (np.arange(2048, dtype=np.uint32) % 64) * 32
    z = np.zeros(16384, np.uint32)
    asc.jit(gatherb_rt, backend=backend)[1](x, o, z, 2)
    assert np.array_equal(z[:128], np.concatenate([x[(b % 64) * 8:(b % 64) * 8 + 8] for b in range(16)]))
    refused(gatherb_rt, backend, asc.OutOfBoundsError, "repeat_time of asc.gatherb is 256", "MARK-gatherb-rt",
            x, o, np.zeros(16384, np.uint32), 256)
    xf = np.arange(2048, dtype=np.float32)
    of = (np.arange(16384, dtype=np.uint32) % 2048) * 4
    zf = np.zeros(16384, np.float32)
    asc.jit(gather_rt, backend=backend)[1](xf, of, zf, 2)
    assert np.array_equal(zf[:128], xf[:128])
    refused(gather_rt, backend, asc.OutOfBoundsError, "repeat_time of asc.gather is 256", "MARK-gather-rt",
            xf, of, np.zeros(16384, np.float32), 256)


# -- Brcb / Gather / Gatherb on every backend: NumPy's answer, and the same refusal past a tensor -----------------

GN2 = 1024


def gathers(x: asc.GlobalAddress, o: asc.GlobalAddress, ob: asc.GlobalAddress, z: asc.GlobalAddress,
            n: int, base: int, mask: asc.ConstExpr, rep: int, dst_rep: int, brep: int, blk: int, bstride: int):
    """One kernel, three calls: Gather's count form into z[0:n], its mask form into z[2048:], Gatherb's
    blocks (uint32 view) into z[8192:], and Brcb of the source's first 8 x brep elements into z[12288:]."""
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, GN2)
    asc.data_copy(a, gm(x, GN2), GN2)
    off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 4 * GN2, GN2)
    asc.data_copy(off, gm(o, GN2), GN2)
    offb = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 8 * GN2, 256)
    asc.data_copy(offb, gm(ob, 256), 256)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 16 * GN2, 16384)
    asc.duplicate(out, 0.0, 16384)
    asc.gather(out, a, off, base, n)  # MARK-gather-count
    asc.gather(out[2048:], a, off, 0, mask, rep, dst_rep)
    ub = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 0, GN2)
    asc.gatherb(out[8192:].reinterpret_cast(asc.uint32), ub, offb, 4, asc.GatherRepeatParams(blk, bstride))  # MARK-gatherb-blocks
    asc.brcb(out[12288:], a, brep, asc.BrcbRepeatParams(1, 8))  # MARK-brcb-past
    asc.data_copy(gm(z, 16384), out, 16384)


def gathers_want(x, o, ob, n, base, mask, rep, dst_rep, brep, blk, bstride):
    z = np.zeros(16384, np.float32)
    src = x.view(np.uint8)
    z[:n] = x[(o[:n].astype(np.int64) + base) // 4]
    for r in range(rep):
        for e in range(mask):
            z[2048 + r * dst_rep * 8 + e] = x[o[r * 64 + e] // 4]
    zb = z[8192:12288].view(np.uint32)
    for r in range(4):
        for b in range(8):
            k = r * 8 + b
            blk_at = (r * bstride + b * blk) * 8
            zb[blk_at:blk_at + 8] = src[ob[k]:ob[k] + 32].view(np.uint32)
    z[12288:12288 + brep * 64] = np.repeat(x[:brep * 8], 8)
    return z


@pytest.mark.parametrize("backend", BACKENDS)
def test_brcb_gather_gatherb_equal_numpy_on_every_backend(backend):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(GN2).astype(np.float32)
    o = (rng.integers(0, GN2 // 2, GN2) * 4).astype(np.uint32)
    ob = (rng.integers(0, GN2 // 8, 256) * 32).astype(np.uint32)
    args = (1000, 2048, 37, 3, 9, 5, 2, 9)
    z = np.zeros(16384, np.float32)
    asc.jit(gathers, backend=backend)[1](x, o, ob, z, *args)
    assert z.tobytes() == gathers_want(x, o, ob, *args).tobytes()
    # past the source: a Gather offset, a Gatherb block, Brcb's 8 x repeat sources (repeat <= 255)
    bad_o = o.copy()
    bad_o[5] = 4 * GN2 - 2048
    refused(gathers, backend, asc.OutOfBoundsError, r"gather offset 4096 bytes \(lane 5\) is past the source's 1024",
            "MARK-gather-count", x, bad_o, ob, z.copy(), *args)
    bad_ob = ob.copy()
    bad_ob[3] = 4 * GN2
    refused(gathers, backend, asc.OutOfBoundsError, r"gather offset 4096 bytes \(lane 3\) is past the source's 1024",
            "MARK-gatherb-blocks", x, o, bad_ob, z.copy(), *args)
    bad_ob[3] = 16
    refused(gathers, backend, asc.OutOfBoundsError, "not a multiple of 32 bytes", "MARK-gatherb-blocks", x, o, bad_ob,
            z.copy(), *args)
    refused(gathers, backend, asc.OutOfBoundsError, None, "MARK-brcb-past", x, o, ob, z.copy(), *args[:5], 129, 2, 9)


# -- range(n >> 8): a floor division by 256 that drops the remainder ----------------------------------------

def shifted_tiles(x: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    g = gm(x, n)
    for i in range(n >> 8):  # MARK-shift-loop
        asc.data_copy(a, g[i * 256:], 256)
        asc.muls(a, a, 2.0, 256)
        asc.data_copy(g[i * 256:], a, 256)


def shifted_tiles_with_tail(x: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    g = gm(x, n)
    for i in range(n >> 8):
        asc.data_copy(a, g[i * 256:], 256)
        asc.muls(a, a, 2.0, 256)
        asc.data_copy(g[i * 256:], a, 256)
    for _ in range(((n & 255) + 255) // 256):        # the tail (here whole 32-byte blocks), if there is one
        asc.data_copy(a, g[(n >> 8) << 8:], n & 255)
        asc.muls(a, a, 2.0, n & 255)
        asc.data_copy(g[(n >> 8) << 8:], a, n & 255)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_a_shift_loop_bound_that_drops_a_remainder_warns_at_the_loop(backend, recwarn):
    x = np.ones(600, np.float32)
    asc.jit(shifted_tiles, backend=backend)[1](x, 600)
    hits = [w for w in recwarn if issubclass(w.category, asc.AscTraceWarning)]
    assert len(hits) == 1 and "drops the remainder" in str(hits[0].message) and "= 88" in str(hits[0].message)
    from helpers import line_of
    assert (hits[0].filename, hits[0].lineno) == (__file__, line_of("MARK-shift-loop", __file__))
    assert np.array_equal(x, np.r_[np.full(512, 2.0), np.ones(88)].astype(np.float32))   # as NumPy would say
    recwarn.clear()
    asc.jit(shifted_tiles, backend=backend)[1](np.ones(512, np.float32), 512)     # a multiple: no warning
    y = np.ones(600, np.float32)
    asc.jit(shifted_tiles_with_tail, backend=backend)[1](y, 600)                   # the tail handled: none
    assert not [w for w in recwarn if issubclass(w.category, asc.AscTraceWarning)]
    assert np.array_equal(y, np.full(600, 2.0, np.float32))


# -- asc.lib.host tiling setters given bad values --------------------------------------------------------------

@pytest.mark.parametrize("call, words", [
    (lambda t: t.set_dim(0), "dim is at least 1, got 0"),
    (lambda t: t.set_shape(None, 64, 64), "m is a whole number, got None"),
    (lambda t: t.set_shape(16.5, 64, 64), "m is a whole number, got 16.5"),
    (lambda t: t.set_org_shape(64, None, 64), "org_n_in is a whole number"),
    (lambda t: t.set_fix_split(1.5), "base_m_in is a whole number"),
    (lambda t: t.set_single_shape("x"), "single_m_in is a whole number"),
    (lambda t: t.set_buffer_space(None), "l1_size is a whole number"),
    (lambda t: t.set_a_type(0, 0, 999), "data_type is an asc.lib.host.DataType"),
    (lambda t: t.set_traverse(9), "traverse is an asc.lib.host.MatrixTraverse"),
])
def test_host_tiling_setters_refuse_bad_values(call, words):
    import asc_trace.lib.host as host
    t = host.MultiCoreMatmulTiling()
    with pytest.raises(asc.TraceError, match=words):
        call(t)
    assert t.set_shape(64.0, 64, np.int64(64)) == 0 and t.shape == (64, 64, 64)     # whole floats and NumPy ints


# -- asc.adv host tiling helpers given bad values: a TraceError, never a raw exception -------------------------

@pytest.mark.parametrize("call, words", [
    (lambda T, N: T.softmax_tiling_func([8, 64], 4, None), "workspace size is a byte count"),
    (lambda T, N: T.softmax_tiling_func([8, 64], 4, -5), "workspace size is a byte count"),
    (lambda T, N: T.log_softmax_tiling_func([8, 64], 4, None), "workspace size is a byte count"),
    (lambda T, N: T.get_rms_norm_tiling_info([1, 8, 64], [1, 8, 64], None, 4), "RmsNorm buffer size"),
    (lambda T, N: N.get_layernorm_nd_tiling_info([1, 8, 64, 64], "x", 4), "LayerNorm buffer size"),
    (lambda T, N: N.get_layernorm_nd_tiling_info(None, 4096, 4), "LayerNorm's shape"),
    (lambda T, N: T.get_softmax_max_tmp_size([8, 64], 2.0), "data type size is 2"),
    (lambda T, N: T.get_softmax_max_tmp_size(None, 2), "a shape is a list of positive ints"),
    (lambda T, N: T.get_softmax_max_tmp_size(5, 2), "a shape is a list of positive ints"),
    (lambda T, N: T.get_softmax_max_tmp_size([16.5, 64], 2), "a shape is a list of positive ints"),
    (lambda T, N: T.get_sin_max_min_tmp_size(["a"], 2), "a shape is a list of positive ints"),
])
def test_adv_tiling_helpers_refuse_bad_values(call, words):
    import asc_trace.adv.tiling as T
    import asc_trace.adv.tiling_norm as N
    with pytest.raises(asc.TraceError, match=words):
        call(T, N)
    assert T.get_softmax_max_tmp_size([8, 64.0], np.int64(2)) == T.get_softmax_max_tmp_size((8, 64), 2)


# -- asc-trace inspect with a malformed __asc_examples__: exit 3 and one message, no traceback -----------------

CLI_KERNEL = '''import numpy as np
import asc_trace as asc

@asc.jit
def copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    g = asc.GlobalTensor()
    g.set_global_buffer(x, n)
    h = asc.GlobalTensor()
    h.set_global_buffer(z, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, g, 256)
    asc.data_copy(h, a, 256)

ARGS = (np.zeros(256, np.float32), np.zeros(256, np.float32), 256)
'''


@pytest.mark.parametrize("table, words", [
    ('{"copy": {"args": 5}}', "args must be a tuple or list"),
    ('{"copy": {"args": ARGS, "kwargs": 5}}', "kwargs must be a dict"),
    ('{"copy": {"args": ARGS, "core_num": 0}}', "core_num must be an int from 1 to 65535; got 0"),
    ('{"copy": {"args": ARGS, "core_num": "8"}}', "core_num must be an int from 1 to 65535; got '8'"),
    ('[1, 2]', "must be a dict"),
])
def test_inspect_with_malformed_examples_exits_3(tmp_path, table, words):
    import subprocess
    import sys
    f = tmp_path / "k.py"
    f.write_text(CLI_KERNEL + f"__asc_examples__ = {table}\n")
    r = subprocess.run([sys.executable, "-m", "asc_trace", "inspect", f"{f}::copy"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 3, r.stdout + r.stderr
    assert words in r.stdout + r.stderr and "Traceback" not in r.stdout + r.stderr


# -- cores writing disjoint columns through strided GM copies: no race (the cross-core check compares the blocks) --

R, C, W = 4, 32, 8


def column_split(x: asc.GlobalAddress, z: asc.GlobalAddress, w: int):
    b = asc.get_block_idx()
    g = gm(x, R * C)
    h = gm(z, R * C)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, R * 2 * W)
    asc.data_copy(a, g[b * W:], asc.DataCopyParams(R, w * 4 // 32, (C - w) * 4 // 32, 0))
    asc.muls(a, a, 2.0, R * w)
    asc.data_copy(h[b * W:], a, asc.DataCopyParams(R, w * 4 // 32, 0, (C - w) * 4 // 32))  # MARK-col-store


def column_split_pad(x: asc.GlobalAddress, z: asc.GlobalAddress, w: int, rd: int):
    """data_copy_pad's byte strides, and a core that reads (rd) a column block the next core writes."""
    b = asc.get_block_idx()
    g = gm(x, R * C)
    h = gm(z, R * C)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, R * 2 * W)
    asc.data_copy_pad(a, g[b * W:], asc.DataCopyExtParams(R, w * 4, (C - w) * 4, 0, 0),
                      asc.DataCopyPadExtParams(False, 0, 0, 0.0))
    asc.muls(a, a, 2.0, R * w)
    asc.data_copy_pad(h[b * W:], a, asc.DataCopyExtParams(R, w * 4, 0, (C - w) * 4, 0))  # MARK-col-pad-store
    asc.data_copy_pad(a, h[b * W + rd:], asc.DataCopyExtParams(R, w * 4, (C - w) * 4, 0, 0),  # MARK-col-pad-read
                      asc.DataCopyPadExtParams(False, 0, 0, 0.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_column_split_strided_copies_are_not_a_race(backend):
    x = np.arange(R * C, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(column_split, backend=backend)[C // W](x, z, W)
    assert np.array_equal(z, 2 * x)
    z = np.zeros_like(x)
    asc.jit(column_split_pad, backend=backend)[C // W](x, z, W, 0)
    assert np.array_equal(z, 2 * x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_overlapping_column_blocks_are_still_a_race(backend):
    x = np.arange(R * C, dtype=np.float32)
    # each core writes 16 columns from its 8-column offset: core b's columns 8..15 are core b + 1's 0..7. Both
    # write 2 * x there, the same bytes: defined whichever lands last, a warning (runtime/equal_writes.py)
    z = np.zeros_like(x)
    with pytest.warns(asc.AscTraceWarning, match=r"cores 0 and 1 both write elements \[8, 16\) of global memory "
                                                 r"argument 'z'.*identical bytes"):
        asc.jit(column_split, backend=backend)[C // W - 1](x, z, 2 * W)
    assert np.array_equal(z, 2 * x)
    # the same with data_copy_pad, whose cores then read their 16 columns back: a read of bytes another core
    # writes, a race whatever the bytes
    with pytest.raises(asc.RaceError, match=r"core 0 reads elements \[8, 16\) of global memory argument 'z'") as ei:
        asc.jit(column_split_pad, backend=backend)[C // W - 1](x, np.zeros_like(x), 2 * W, 0)
    assert_points_at(ei.value, "MARK-col-pad-read", __file__)
    # disjoint writes, but each core reads back the next core's columns: a read of another core's write
    with pytest.raises(asc.RaceError, match=r"core 0 reads elements \[8, 16\) of global memory argument 'z'") as ei:
        asc.jit(column_split_pad, backend=backend)[C // W - 1](x, np.zeros_like(x), W, W)
    assert_points_at(ei.value, "MARK-col-pad-read", __file__)


# -- asc.adv.gelu without a temp buffer in a kernel with no TPipe ----------------------------------------------

GN = 2048


def gelu_no_pipe(x: asc.GlobalAddress, z: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, GN)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * GN, GN)
    asc.data_copy(a, gm(x, GN), GN)
    asc.adv.gelu(b, a, GN)  # MARK-gelu-no-pipe
    asc.data_copy(gm(z, GN), b, GN)


def gelu_pipe_after(x: asc.GlobalAddress, z: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, GN)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * GN, GN)
    asc.data_copy(a, gm(x, GN), GN)
    asc.adv.sigmoid(b, a, GN)  # MARK-sigmoid-pipe-after
    asc.TPipe()                # too late: GetTPipePtr() is still null at the call
    asc.data_copy(gm(z, GN), b, GN)


def stack_forms_no_pipe(x: asc.GlobalAddress, z: asc.GlobalAddress, which: asc.ConstExpr[str]):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, GN)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * GN, GN)
    asc.data_copy(a, gm(x, GN), GN)
    if which == "log2":
        asc.adv.log2(b, a, GN)  # MARK-stack-log2
    elif which == "clamp_max":
        asc.adv.clamp_max(b, a, 0.5, GN)  # MARK-stack-clamp_max
    elif which == "sum":
        asc.adv.sum(b, a, asc.adv.SumParams(1, GN, GN))  # MARK-stack-sum
    elif which == "exp":
        asc.adv.exp(b, a, GN)  # MARK-stack-exp
    asc.data_copy(gm(z, GN), b, GN)


def gelu_tbufs(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    bx, bz = asc.TBuf(asc.TPosition.VECIN), asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(bx, GN * 4)
    pipe.init_buffer(bz, GN * 4)
    a, b = bx.get(asc.float32), bz.get(asc.float32)
    asc.data_copy(a, gm(x, GN), GN)
    asc.adv.gelu(b, a, GN)
    asc.data_copy(gm(z, GN), b, GN)


def gelu_want(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_gelu_without_temp_buffer_and_no_tpipe_is_refused_on_every_backend(backend):
    # the vendor's Gelu without a sharedTmpBuffer pops its scratch from the TPipe's free UB; with no TPipe the API
    # asserts ("params.stackSize must > 0" on cpu_debug). Every backend refuses it at trace time, at the call.
    x = np.linspace(-4, 4, GN).astype(np.float32)
    e = refused(gelu_no_pipe, backend, asc.TraceError, "no asc.TPipe", "MARK-gelu-no-pipe", x, np.zeros(GN, np.float32))
    assert "temp_buffer" in e.hint and "TPipe" in e.hint
    refused(gelu_pipe_after, backend, asc.TraceError, "asc.adv.sigmoid without temp_buffer", "MARK-sigmoid-pipe-after",
            x, np.zeros(GN, np.float32))


@pytest.mark.parametrize("which", ["log2", "clamp_max", "sum", "exp"])
def test_other_stack_forms_without_a_tpipe_are_refused(which):
    x = np.linspace(-4, 4, GN).astype(np.float32)
    for backend in ("sim", "eager"):
        refused(stack_forms_no_pipe, backend, asc.TraceError, f"asc.adv.{which} without temp_buffer", f"MARK-stack-{which}",
                x, np.zeros(GN, np.float32), which)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gelu_without_temp_buffer_after_a_tpipe_runs_on_every_backend(backend):
    x = np.linspace(-4, 4, GN).astype(np.float32)
    z = np.zeros(GN, np.float32)
    asc.jit(gelu_tbufs, backend=backend)[1](x, z)
    assert np.allclose(z, gelu_want(x), rtol=1e-3, atol=1e-4)
