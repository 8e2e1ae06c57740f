"""pyasc's own API unit tests of the basic vector ops (python/test/unit/language/basic/test_vector_*.py),
run with only their imports changed: every kernel traces and lowers, and the emitted Ascend C compiles
against the real headers of both CANN generations where they are configured. The kernels that use a
name asc_trace does not provide yet are listed here and must stay refused by that name (a listed kernel
that starts passing fails the test, so the list shrinks as names are added).

Nothing of pyasc is copied into this repository: the files are read from a pyasc checkout
(ASC_TRACE_PYASC_SRC, default ../pyasc-src or /work/pyasc-src) and rewritten by the census's import
rewrite (tools/pyasc_compat/sources.py), line for line, into a temporary folder, where pytest runs
them with a stand-in for pyasc's launcher mock that compiles each launch instead.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import headers_if_configured

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from pyasc_compat.sources import rewrite  # noqa: E402


def _checkout() -> Path | None:
    for cand in (os.environ.get("ASC_TRACE_PYASC_SRC"), ROOT.parent / "pyasc-src", "/work/pyasc-src"):
        if cand and (Path(cand) / "python/asc").is_dir():
            return Path(cand)
    return None


SRC = _checkout()
pytestmark = pytest.mark.skipif(SRC is None, reason="no pyasc checkout (set ASC_TRACE_PYASC_SRC)")
UNIT = "python/test/unit/language/basic"

# file -> {pyasc test: the asc name that refuses its kernel}; every other test of the file must pass
FILES: dict[str, dict[str, str]] = {
    "test_vector_binary.py": {
        "test_bilinear_interpolation_kernel": "bilinear_interpolation"},
    "test_vector_unary.py": {},
    "test_vector_scalar.py": {},
    "test_scalar.py": {},
}

# pyasc's launcher mock: here each launch is traced and lowered, its source kept for the header check
_CONFTEST = '''
import json, os
import pytest
import asc_trace.runtime.config as config
from asc_trace import jit_function
from asc_trace.runtime.args import bind_args

OUT = os.environ["ASC_PORTED_OUT"]
_count = [0]


def _compile_only(self, core_num, stream, args, kwargs, loc):
    _count[0] += 1
    bound = bind_args(self.name, self.specs, args, kwargs, loc, device_ok=True)
    ck = self.compiled(bound.signature)
    with open(OUT, "a") as f:
        f.write(json.dumps({"name": f"{self.fn.__qualname__}_{_count[0]}", "source": ck.source}) + "\\n")


jit_function.JitFunction.launch = _compile_only


class _Counter:
    @property
    def call_count(self):
        return _count[0]


@pytest.fixture
def mock_launcher_run():
    _count[0] = 0
    return _Counter()
'''


def _run(tmp_path: Path, name: str) -> tuple[dict[str, str], list[Kernel], str]:
    (tmp_path / name).write_text(rewrite((SRC / UNIT / name).read_text(), "unit"))
    (tmp_path / "conftest.py").write_text(_CONFTEST)
    out, report = tmp_path / "sources.jsonl", tmp_path / "report.json"
    env = dict(os.environ, ASC_PORTED_OUT=str(out), COLUMNS="100000",     # untruncated summary lines
               PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-rfE", "--tb=line", name], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    outcomes: dict[str, str] = {}
    for line in proc.stdout.splitlines():          # "PASSED x.py::t" is not printed with -q: read the failures
        if line.startswith("FAILED "):
            test, _, why = line[len("FAILED "):].partition(" - ")
            outcomes[test.split("::")[-1]] = why
    kernels = [Kernel(**json.loads(ln)) for ln in out.read_text().splitlines()] if out.exists() else []
    report.write_text(proc.stdout)
    return outcomes, kernels, proc.stdout


@pytest.mark.parametrize("name", sorted(FILES))
def test_pyasc_unit_file(tmp_path, name):
    failed, kernels, stdout = _run(tmp_path, name)
    expected = FILES[name]
    assert set(failed) == set(expected), f"refused: {failed}\nexpected: {expected}\n{stdout[-3000:]}"
    for test, asc_name in expected.items():
        assert asc_name in failed[test], (test, failed[test])
    assert " passed" in stdout.splitlines()[-1]
    assert len(kernels) >= 1
    import lane     # here, not at the top: that part of the file also runs in pyasc's child process
    if headers_if_configured() is not None and not lane.FAST and kernels:     # g++: `make test` only
        errors = check_kernels(kernels)
        assert not errors, "\n\n".join(str(e) for e in errors[:3])
    if os.environ.get("ASC_TRACE_CANN81_HOME") and kernels:
        tree = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": os.environ["ASC_TRACE_CANN81_HOME"]})
        errors = check_kernels(kernels, tree)
        assert not errors, "\n\n".join(str(e) for e in errors[:3])
