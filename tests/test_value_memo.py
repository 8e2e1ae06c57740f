"""A transcendental computed once per value within a warm launch (runtime/value_memo.py, issue 26):
the memo hands out a remembered result only for the same input bits, so a warm launch gives the bytes of
the slow path (program order, no batch, no replay) whatever its data, NaN payloads and signed zeros
included; inputs that can change after a call are copied; nothing is kept past its limit."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.graph.ops import REGISTRY
from asc_trace.runtime import value_memo
from test_sim_replay import _slow
from test_sim_shortcuts import _bits, _nasty, exp_rows

EXP, LN = REGISTRY["exp"].ref, REGISTRY["ln"].ref


@pytest.fixture
def hits(monkeypatch):
    """The memo's hits of every tape run, in order (and every call of any size memoised)."""
    seen: list[int] = []
    end = value_memo.end

    def spy(prev):
        seen.append(value_memo.current().hits)
        end(prev)
    monkeypatch.setattr(value_memo, "end", spy)
    monkeypatch.setattr(value_memo, "MIN_ELEMENTS", 1)
    return seen


@pytest.mark.parametrize("cores,rows,tiles,scale,nan_rate", [
    (8, 1, 8, 1.0, 0.0), (3, 5, 3, 0.5, 0.0), (2, 4, 2, -3.0, 0.1), (5, 2, 5, 1.0, 0.02), (4, 3, 0, 1.0, 0.0)])
def test_warm_launches_taking_remembered_exps_give_the_bytes_of_the_slow_path(hits, cores, rows, tiles, scale,
                                                                                nan_rate):
    rng = np.random.default_rng(cores * 7 + rows * 3 + tiles)
    n = cores * rows * tiles * 64 + 8
    for launch in range(2):
        x = _nasty(rng, (n,), nan_rate=nan_rate)
        z = np.full(n, 7.0, np.float32)
        k = asc.jit(exp_rows, backend="sim")
        k[cores](x, z, rows, tiles, scale)     # checked, then recorded (no memo: not a tape run)
        k[cores](x, z, rows, tiles, scale)     # the tape: the output pass's exps are the sum pass's
        want = np.full(n, 7.0, np.float32)
        with np.errstate(all="ignore"):
            _slow(exp_rows, (x, want, rows, tiles, scale), cores)
        assert np.array_equal(_bits(z), _bits(want)), launch
        assert hits and (hits[-1] > 0) == (tiles > 0), hits


def test_the_softmax_example_computes_each_exp_once_on_a_warm_launch(monkeypatch):
    import softmax_rows as ex
    seen: list[int] = []
    end = value_memo.end
    monkeypatch.setattr(value_memo, "end", lambda prev: (seen.append(value_memo.current().hits), end(prev)))
    x = np.random.default_rng(5).standard_normal((8 * 4, 2048)).astype(np.float32)
    z, want = np.zeros_like(x), np.zeros_like(x)
    k = asc.jit(ex.softmax_rows, backend="sim")
    k[8](x, z, 4, 8)
    k[8](x, z, 4, 8)
    _slow(ex.softmax_rows, (x, want, 4, 8), 8)
    assert seen and seen[-1] > 0 and np.array_equal(_bits(z), _bits(want))


@pytest.mark.parametrize("fn", [EXP, LN])
def test_the_memo_tells_inputs_apart_by_their_bits(fn):
    rng = np.random.default_rng(2)
    x = _nasty(rng, (4, 64, 64), nan_rate=0.05)
    nan_at = np.flatnonzero(np.isnan(x))[-1]
    other = x.copy()
    other.view(np.uint32).flat[nan_at] ^= 1                # another NaN payload, one bit apart
    zero = np.zeros_like(x)
    neg_zero = -zero                                       # -0.0: ln gives -inf for both, exp 1: bits decide
    memo = value_memo.ValueMemo()
    with np.errstate(all="ignore"):
        for a in (x, other, x.copy(), zero, neg_zero):
            got = memo.call(fn, a)
            assert np.array_equal(_bits(got), _bits(fn(a)))
    assert memo.hits == 1                                  # only x.copy() is x again


def test_an_input_that_can_change_is_copied_and_the_limit_holds(monkeypatch):
    buf = np.random.default_rng(3).standard_normal((2, 64, 64)).astype(np.float32)
    view = buf[:1]                                         # a view: the caller may write it after the call
    memo = value_memo.ValueMemo()
    first = memo.call(EXP, view).copy()
    buf[0, 5, 5] += 1.0
    again = memo.call(EXP, view)
    assert memo.hits == 0 and not np.array_equal(again, first)
    assert np.array_equal(_bits(again), _bits(EXP(view)))
    monkeypatch.setattr(value_memo, "MAX_BYTES", 100)
    small = value_memo.ValueMemo()
    small.call(EXP, buf)
    assert small.calls == [] and small.nbytes == 0
