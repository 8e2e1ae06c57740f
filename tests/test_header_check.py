"""The emitted Ascend C checked against the real Ascend C API (toolchain/header_check.py): every example
and every registry case compiles with g++ in CPU-debug mode against the vendor's headers; source
mutated the way a wrong lowering would be is rejected, at the user's line. (Finding the headers is
tested in test_cli.py.)"""
from __future__ import annotations

import os

import numpy as np
import pytest

import asc_trace as asc
import backend_cases as B
import suite_kernels
from asc_trace.errors import ToolchainError
from asc_trace.lower.ascendc import lower
from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import headers_if_configured

needs_headers = pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured: set "
                                   "ASC_TRACE_ASCENDC_HOME (tests use ../shared/vendor/asc-devkit when it exists)")


@needs_headers
def test_every_example_registry_case_and_random_program_compiles_against_the_real_headers():
    """Seen as bisheng sees it (its predefined macros in front of the kernel: prelude/
    asc_trace_bisheng_view.h), every emitted source of the suite resolves against the real API."""
    kernels = suite_kernels.all_kernels()
    assert len({k.name for k in kernels}) >= 12 + len(B.cases()) + suite_kernels.RANDOM_PROGRAMS - 1
    errors = check_kernels(kernels)
    assert not errors, "\n\n".join(str(e) for e in errors[:3])


@pytest.mark.skipif(not os.environ.get("ASC_TRACE_CANN81_HOME"), reason="no CANN 8.1.RC1 headers: set "
                    "ASC_TRACE_CANN81_HOME to a toolkit home (tests/cann81_local_copy.py makes one)")
def test_every_emitted_source_compiles_against_cann_8_1():
    """The same, against CANN 8.1.RC1's headers, for every kernel lowered for CANN 8.x. Lowering for 8.x
    refuses what only CANN 8.5+ declares (InitSocState, depth-0 queues, TBufPool, raw LocalTensors beside
    TPipe buffers): those refusals must say so, and everything else must compile."""
    tree = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": os.environ["ASC_TRACE_CANN81_HOME"]})
    assert tree.generation == 8
    kernels, refused = [], []
    for k in suite_kernels.all_kernels():
        if k.name in suite_kernels.MIXED:
            continue
        try:
            kernels.append(Kernel(k.name, lower(k.graph, generation=8), k.graph))
        except ToolchainError as e:
            refused.append((k.name, str(e)))
    assert [r for r in refused if "CANN 8.5" not in r[1]] == []
    assert len(kernels) > 10 * len(refused)      # the refusals stay the exception
    errors = check_kernels(kernels, tree)
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
    ("uint64_t asct_mask", "const uint64_t asct_mask", "MARK-check-mask"),
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
    from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
    from asc_trace.toolchain.tikicpulib import SOC, build_commands, cmake_project
    home = fake_cann.cann9(tmp_path / "toolkits")
    (home / "tools" / "tikicpulib" / "lib" / "include").mkdir(parents=True)
    (home / "tools" / "tikicpulib" / "lib" / "include" / "tikicpulib.h").write_text("// stand-in\n")
    headers = find_ascendc_headers({"ASCEND_HOME_PATH": str(home)})
    assert headers.cpu_stub == home / "tools" / "tikicpulib"          # cpu_debug then takes CANN's own flow
    x = np.zeros(64, np.float16)
    g = asc.compile(_halves, (x, x, 0.5)).graph
    files = cmake_project(headers, "// kernel\n", g, "_halves")
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
