"""The proof credits a TQue's own events across a runtime loop: a queue's buffers are interchangeable, and a
buffer free before its first use has no pending access (graph/sync_proof_symmetry.py, sync_proof.que_op).
Without that, every TQue kernel with a loop followed by a tail got flags lifted around the queue's events."""
import sys
from pathlib import Path

import numpy as np
import pytest

import asc_trace as asc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import cann_elementwise as cann  # noqa: E402


@pytest.mark.parametrize("name", ["sigmoid", "gelu", "maximum"])
def test_tque_loop_then_tail_needs_no_flags_of_ours(name):
    args = cann.launch_args(name, 48 * 16384 + 256, np.float32, data=True)
    ck = asc.compile(cann.KERNELS[name][0], tuple(args))
    assert "SetFlag" not in ck.source and "PIPE_ALL" not in ck.source, ck.source
    for backend in ("sim", "eager"):
        got, want = cann.run(name, backend=backend)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
