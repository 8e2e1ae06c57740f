"""pyasc's own reference-checked kernels (its tutorials, test kernels and generalization tests) run with
only their imports changed, on sim, cpp and cpu_debug, each checked by the file's own NumPy / torch
assertion.

Nothing of pyasc is copied into this repository: the files are read from a pyasc checkout
(ASC_TRACE_PYASC_SRC, default ../pyasc-src or /work/pyasc-src; see docs/pyasc-compat.md for how to get
one) and rewritten by the census's import rewrite (tools/pyasc_compat/sources.py), line for line, into a
temporary folder, where pytest runs them with the census's stand-ins for pyasc's fixtures.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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

# (file, backends): the files that run unchanged but for the import. cpu_debug builds every kernel against
# the vendor's headers (about a minute each), so it runs the files whose kernels differ in kind.
FILES = [
    ("python/test/kernels/insert_sync/test_vadd.py", ("sim", "cpp", "cpu_debug")),        # LocalTensorAuto
    ("python/test/kernels/insert_sync/test_vadd_scalar.py", ("sim", "cpp")),              # + get_value
    ("python/test/kernels/test_vadd.py", ("sim", "cpp")),
    ("python/tutorials/02_add_framework/add_framework.py", ("sim", "cpp")),
]


def _run(tmp_path: Path, rel: str, backend: str, text: str | None = None) -> subprocess.CompletedProcess:
    dest = tmp_path / Path(rel).name
    dest.write_text(text if text is not None else rewrite((SRC / rel).read_text(), "reference"))
    glue = ROOT / "tools/pyasc_compat/glue"
    shutil.copy(glue / "conftest.py", tmp_path / "conftest.py")
    shutil.copy(glue / "pyasc_census_glue.py", tmp_path / "pyasc_census_glue.py")
    env = dict(os.environ, ASC_TRACE_BACKEND=backend,
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tools"), str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    # a tutorial is a script (its __main__ runs the check on the Model backend); the rest are pytest modules
    cmd = [str(dest)] if not dest.name.startswith("test_") else ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                                                                str(dest)]
    return subprocess.run([sys.executable, *cmd], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)


@pytest.mark.parametrize("rel, backend", [(f, b) for f, bs in FILES for b in bs],
                         ids=[f"{Path(f).stem}-{b}" for f, bs in FILES for b in bs])
def test_pyasc_reference_file_passes(tmp_path, rel, backend):
    if backend == "cpu_debug" and not os.environ.get("ASC_TRACE_ASCENDC_HOME"):
        pytest.skip("cpu_debug needs the Ascend C headers (ASC_TRACE_ASCENDC_HOME)")
    r = _run(tmp_path, rel, backend)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    if Path(rel).name.startswith("test_"):
        assert " passed" in r.stdout and "skipped" not in r.stdout.splitlines()[-1], r.stdout[-500:]


def test_softmax_without_a_temp_buffer_or_a_tpipe_is_refused_as_the_vendor_refuses_it(tmp_path):
    """pyasc's insert_sync/test_softmax.py calls adv.softmax with no temp buffer in a kernel with no TPipe: the
    vendor's SoftMax then takes its scratch from a TPipe's free UB that does not exist and its API refuses the call
    (cpu_debug: "params.stackSize must > 0"); asc_trace refuses it at the call on every backend (adv/_record.py)."""
    r = _run(tmp_path, "python/test/kernels/insert_sync/test_softmax.py", "sim")
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "no asc.TPipe() was created before this call" in out, out[-3000:]


def test_tiles_past_the_tensor_stay_refused(tmp_path):
    """pyasc's test_vadd_tiling (struct kernel parameters) launches 16 cores of 512-element tiles over 1000
    elements: the struct parameters trace, and the copy past the arrays is refused, as issue 21 asks."""
    r = _run(tmp_path, "python/test/generalization/basic/test_vadd_tiling.py", "sim")
    assert r.returncode != 0 and "OutOfBoundsError" in r.stdout and "touches elements" in r.stdout, r.stdout[-2000:]


def test_a_wrong_answer_fails_here(tmp_path):
    """The harness can fail: the same file with its reference changed must not pass."""
    rel = "python/test/kernels/insert_sync/test_vadd_scalar.py"
    text = rewrite((SRC / rel).read_text(), "reference")
    assert "x + y[0]" in text
    r = _run(tmp_path, rel, "sim", text.replace("x + y[0]", "x + y[1]"))
    assert r.returncode != 0 and "failed" in r.stdout
