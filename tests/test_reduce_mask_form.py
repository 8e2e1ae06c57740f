"""The mask form of asc.reduce_sum / reduce_max / reduce_min, pyasc's keywords `(dst, src, shared_tmp_buffer,
mask=, repeat_time=, src_rep_stride=[, cal_index=])` (Ascend C ReduceSum/Max/Min(dst, src, sharedTmpBuffer,
mask, repeatTime, srcRepStride[, calIndex])): against a loop-by-loop NumPy reference on sim and eager, and
against the vendor's own implementation on cpu_debug; the cpp backend refuses it by name."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from asc_trace.lower.api_symbols import unlisted
from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm
from vec_more_kernels import lanes_of
import lane  # the fast lane leaves the g++ header checks to `make test`

N = 4096


@asc.jit
def reduce_mask_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], mask: asc.ConstExpr[object],
                       rep: asc.ConstExpr[int], src_rep: asc.ConstExpr[int], cal_index: asc.ConstExpr[bool]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    tmp = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 20480, 1024)
    out = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 32768, 16)
    asc.data_copy(a, gm(x), N)
    asc.data_copy(out, gm(z), 16)
    if op == "reduce_sum":
        asc.reduce_sum(out, a, shared_tmp_buffer=tmp, mask=mask, repeat_time=rep, src_rep_stride=src_rep)
    else:
        getattr(asc, op)(out, a, shared_tmp_buffer=tmp, mask=mask, repeat_time=rep, src_rep_stride=src_rep,
                         cal_index=cal_index)
    asc.data_copy(gm(z), out, 16)


def reference(op: str, x: np.ndarray, z0: np.ndarray, mask, rep: int, src_rep: int, cal_index: bool) -> np.ndarray:
    """Written from the API's documentation: the mask's lanes of `rep` repeats, srcRepStride blocks apart; the
    index of a max / min is its offset from src's start (the first one on a tie), stored as T's bits."""
    per_block = 32 // x.itemsize
    per = 8 * per_block
    offs = [r * src_rep * per_block + e for r in range(rep) for e in lanes_of(mask, per)]
    z = z0.copy()
    vals = x[offs]
    if op == "reduce_sum":
        z[0] = vals.astype(np.float64).sum()          # the inputs keep every partial sum exact
        return z
    k = int(np.argmax(vals) if op == "reduce_max" else np.argmin(vals))
    z[0] = vals[k]
    if cal_index:
        z[1] = np.array(offs[k], np.uint16 if x.itemsize == 2 else np.uint32).view(x.dtype)
    return z


def _case(data, dtype: str):
    per = 256 // np.dtype(dtype).itemsize
    if data.draw(st.booleans()):
        mask = data.draw(st.integers(1, per))
    else:
        bits = data.draw(st.integers(1, (1 << per) - 1))
        mask = (bits & (2**64 - 1), bits >> 64)
    return mask, data.draw(st.integers(1, 6)), data.draw(st.integers(0, 12))


@settings(max_examples=examples(25), deadline=None)
@given(st.sampled_from(["reduce_sum", "reduce_max", "reduce_min"]), st.sampled_from(["float16", "float32"]),
       st.booleans(), st.data(), st.sampled_from(["sim", "eager"]))
def test_mask_form_matches_the_reference(op, dtype, cal_index, data, backend):
    mask, rep, src_rep = _case(data, dtype)
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    x = rng.integers(-3, 4, N).astype(dtype) if op == "reduce_sum" else (rng.random(N) * 200 - 100).astype(dtype)
    z0 = rng.integers(-9, 9, 16).astype(dtype)
    z = z0.copy()
    ci = cal_index and op != "reduce_sum"
    asc.jit(reduce_mask_kernel, backend=backend)[1](x, z, op, mask, rep, src_rep, ci)
    assert z.tobytes() == reference(op, x, z0, mask, rep, src_rep, ci).tobytes()


CPU_DEBUG_CASES = [("reduce_max", "float16", (0xFFFF0000FFFF, 0x3), 5, 9, True),
                   ("reduce_min", "float32", 37, 3, 8, True), ("reduce_max", "float32", 64, 1, 8, True),
                   ("reduce_sum", "float16", 128, 7, 8, False), ("reduce_sum", "float32", (0xF0F0F0F0F0F0F0F0, 0), 4, 11,
                                                                   False), ("reduce_min", "float16", 128, 2, 0, False)]


@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
@pytest.mark.parametrize("case", CPU_DEBUG_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_cpu_debug_gives_the_bytes_of_sim(case):
    op, dtype, mask, rep, src_rep, ci = case
    rng = np.random.default_rng(11)
    x = rng.integers(-3, 4, N).astype(dtype) if op == "reduce_sum" else (rng.random(N) * 200 - 100).astype(dtype)
    out = {}
    for backend in ("sim", "cpu_debug"):
        z = np.zeros(16, dtype)
        asc.jit(reduce_mask_kernel, backend=backend)[1](x, z, op, mask, rep, src_rep, ci)
        out[backend] = z.tobytes()
    assert out["sim"] == out["cpu_debug"] == reference(op, x, np.zeros(16, dtype), mask, rep, src_rep, ci).tobytes()


def test_cpp_refuses_the_mask_form_by_name():
    x = np.ones(N, np.float16)
    z = np.zeros(16, np.float16)
    with pytest.raises(asc.ToolchainError, match="mask form of Ascend C ReduceMax") as e:
        asc.jit(reduce_mask_kernel, backend="cpp")[1](x, z, "reduce_max", 128, 2, 8, False)
    assert "test_reduce_mask_form.py" in str(e.value)


def test_pyasc_unit_test_calls_trace_and_lower():
    """The calls of pyasc's python/test/unit/language/basic/test_vector_reduce.py test_reduce_max_kernel."""
    @asc.jit
    def k():
        x = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=8320)
        z = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECOUT, addr=0, tile_size=8320)
        tmp = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECCALC, addr=0, tile_size=8320)
        asc.reduce_max(z, x, shared_tmp_buffer=tmp, mask=128, repeat_time=128, src_rep_stride=65, cal_index=True)
        asc.reduce_max(z, x, shared_tmp_buffer=tmp, mask=[2**64 - 1, 2**64 - 1], repeat_time=65, src_rep_stride=8,
                       cal_index=True)
        asc.reduce_sum(z, x, shared_tmp_buffer=tmp, mask=128, repeat_time=128, src_rep_stride=65)
        asc.reduce_max(z, x, shared_tmp_buffer=tmp, count=2048, cal_index=True)
    src = asc.compile(k, ()).source
    assert "AscendC::ReduceMax(" in src and ", static_cast<int32_t>(128), static_cast<int32_t>(65), true);" in src
    assert unlisted(src, "asc-devkit") == [] and unlisted(src, "cann-8.1") == []
    if headers_if_configured() is not None and not lane.FAST:
        kernels = [Kernel("reduce_mask", src)]
        assert not check_kernels(kernels)
        if os.environ.get("ASC_TRACE_CANN81_HOME"):
            tree = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": os.environ["ASC_TRACE_CANN81_HOME"]})
            assert not check_kernels(kernels, tree)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_misuse_is_refused_at_the_users_line(backend):
    @asc.jit(backend=backend)
    def too_many_lanes(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        asc.reduce_sum(a, a, shared_tmp_buffer=a, mask=65, repeat_time=1, src_rep_stride=8)  # lanes

    @asc.jit(backend=backend)
    def sum_with_index(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        asc.reduce_sum(a, a, shared_tmp_buffer=a, mask=64, repeat_time=1, src_rep_stride=8, cal_index=True)  # index

    x = np.zeros(64, np.float32)
    with pytest.raises(asc.TraceError, match="1..64") as e:
        too_many_lanes[1](x)
    assert_points_at(e.value, "lanes")
    with pytest.raises(asc.TraceError, match="reduce_sum takes") as e:
        sum_with_index[1](x)
    assert_points_at(e.value, "index")
