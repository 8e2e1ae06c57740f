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
