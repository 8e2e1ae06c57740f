"""`python -m asc_trace` / `asc-trace`: info, cache list|clear, inspect, --help, and the exit codes."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fake_cann
from asc_trace.cli import main
from asc_trace.toolchain.cann_layout import ascendc_layout
from asc_trace.toolchain import cache as cache_mod
from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
from asc_trace.errors import ToolchainError

ROOT = Path(__file__).resolve().parents[1]
VADD = str(ROOT / "examples" / "vadd.py")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- --help and usage errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [[], ["info"], ["cache"], ["cache", "list"], ["cache", "clear"], ["inspect"]])
def test_help_for_each_command_names_the_exit_codes(capsys, argv):
    code, out, _ = run_cli(capsys, *argv, "--help")
    assert code == 0
    assert "usage: asc-trace" in out
    assert "exit codes:" in out and "4  info --require BACKEND" in out


def test_usage_errors_exit_2(capsys):
    assert run_cli(capsys)[0] == 2                                   # no command
    assert run_cli(capsys, "frobnicate")[0] == 2
    assert run_cli(capsys, "cache")[0] == 2                          # no action
    assert run_cli(capsys, "info", "--require", "gpu")[0] == 2       # not a backend
    code, _, err = run_cli(capsys, "inspect", "no_colons.py")
    assert code == 2 and "FILE.py::KERNEL" in err


def test_version(capsys):
    import asc_trace
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.strip() == f"asc_trace {asc_trace.__version__}"


# -- info -----------------------------------------------------------------------------------------------

def test_info_says_which_backends_run_here_and_why_not(capsys, monkeypatch):
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASC_TRACE_ASCENDC_HOME"):
        monkeypatch.delenv(var, raising=False)
    code, out, _ = run_cli(capsys, "info", "--json")
    assert code == 0
    facts = json.loads(out)
    import networkx
    import numpy
    assert facts["numpy"] == numpy.__version__ and facts["networkx"] == networkx.__version__
    b = facts["backends"]
    assert b["sim"]["usable"] and b["eager"]["usable"]
    assert b["cpp"]["usable"] == ((shutil.which("g++") or shutil.which("c++")) is not None)
    assert not b["npu"]["usable"]
    assert "no CANN toolkit found" in b["npu"]["why"]
    assert not b["cpu_debug"]["usable"] and "none of ASC_TRACE_ASCENDC_HOME" in b["cpu_debug"]["why"]
    assert facts["default_backend"]["resolves_to"] == "sim"             # conftest sets ASC_TRACE_BACKEND=sim
    code, text, _ = run_cli(capsys, "info")
    assert code == 0
    assert "backends (default ASC_TRACE_BACKEND=sim: runs on sim here)" in text
    assert "Ascend C headers  no Ascend C headers" in text
    assert f"cache  {facts['cache']['dir']}" in text


def test_info_require_exit_codes(capsys):
    assert run_cli(capsys, "info", "--require", "sim")[0] == 0
    assert run_cli(capsys, "info", "--require", "npu")[0] == 4


def test_info_reports_a_cann_toolkit_and_devkit_headers(capsys, monkeypatch, tmp_path):
    devkit = tmp_path / "asc-devkit"
    (devkit / "include").mkdir(parents=True)
    (devkit / "include" / "kernel_operator.h").write_text("// stand-in\n")
    (devkit / "impl" / "basic_api").mkdir(parents=True)
    monkeypatch.setenv("ASC_TRACE_ASCENDC_HOME", str(devkit))
    monkeypatch.setenv("ASCEND_HOME_PATH", str(fake_cann.cann9(tmp_path / "t", release="9.0.0")))
    code, out, _ = run_cli(capsys, "info", "--json")
    facts = json.loads(out)
    hdr, cann = facts["toolchain"]["ascendc_headers"], facts["toolchain"]["cann"]
    assert code == 0 and hdr["found"] and hdr["layout"] == "asc-devkit" and hdr["cpu_stub"] is None
    assert hdr["origin"] == "ASC_TRACE_ASCENDC_HOME"
    assert cann["found"] and cann["version"] == "9.0.0" and cann["bisheng"].endswith("ccec_compiler/bin/bisheng")
    assert cann["launch"].startswith("acl: libacl_rt.so exports aclrtBinaryLoadFromData")
    npu = facts["backends"]["npu"]
    assert not npu["usable"] and "torch-npu is not installed" in npu["why"] and "CANN" not in npu["why"]
    code, text, _ = run_cli(capsys, "info")
    assert "CANN / bisheng    CANN 9.0.0 at " in text


# -- Ascend C header discovery (for the cpu_debug backend) -------------------------------------------------

@pytest.mark.parametrize("generation", [8, 9])
def test_headers_from_a_cann_toolkit(tmp_path, generation):
    home = (fake_cann.cann8 if generation == 8 else fake_cann.cann9)(tmp_path)
    h = find_ascendc_headers({"ASCEND_HOME_PATH": str(home)})
    assert h.layout == "cann" and h.origin == "ASCEND_HOME_PATH" and h.root == home
    assert h.kernel_operator.is_file() and h.kernel_operator.parent in h.include_dirs
    assert h.include_dirs == ascendc_layout(home).includes         # the toolkit's own kernel build's folders
    assert h.cpu_stub is None
    (home / "tools" / "tikicpulib").mkdir(parents=True)
    assert find_ascendc_headers({"ASCEND_TOOLKIT_HOME": str(home)}).cpu_stub == home / "tools" / "tikicpulib"


def test_header_discovery_order_and_errors(tmp_path):
    home = fake_cann.cann9(tmp_path)
    devkit = tmp_path / "kit"
    (devkit / "include").mkdir(parents=True)
    (devkit / "include" / "kernel_operator.h").write_text("")
    h = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": str(devkit), "ASCEND_HOME_PATH": str(home)})
    assert h.layout == "asc-devkit" and h.include_dirs[:2] == (devkit, devkit / "include")
    # ASC_TRACE_ASCENDC_HOME may also name a CANN toolkit
    assert find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": str(home)}).layout == "cann"
    with pytest.raises(ToolchainError, match="none of ASC_TRACE_ASCENDC_HOME"):
        find_ascendc_headers({})
    with pytest.raises(ToolchainError, match=r"ASC_TRACE_ASCENDC_HOME=.*is not a directory; "
                                             r"ASCEND_HOME_PATH=.* has no kernel_operator.h"):
        find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": str(tmp_path / "nope"), "ASCEND_HOME_PATH": str(tmp_path)})


def test_headers_of_the_vendored_devkit():
    kit = ROOT.parent / "shared" / "vendor" / "asc-devkit"
    if not (kit / "include" / "kernel_operator.h").is_file():
        pytest.skip("the asc-devkit headers are not beside this checkout")
    h = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": str(kit)})
    assert kit / "impl" / "basic_api" in h.include_dirs and kit / "generated" in h.include_dirs


# -- cache list | clear --------------------------------------------------------------------------------------

def _fill_cache(root: Path, n: int) -> list[str]:
    c = cache_mod.CompileCache(root)
    keys = []
    for i in range(n):
        key = cache_mod.cache_key({"test": i})

        def build(d: Path, i=i) -> Path:
            (d / "kernel.so").write_bytes(b"x" * (1000 + i))
            return d / "kernel.so"
        c.get_or_build(key, "kernel.so", build, meta={"kernel": f"k{i}", "backend": "cpp"})
        keys.append(key)
    return keys


def test_cache_list_and_clear(capsys, monkeypatch, tmp_path):
    root = tmp_path / "cache"
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(root))
    code, out, _ = run_cli(capsys, "cache", "list")
    assert code == 0 and "0 entries" in out                      # no folder yet: still fine
    keys = _fill_cache(root, 3)
    (root / "notes.txt").write_text("the user's own file")       # not the cache's: must survive a clear
    code, out, _ = run_cli(capsys, "cache", "list")
    assert code == 0 and "3 entries" in out
    for i, key in enumerate(keys):
        assert key[:12] in out and f"k{i}" in out
    code, out, _ = run_cli(capsys, "cache", "list", "--json")
    listed = json.loads(out)
    assert sorted(e["key"] for e in listed) == sorted(keys)
    assert {e["kernel"] for e in listed} == {"k0", "k1", "k2"} and all(e["backend"] == "cpp" for e in listed)
    assert all(e["bytes"] >= 1000 for e in listed)
    code, out, _ = run_cli(capsys, "info", "--json")
    assert json.loads(out)["cache"]["entries"] == 3
    code, out, _ = run_cli(capsys, "cache", "clear")
    assert code == 0 and out.startswith("removed 3 entries")
    assert cache_mod.entries(root) == []
    assert (root / "notes.txt").read_text() == "the user's own file"
    assert sorted(p.name for p in root.iterdir()) == ["notes.txt"]
    # a cleared cache builds again
    assert cache_mod.CompileCache(root).lookup(keys[0], "kernel.so") is None


# -- inspect --------------------------------------------------------------------------------------------------

def test_inspect_the_demo_kernel_with_its_declared_examples(capsys):
    code, out, _ = run_cli(capsys, "inspect", f"{VADD}::vadd_kernel")
    assert code == 0
    sections = [line for line in out.splitlines() if line.startswith("-- ")]
    assert [s.split(" (")[0] for s in sections] == ["-- traced graph", "-- scheduled graph", "-- Ascend C",
                                                     "-- modeled profile"]
    assert "inputs (vadd.py: __asc_examples__): f32[16384], f32[16384], f32[16384], 2048; 8 core(s)" in out
    assert "set_flag MTE2_V, i0 % 2 @MTE2" in out                  # the seed's own flags, in the graph
    assert "AscendC::Add(" in out and "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>" in out
    assert "kernel vadd_kernel on 8 core(s), Ascend910B2 model" in out and "busy cycles" in out


USER_FILE = textwrap.dedent("""
    import numpy as np
    import asc_trace as asc

    @asc.jit
    def double_then_add(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
        xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + asc.get_block_idx() * n, n)
        yg.set_global_buffer(y + asc.get_block_idx() * n, n)
        a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
        b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, tile * 4, tile)
        for i in range(n // tile):
            asc.data_copy(a, xg[i * tile:], tile)
            asc.data_copy(b, yg[i * tile:], tile)
            asc.muls(a, a, 2.0, tile)
            asc.add(b, a, b, tile)
            asc.data_copy(yg[i * tile:], b, tile)

    def helper():
        return 1
""")


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "user_kernels.py"
    path.write_text(USER_FILE)
    return path


def test_inspect_with_args_keywords_options_and_a_trace(capsys, user_file, tmp_path):
    target = f"{user_file}::double_then_add"
    code, out, _ = run_cli(capsys, "inspect", target, "--args", "f16[4,512]", "f16[2048]:zeros", "n=512",
                           "tile=128", "-c", "4", "--show", "scheduled,profile")
    assert code == 0
    assert "double_then_add(x: gm f16*, y: gm f16*, n: int, tile: const = 128)" in out
    assert "f16[4,512], f16[2048], 512, 128; 4 core(s)" in out
    assert "-- traced graph" not in out and "-- Ascend C" not in out
    assert "auto: RAW" in out                             # the scheduler's events, each with its reason
    assert "kernel double_then_add on 4 core(s)" in out
    code, manual, _ = run_cli(capsys, "inspect", target, "--args", "f16[2048]", "f16[2048]", "512", "128", "-c", "4",
                              "--show", "scheduled", "-O", "auto_sync=False")
    assert code == 0 and "auto:" not in manual and "options {'auto_sync': False}" in manual
    trace = tmp_path / "t.json"
    code, out, _ = run_cli(capsys, "inspect", target, "--args", "f32[1024]", "f32[1024]", "256", "64", "-c", "4",
                           "--show", "source", "--chrome-trace", str(trace), "--platform", "Ascend910B4")
    assert code == 0 and "AscendC::Muls(" in out and "-- modeled profile" not in out
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["cat"] for e in events if e.get("ph") == "X"} >= {"MTE2", "V", "MTE3"}


@pytest.mark.parametrize("argv, code, message", [
    (["--args", "f32[1024]", "f32[1024]", "256"], 2, "missing: tile"),
    (["--args", "f32[1024]", "f32[1024]", "256", "tile=64", "7"], 2, "a positional value after keyword ones"),
    (["--args", "f32[]", "f32[1024]", "256", "64"], 2, "give the array's shape"),
    (["--args", "f64x[3]"], 2, "unknown dtype 'f64x'"),
    (["--args", "f32[1024]:noise"], 2, "unknown fill 'noise'"),
    (["--args", "f32[1024]", "f32[1024]", "256", "64", "--show", "graphs"], 2, "sections are traced"),
    (["--args", "f32[1024]", "f32[1024]", "256", "64", "-O", "speed=11"], 2, "KEY one of auto_sync"),
    ([], 2, "no inputs for double_then_add: pass --args"),
    (["--args", "f32[40]", "f32[40]", "40", "10"], 1, "AlignmentError"),        # 10 x 4 B copies
    (["--args", "f16[1024]", "f32[1024]", "256", "64"], 1, "DTypeError: operand dtypes of asc.data_copy differ"),
])
def test_inspect_errors_and_exit_codes(capsys, user_file, argv, code, message):
    got, out, err = run_cli(capsys, "inspect", f"{user_file}::double_then_add", *argv)
    assert (got, message in err) == (code, True), err


def test_inspect_load_errors_exit_3(capsys, user_file, tmp_path):
    code, _, err = run_cli(capsys, "inspect", f"{user_file}::nope")
    assert code == 3 and "its @asc.jit kernels: double_then_add" in err
    code, _, err = run_cli(capsys, "inspect", f"{tmp_path / 'missing.py'}::k")
    assert code == 3 and "no such file" in err
    broken = tmp_path / "broken.py"
    broken.write_text("import asc_trace as asc\nraise RuntimeError('boom at import')\n")
    code, _, err = run_cli(capsys, "inspect", f"{broken}::k")
    assert code == 3 and "boom at import" in err
    bad_examples = tmp_path / "bad_examples.py"
    bad_examples.write_text(USER_FILE + "\n__asc_examples__ = [1, 2]\n")
    code, _, err = run_cli(capsys, "inspect", f"{bad_examples}::double_then_add")
    assert code == 3 and "must be a dict" in err


def test_python_dash_m_and_the_console_script(tmp_path):
    env = {**os.environ, "ASC_TRACE_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-m", "asc_trace", "info", "--require", "npu"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 4 and "npu        no" in out.stdout
    script = shutil.which("asc-trace", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("asc-trace is not installed next to this Python (pip install -e . installs it)")
    out = subprocess.run([script, "inspect", f"{VADD}::vadd_kernel", "--show", "profile"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "kernel vadd_kernel on 8 core(s)" in out.stdout
