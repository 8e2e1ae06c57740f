"""Issue 25: command-line mistakes of `asc-trace inspect` are one line on stderr and exit 2, before anything
runs. Each case here exited 1 with a kernel-error location (`<frozen runpy>`), or was silently ignored."""
from __future__ import annotations

from pathlib import Path

import pytest

from asc_trace.cli import main

ROOT = Path(__file__).resolve().parents[1]
VADD = str(ROOT / "examples" / "vadd.py") + "::vadd_kernel"
ARRAYS = ["f32[2048]", "f32[2048]", "f32[2048]"]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra, message", [
    (["--args", *ARRAYS, "nan"], "'block_length' is declared int but got float nan"),
    (["--args", *ARRAYS, "1e999"], "'block_length' is declared int but got float inf"),
    (["--args", *ARRAYS, "1.5"], "'block_length' is declared int but got float 1.5"),
    (["--args", *ARRAYS, str(10 ** 23)], "does not fit a 64-bit integer"),
    (["--args", *ARRAYS[:2], "256", "256"], "'z' must be a NumPy array"),
    (["-O", "auto_sync=maybe"], "-O: asc.jit option auto_sync='maybe' is not accepted"),
    (["-O", "multi_buffer=lots"], "-O: asc.jit option multi_buffer"),
    (["-O", "opt_level=9"], "-O: asc.jit option opt_level"),
    (["-O", "backend=sim"], "no backend runs the kernel here"),
    (["--chrome-trace", ""], "--chrome-trace '': give a file path"),
    (["--chrome-trace", "  "], "give a file path"),
    # a folder the mode bits call writable (root) that refuses files: found before the kernel runs
    pytest.param(["--chrome-trace", "/proc/asc_trace_trace.json"], "--chrome-trace /proc/asc_trace_trace.json:",
                 marks=pytest.mark.skipif(not Path("/proc").is_dir(), reason="no /proc here")),
])
def test_inspect_mistakes_are_one_line_and_exit_2(capsys, extra, message):
    code, out, err = run_cli(capsys, "inspect", VADD, "--show", "traced", *extra)
    assert code == 2, (out, err)
    assert message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "-->" not in err, err
    assert out == ""                 # refused before anything ran


def test_inspect_of_a_path_that_is_not_a_file_says_what_it_is(capsys, tmp_path):
    code, _, err = run_cli(capsys, "inspect", f"{tmp_path}::k")
    assert code == 3 and "is not a Python file (a folder)" in err
    code, _, err = run_cli(capsys, "inspect", f"{tmp_path / 'missing.py'}::k")
    assert code == 3 and "no such file" in err


def test_inspect_with_fitting_args_and_options_still_runs(capsys, tmp_path):
    trace = tmp_path / "t.json"
    code, out, err = run_cli(capsys, "inspect", VADD, "--show", "traced", "--args", *ARRAYS, "256", "-c", "8",
                             "-O", "auto_sync=True", "--chrome-trace", str(trace))
    assert code == 0, err
    assert "; 8 core(s)" in out and trace.stat().st_size > 0


@pytest.mark.parametrize("argv", [["--bogus"], ["-x", "info"], ["--bogus", "inspect", VADD]])
def test_an_unknown_option_before_the_command_is_named(capsys, argv):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and f"unknown option {argv[0]!r}" in err and out == ""
    assert len(err.strip().splitlines()) == 1


def test_help_and_version_still_work(capsys):
    assert main(["--version"]) == 0 and "asc_trace" in capsys.readouterr().out
    assert main(["--help"]) == 0 and "COMMAND" in capsys.readouterr().out


@pytest.mark.parametrize("target, message", [
    (str(ROOT / "examples" / "vadd.py") + "::", "the kernel name is empty"),
    ("::vadd_kernel", "the file is missing"),
    (str(ROOT / "examples" / "vadd.py") + "::vadd kernel", "'vadd kernel' is not a Python name"),
])
def test_a_malformed_kernel_target_is_a_command_line_mistake(capsys, target, message):
    # `f.py::` exited 3 ("has no ''"), the code of a file that lacks a kernel: the target itself is malformed
    code, out, err = run_cli(capsys, "inspect", target, "--show", "traced")
    assert code == 2, (out, err)
    assert message in err and "FILE.py::KERNEL" in err, err
    assert len(err.strip().splitlines()) == 1 and out == ""


def test_a_well_formed_name_the_file_lacks_still_exits_3(capsys):
    code, _, err = run_cli(capsys, "inspect", str(ROOT / "examples" / "vadd.py") + "::no_such_kernel")
    assert code == 3 and "has no 'no_such_kernel'" in err and "vadd_kernel" in err
