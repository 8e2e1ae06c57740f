"""The package installs anywhere: a wheel built from a copy of the sources, installed with its
dependencies in a fresh virtualenv outside the repository, imports, runs the vadd example on the
simulator and (with g++) the cpp backend from the installed C++ header, and has the console script.
About 10-20 s: the wheel builds without build isolation where this env can, and numpy / networkx
come from pip's cache."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]


def _run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert out.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{out.stdout}\n{out.stderr}"
    return out.stdout


def _can_build_here() -> bool:
    """This env's setuptools builds wheels by itself (70.1 and later, or with the `wheel` package)."""
    try:
        import setuptools
    except ImportError:
        return False
    version = tuple(int(p) for p in setuptools.__version__.split(".")[:2] if p.isdigit())
    return version >= (70, 1) or importlib.util.find_spec("wheel") is not None


def test_wheel_in_a_fresh_virtualenv(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "asc_trace", src / "asc_trace", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    # without isolation when this env can build (fast, offline); else pip fetches setuptools as for any user
    isolation = ["--no-build-isolation"] if _can_build_here() else []
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *isolation, "-w", tmp_path / "dist", src])
    (wheel,) = (tmp_path / "dist").glob("asc_trace-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry_points = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
        requires = [ln for ln in z.read(next(n for n in names if n.endswith("METADATA"))).decode().splitlines()
                    if ln.startswith("Requires-Dist:") and "extra ==" not in ln]
    assert "asc_trace/toolchain/include/kernel_operator.h" in names
    assert "asc-trace = asc_trace.cli:main" in entry_points
    assert sorted(r.split()[1].split(">")[0] for r in requires) == ["networkx", "numpy"]   # torch stays optional

    venv = tmp_path / "fresh"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    py = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", wheel])

    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy(ROOT / "examples" / "vadd.py", work / "vadd.py")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ASC_TRACE_BACKEND")}
    env["ASC_TRACE_CACHE_DIR"] = str(tmp_path / "cache")
    where = _run([py, "-c", "import sys, asc_trace; print(asc_trace.__file__); print('torch' in sys.modules)"],
                 cwd=work, env=env).split()
    assert where[0].startswith(str(venv)) and where[1] == "False"     # the installed copy; torch not imported
    demo = _run([py, "vadd.py"], cwd=work, env=env)
    assert "1. run: backend sim (asked for 'auto')" in demo and "z == x + y exactly: True" in demo
    if shutil.which("g++"):
        assert "built with g++ against asc_trace's model of the API and run: z == x + y exactly: True" in demo
    facts = json.loads(_run([venv / "bin" / "asc-trace", "info", "--json"], cwd=work, env=env))
    assert facts["asc_trace"]["path"].startswith(str(venv)) and facts["torch"] is None
    assert facts["backends"]["sim"]["usable"]
    inspected = _run([venv / "bin" / "asc-trace", "inspect", "vadd.py::vadd_kernel", "--show", "source,profile"],
                     cwd=work, env=env)
    assert "AscendC::Add(" in inspected and "kernel vadd_kernel on 8 core(s)" in inspected


def test_no_virtualenv_link_is_tracked():
    """A helper worktree's `.venv` symlink once got committed, and checking it out replaced the checkout's
    virtualenv (git treats ignored files as expendable): the ignore rules must cover links as well as folders."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(["git", "ls-files", "--", ".venv", ".venv-pyasc"], cwd=ROOT, capture_output=True,
                             text=True).stdout.split()
    assert tracked == []
    ignored = subprocess.run(["git", "check-ignore", "--no-index", ".venv", ".venv-pyasc"], cwd=ROOT,
                             capture_output=True, text=True).stdout.split()
    assert ignored == [".venv", ".venv-pyasc"]
