"""The NPU path without an NPU: toolchain discovery, the bisheng / ld.lld commands (against a fake
toolchain whose tools record their arguments), argument packing and the errors. The tests that need
an Ascend NPU are marked `npu` and run only with --runtime=npu."""
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

import asc_trace as asc
import vadd
from asc_trace.graph.signature import Param
from asc_trace.lower.bisheng import compile_commands, find_toolchain
from asc_trace.runtime import get_runtime
from asc_trace.runtime.npu import NpuRuntime, arg_layout, pack_args

TOOL = """#!{python}
import json, sys
from pathlib import Path
Path({log!r}).open("a").write(json.dumps(sys.argv) + "\\n")
if {fail!r} and "-c" in sys.argv:
    src = next(a for a in sys.argv if a.endswith(".cce"))
    line = next(i for i, t in enumerate(Path(src).read_text().splitlines(), 1) if "AscendC::Add(" in t)
    sys.stderr.write(f"kernel.cce:{{line}}:9: error: something bisheng dislikes\\n")
    sys.exit(1)
out = sys.argv[sys.argv.index("-o") + 1]
Path(out).write_bytes(b"\\x7fELF fake device binary " + Path(sys.argv[-1] if "{name}" == "ld.lld" else out).name.encode())
"""


def fake_toolchain(tmp_path: Path, fail: bool = False, header: bool = True) -> Path:
    home = tmp_path / "Ascend" / "ascend-toolkit" / "latest"
    bindir = home / "compiler" / "ccec_compiler" / "bin"
    bindir.mkdir(parents=True)
    log = tmp_path / "calls.jsonl"
    for name in ("bisheng", "ld.lld"):
        p = bindir / name
        p.write_text(TOOL.format(python=sys.executable, log=str(log), fail=fail, name=name))
        p.chmod(p.stat().st_mode | stat.S_IEXEC)
    inc = home / "compiler" / "tikcpp" / "tikcfw"
    (inc / "impl").mkdir(parents=True)
    (inc / "interface").mkdir()
    if header:
        (inc / "kernel_operator.h").write_text("// fake\n")
    (home / "version.cfg").write_text("Version=8.0.RC3\n")
    return home


def _calls(tmp_path):
    import json
    return [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]


def test_arg_packing_follows_the_bisheng_abi():
    P = lambda *kinds: tuple(Param(i, f"a{i}", k) for i, k in enumerate(kinds))  # noqa: E731
    layout, size = arg_layout(P("gm", "gm", "gm", "int"))
    assert [off for _, off, _ in layout] == [0, 8, 16, 24] and size == 32
    layout, size = arg_layout(P("float", "gm", "float"))
    assert [off for _, off, _ in layout] == [0, 8, 16] and size == 24
    layout, size = arg_layout(P("float", "float", "int"))
    assert [off for _, off, _ in layout] == [0, 4, 8] and size == 16
    blob = pack_args(P("gm", "float", "int"), [0x1122334455667788, 1.5, -2])
    assert len(blob) == 24
    assert int.from_bytes(blob[0:8], "little") == 0x1122334455667788
    assert np.frombuffer(blob[8:12], np.float32)[0] == 1.5
    assert int.from_bytes(blob[16:24], "little", signed=True) == -2


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
    home = fake_toolchain(tmp_path / "noheader", header=False)
    with pytest.raises(asc.ToolchainError, match="kernel_operator.h"):
        find_toolchain({"ASCEND_HOME_PATH": str(home), "PATH": ""})


def test_discovery_from_path_and_version(tmp_path):
    home = fake_toolchain(tmp_path)
    bindir = home / "compiler" / "ccec_compiler" / "bin"
    tc = find_toolchain({"PATH": str(bindir)})
    assert tc.home == home.resolve() and tc.version == "8.0.RC3" and tc.version_tuple == (8, 0)
    tc2 = find_toolchain({"ASCEND_TOOLKIT_HOME": str(home), "PATH": ""})
    assert tc2.bisheng == bindir / "bisheng"


def _compiled(auto_sync=True, **opts):
    x = np.zeros(8 * 256, np.float32)
    return asc.compile(asc.jit(vadd.vadd_kernel, auto_sync=auto_sync, **opts), (x, x, x, 256))


def test_build_commands_with_a_fake_toolchain(tmp_path, monkeypatch):
    home = fake_toolchain(tmp_path)
    monkeypatch.setenv("ASCEND_HOME_PATH", str(home))
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path / "cache"))
    ck = _compiled()
    art = NpuRuntime().prepare(ck.graph, ck.options)
    assert art.elf.startswith(b"\x7fELF") and art.name == "vadd_kernel"
    compile_call, link_call = _calls(tmp_path)
    assert Path(compile_call[0]).name == "bisheng"
    for flag in ("-c", "-x", "cce", "-O3", "--cce-aicore-arch=dav-c220-vec", "--cce-aicore-only", "-std=c++17",
                 "--cce-disable-kernel-global-attr-check", "-D__NPU_TILING__", "-DTILING_KEY_VAR=0", "-DASCENDC_DUMP=0"):
        assert flag in compile_call, flag
    assert f"-I{home / 'compiler' / 'tikcpp' / 'tikcfw'}" in compile_call
    assert f"-I{home / 'compiler' / 'tikcpp' / 'tikcfw' / 'impl'}" in compile_call
    assert "--cce-auto-sync" not in compile_call          # our scheduler owns the synchronisation
    src = Path(compile_call[compile_call.index("-c") + 4])
    assert src.name == "kernel.cce"
    assert link_call[1:5] == ["-m", "aicorelinux", "-Ttext=0", link_call[4]] and "-static" in link_call
    # the second prepare is a cache hit: no new tool calls
    NpuRuntime().prepare(ck.graph, ck.options)
    assert len(_calls(tmp_path)) == 2


def test_build_options(tmp_path):
    home = fake_toolchain(tmp_path)
    tc = find_toolchain({"ASCEND_HOME_PATH": str(home), "PATH": ""})
    cmd, _ = compile_commands(tc, Path("k.cce"), Path("k.o"), Path("k.elf"), {"auto_sync": False, "opt_level": 1})
    assert "--cce-auto-sync" in cmd and "-O1" in cmd
    with pytest.raises(asc.ToolchainError, match="opt_level"):
        compile_commands(tc, Path("k.cce"), Path("k.o"), Path("k.elf"), {"opt_level": 7})
    with pytest.raises(asc.ToolchainError, match="vector-only"):
        compile_commands(tc, Path("k.cce"), Path("k.o"), Path("k.elf"), {"kernel_type": "cube"})


def test_bisheng_failure_is_reported(tmp_path, monkeypatch):
    home = fake_toolchain(tmp_path, fail=True)
    monkeypatch.setenv("ASCEND_HOME_PATH", str(home))
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path / "cache"))
    ck = _compiled()
    with pytest.raises(asc.ToolchainError, match="something bisheng dislikes") as ei:
        NpuRuntime().prepare(ck.graph, ck.options)
    assert ei.value.loc is not None and ei.value.loc.short == "vadd.py:37"   # the user's asc.add line
    assert len(_calls(tmp_path)) == 2          # retried once without machine LICM, as pyasc does
    assert "-disable-machine-licm" in _calls(tmp_path)[1]


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
