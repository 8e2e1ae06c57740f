"""asc.create_vec_index (Ascend C CreateVecIndex(dst, firstValue, count)): the one-file op
graph/ops/vec_create_vec_index.py. NumPy (np.arange) on sim and eager for every dtype the A2 code supports, the
vendor's rounding past the first block, misuse at the user's line, the pipes the scheduler and the race checker
see, the emitted call against both CANN generations, the record's C++ model on cpp, and the bytes of cpu_debug (the vendor's
own CreateVecIndex over the stub layer) against sim."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm
from vec_more_kernels import create_vec_index_kernel
import lane

BACKENDS = ["sim", "eager"]
ALL = [*BACKENDS, "cpp"]
DTYPES = ["float16", "float32", "int16", "int32"]
FILL = 7


def run(backend: str, dtype: str, first, count: int) -> tuple[np.ndarray, int]:
    cap = -(-(count + 16) // 64) * 64
    z = np.zeros(cap, dtype)
    asc.jit(create_vec_index_kernel, backend=backend)[1](z, first, count, cap)
    return z, cap


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(DTYPES), st.sampled_from(BACKENDS), st.integers(0, 1100), st.data())
def test_the_index_is_arange_and_nothing_past_count_changes(dtype, backend, count, data):
    # values NumPy's arange gives exactly in the dtype: float16 up to 2048, float32 up to 2**24; integers wrap
    # modulo 2**bits, which the per-block adds keep (they are the same modular sums)
    if dtype == "float16":
        first = data.draw(st.integers(-1024, 2048 - count))
        if first + count <= 1024:      # below 1024 float16 holds halves exactly
            first += data.draw(st.sampled_from([0.0, 0.5]))
    elif dtype == "float32":
        first = float(data.draw(st.integers(-2**20, 2**20)))
    else:
        bits = 16 if dtype == "int16" else 32
        first = data.draw(st.integers(-2**(bits - 1), 2**(bits - 1) - 1))
    z, cap = run(backend, dtype, first, count)
    if np.dtype(dtype).kind == "i":
        want = (np.int64(first) + np.arange(count, dtype=np.int64)).astype(dtype)
    else:
        want = (np.float64(first) + np.arange(count)).astype(dtype)
    assert z[:count].tobytes() == want.tobytes()
    assert np.all(z[count:] == FILL)


def _vendor_sequence(first: float, count: int, dtype: str) -> np.ndarray:
    """The A2 code's sequence written out one element at a time: the first 32-byte block in float, then each
    element the one a block (inside the first 256-byte repeat) or a repeat before it, plus that step, in T."""
    dt = np.dtype(dtype)
    blk, rep = 32 // dt.itemsize, 256 // dt.itemsize
    out = np.zeros(count, dt)
    for i in range(count):
        if i < blk:
            out[i] = dt.type(np.float32(dt.type(first)) + np.float32(i))
        else:
            step = blk if i < rep else rep
            out[i] = out[i - step] + dt.type(step)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("first", [0.3, 2040.0])
def test_float16_rounds_as_the_vendors_adds(backend, first):
    z, _ = run(backend, "float16", first, 1000)
    want = _vendor_sequence(first, 1000, "float16")
    assert z[:1000].tobytes() == want.tobytes()
    # with a fraction that is not float16(first + i): the chained adds round at each step
    direct = (np.float64(np.float16(first)) + np.arange(1000)).astype(np.float16)
    assert np.array_equal(want, direct) == float(first).is_integer()


@pytest.mark.parametrize("backend", ALL)
def test_the_first_value_differs_by_core(backend):
    @asc.jit
    def per_core(z: asc.GlobalAddress):
        o = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, 64)
        asc.create_vec_index(o, asc.get_block_idx() * 100, 64)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(gm(z)[asc.get_block_idx() * 64:], o, 64)

    z = np.zeros(128, np.int32)
    asc.jit(per_core, backend=backend)[2](z)
    assert np.array_equal(z, np.concatenate([np.arange(64), 100 + np.arange(64)]).astype(np.int32))


@asc.jit
def past_the_tensor(z: asc.GlobalAddress):
    o = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, 128)
    asc.create_vec_index(o, 0, 129)  # past
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gm(z), o, 128)


@pytest.mark.parametrize("backend", ALL)
def test_a_count_past_the_tensor_is_out_of_bounds_at_the_call(backend):
    with pytest.raises(asc.OutOfBoundsError, match="129") as e:
        asc.jit(past_the_tensor, backend=backend)[1](np.zeros(128, np.int32))
    assert_points_at(e.value, "past")


def test_dtypes_scalars_and_other_forms_are_refused_at_the_call():
    @asc.jit
    def unsigned(z: asc.GlobalAddress):
        o = asc.LocalTensor(asc.uint16, asc.TPosition.VECOUT, 0, 128)
        asc.create_vec_index(o, 0, 128)  # u16

    @asc.jit
    def float_first(z: asc.GlobalAddress):
        o = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0, 128)
        asc.create_vec_index(o, 0.5, 128)  # f-first

    @asc.jit
    def mask_form(z: asc.GlobalAddress):
        o = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 256)
        asc.create_vec_index(o, 0.0, 128, 2, 1, 8)  # mask

    for kernel, error, match, marker in ((unsigned, asc.DTypeError, "uint16", "u16"),
                                         (float_first, asc.DTypeError, "integer scalar", "f-first"),
                                         (mask_form, asc.NotProvidedError, "mask forms", "mask")):
        with pytest.raises(error, match=match) as e:
            asc.compile(kernel, (np.zeros(8, np.float16),))
        assert_points_at(e.value, marker)


@asc.jit
def unsynced(z: asc.GlobalAddress):
    o = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, 128)
    asc.create_vec_index(o, 0, 128)
    asc.data_copy(gm(z), o, 128)  # racy


@pytest.mark.parametrize("backend", ALL)
def test_the_race_checker_sees_the_write_on_v(backend):
    """Copying dst out with no V -> MTE3 order is a race (RAW) reported at the copy."""
    with pytest.raises(asc.RaceError, match=r"RAW.*MTE3 instruction reads them while the V instruction") as e:
        asc.jit(unsynced, backend=backend, auto_sync=False)[1](np.zeros(128, np.int32))
    assert_points_at(e.value, "racy")


def test_the_scheduler_orders_the_copy_after_v():
    # the scheduler orders it itself: V_MTE3 before the copy, and the copy then reads the index
    z = np.zeros(128, np.int32)
    asc.jit(unsynced, backend="sim")[1](z)
    assert np.array_equal(z, np.arange(128, dtype=np.int32))
    src = asc.compile(unsynced, (np.zeros(128, np.int32),)).source
    assert "SetFlag<AscendC::HardEvent::V_MTE3>" in src


@asc.jit(auto_sync=False)
def held_ids(z: asc.GlobalAddress, ids: asc.ConstExpr[int]):
    """The kernel's own TPipe reserves its flags' ids; the call takes the first S_V id left (FetchEventID)."""
    asc.TPipe()
    o = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, 128)
    for i in asc.static_range(ids):
        asc.set_flag(asc.HardEvent.S_V, i)
    asc.create_vec_index(o, 0, 128)  # none-left
    for i in asc.static_range(ids):
        asc.wait_flag(asc.HardEvent.S_V, i)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gm(z), o, 128)


@pytest.mark.parametrize("backend", ALL)
def test_the_calls_own_s_v_id_is_kept_from_the_kernels_flags(backend):
    z = np.zeros(128, np.int32)
    asc.jit(held_ids, backend=backend)[1](z, 7)
    assert np.array_equal(z, np.arange(128, dtype=np.int32))
    with pytest.raises(asc.SyncError, match="all 8 ids of HardEvent.S_V") as e:
        asc.jit(held_ids, backend=backend)[1](np.zeros(128, np.int32), 8)
    assert_points_at(e.value, "none-left")


def test_a_kernel_without_a_tpipe_gets_one_for_the_calls_event_id():
    src = asc.compile(past_the_tensor, (np.zeros(128, np.int32),)).source
    assert "AscendC::TPipe" in src and "AscendC::CreateVecIndex(" in src


def test_the_emitted_call_is_declared_by_both_generations():
    src = asc.compile(create_vec_index_kernel, (np.zeros(128, np.float16), 1.5, 100, 128)).source
    assert "AscendC::CreateVecIndex(" in src and "static_cast<half>" in src
    assert unlisted(src, "asc-devkit") == [] and unlisted(src, "cann-8.1") == []
    if headers_if_configured() is not None and not lane.FAST:
        assert not check_kernels([Kernel("create_vec_index", src)])


@pytest.mark.parametrize("dtype,first", [("float16", 0.3), ("float16", 2040.5), ("float32", 16777200.0),
                                         ("int16", 32700), ("int32", -5)])
def test_the_cpp_model_gives_the_bytes_of_sim(dtype, first):
    """The record's own C++ model (CppModel.source, in the generated header): one compile per dtype, the counts
    are runtime values (inside one block, one repeat, several repeats with a tail)."""
    for count in (5, 100, 1000):
        out = {}
        for backend in ("sim", "cpp"):
            z = np.zeros(1024 + 64, dtype)
            asc.jit(create_vec_index_kernel, backend=backend)[1](z, first, count, 1024 + 64)
            out[backend] = z.tobytes()
        assert out["sim"] == out["cpp"], count


def test_the_cpp_model_is_the_records():
    assert "CreateVecIndex(" in REGISTRY["create_vec_index"].cpp_model.source


@pytest.mark.slow
@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
@pytest.mark.parametrize("dtype,first,count", [("float16", 2040.5, 1000), ("float16", 0.3, 1000), ("float16", -0.25, 7),
                                               ("float32", 16777200.0, 700), ("int16", 32700, 333),
                                               ("int32", -5, 2049)])
def test_cpu_debug_gives_the_bytes_of_sim(dtype, first, count):
    out = {b: run(b, dtype, first, count)[0].tobytes() for b in ("sim", "cpu_debug")}
    assert out["sim"] == out["cpu_debug"]
