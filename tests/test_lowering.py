"""The lowering: golden Ascend C, the cpp backend (the emitted code compiled with g++ against the API
model and run), the strictness of the model, and differential runs cpp == sim == eager."""
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
import vadd
import vadd_noflags
import vadd_tque
from asc_trace.runtime.cpp import compiler, model_include_dirs
from helpers import assert_points_at, rand

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = {
    "vadd_kernel": (vadd.vadd_kernel, lambda x: (x, x, x, 2048)),
    "vadd_tque": (vadd_tque.vadd_kernel, lambda x: (x, x, x, 2048, 128)),
    "vadd_noflags": (vadd_noflags.vadd_noflags, lambda x: (x, x, x, 2048, 256)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name, update_golden):
    kernel, args = CASES[name]
    ck = asc.compile(kernel, args(np.zeros(8 * 2048, np.float32)))
    for suffix, text in (("graph.txt", str(ck.graph)), ("cpp", ck.source)):
        path = GOLDEN / f"{name}.{suffix}"
        if update_golden or not path.exists():
            path.write_text(text)
        assert text == path.read_text(), f"{path.name} changed; review the diff and rerun with --update-golden"


def test_source_shape():
    x = np.zeros(8 * 2048, np.float32)
    src = asc.compile(vadd.vadd_kernel, (x, x, x, 2048)).source
    assert '#include "kernel_operator.h"' in src
    assert 'extern "C" __global__ __aicore__ void vadd_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, int64_t block_length)' \
        in src
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);" in src
    assert "for (int64_t asct_i0 = 0; asct_i0 < 16; asct_i0 += 1) {" in src
    assert "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>" in src
    body = src.split("{", 1)[1]
    statements = [ln for ln in body.splitlines() if ln.strip().startswith("AscendC::") and "(" in ln]
    assert statements
    lines = src.splitlines()
    for i, ln in enumerate(lines):   # every statement is preceded by its `// file.py:LINE (%id)` comment
        if ln.strip().startswith(("AscendC::DataCopy", "AscendC::Add", "AscendC::SetFlag", "AscendC::WaitFlag")):
            k = i - 1
            while lines[k].strip().startswith("ASC_CHECK_"):    # the statement's operand checks come first
                k -= 1
            assert lines[k].strip().startswith("// vadd.py:"), ln
    assert '#include "asc_trace_prelude.h"' in src
    assert 'ASC_CHECK_RANGE(asct_floordiv(block_length, 16), 0, 2147483647, ASC_TRACE_KIND_BOUNDS, ' \
           'ASC_TRACE_KIND_BOUNDS, "the element count");' in src


def _loop_kernel(trip):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        for i in range(n if trip is None else trip):
            asc.data_copy(t, xg[i * 64:], 64)
            asc.muls(t, t, 3.0, 64)
            asc.data_copy(zg[i * 64:], t, 64)
    return k


@pytest.mark.parametrize("constant_bound", [False, True])
def test_runtime_loop_source_does_not_grow(constant_bound):
    sources = []
    for trip in (2, 64):
        x = rand(64 * trip, np.float32)
        z = np.zeros_like(x)
        k = _loop_kernel(trip if constant_bound else None)
        asc.jit(k, backend="cpp")[1](x, z, trip)
        np.testing.assert_array_equal(z, x * np.float32(3))
        sources.append(asc.compile(k, (x, z, trip)).source)
    if constant_bound:    # only the bound differs
        assert sources[0].replace("asct_i0 < 2;", "asct_i0 < 64;") == sources[1]
    else:
        assert sources[0] == sources[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_cpp_runs_the_examples_bit_exactly(dtype):
    x, y = rand(8 * 4096, dtype, 1), rand(8 * 4096, dtype, 2)
    for kernel, extra in ((vadd.vadd_kernel, ()), (vadd_tque.vadd_kernel, (256,)), (vadd_noflags.vadd_noflags, (256,))):
        z = np.zeros_like(x)
        asc.jit(kernel, backend="cpp")[8](x, y, z, 4096, *extra)
        assert z.tobytes() == (x + y).tobytes(), kernel.name


def test_cpp_error_names_the_users_line():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(x, n)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, g[8:], 64)  # MARK-cpp-window

    x = np.zeros(128, np.float32)
    with pytest.raises(asc.OutOfBoundsError, match="window") as ei:
        asc.jit(k, backend="cpp")[1](x, 64)
    assert_points_at(ei.value, "MARK-cpp-window")


def test_cpp_refused_kernel_writes_nothing():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, 256)
        zg.set_global_buffer(z, 256)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        for i in range(tiles):
            asc.data_copy(t, xg[i * 64:], 64)
            asc.data_copy(zg[i * 64:], t, 64)

    x = rand(256, np.float32)
    z = np.full(256, 7.0, np.float32)
    with pytest.raises(asc.OutOfBoundsError):
        asc.jit(k, backend="cpp")[1](x, z, 5)
    assert np.all(z == 7.0)


def _compile_snippet(tmp_path, body: str) -> subprocess.CompletedProcess:
    cxx, _ = compiler()
    src = tmp_path / "snippet.cpp"
    src.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\nvoid f() {\n' + body + "\n}\n")
    return subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-Werror=narrowing",
                           *(f"-I{d}" for d in model_include_dirs()), str(src)],
                          capture_output=True, text=True)


@pytest.mark.parametrize("body,ok", [
    ("LocalTensor<float> t(TPosition::VECIN, 0, 64); Duplicate(t, 0.0f, 64);", True),
    ("LocalTensor<float> t(TPosition::VECIN, 0, 64); Duplicate(t, 0, 64);", False),        # scalar must be T
    ("LocalTensor<float> t(TPosition::VECIN, 0, 64); Adds(t, t, 1.0, 64);", False),        # double is not float
    ("LocalTensor<half> t(TPosition::VECIN, 0, 64); Muls(t, t, static_cast<half>(2.0f), 64);", True),
    ("LocalTensor<half> t(TPosition::VECIN, 0, 64); Muls(t, t, 2.0f, 64);", False),        # half is a class
    ("int64_t n = 5; uint32_t m{n};", False),                                              # narrowing
    ("TQue<TPosition::VECIN, 2> q; LocalTensor<float> a = q.AllocTensor<float>(); q.FreeTensor(q.DeQue<float>());",
     False),                                                                                # FreeTensor takes T&
])
def test_model_is_as_strict_as_bisheng(tmp_path, body, ok):
    proc = _compile_snippet(tmp_path, body)
    assert (proc.returncode == 0) == ok, proc.stderr


# -- differential: random programs give the same bytes on cpp, sim and eager ------------------------

from test_schedule_props import Prog, _data, make_kernel, programs  # noqa: E402


@settings(max_examples=examples(36), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prog=programs(), init=st.booleans())
def test_cpp_sim_eager_same_bytes(prog, init):
    if init:   # start from defined buffers, so that no NaN payloads are involved
        prog = Prog(prog.dtype, prog.addrs, tuple(("dup", b, 1.0) for b in range(len(prog.addrs))) + prog.pre,
                    prog.body, prog.post, prog.trip)
    k = make_kernel(prog)
    x, z0 = _data(prog)
    outs = {}
    for backend in ("sim", "eager", "cpp"):
        z = z0.copy()
        asc.jit(k, backend=backend)[1](x, z)
        outs[backend] = z
    if init:
        assert outs["cpp"].tobytes() == outs["sim"].tobytes() == outs["eager"].tobytes()
    else:
        np.testing.assert_array_equal(outs["cpp"], outs["sim"])
        np.testing.assert_array_equal(outs["eager"], outs["sim"])


def test_a_compiler_error_points_at_the_users_line():
    from asc_trace.toolchain.compile_errors import compiler_error
    x = np.zeros(8 * 256, np.float32)
    ck = asc.compile(vadd.vadd_kernel, (x, x, x, 256))
    line = next(i for i, t in enumerate(ck.source.splitlines(), 1) if "AscendC::Add(" in t)
    stderr = f"In function 'void vadd_kernel(...)':\nkernel.cpp:{line}:9: error: no matching function\n"
    err = compiler_error("g++", ck.graph, ck.source, "kernel.cpp", stderr, hint="report it")
    assert err.loc is not None and err.loc.short == "vadd.py:37"     # the asc.add line of the kernel
    assert "g++ rejected the Ascend C emitted for vadd_kernel: kernel.cpp" in str(err)
    # an error outside any statement (e.g. in the helpers) has no user line, but still a message
    assert compiler_error("g++", ck.graph, ck.source, "kernel.cpp", "kernel.cpp:1:1: error: x", hint="h").loc is None


@pytest.mark.parametrize("defines,checks", [([], True), (["-D__CCE_AICORE__=220"], False),
                                            (["-D__CCE_AICORE__=220", "-DASCENDC_CPU_DEBUG=1"], True),
                                            (["-DASC_TRACE_CHECKS=0"], False)])
def test_the_prelude_stands_alone_with_checks_on_or_compiled_out(tmp_path, defines, checks):
    from asc_trace.lower.ascendc import PRELUDE_DIR
    cxx, _ = compiler()
    src = tmp_path / "p.cpp"
    # all the prelude needs from kernel_operator.h: __aicore__ and the fixed-width integer types
    src.write_text("#include <cstdint>\n#define __aicore__\n#include \"asc_trace_prelude.h\"\n"
                   f"static_assert(ASC_TRACE_CHECKS == {int(checks)}, \"default\");\n"
                   "int64_t f(int64_t a, int64_t b) { ASC_CHECK_RANGE(a, 0, 7, ASC_TRACE_KIND_BOUNDS, "
                   "ASC_TRACE_KIND_BOUNDS, \"a\"); ASC_CHECK_EVAL(asct_floordiv(a, b));\n"
                   "  return asct_mod(a, b) + asct_shl(a, 3) + static_cast<int64_t>(asct_trip_count(a, b, 1))"
                   " + asct_f2i(asct_max<float>(1.0f, asct_ffloordiv(2.0f, 3.0f))); }\n")
    proc = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", *defines,
                           f"-I{PRELUDE_DIR}", str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
