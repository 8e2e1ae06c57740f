"""The emitted Ascend C checked against the real Ascend C API (lower/header_check.py): every example
and every registry case compiles with g++ in CPU-debug mode against the vendor's headers; source
mutated the way a wrong lowering would be is rejected, at the user's line. (Finding the headers is
tested in test_cli.py.)"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import asc_trace as asc
import backend_cases as B
from asc_trace.lower.header_check import Kernel, check_kernels
from asc_trace.lower.real_api import headers_if_configured

needs_headers = pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured: set "
                                   "ASC_TRACE_ASCENDC_HOME (tests use ../shared/vendor/asc-devkit when it exists)")


def _example_kernels() -> list[Kernel]:
    """Every @asc.jit kernel of examples/, compiled with the arguments its module runs it with."""
    import vadd
    import vadd_noflags
    import vadd_tque
    x = np.zeros(8 * 2048, np.float32)
    out = [Kernel(k.name, asc.compile(k, args).source, asc.compile(k, args).graph) for k, args in (
        (vadd.vadd_kernel, (x, x, x, 2048)), (vadd_tque.vadd_kernel, (x, x, x, 2048, 128)),
        (vadd_noflags.vadd_noflags, (x, x, x, 2048, 256)))]
    for name in ("axpy", "leaky_relu", "softmax", "rmsnorm", "vadd_tail", "softmax_rows", "tile_range", "tail_core",
                 "halving"):
        launched = []
        real = asc.jit

        def spy(kernel=None, **options):           # the kernels run() launches, with their arguments
            if kernel is None:                     # `@asc.jit(...)` decorating at import: not a launch
                return real(**options)
            launched.append(real(kernel, **options))
            return launched[-1]
        asc.jit = spy
        try:
            importlib.import_module(name).run("sim")
        finally:
            asc.jit = real
        out += [Kernel(ck.name, ck.source, ck.graph) for fn in launched for _deps, ck in fn._cache.values()]
        assert launched, name
    return out


@needs_headers
def test_every_example_and_registry_case_compiles_against_the_real_headers():
    kernels = _example_kernels()
    kernels += [Kernel(c.id, ck.source, ck.graph) for c in B.cases()
                for ck in (asc.compile(c.kernel, c.make_args(), core_num=c.cores),)]
    assert len({k.name for k in kernels}) >= 8 + len(B.cases()) - 1
    errors = check_kernels(kernels)
    assert not errors, "\n\n".join(str(e) for e in errors[:3])


@asc.jit
def _halves(x: asc.GlobalAddress, z: asc.GlobalAddress, alpha: float):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
    asc.data_copy(t, xg, 128)
    asc.adds(t, t, alpha, 128)  # MARK-check-adds
    asc.add(t, t, t, [0xFF, 0xFF], 1, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))  # MARK-check-mask
    asc.data_copy_pad(zg, t, asc.DataCopyExtParams(1, 100, 0, 0, 0))  # MARK-check-pad
    asc.data_copy(zg, t, 128)


def _source() -> tuple[str, object]:
    ck = asc.compile(_halves, (np.zeros(128, np.float16), np.zeros(128, np.float16), 0.5))
    return ck.source, ck.graph


@needs_headers
@pytest.mark.parametrize("old,new,marker", [
    # a float scalar to Adds on half: T is deduced as both half and float
    ("static_cast<half>(alpha)", "alpha", "MARK-check-adds"),
    # a const mask array to Add, whose mask parameter is non-const
    ("uint64_t asc_mask", "const uint64_t asc_mask", "MARK-check-mask"),
    # a partial DataCopyExtParams: the struct has only a default and an all-fields constructor
    (", static_cast<uint32_t>(0), static_cast<uint32_t>(0), static_cast<uint32_t>(0))",
     ", static_cast<uint32_t>(0), static_cast<uint32_t>(0))", "MARK-check-pad"),
])
def test_a_wrong_overload_is_rejected_at_the_users_line(old, new, marker):
    source, graph = _source()
    assert check_kernels([Kernel("ok", source, graph)]) == []
    assert old in source
    errors = check_kernels([Kernel("ok", source, graph), Kernel("mutant", source.replace(old, new, 1), graph)])
    assert len(errors) == 1                       # the unchanged kernel in the same batch still passes
    err = errors[0]
    assert "g++ with the real Ascend C headers rejected" in str(err)
    line = next(i for i, t in enumerate(open(__file__), 1) if f"# {marker}" in t)
    assert err.loc is not None and err.loc.line == line, str(err)


# -- CANN's own CPU-debug flow (tikicpulib): written from the docs, checked on a fake toolkit --------------

def test_the_tikicpulib_build_follows_the_documented_flow(tmp_path):
    import fake_cann
    from asc_trace.lower.ascendc_headers import find_ascendc_headers
    from asc_trace.lower.tikicpulib import SOC, build_commands, cmake_project
    home = fake_cann.cann9(tmp_path / "toolkits")
    (home / "tools" / "tikicpulib" / "lib" / "include").mkdir(parents=True)
    (home / "tools" / "tikicpulib" / "lib" / "include" / "tikicpulib.h").write_text("// stand-in\n")
    headers = find_ascendc_headers({"ASCEND_HOME_PATH": str(home)})
    assert headers.cpu_stub == home / "tools" / "tikicpulib"          # cpu_debug then takes CANN's own flow
    x = np.zeros(64, np.float16)
    g = asc.compile(_halves, (x, x, 0.5)).graph
    files = cmake_project(headers, "// kernel\n", g)
    lists = files["CMakeLists.txt"]
    assert "find_package(tikicpulib REQUIRED)" in lists and f"tikicpulib::{SOC}" in lists
    assert f'"{headers.cpu_stub / "lib"}/cmake"' in lists and f'"{home}/lib64"' in lists
    assert "ASCENDC_CPU_DEBUG=1 ASCENDC_DEBUG=1 ASCENDC_DUMP=0" in lists
    assert all(f'"{d}"' in lists for d in headers.include_dirs)
    main = files["kernel.cpp"]
    assert '#include "tikicpulib.h"' in main and "AscendC::SetKernelMode(KernelMode::AIV_MODE);" in main
    assert "ICPU_RUN_KF(_halves, cores, a0, a1, a2);" in main and "AscendC::GmAlloc(len0)" in main
    configure, build = build_commands(tmp_path)
    assert configure[1:3] == ["-S", str(tmp_path)] and build[1:3] == ["--build", str(tmp_path / "build")]
