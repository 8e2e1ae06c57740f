"""Which Python `range` is a runtime loop, and which loop variables are carried (adversary rounds r10, r13).

- A kernel whose source cannot be read (made by exec, `python -c`, a REPL): only a `range` whose result
  feeds a `for` statement is a runtime loop; `sum(1.0 for _ in range(4))` and `[i for i in range(4)]`
  stay Python (the bytecode says which, proxies/loops.py), so every backend computes 44, not 11.
- A loop variable re-bound by a later loop's header, or a name local to a nested function, is not
  carried by an earlier runtime loop (proxies/python_state.py): the kernel runs instead of being
  refused; a value that really is carried is still refused.
"""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc

L = 64

_NO_SOURCE = '''
@asc.jit
def k(z: asc.GlobalAddress, n: int):
    zg = asc.GlobalTensor(); zg.set_global_buffer(z, 64)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
    s = sum(1.0 for _ in range(4))
    parts = [i for i in range(4)]
    asc.duplicate(t, s + 10 * len(parts), 64)
    for i in range(n): asc.adds(t, t, float(len(list(range(3)))), 64)
    asc.data_copy(zg, t, 64)
'''


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_a_kernel_without_source_keeps_comprehension_ranges_python(backend):
    ns = {"asc": asc}
    exec(compile(_NO_SOURCE, "<no source>", "exec"), ns)
    z = np.zeros(L, np.float32)
    asc.jit(ns["k"], backend=backend)[1](z, 2)
    # 4 + 40, then two runtime iterations adding len(range(3)) = 3 (a one-line body: its inner
    # range(3) is on the header's line, but it is not the loop's iterable)
    np.testing.assert_array_equal(z, np.full(L, 50.0, np.float32))


@asc.jit
def _reused_loop_vars(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, m: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    asc.data_copy(t, xg, L)
    for i in range(n):
        for j in range(m):
            asc.adds(t, t, 1.0, L)

    def tail():
        for j in range(m):           # j is tail's own local
            asc.muls(t, t, 2.0, L)
    asc.cond(n > 1, tail, lambda: None)
    for j in range(m):               # the header binds j before the body reads it
        asc.data_copy(zg[j * L:], t, L)
    total = [j for j in range(3)]    # a comprehension's own j
    asc.adds(t, t, float(len(total)), L)
    asc.data_copy(zg[m * L:], t, L)


def _reused_reference(x: np.ndarray, n: int, m: int) -> np.ndarray:
    t = x[:L] + n * m
    if n > 1:
        t = t * 2.0 ** m
    z = np.zeros((m + 1) * L, np.float32)
    for j in range(m):
        z[j * L:(j + 1) * L] = t
    z[m * L:] = t + 3
    return z


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
@pytest.mark.parametrize("n,m", [(2, 3), (0, 2), (3, 1)])
def test_loop_variables_rebound_by_later_headers_are_not_carried(backend, n, m):
    x = np.arange(L, dtype=np.float32) % 7
    z = np.zeros((m + 1) * L, np.float32)
    asc.jit(_reused_loop_vars, backend=backend)[1](x, z, n, m)
    np.testing.assert_array_equal(z, _reused_reference(x, n, m))


def test_a_value_carried_next_to_reused_loop_variables_is_still_refused():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, m: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
        asc.data_copy(t, xg, L)
        c = 1.0
        for i in range(n):  # MARK
            for j in range(m):
                c = c + 1.0             # really carried: one traced pass's value, not n * m
        for j in range(m):
            asc.adds(t, t, c, L)
            asc.data_copy(zg[j * L:], t, L)

    x = np.ones(L, np.float32)
    for backend in ("sim", "eager"):
        with pytest.raises(asc.TraceError, match="`c` is assigned inside this runtime loop"):
            asc.jit(k, backend=backend)[1](x, np.zeros(4 * L, np.float32), 2, 2)
