"""Vector cores writing the same GM elements with nothing ordering them (runtime/equal_writes.py): the memory
ends up with whichever write lands last, so the launch is defined when every write of those bytes carries the
same bytes (an AscTraceWarning at the second writer, as for two cube cores: test_cross_core_equal_writes.py),
and a RaceError when two of them differ, or when a core reads what another writes. The same verdict on every
backend; a refused launch leaves the outputs as they were."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, every_backend

N = 64
BACKENDS = every_backend()


def _gm(addr):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr)
    return g


def scaled_copy(x: asc.GlobalAddress, z: asc.GlobalAddress, stride: int, again: asc.ConstExpr[bool]):
    """Each core writes 2 * x[block * stride : + N] to z[0:N]; `again`: first 3 * the core's own part, then
    the same 2 * x as the others (its first write differs from the other cores' writes)."""
    g, h = _gm(x), _gm(z)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(q, 2, N * 4)
    a = q.alloc_tensor(asc.float32)
    asc.data_copy(a, g[asc.get_block_idx() * stride:], N)
    if again:
        b = q.alloc_tensor(asc.float32)
        asc.muls(b, a, 3.0, N)
        asc.data_copy(h, b, N)      # MARK-first-store
        q.free_tensor(b)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.muls(a, a, 2.0, N)
    asc.data_copy(h, a, N)  # MARK-store
    q.free_tensor(a)


def _run(backend, stride, again=False, cores=4):
    x = np.arange(N * cores, dtype=np.float32) + 1
    z = np.full(N, -7.0, np.float32)
    asc.jit(scaled_copy, backend=backend)[cores](x, z, stride, again)
    return x, z


@pytest.mark.parametrize("backend", BACKENDS)
def test_equal_bytes_from_every_core_warn_and_run(backend):
    with pytest.warns(asc.AscTraceWarning, match=r"cores 0 and 1 both write elements \[0, 64\) of global memory "
                                                 r"argument 'z'.*identical bytes") as rec:
        x, z = _run(backend, 0)
    np.testing.assert_array_equal(z, 2 * x[:N])
    assert any("MARK-store" in open(w.filename).read().splitlines()[w.lineno - 1] for w in rec)


@pytest.mark.parametrize("backend", BACKENDS)
def test_different_bytes_are_a_race_and_leave_the_output(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # refused, not warned about
        with pytest.raises(asc.RaceError, match=r"cores 0 and 1 both write element 0 of global memory argument "
                                                r"'z' and the writes leave different bytes") as ei:
            _run(backend, N)
    assert_points_at(ei.value, "MARK-store", __file__)


@pytest.mark.parametrize("backend", BACKENDS)
def test_refused_launch_leaves_the_output_as_it_was(backend):
    x = np.arange(N * 4, dtype=np.float32) + 1
    z = np.full(N, -7.0, np.float32)
    with pytest.raises(asc.RaceError, match="different bytes"):
        asc.jit(scaled_copy, backend=backend)[4](x, z, N, False)
    assert (z == -7.0).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_core_writing_twice_is_judged_by_every_write(backend):
    """Core c writes 3 * x then 2 * x to z (x the same for all cores): the final bytes agree, but another core's
    2 * x may land before core c's 3 * x, leaving 3 * x: a race."""
    with pytest.raises(asc.RaceError, match="different bytes"):
        _run(backend, 0, again=True)

