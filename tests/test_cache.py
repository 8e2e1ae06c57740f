"""The disk compile cache across processes: a hit, a concurrent build, a corrupted entry; and the
compilation dumps (ASC_TRACE_DUMP_PATH)."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

import asc_trace as asc
import vadd

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent("""
    import sys, time, numpy as np
    sys.path.insert(0, {examples!r})
    import asc_trace as asc
    from asc_trace.runtime import get_runtime
    import vadd
    start_at = float(sys.argv[1])
    while time.time() < start_at:
        time.sleep(0.001)
    x = np.arange(8 * 256, dtype=np.float32)
    z = np.zeros_like(x)
    ck = asc.compile(asc.jit(vadd.vadd_kernel, backend="cpp"), (x, x, z, 256), core_num=8)
    ck(x, x, z, 256)
    assert np.array_equal(z, x + x)
    art = ck.artifact(get_runtime("cpp"))
    print("BUILT" if art.built else "HIT", art.path)
""").format(examples=str(ROOT / "examples"))


def _run(cache: Path, n: int = 1, delay: float = 0.0) -> list[tuple[str, str]]:
    import time
    env = {**os.environ, "ASC_TRACE_CACHE_DIR": str(cache)}
    start = time.time() + delay
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT, str(start)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(n)]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
        out.append(tuple(stdout.split()))
    return out


def test_hit_in_a_new_process(tmp_path):
    first = _run(tmp_path)
    second = _run(tmp_path)
    assert first[0][0] == "BUILT" and second[0][0] == "HIT"
    assert first[0][1] == second[0][1]


def test_concurrent_builds_do_not_corrupt(tmp_path):
    results = _run(tmp_path, n=3, delay=1.5)
    kinds = sorted(r[0] for r in results)
    assert kinds.count("BUILT") == 1 and kinds.count("HIT") == 2, kinds
    assert len({r[1] for r in results}) == 1


def test_corrupted_entry_is_rebuilt(tmp_path):
    (kind, path), = _run(tmp_path)
    so = Path(path)
    so.write_bytes(so.read_bytes()[:100])          # truncated
    (kind2, path2), = _run(tmp_path)
    assert kind2 == "BUILT" and Path(path2).stat().st_size > 100
    meta = so.parent / "meta.json"
    meta.write_text("{not json")
    (kind3, _), = _run(tmp_path)
    assert kind3 == "BUILT"
    assert json.loads(meta.read_text())["sha256"]


def test_always_compile_bypasses_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path))
    from asc_trace.runtime import get_runtime
    x = np.arange(8 * 256, dtype=np.float32)
    z = np.zeros_like(x)
    rt = get_runtime("cpp")
    k = asc.jit(vadd.vadd_kernel, backend="cpp")
    assert asc.compile(k, (x, x, z, 256)).artifact(rt).built
    assert not asc.compile(asc.jit(vadd.vadd_kernel, backend="cpp", opt_level=3), (x, x, z, 256)).artifact(rt).built
    assert asc.compile(asc.jit(k, always_compile=True), (x, x, z, 256)).artifact(rt).built


def test_dump_path(tmp_path, monkeypatch):
    monkeypatch.setenv("ASC_TRACE_DUMP_PATH", str(tmp_path))
    x = np.zeros(8 * 256, np.float32)
    asc.compile(asc.jit(vadd.vadd_kernel, always_compile=True), (x, x, x, 256))
    dumps = list(tmp_path.iterdir())
    assert len(dumps) == 1 and dumps[0].name.startswith("vadd_kernel_")
    files = {p.name: p.read_text() for p in dumps[0].iterdir()}
    assert set(files) == {"graph.txt", "scheduled.txt", "kernel.cpp"}
    assert files["graph.txt"].startswith("kernel vadd_kernel(")
    assert '#include "kernel_operator.h"' in files["kernel.cpp"]
