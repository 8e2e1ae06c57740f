"""asc.transpose (Ascend C Transpose, the 16 x 16 form), the op added to show that a new vector op of a
new shape is one file (graph/ops/vec_transpose.py, family "vec_record") plus its tests: NumPy on sim and
eager for every dtype, several cores at their own offsets, the misuses refused with the same class on
both, the emitted call declared in both CANN generations, and the cpp backend's refusal."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from asc_trace.errors import DTypeError, NotProvidedError, OutOfBoundsError, ToolchainError, TraceError
from asc_trace.graph.printer import format_graph
from asc_trace.lower.api_symbols import emitted_symbols, unlisted

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = {"int16": np.int16, "uint16": np.uint16, "float16": np.float16}


def transpose_blocks(x: asc.GlobalAddress, z: asc.GlobalAddress, src_at: asc.ConstExpr[int],
                     dst_at: asc.ConstExpr[int]):
    """Each core transposes its own 16 x 16 block: GM block `b` of x -> block `b` of z, through UB
    tensors that start `src_at` / `dst_at` elements into their buffers."""
    b = asc.get_block_idx()
    g = asc.GlobalTensor()
    g.set_global_buffer(x + b * 256, 256)
    o = asc.GlobalTensor()
    o.set_global_buffer(z + b * 256, 256)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256 + src_at)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, 256 + dst_at)
    asc.data_copy(src[src_at:], g, 256)
    asc.transpose(dst[dst_at:], src[src_at:])
    asc.data_copy(o, dst[dst_at:], 256)


def _numpy(x: np.ndarray) -> np.ndarray:
    return x.reshape(-1, 16, 16).transpose(0, 2, 1).ravel()


@pytest.mark.parametrize("backend", ["sim", "eager"])
@pytest.mark.parametrize("dt", sorted(DTYPES))
@settings(max_examples=examples(6), **SETTINGS)
@given(cores=st.integers(1, 4), src_at=st.sampled_from([0, 16, 48]), dst_at=st.sampled_from([0, 32]),
       seed=st.integers(0, 2**16))
def test_transpose_is_numpys_transpose(backend, dt, cores, src_at, dst_at, seed):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**16, cores * 256, dtype=np.uint16)
    if dt == "float16":
        bits = np.where((bits & 0x7C00) == 0x7C00, bits & 0x83FF, bits)    # finite halves: compared bit for bit
    x = bits.view(DTYPES[dt]).copy()
    z = np.zeros_like(x)
    asc.jit(transpose_blocks, backend=backend)[cores](x, z, src_at, dst_at)
    np.testing.assert_array_equal(z.view(np.uint16), _numpy(x).view(np.uint16))


def test_transpose_twice_is_the_identity_and_keeps_nan_payloads():
    x = np.arange(256, dtype=np.uint16).view(np.float16).copy()
    x[:8] = np.array([0x7E01, 0xFC00, 0x8000, 0x7C00, 1, 2, 3, 0xFFFF], np.uint16).view(np.float16)
    z = np.zeros_like(x)
    asc.jit(transpose_blocks, backend="sim")[1](x, z, 0, 0)
    back = np.zeros_like(x)
    asc.jit(transpose_blocks, backend="eager")[1](z, back, 0, 0)
    np.testing.assert_array_equal(back.view(np.uint16), x.view(np.uint16))


def _short(x: asc.GlobalAddress, n: asc.ConstExpr[int]):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 1024, n)
    asc.transpose(b, a)


def _wrong_dtype(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.transpose(a, a)


def _mixed(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)
    asc.transpose(b, a)


def _global(x: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(x, 256)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.transpose(a, g)


def _ext_form(x: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 1024, 512)
    asc.transpose(a, a, tmp, None)


def _no_src(x: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.transpose(a)


@pytest.mark.parametrize("backend", ["sim", "eager"])
@pytest.mark.parametrize("kernel, args, error, words", [
    (_short, (128,), OutOfBoundsError, "dst"),
    (_wrong_dtype, (), DTypeError, "supported: float16, int16, uint16"),
    (_mixed, (), DTypeError, "dtypes of asc.transpose differ"),
    (_global, (), TraceError, "GlobalTensor"),
    (_ext_form, (), NotProvidedError, "NCHW"),
    (_no_src, (), NotProvidedError, "takes (dst, src)"),
])
def test_misuse_is_the_same_error_at_the_users_line(backend, kernel, args, error, words):
    x = np.zeros(256, np.float16)
    with pytest.raises(error) as ei:
        asc.jit(kernel, backend=backend)[1](x, *args)
    assert words in str(ei.value)
    assert ei.value.loc is not None and ei.value.loc.file.endswith("test_transpose.py"), ei.value.loc


def test_emits_the_api_call_both_generations_declare():
    x = np.zeros(512, np.float16)
    ck = asc.compile(transpose_blocks, (x, x.copy(), 16, 0))
    assert "AscendC::Transpose(" in ck.source
    assert "Transpose/2" in emitted_symbols(ck.source)
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []
    line = [ln for ln in format_graph(ck.graph).splitlines() if "= transpose " in ln]
    assert len(line) == 1 and "<-" in line[0], line        # the printer's `dst <- src` form


def test_cpp_backend_refuses_at_the_users_line():
    x = np.zeros(256, np.float16)
    with pytest.raises(ToolchainError, match="no model of Ascend C Transpose"):
        asc.jit(transpose_blocks, backend="cpp")[1](x, x.copy(), 0, 0)
