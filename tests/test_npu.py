"""The NPU build without an NPU: toolchain discovery, the release, the Ascend C headers and the bisheng /
ld.lld commands, against fake toolkits laid out like CANN 8.1.RC1 and CANN 9 (tests/fake_cann.py) whose
tools record their arguments. The launch side is in test_npu_runtime.py. Tests that need an Ascend NPU
are marked `npu` and run only with --runtime=npu."""
import shutil
from pathlib import Path

import numpy as np
import pytest

import asc_trace as asc
import vadd
from fake_cann import ARCH, calls, cann8, cann9, last_source
from asc_trace.lower.ascendc import PRELUDE_DIR
from asc_trace.toolchain.bisheng import OVERFLOW_PARAM, compile_commands, find_toolchain
from asc_trace.toolchain.cann_layout import INCLUDES_8, INCLUDES_9, read_version
from asc_trace.runtime import get_runtime
from asc_trace.runtime.npu import NpuRuntime
from helpers import assert_points_at


def _compiled(auto_sync=True, **opts):
    x = np.zeros(8 * 256, np.float32)
    return asc.compile(asc.jit(vadd.vadd_kernel, auto_sync=auto_sync, **opts), (x, x, x, 256))


def _prepare(monkeypatch, tmp_path, home, **opts):
    monkeypatch.setenv("ASCEND_HOME_PATH", str(home))
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path / "cache"))
    ck = _compiled(**opts)
    return ck, NpuRuntime().prepare(ck.graph, ck.options)


# -- the release --------------------------------------------------------------------------------------

def test_version_of_a_cann_8_toolkit_comes_from_its_own_files(tmp_path):
    latest = cann8(tmp_path, release="8.1.RC1", inner="7.7.0.1.238")
    rel = latest.parent / "8.1.RC1"
    v = read_version(latest)
    assert (v.text, v.numbers, v.source.name) == ("8.1.RC1", (8, 1), "ascend_toolkit_install.info")
    # each fallback gives the release too, never version.cfg's format line (1.0) or the inner number (7.7.0)
    (rel / ARCH / "ascend_toolkit_install.info").unlink()
    assert (read_version(latest).text, read_version(latest).source.name) == ("8.1.RC1", "cann_version.h")
    (rel / ARCH / "include" / "version" / "cann_version.h").unlink()
    assert (read_version(latest).text, read_version(latest).source.name) == ("8.1.RC1", "version.cfg")
    (latest / "version.cfg").unlink()
    assert (read_version(latest).text, read_version(latest).source) == ("8.1.RC1", latest / "compiler" / "version.info")
    (rel / "compiler" / "version.info").unlink()
    assert read_version(latest).text == "unknown" and read_version(latest).numbers == ()


def test_version_of_a_cann_9_toolkit_and_of_8_5(tmp_path):
    cann = cann9(tmp_path / "9", release="9.0.0-rc.1")
    v = read_version(cann)
    assert (v.text, v.numbers) == ("9.0.0-rc.1", (9, 0, 0))
    (cann / ARCH / "ascend_toolkit_install.info").unlink()
    assert read_version(cann).source == cann / "share" / "info" / "runtime" / "version.info"
    (cann / "share" / "info" / "runtime" / "version.info").unlink()
    assert (read_version(cann).text, read_version(cann).source.name) == ("9.0.0-rc.1", "asc_devkit_version.h")
    assert read_version(cann8(tmp_path / "85", release="8.5.0", inner="7.9.0")).numbers == (8, 5, 0)


# -- discovery, headers --------------------------------------------------------------------------------

def test_discovery_errors(tmp_path):
    with pytest.raises(asc.ToolchainError, match="ASCEND_HOME_PATH") as ei:
        find_toolchain({"PATH": str(tmp_path)})
    assert "set_env.sh" in str(ei.value)
    with pytest.raises(asc.ToolchainError, match="not a directory"):
        find_toolchain({"ASCEND_HOME_PATH": str(tmp_path / "nope"), "PATH": ""})
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(asc.ToolchainError, match="has no bisheng or ld.lld"):
        find_toolchain({"ASCEND_HOME_PATH": str(empty), "PATH": ""})
    home = cann8(tmp_path / "noheader", header=False)
    with pytest.raises(asc.ToolchainError, match="kernel_operator.h under .*tikcpp/tikcfw"):
        find_toolchain({"ASCEND_HOME_PATH": str(home), "PATH": ""})


def test_cann_8_discovery_from_env_and_from_path(tmp_path):
    latest = cann8(tmp_path)
    tc = find_toolchain({"ASCEND_HOME_PATH": str(latest), "PATH": ""})
    assert tc.generation == 8 and tc.version == "8.1.RC1" and tc.version_tuple == (8, 1)
    # the vendor cmake's ASCENDC_DEVKIT_PATH is <home>/compiler; its three tikcfw folders, in its order
    assert tc.includes == tuple(latest / "compiler" / rel for rel in INCLUDES_8)
    assert tc.version_header == latest / "include" / "version" / "cann_version.h"
    # set_env.sh puts latest/compiler/ccec_compiler/bin on PATH; the home found is `latest`, not the release
    tc2 = find_toolchain({"PATH": str(latest / "compiler" / "ccec_compiler" / "bin")})
    assert tc2.home == latest and tc2.version == "8.1.RC1"
    tc3 = find_toolchain({"ASCEND_TOOLKIT_HOME": str(latest), "PATH": ""})
    assert tc3.bisheng == latest / ARCH / "ccec_compiler" / "bin" / "bisheng"


def test_cann_9_discovery_headers_and_version_header(tmp_path):
    cann = cann9(tmp_path)
    tc = find_toolchain({"ASCEND_HOME_PATH": str(cann), "PATH": ""})
    assert tc.generation == 9 and tc.version == "9.0.0"
    # asc-devkit's cmake: ASCENDC_DEVKIT_PATH is <home>/<arch>-linux; 15 asc/ folders then the tikcfw three
    assert len(INCLUDES_9) == 18
    assert tc.includes == tuple(cann / ARCH / rel for rel in INCLUDES_9)
    assert tc.version_header == cann / "include" / "version" / "asc_devkit_version.h"
    assert find_toolchain({"PATH": str(cann / "compiler" / "ccec_compiler" / "bin")}).home == cann
    shutil.rmtree(cann / ARCH / "asc" / "include" / "simt_api")       # a folder a release lacks is left out
    assert cann / ARCH / "asc" / "include" / "simt_api" not in find_toolchain({"ASCEND_HOME_PATH": str(cann)}).includes


# -- the command line, flag by flag against the vendor's kernel-launch cmake ----------------------------

def _units(cmd):
    """The compile command as the cmake writes it: each flag with its value, the source file left out."""
    out, it = [], iter(cmd[1:])
    for a in it:
        if a in ("-mllvm", "-x", "-include", "-o"):
            a = f"{a} {next(it)}"
        if not a.endswith(".cce"):
            out.append(a)
    return out


COMMON = ["-O3", "-std=c++17", "-DTILING_KEY_VAR=0", "--cce-aicore-arch=dav-c220-vec", "--cce-aicore-only",
          "-mllvm -cce-aicore-stack-size=0x8000", "-mllvm -cce-aicore-function-stack-size=0x8000",
          "-mllvm -cce-aicore-addr-transform", "-mllvm -cce-aicore-dcci-insert-for-scalar=false",
          "--cce-disable-kernel-global-attr-check"]


def _vendor_cmake(tc):
    """The flags of the vendor's dav-c220 vector kernel build, transcribed from its cmake:
    CANN 8.1.RC1 aarch64-linux/tikcpp/ascendc_kernel_cmake/bisheng_intf.cmake (device_intf_pub, aiv_intf_pub)
    + device_project/CMakeLists.txt; CANN 9 asc-devkit cmake/asc/legacy_modules/bisheng_intf.cmake
    (device_intf_pub, c220_aiv_intf_pub) + device_project/CMakeLists.txt."""
    devkit, rels, lang = ((tc.home / "compiler", INCLUDES_8, []) if tc.generation == 8
                          else (tc.home / ARCH, INCLUDES_9, ["--cce-aicore-lang"]))
    header = "cann_version.h" if tc.generation == 8 else "asc_devkit_version.h"
    return (COMMON + lang + [f"-include {tc.home / 'include' / 'version' / header}", "--cce-auto-sync",
                             "-mllvm -cce-aicore-record-overflow=true"] + [f"-I{devkit / r}" for r in rels])


@pytest.mark.parametrize("layout", [cann8, cann9])
def test_bisheng_command_against_the_vendor_cmake(tmp_path, layout):
    tc = find_toolchain({"ASCEND_HOME_PATH": str(layout(tmp_path)), "PATH": ""})
    cmake = _vendor_cmake(tc)
    ours = _units(compile_commands(tc, Path("k.cce"), Path("k.o"), Path("k.elf"), {})[0])
    prelude = f"-I{PRELUDE_DIR}"
    # the -I folders come in the cmake's order, then asc_trace's prelude (after CANN's kernel_operator.h)
    assert [u for u in ours if u.startswith("-I")] == [u for u in cmake if u.startswith("-I")] + [prelude]
    # every difference is one toolchain/bisheng.py explains:
    only_ours = {"-c", "-o k.o", "-x cce",                 # a device-only object from a .cce file, as pyasc
                 "-DASCENDC_DUMP=0", "-D__NPU_TILING__",    # pyasc's defines
                 "--cce-auto-sync=off",                     # our scheduler owns the synchronisation
                 "-mllvm -cce-aicore-record-overflow=false",  # the operator compilers' choice, no overflow slot
                 prelude, "-fwrapv"}                         # the emitted source's prelude; int64 math wraps
    only_cmake = {"--cce-auto-sync", "-mllvm -cce-aicore-record-overflow=true"}
    if tc.generation == 9:
        only_cmake.add("--cce-aicore-lang")                # the same language as -x cce, with ccache support
    assert (set(ours) - set(cmake), set(cmake) - set(ours)) == (only_ours, only_cmake)
    # with the user owning the events and the overflow slot, the cmake's choices come back
    ours = _units(compile_commands(tc, Path("k.cce"), Path("k.o"), Path("k.elf"),
                                   {"auto_sync": False, "record_overflow": True})[0])
    assert set(ours) - set(cmake) == {"-c", "-o k.o", "-x cce", "-DASCENDC_DUMP=0", "-D__NPU_TILING__",
                                      "-mllvm -api-deps-filter", prelude, "-fwrapv"}
    assert set(cmake) - set(ours) == ({"--cce-aicore-lang"} if tc.generation == 9 else set())


@pytest.mark.parametrize("auto_sync", [True, False])
def test_cce_auto_sync_follows_auto_sync(tmp_path, monkeypatch, auto_sync):
    _prepare(monkeypatch, tmp_path, cann8(tmp_path), auto_sync=auto_sync)
    compile_call = calls(tmp_path)[0]
    if auto_sync:     # the scheduler placed every event: bisheng's auto-sync is off, and says so explicitly
        assert "--cce-auto-sync=off" in compile_call and "--cce-auto-sync" not in compile_call
        assert "-api-deps-filter" not in compile_call
    else:             # the user owns the events: the vendor's build for hand-written kernels
        assert "--cce-auto-sync" in compile_call and "--cce-auto-sync=off" not in compile_call
        assert compile_call[compile_call.index("-api-deps-filter") - 1] == "-mllvm"


@pytest.mark.parametrize("record_overflow", [False, True])
def test_record_overflow_flag_and_kernel_signature_agree(tmp_path, monkeypatch, record_overflow):
    ck, art = _prepare(monkeypatch, tmp_path, cann9(tmp_path), record_overflow=record_overflow)
    compile_call = calls(tmp_path)[0]
    flag = f"-cce-aicore-record-overflow={'true' if record_overflow else 'false'}"
    assert compile_call[compile_call.index(flag) - 1] == "-mllvm"
    assert sum("record-overflow" in a for a in compile_call) == 1
    src = last_source(tmp_path)
    signature = next(line for line in src.splitlines() if line.startswith('extern "C" __global__'))
    assert signature.endswith(f"GM_ADDR {OVERFLOW_PARAM})" if record_overflow else "int64_t block_length)")
    assert art.record_overflow is record_overflow
    assert OVERFLOW_PARAM not in ck.source          # what the user sees and the CPU backends build is unchanged
    with pytest.raises(asc.ToolchainError, match="record_overflow must be True or False"):
        compile_commands(find_toolchain(), Path("k.cce"), Path("k.o"), Path("k.elf"), {"record_overflow": "yes"})


def test_build_commands_with_a_fake_toolchain(tmp_path, monkeypatch):
    latest = cann8(tmp_path)
    ck, art = _prepare(monkeypatch, tmp_path, latest)
    assert art.elf.startswith(b"\x7fELF") and art.name == "vadd_kernel"
    compile_call, link_call = calls(tmp_path)
    assert Path(compile_call[0]).name == "bisheng"
    assert compile_call[compile_call.index("-include") + 1] == str(latest / "include" / "version" / "cann_version.h")
    src = Path(compile_call[compile_call.index("-c") + 4])
    assert src.name == "kernel.cce"
    assert link_call[1:4] == ["-m", "aicorelinux", "-Ttext=0"] and link_call[-3:-1] == ["-static", "-o"]
    # the second prepare is a cache hit: no new tool calls; another option is another build
    NpuRuntime().prepare(ck.graph, ck.options)
    assert len(calls(tmp_path)) == 2
    NpuRuntime().prepare(ck.graph, {**ck.options, "record_overflow": True})
    assert len(calls(tmp_path)) == 4


def test_build_options(tmp_path):
    tc = find_toolchain({"ASCEND_HOME_PATH": str(cann8(tmp_path)), "PATH": ""})
    cmd, _ = compile_commands(tc, Path("k.cce"), Path("k.o"), Path("k.elf"), {"opt_level": 1})
    assert "-O1" in cmd and "-O3" not in cmd
    with pytest.raises(asc.ToolchainError, match="opt_level"):
        compile_commands(tc, Path("k.cce"), Path("k.o"), Path("k.elf"), {"opt_level": 7})
    with pytest.raises(asc.ToolchainError, match="vector-only"):
        compile_commands(tc, Path("k.cce"), Path("k.o"), Path("k.elf"), {"kernel_type": "cube"})


def test_bisheng_failure_is_reported(tmp_path, monkeypatch):
    with pytest.raises(asc.ToolchainError, match="something bisheng dislikes") as ei:
        _prepare(monkeypatch, tmp_path, cann8(tmp_path, fail=True))
    assert ei.value.loc is not None and ei.value.loc.short == "vadd.py:37"   # the user's asc.add line
    assert len(calls(tmp_path)) == 2          # retried once without machine LICM, as pyasc does
    assert "-disable-machine-licm" in calls(tmp_path)[1]


def test_npu_backend_without_an_npu(tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    x = np.zeros(8 * 256, np.float32)
    with pytest.raises(asc.ToolchainError, match="CANN"):
        asc.jit(vadd.vadd_kernel, backend="npu")[8](x, x, x.copy(), 256)
    assert get_runtime("auto").name == "sim"        # auto falls back to the simulator here
    import asc_trace.runtime as rt
    assert rt.current_stream().npu_stream == 0


@pytest.mark.npu
def test_vadd_on_the_npu():
    import torch
    import torch_npu  # noqa: F401
    import asc_trace.runtime as rt
    x = torch.rand(8 * 2048, device="npu")
    y = torch.rand(8 * 2048, device="npu")
    z = torch.zeros_like(x)
    asc.jit(vadd.vadd_kernel, backend="npu")[8, rt.current_stream()](x, y, z, 2048)
    torch.npu.synchronize()
    assert torch.equal(z.cpu(), (x + y).cpu())
    xs, ys = x.cpu().numpy(), y.cpu().numpy()
    zs = np.zeros_like(xs)
    asc.jit(vadd.vadd_kernel, backend="npu")[8](xs, ys, zs, 2048)
    np.testing.assert_array_equal(zs, xs + ys)


# -- the fake bisheng judges the source as the real one would (tests/fake_bisheng.py) -----------------------

def _lowered_as_before(monkeypatch, old: str, new: str):
    """The NPU build's lowering with one change back to what it emitted before issue 19."""
    import asc_trace.runtime.npu as npu
    real = npu.lower
    monkeypatch.setattr(npu, "lower", lambda *a, **k: real(*a, **k).replace(old, new))


@pytest.mark.parametrize("layout", [cann8, cann9])
def test_the_fake_bisheng_rejects_a_block_idx_local(tmp_path, monkeypatch, layout):
    """What the lowering emitted before: `const int64_t block_idx = ...`, a syntax error under bisheng's
    `#define block_idx get_block_idx()` (the declaration is at the top of the kernel, before any statement
    of the user's, so the error names no line of theirs)."""
    _lowered_as_before(monkeypatch, "asct_block_idx", "block_idx")
    with pytest.raises(asc.ToolchainError, match="block_idx") as ei:
        _prepare(monkeypatch, tmp_path, layout(tmp_path))
    assert "bisheng rejected the Ascend C emitted for vadd_kernel" in str(ei.value)
    assert len(calls(tmp_path)) == 2          # the compile and pyasc's retry; nothing linked


def test_the_fake_cann_8_bisheng_rejects_the_raw_localtensor_constructor(tmp_path, monkeypatch):
    """CANN 8.1.RC1's kernel_tensor.h has no LocalTensor(TPosition, addr, size): what was emitted before."""
    import re
    import asc_trace.runtime.npu as npu
    real = npu.lower

    def raw(*a, **k):
        return re.sub(r" = asct_ub\.GetWithOffset<(\w+)>\((.*), (static_cast<uint32_t>\(.*\))\);$",
                      r"(AscendC::TPosition::VECIN, \3, \2);", real(*a, **k), flags=re.M)
    monkeypatch.setattr(npu, "lower", raw)
    with pytest.raises(asc.ToolchainError, match="LocalTensor/3 is not declared by the Ascend C headers of "
                                                 "CANN 8.1|no matching function") as ei:
        _prepare(monkeypatch, tmp_path, cann8(tmp_path))
    assert ei.value.loc is not None and ei.value.loc.short.startswith("vadd.py:")
    _prepare(monkeypatch, tmp_path / "9", cann9(tmp_path / "9"))      # CANN 8.5+ has it


def test_printf_is_refused_on_the_npu_backend(tmp_path, monkeypatch):
    @asc.jit
    def chatty(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
        asc.data_copy(t, g, 8)
        asc.printf("core %d\n", asc.get_block_idx())  # MARK-npu-printf

    monkeypatch.setenv("ASCEND_HOME_PATH", str(cann9(tmp_path)))
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path / "cache"))
    ck = asc.compile(chatty, (np.zeros(8, np.float32),))
    with pytest.raises(asc.ToolchainError, match="does not print on the npu backend") as ei:
        NpuRuntime().prepare(ck.graph, ck.options)
    assert_points_at(ei.value, "MARK-npu-printf")
    assert calls(tmp_path) == []              # refused before anything was built
