"""Issue 25: every bad input is a clear asc_trace error (or a one-line CLI mistake), on every backend and in
every tool. Each test here failed before its fix."""
from pathlib import Path

import pytest

from asc_trace.cli import main

ROOT = Path(__file__).resolve().parents[1]
VADD = str(ROOT / "examples" / "vadd.py") + "::vadd_kernel"


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- CLI: command-line mistakes are one line on stderr and exit 2 -------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["-c", "0"], "-c 0: the core count must be from 1 to 65535"),
    (["-c", "70000"], "-c 70000"),
    (["--chrome-trace", "/nonexistent_dir_i25/t.json"], "no such directory"),
    (["--chrome-trace", str(ROOT / "examples" / "vadd.py") + "/t.json"], "no such directory"),
    (["--chrome-trace", str(ROOT / "examples")], "is a directory"),
    (["--args", "f32[99999999999999]", "f32[8]", "f32[8]", "8"], "cannot allocate"),
    (["--args", "f32[99999999,99999999,99999999]", "f32[8]", "f32[8]", "8"], "cannot allocate"),
])
def test_inspect_command_line_mistakes_are_one_line_exit_2(capsys, argv, message):
    code, out, err = run_cli(capsys, "inspect", VADD, "--show", "traced", *argv)
    assert code == 2, (out, err)
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert out == ""            # nothing ran


def test_inspect_core_num_is_the_one_given(capsys):
    code, out, _ = run_cli(capsys, "inspect", VADD, "--show", "traced", "-c", "2")
    assert code == 0 and "; 2 core(s)" in out


# -- disk cache: a corrupt meta.json is never trusted, the entry is rebuilt and listed as incomplete ----------

CORRUPT_META = ["[1, 2, 3]", "null", "42", '"text"', '{"sha256": ', '{"sha256": 5}', '{"sha256": ["a"]}',
                '{"sha256": null, "kernel": [1], "backend": {"x": 1}}', "\udcff", ""]


def _built_entry(root, name="kernel.so"):
    from asc_trace.toolchain import cache as cache_mod
    c = cache_mod.CompileCache(root)
    key = cache_mod.cache_key({"test": "i25"})

    def build(d):
        (d / name).write_bytes(b"artifact")
        return d / name
    path, built = c.get_or_build(key, name, build, meta={"kernel": "k", "backend": "cpp"})
    assert built
    return c, key, build


@pytest.mark.parametrize("meta", CORRUPT_META)
def test_a_corrupt_cache_entry_is_rebuilt_and_listed_incomplete(capsys, monkeypatch, tmp_path, meta):
    import json
    root = tmp_path / "cache"
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(root))
    c, key, build = _built_entry(root)
    (c.entry(key) / "meta.json").write_text(meta, errors="surrogateescape")
    assert c.lookup(key, "kernel.so") is None
    code, out, err = run_cli(capsys, "cache", "list")
    assert code == 0 and err == "" and "(incomplete)" in out and key[:12] in out
    code, out, _ = run_cli(capsys, "cache", "list", "--json")
    (listed,) = json.loads(out)
    assert code == 0 and listed["complete"] is False
    code, out, _ = run_cli(capsys, "info")
    assert code == 0 and "1 entry" in out
    _, built = c.get_or_build(key, "kernel.so", build, meta={"kernel": "k", "backend": "cpp"})
    assert built                                                  # rebuilt, not trusted
    assert c.lookup(key, "kernel.so") is not None
    code, out, _ = run_cli(capsys, "cache", "list")
    assert "(incomplete)" not in out and " k " in out


def test_a_cache_entry_whose_artifact_changed_is_listed_incomplete(capsys, monkeypatch, tmp_path):
    root = tmp_path / "cache"
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(root))
    c, key, _ = _built_entry(root)
    (c.entry(key) / "kernel.so").write_bytes(b"tampered")
    assert c.lookup(key, "kernel.so") is None
    assert "(incomplete)" in run_cli(capsys, "cache", "list")[1]


# -- scalars: a Python int beyond float64 for a float parameter -------------------------------------------------

import numpy as np                                   # noqa: E402

import asc_trace as asc                              # noqa: E402
from asc_trace.errors import LaunchError             # noqa: E402


@asc.jit
def _muls_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, s: float):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x, 64)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z, 64)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 256, 64)
    asc.data_copy(t, xg, 64)
    asc.muls(u, t, s, 64)
    asc.data_copy(zg, u, 64)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
@pytest.mark.parametrize("value", [10 ** 400, -(10 ** 309)])
def test_a_huge_int_for_a_float_parameter_is_a_launch_error(backend, value):
    x, z = np.ones(64, np.float32), np.zeros(64, np.float32)
    with pytest.raises(LaunchError, match="beyond any float's range") as info:
        asc.jit(_muls_kernel, backend=backend)[1](x, z, value)
    assert info.value.loc.file == __file__


def test_to_f32_of_an_int_beyond_float64_is_infinite():
    from asc_trace.graph.scalar_ops import to_f32
    assert to_f32(10 ** 400) == np.inf and to_f32(-(10 ** 400)) == -np.inf
    assert to_f32(2 ** 127) == np.float32(2.0 ** 127)


# -- autotune: an unhashable key value; configs that do different work ----------------------------------------

import warnings                                      # noqa: E402

from asc_trace.errors import AscTraceWarning         # noqa: E402


@asc.jit
def _per_core_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, per_core: int, c: asc.ConstExpr[int],
                     tile: asc.ConstExpr[int]):
    base = asc.get_block_idx() * per_core          # per-core length fixed: more cores cover more data
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, per_core)
    zg.set_global_buffer(z + base, per_core)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, tile)
    for i in range(per_core // tile):
        asc.data_copy(t, xg[i * tile:], tile)
        asc.data_copy(zg[i * tile:], t, tile)


def test_autotune_unhashable_key_is_the_launch_error_a_plain_launch_gives():
    x, z = np.ones(256, np.float32), np.zeros(256, np.float32)
    with pytest.raises(LaunchError, match="must be hashable") as plain:
        _per_core_kernel[1](x, z, 64, [1], 64)
    tuned = asc.autotune(_per_core_kernel, configs=[asc.Config(core_num=1, tile=64)], key=["c"])
    with pytest.raises(LaunchError, match="must be hashable, got list") as info:
        tuned(x, z, 64, [1])
    assert type(info.value) is type(plain.value) and info.value.loc.file == __file__


def test_autotune_warns_when_configs_do_different_work():
    x, z = np.ones(256, np.float32), np.zeros(256, np.float32)
    uneven = asc.autotune(_per_core_kernel, configs=[asc.Config(core_num=1, tile=64), asc.Config(core_num=4, tile=64)],
                          key=["per_core"], cache_results=False)
    with pytest.warns(AscTraceWarning, match="write different amounts of GM"):
        uneven(x, z, 64, 0)
    even = asc.autotune(_per_core_kernel, configs=[asc.Config(core_num=2, tile=64), asc.Config(core_num=2, tile=32)],
                        key=["per_core"], cache_results=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscTraceWarning)
        even(x, z, 64, 0)
    assert even.best_config is not None


def test_a_corrupt_stored_autotune_choice_is_retuned():
    from asc_trace.tuning import _valid_choice
    assert _valid_choice({"best": 1, "timings": [1.0, 2.0], "skipped": [None, None]}, 2)
    for bad in ([1, 2, 3], None, {"best": 5, "timings": [1.0], "skipped": [None]}, {"best": 0},
                {"best": "0", "timings": [1.0], "skipped": [None]}, {"best": 0, "timings": 3, "skipped": [None]}):
        assert not _valid_choice(bad, 1)


# -- parity with the real API: sim / eager / cpp check what cpu_debug's vendor checks refuse -----------------

from asc_trace.errors import AlignmentError, OutOfBoundsError, UBOverflowError  # noqa: E402
from asc_trace.toolchain.real_api import headers_if_configured                     # noqa: E402

_CPU_DEBUG = pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))
BACKENDS = ["sim", "eager", "cpp", _CPU_DEBUG]


def _gm(a, n=1024):
    g = asc.GlobalTensor()
    g.set_global_buffer(a, n)
    return g


@asc.jit
def _reduce_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, count: int, op: asc.ConstExpr[str]):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 256)
    o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 8)
    asc.data_copy(a, _gm(x), 256)
    getattr(asc, op)(o, a, t, count)
    asc.data_copy(_gm(z), o, 8)


@asc.jit
def _select_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, count: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 256)
    m = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 2048, 32)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 256)
    asc.data_copy(a, _gm(x), 256)
    asc.data_copy(b, _gm(y), 256)
    asc.duplicate(c, 9.0, 256)
    asc.compare(m, a, b, asc.CMPMODE.LT, 256)
    asc.select(c, m, a, b, asc.SELMODE.VSEL_TENSOR_TENSOR_MODE, count)
    asc.data_copy(_gm(z), c, 256)


@asc.jit
def _pad_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, nbytes: int):
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.duplicate(t, 0.0, 256)
    asc.data_copy_pad(t, _gm(x), asc.DataCopyExtParams(1, nbytes, 0, 0, 0),
                      asc.DataCopyPadExtParams(False, 0, 0, 0.0))
    asc.data_copy(_gm(z), t, 256)


@asc.jit
def _queue_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, nbytes: int):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(q, 2, nbytes)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, _gm(x), 256)
    q.enque(t)
    u = q.deque(asc.float32)
    asc.data_copy(_gm(z), u, 256)
    q.free_tensor(u)


@asc.jit
def _tbuf_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, nbytes: int):
    pipe = asc.TPipe()
    b = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(b, nbytes)
    t = b.get(asc.float32)
    asc.data_copy(t, _gm(x), 256)
    asc.data_copy(_gm(z), t, 256)


def _xy():
    rng = np.random.default_rng(25)
    return rng.standard_normal(1024).astype(np.float32), rng.standard_normal(1024).astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_min"])
def test_a_reduction_of_runtime_count_0_is_refused_like_the_api(backend, op):
    x, _ = _xy()
    with pytest.raises(OutOfBoundsError, match=r"count is 0, outside 1\.\.49152"):
        asc.jit(_reduce_kernel, backend=backend)[1](x, np.zeros(1024, np.float32), 0, op)
    z = np.zeros(1024, np.float32)
    asc.jit(_reduce_kernel, backend=backend)[1](x, z, 1, op)          # the smallest count the API takes
    assert z[0] == x[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("count", [100, 1, 255])
def test_select_count_form_selects_exactly_count_elements(backend, count):
    x, y = _xy()
    z = np.zeros(1024, np.float32)
    asc.jit(_select_kernel, backend=backend)[1](x, y, z, count)
    np.testing.assert_array_equal(z[:count], np.where(x[:count] < y[:count], x[:count], y[:count]))
    assert (z[count:256] == 9.0).all()                               # nothing past count is written


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_pad_length_not_a_multiple_of_the_element_is_an_alignment_error(backend):
    x, _ = _xy()
    with pytest.raises(AlignmentError):
        asc.jit(_pad_kernel, backend=backend)[1](x, np.zeros(1024, np.float32), 6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel, nbytes", [(_queue_kernel, 100000), (_tbuf_kernel, 200000)])
def test_a_ub_overflow_is_an_ub_overflow_error_everywhere(backend, kernel, nbytes):
    x, _ = _xy()
    with pytest.raises(UBOverflowError):
        asc.jit(kernel, backend=backend)[1](x, np.zeros(1024, np.float32), nbytes)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_api_warning_log_leaves_no_blank_kernel_output(backend, capfd):
    x, _ = _xy()
    z = np.ones(1024, np.float32)
    asc.jit(_pad_kernel, backend=backend)[1](x, z, 0)                  # the API: "equivalent to a NOP"
    out, _ = capfd.readouterr()
    assert "[block" not in out, out
    assert (z[:256] == 0).all()


# -- discovery: info says where the vendor headers are and how to point at them -------------------------------

def test_devkit_beside_checkout_is_where_the_tests_look():
    from asc_trace.toolchain.ascendc_headers import devkit_beside_checkout
    kit = ROOT.parent / "shared" / "vendor" / "asc-devkit"
    assert devkit_beside_checkout() == (kit if (kit / "include" / "kernel_operator.h").is_file() else None)


def test_info_names_the_devkit_beside_the_checkout(capsys, monkeypatch, tmp_path):
    import json
    from asc_trace.toolchain import ascendc_headers
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASC_TRACE_ASCENDC_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(ascendc_headers, "devkit_beside_checkout", lambda: tmp_path / "asc-devkit")
    code, out, _ = run_cli(capsys, "info")
    assert code == 0 and f"export ASC_TRACE_ASCENDC_HOME={tmp_path / 'asc-devkit'}" in out
    assert "cpu_debug  no" in out
    monkeypatch.setattr(ascendc_headers, "devkit_beside_checkout", lambda: None)
    code, out, _ = run_cli(capsys, "info", "--json")
    why = json.loads(out)["backends"]["cpu_debug"]["why"]
    assert "point ASC_TRACE_ASCENDC_HOME at an asc-devkit checkout" in why


# -- the silent remainder: range(n // tile) with a runtime n that is not a multiple -----------------------------

@asc.jit
def _floor_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    for i in range(n // 64):                                    # the line the warning names
        asc.data_copy(t, xg[i * 64:], 64)
        asc.data_copy(zg[i * 64:], t, 64)


@asc.jit
def _floor_loop_with_tail(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    full = n // 64
    for i in range(full):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.data_copy(zg[i * 64:], t, 64)
    asc.data_copy_pad(t, xg[full * 64:], asc.DataCopyExtParams(1, (n % 64) * 4, 0, 0, 0),
                      asc.DataCopyPadExtParams(False, 0, 0, 0.0))
    asc.data_copy_pad(zg[full * 64:], t, asc.DataCopyExtParams(1, (n % 64) * 4, 0, 0, 0))


@asc.jit
def _ceil_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    for i in range((n + 63) // 64):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.data_copy(zg[i * 64:], t, 64)


@asc.jit
def _const_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg, zg = _gm(x), _gm(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    for i in range(n // 64):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.data_copy(zg[i * 64:], t, 64)


def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_a_dropped_remainder_warns_at_the_loop_line(backend):
    x, z = np.ones(1024, np.float32), np.zeros(1024, np.float32)
    with pytest.warns(AscTraceWarning, match=r"drops the remainder n % 64 = 36") as got:
        asc.jit(_floor_loop, backend=backend)[1](x, z, 100)
    (w,) = [w for w in got if issubclass(w.category, AscTraceWarning)]
    assert w.filename == __file__ and w.lineno == _line_of(_floor_loop, "the line the warning names")


@pytest.mark.parametrize("kernel, n", [(_floor_loop, 128), (_floor_loop_with_tail, 100), (_ceil_loop, 100),
                                       (_const_loop, 100)])
def test_no_remainder_warning_when_it_is_used_or_zero(kernel, n):
    x, z = np.ones(1024, np.float32), np.zeros(1024, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscTraceWarning)
        kernel[1](x, z, n)


# -- a mask / repeat form past its LocalTensor but inside the UB (found by a27's adversary pass) ----------------

@asc.jit
def _mask_form_past_tensor(x: asc.GlobalAddress, z: asc.GlobalAddress, rep: int):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
    d = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 128)
    asc.data_copy(a, _gm(x), 128)
    asc.add(d, a, a, 128, rep, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))  # MARK-mask-past
    asc.data_copy(_gm(z), d, 128)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp", pytest.param("cpu_debug", marks=[
    pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"),
])])
def test_a_mask_form_past_its_tensor_inside_the_ub_is_out_of_bounds(backend):
    z = np.zeros(1024, np.float16)
    with pytest.raises(OutOfBoundsError, match="512"):
        asc.jit(_mask_form_past_tensor, backend=backend)[1](np.ones(1024, np.float16), z, 4)
    assert (z == 0).all()
