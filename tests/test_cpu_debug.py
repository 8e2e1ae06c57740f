"""The cpu_debug backend: the emitted Ascend C linked with the real Ascend C API (CPU-debug mode) and
asc_trace's intrinsic model, run per core. Bit-exact with the simulator on every example and on the
registry's cases (tests/backend_cases.py); the same errors, at the user's line; crashes and refusals
of the API stay in the child process."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asc_trace as asc
import backend_cases as B
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at, rand
from test_schedule_props import _data, make_kernel, programs

pytestmark = pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured: set "
                                "ASC_TRACE_ASCENDC_HOME (tests use ../shared/vendor/asc-devkit when it exists)")

CASES = B.cases()
EXAMPLES = ["axpy", "leaky_relu", "softmax", "rmsnorm", "vadd_tail", "softmax_rows", "tile_range", "tail_core",
            "halving"]


@pytest.fixture(scope="module", autouse=True)
def prebuilt():
    """Every case in one executable: one compiler run for the module (runtime/cpu_debug.prebuild)."""
    from asc_trace.runtime.cpu_debug import prebuild
    graphs = [asc.compile(c.kernel, c.make_args(), core_num=c.cores).graph for c in CASES]
    prebuild(graphs)


def _run(kernel, backend, cores, args):
    asc.jit(kernel, backend=backend)[cores](*args)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_registry_case_is_bit_exact_with_sim(case):
    out = {}
    for backend in ("sim", "cpu_debug"):
        args = case.make_args()
        _run(case.kernel, backend, case.cores, args)
        out[backend] = case.read(args)
    assert out["cpu_debug"].tobytes() == out["sim"].tobytes()


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_is_bit_exact_with_sim(name):
    mod = importlib.import_module(name)
    got, _ = mod.run("cpu_debug")
    want, _ = mod.run("sim")
    assert got.tobytes() == want.tobytes()


def test_seed_kernels_on_eight_cores():
    import vadd
    import vadd_noflags
    import vadd_tque
    x, y = rand(8 * 2048, np.float16, 1), rand(8 * 2048, np.float16, 2)
    for kernel, extra in ((vadd.vadd_kernel, ()), (vadd_tque.vadd_kernel, (128,)), (vadd_noflags.vadd_noflags, (256,))):
        z = np.zeros_like(x)
        _run(kernel, "cpu_debug", 8, (x, y, z, 2048, *extra))
        assert z.tobytes() == (x + y).tobytes(), kernel.name


def test_backend_from_the_environment(monkeypatch):
    from asc_trace.runtime import get_runtime
    monkeypatch.setenv("ASC_TRACE_BACKEND", "cpu_debug")
    assert get_runtime(asc.config.backend_from_env()).name == "cpu_debug"


def test_printf_prints_what_sim_prints(capfd):
    @asc.jit
    def talk(x: asc.GlobalAddress, n: int, f: float):
        asc.printf("core %d of %d\n", asc.get_block_idx(), asc.get_block_num())
        asc.printf("n=%d x=%x f=%f s=%s %%\n", n, n * 85, f, "ok")
        asc.printf("no newline")

    outs = []
    for backend in ("sim", "cpu_debug"):
        _run(talk, backend, 2, (np.zeros(8, np.float32), 3, 1.5))
        outs.append(capfd.readouterr().out)
    assert outs[0] == outs[1]
    assert "[block 1/2] n=3 x=ff f=1.500000 s=ok %" in outs[1]


def test_dump_tensor_is_refused_by_the_real_api_in_cpu_mode():
    import op_cases as C
    with pytest.raises(asc.ToolchainError, match="DumpTensor is not supported in cpu mode") as ei:
        _run(C.dump_kernel, "cpu_debug", 1, (np.arange(64, dtype=np.float32), 4, ()))
    assert ei.value.loc is not None and ei.value.loc.line > 0
    assert "backend='sim'" in str(ei.value)


# -- errors: the same class as sim, at the user's line, nothing written --------------------------------

@asc.jit
def _copy(x: asc.GlobalAddress, z: asc.GlobalAddress, off: int, window: int, addr: int, n: int):
    g, h = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x, window)
    h.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, addr, 64)  # MARK-cpu-debug-local
    asc.data_copy(t, g[off:], 64)  # MARK-cpu-debug-copy
    asc.adds(t, t, 1.0, n)  # MARK-cpu-debug-adds
    asc.data_copy(h, t, 64)


@pytest.mark.parametrize("args,error,marker", [
    ((240, 256, 0, 64), asc.OutOfBoundsError, "MARK-cpu-debug-copy"),        # past the array
    ((8, 64, 0, 64), asc.OutOfBoundsError, "MARK-cpu-debug-copy"),          # past the set_global_buffer window
    ((0, 256, 16, 64), asc.AlignmentError, "MARK-cpu-debug-local"),         # a UB address not 32-byte aligned
    ((0, 256, 196352, 64), asc.UBOverflowError, "MARK-cpu-debug-local"),    # past the usable UB
    ((0, 256, 0, 100), asc.OutOfBoundsError, "MARK-cpu-debug-adds"),        # a count past the tensor
])
def test_errors_match_sim(args, error, marker):
    x = rand(256, np.float32)
    for backend in ("sim", "cpu_debug"):
        z = np.full(64, 7.0, np.float32)
        with pytest.raises(error) as ei:
            _run(_copy, backend, 1, (x, z, *args))
        assert np.all(z == 7.0), backend                     # a refused kernel writes nothing
        if marker:
            assert_points_at(ei.value, marker)


def _load(x):
    """A GlobalTensor over `x` and a 64-float tensor in the UB loaded from it (traced inline)."""
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, g, 64)
    return g, t


def test_a_wait_nobody_sets_is_a_sync_error():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        _load(x)
        for i in range(n):
            asc.wait_flag(asc.HardEvent.MTE2_V, i)  # MARK-cpu-debug-wait

    with pytest.raises(asc.SyncError) as ei:
        _run(asc.jit(k, auto_sync=False), "cpu_debug", 1, (np.zeros(64, np.float32), 1))
    assert_points_at(ei.value, "MARK-cpu-debug-wait")


def test_queue_misuse_is_a_queue_error():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        pipe, q = asc.TPipe(), asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 256)
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        for i in range(n):
            t = q.alloc_tensor(asc.float32)  # MARK-cpu-debug-alloc
            asc.data_copy(t, g, 64)
            q.enque(t)

    for backend in ("sim", "cpu_debug"):
        with pytest.raises(asc.QueueError):
            _run(k, backend, 1, (np.zeros(64, np.float32), 2))


def _inject(monkeypatch, statement: str) -> None:
    """Emit `statement` at the start of every kernel the cpu_debug backend builds."""
    import asc_trace.runtime.cpu_debug as cd
    real = cd.lower

    def lower(g, **kw):
        return real(g, **kw).replace("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);",
                               "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);\n    " + statement, 1)
    monkeypatch.setattr(cd, "lower", lower)


@asc.jit
def _scale(x: asc.GlobalAddress, n: int):
    g, t = _load(x)
    asc.muls(t, t, 2.0, n)
    asc.data_copy(g, t, 64)


def test_an_unmodeled_intrinsic_stops_with_its_name(monkeypatch):
    _inject(monkeypatch, "AscendC::SetDeqScale(static_cast<half>(1.0f));")       # reaches set_deqscale, not modeled
    with pytest.raises(asc.ToolchainError, match="intrinsic set_deqscale is reached") as ei:
        _run(asc.jit(_scale, always_compile=True), "cpu_debug", 1, (np.ones(64, np.float32), 64))
    assert "stub" in str(ei.value)


def test_a_crash_stays_in_the_child(monkeypatch):
    _inject(monkeypatch, "*reinterpret_cast<volatile int*>(static_cast<uintptr_t>(block_idx + 8)) = 1;")
    x = np.ones(64, np.float32)
    with pytest.raises(asc.LaunchError, match="crashed"):
        _run(asc.jit(_scale, always_compile=True), "cpu_debug", 1, (x, 64))
    assert np.all(x == 1.0)


def test_no_headers_is_a_clear_error(monkeypatch):
    from asc_trace.runtime.cpu_debug import CpuDebugRuntime
    for var in ("ASC_TRACE_ASCENDC_HOME", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        monkeypatch.delenv(var, raising=False)
    g = asc.compile(_scale, (np.ones(64, np.float32), 64)).graph
    with pytest.raises(asc.ToolchainError, match="no Ascend C headers") as ei:
        CpuDebugRuntime().prepare(g, {})
    assert "ASC_TRACE_ASCENDC_HOME" in ei.value.hint


def test_unwritten_unified_buffer_reads_the_same_poison_as_sim():
    @asc.jit
    def k(z: asc.GlobalAddress):
        pipe, buf = asc.TPipe(), asc.TBuf(asc.TPosition.VECCALC)    # the API's TPipe fills the UB with noise
        pipe.init_buffer(buf, 256)
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z)
        asc.data_copy(zg, buf.get(asc.int32), 64)

    out = {}
    for backend in ("sim", "cpu_debug"):
        z = np.zeros(64, np.int32)
        _run(k, backend, 1, (z,))
        out[backend] = z
    assert np.all(out["sim"] == -1) and np.array_equal(out["cpu_debug"], out["sim"])


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(progs=st.lists(programs(), min_size=10, max_size=10))
def test_random_programs_give_sims_bytes(progs):
    """Random flag-free programs (test_schedule_props), ten to a build: uninitialised buffers and NaN
    payloads included, cpu_debug writes the bytes sim writes."""
    from asc_trace.runtime.cpu_debug import prebuild
    kernels = [make_kernel(p) for p in progs]
    data = [_data(p) for p in progs]
    prebuild([asc.compile(k, d).graph for k, d in zip(kernels, data)])
    for k, (x, z0) in zip(kernels, data):
        out = {}
        for backend in ("sim", "cpu_debug"):
            z = z0.copy()
            _run(k, backend, 1, (x, z))
            out[backend] = z
        assert out["cpu_debug"].tobytes() == out["sim"].tobytes()


def test_info_reports_cpu_debug_usable():
    from asc_trace.cli.info import gather
    facts = gather()["backends"]["cpu_debug"]
    assert facts["usable"], facts
