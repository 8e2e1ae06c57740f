"""GM atomics (graph/ops/atomic.py, proxies/atomic.py): under set_atomic_add / max / min a UB -> GM copy
combines with GM in the element type, so every core of a launch can store into the same elements (the
race checker lets stores of one operation overlap, and still reports any other access beside them);
checked against NumPy on sim, eager, cpp and cpu_debug (the real headers' SetAtomic* over asc_trace's
stub of the register). Misuse and a mode not known while tracing are refused at the user's line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at

BACKENDS = ["sim", "eager", "cpp"] + (["cpu_debug"] if headers_if_configured() is not None else [])
N = 64
OPS = {"add": np.add, "max": np.maximum, "min": np.minimum}


@asc.jit
def reduce_into(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], config: asc.ConstExpr[bool]):
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x + asc.get_block_idx() * N, N)
    o.set_global_buffer(z, N)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    asc.data_copy(a, g, N)
    if config:      # SetStoreAtomicConfig<F32, SUM> is SetAtomicAdd<float>
        asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_F32, asc.AtomicOp.ATOMIC_SUM)
    else:
        getattr(asc, f"set_atomic_{op}")(x.dtype)
    asc.data_copy(o, a, N)
    asc.set_atomic_none()


def _want(x: np.ndarray, z: np.ndarray, op: str, cores: int) -> np.ndarray:
    out = z.copy()
    for c in range(cores):       # the simulator's order; the hardware's may differ in a float sum's last bits
        out = OPS[op](out, x[c * N:(c + 1) * N]).astype(z.dtype)
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op=st.sampled_from(sorted(OPS)), dt=st.sampled_from(["float32", "float16", "int32", "int16"]),
       cores=st.integers(1, 4), backend=st.sampled_from(BACKENDS), seed=st.integers(0, 99))
def test_stores_combine_with_gm(op, dt, cores, backend, seed):
    rng = np.random.default_rng(seed)
    x = (rng.random(cores * N) * 20 - 10).astype(dt)
    z = (rng.random(N) * 20 - 10).astype(dt)
    want = _want(x, z, op, cores)
    asc.jit(reduce_into, backend=backend)[cores](x, z, op, False)
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_store_atomic_config_is_atomic_add(backend):
    x = np.arange(3 * N, dtype=np.float32)
    z = np.ones(N, np.float32)
    want = _want(x, z, "add", 3)
    asc.jit(reduce_into, backend=backend)[3](x, z, "add", True)
    np.testing.assert_array_equal(z, want)


def test_the_calls_are_emitted_as_the_vendor_spells_them():
    x = np.zeros(2 * N, np.float16)
    src = asc.compile(reduce_into, (x, np.zeros(N, np.float16), "max", False), core_num=2).source
    assert "AscendC::SetAtomicMax<half>();" in src and "AscendC::SetAtomicNone();" in src
    src = asc.compile(reduce_into, (np.zeros(2 * N, np.float32), np.zeros(N, np.float32), "add", True),
                      core_num=2).source
    assert "AscendC::SetStoreAtomicConfig<AscendC::AtomicDtype::ATOMIC_F32, AscendC::AtomicOp::ATOMIC_SUM>();" in src


@asc.jit
def mixed(x: asc.GlobalAddress, z: asc.GlobalAddress, plain: asc.ConstExpr[bool]):
    g, o = asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(x + asc.get_block_idx() * N)      # each core its own half of x: different bytes to z
    o.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    asc.data_copy(a, g, N)
    if plain:
        asc.data_copy(o, a, N)  # MARK-plain
    else:
        asc.set_atomic_add(asc.float32)
        asc.data_copy(o, a, N)
        asc.set_atomic_max(asc.float32)
        asc.data_copy(o, a, N)  # MARK-max


@pytest.mark.parametrize("plain,marker", [(True, "MARK-plain"), (False, "MARK-max")])
def test_other_cores_accesses_beside_atomic_stores_are_still_races(plain, marker):
    """Plain stores of two cores with different bytes race (equal bytes are defined:
    tests/test_vector_equal_writes.py), and so do an add and a max of two cores (they do not commute)."""
    with pytest.raises(asc.RaceError) as ei:
        mixed[2](np.arange(2 * N, dtype=np.float32), np.zeros(N, np.float32), plain)
    assert "cores 0 and 1" in str(ei.value)
    assert_points_at(ei.value, marker)


def _kernel(body):
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
        body(g, a, n)
    return k


@pytest.mark.parametrize("body,cls,words", [
    (lambda g, a, n: asc.set_atomic_add(asc.uint8), asc.DTypeError, "does not support uint8"),
    (lambda g, a, n: asc.set_atomic_add(), asc.TraceError, "takes the element type"),
    (lambda g, a, n: (asc.set_atomic_add(asc.float16), asc.data_copy(g, a, N)), asc.DTypeError,
     "stores float32 elements while the atomic add is set for float16"),
    (lambda g, a, n: (asc.set_atomic_add(asc.float32), asc.data_copy(g, a, asc.DataCopyParams(1, 8, 0, 0))),
     asc.TraceError, "DataCopyParams is not modelled"),
    (lambda g, a, n: (asc.set_atomic_add(asc.float32),
                      asc.data_copy_pad(g, a, asc.DataCopyExtParams(1, 12, 0, 0, 0))),
     asc.TraceError, "data_copy_pad is not modelled"),
    (lambda g, a, n: ([asc.set_atomic_add(asc.float32) for _ in asc.range(n)], asc.data_copy(g, a, N)),
     asc.TraceError, "follows a loop or branch that changed the atomic mode"),
    (lambda g, a, n: (asc.set_atomic_add(asc.float32),
                      [(asc.data_copy(g, a, N), asc.set_atomic_none()) for _ in asc.range(n)]),
     asc.TraceError, "on the next iteration"),
    (lambda g, a, n: (asc.set_atomic_max(asc.float32), asc.get_store_atomic_config()), asc.TraceError,
     "not documented"),
    (lambda g, a, n: asc.set_store_atomic_config(9, 0), asc.TraceError, "asc.AtomicDtype"),
])
def test_misuse_is_refused_at_the_users_line(body, cls, words):
    with pytest.raises(cls, match=words) as ei:
        _kernel(body)[1](np.zeros(N, np.float32), 2)
    assert "test_atomic.py" in str(ei.value)


def test_get_store_atomic_config_reads_the_register_while_tracing():
    # the kernel writes what it read into x (a list outside the kernel that it appends to is refused)
    def body(g, a, n):
        at = [0]

        def record():
            dtype, op = asc.get_store_atomic_config()
            g.set_value(at[0], dtype)
            g.set_value(at[0] + 1, op)
            at[0] += 2
        record()
        asc.set_atomic_add(asc.float16)
        record()
        asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_BF16, asc.AtomicOp.ATOMIC_SUM)
        record()
        asc.set_atomic_none()
        record()

    x = np.full(N, -1, np.float32)
    _kernel(body)[1](x, 2)
    assert list(x[:8]) == [0, 0, 2, 0, 6, 0, 0, 0]
