"""The emitted schedule is a function of the kernel alone: two fresh processes, with different hash
seeds and different compile histories before it, emit byte-identical source. (cube_bias_relu's cube
flag ids once depended on object addresses: graph/cube_sync.py keyed top-level flags by id(edge), and
graph/sync_ids.py's interference pairs by id() of plans that could be freed and their ids reused.)"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import sys
sys.path[:0] = [{tests!r}, {examples!r}]
import numpy as np
import asc_trace as asc
import suite_kernels as S
if sys.argv[1] == "history":
    # other kernels first: a different heap, other memo caches filled
    junk = [object() for _ in range(5000)]
    S.extra_kernels.__wrapped__()
    import vadd_tque
    x = np.zeros(8 * 2048, np.float32)
    asc.compile(vadd_tque.vadd_kernel, (x, x, x, 2048, 128))
    del junk[::3]
x = np.arange(256, dtype=np.float32)
h = np.zeros(2048, np.float16)
w, o = np.zeros(1024, np.float32), np.zeros(2048, np.float32)
for k, args in ((S.cube_bias_relu, (h, h, x, h, 2)), (S.mix_matmul_adds, (h, h, w, o, 2)),
                (S.own_pipe_debug, (x, np.zeros(256, np.float32), 3))):
    sys.stdout.write("=== " + k.__name__ + "\n" + asc.compile(k, args).source)
"""


def _emitted(mode: str, seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    script = SCRIPT.format(tests=str(ROOT / "tests"), examples=str(ROOT / "examples"))
    proc = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_same_kernel_same_source_in_two_fresh_processes():
    first = _emitted("alone", "1")
    second = _emitted("history", "2")
    assert "SetFlag<AscendC::HardEvent::MTE2_MTE1>" in first       # the cube flags are there to compare
    assert first == second
