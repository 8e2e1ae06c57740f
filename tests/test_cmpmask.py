"""The CMPMASK register (graph/ops/cmpmask.py): Compare without dst, get_cmp_mask / set_cmp_mask, Select in
VSEL_CMPMASK_SPR mode and the register / mask forms of Compare and Select, against a NumPy reference written from
the vendor's A2 steps, on sim and eager (hypothesis) and cpu_debug (the vendor's own implementation over the
stub's vcmp / vsel / set_cmpmask); the emission against the real headers; misuse at the user's line."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm

MODES = {"LT": np.less, "GT": np.greater, "EQ": np.equal, "LE": np.less_equal, "GE": np.greater_equal,
         "NE": np.not_equal}
FULL = (1 << 64) - 1
HAVE_HEADERS = headers_if_configured() is not None


@asc.jit
def reg_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, a: asc.GlobalAddress, b: asc.GlobalAddress,
               z: asc.GlobalAddress, m: asc.GlobalAddress, mode: asc.ConstExpr[int], lo: asc.ConstExpr[int],
               hi: asc.ConstExpr[int], repeat: asc.ConstExpr[int]):
    """Compare one repeat into CMPMASK, read it back, and select `repeat` repeats of a / b by it."""
    per = 256 // x.dtype.sizeof()
    n = per * repeat
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, per)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 256, per)
    al = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 512, n)
    bl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 512 + 256 * 8, n)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 512 + 256 * 16, n)
    ml = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 512 + 256 * 24, 32)
    asc.data_copy(xl, gm(x), per)
    asc.data_copy(yl, gm(y), per)
    asc.data_copy(al, gm(a), n)
    asc.data_copy(bl, gm(b), n)
    asc.data_copy(zl, gm(z), n)
    asc.data_copy(ml, gm(m), 32)
    p = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    asc.compare(xl, yl, cmp_mode=asc.CMPMODE(mode), mask=[lo, hi], repeat_params=p)
    asc.get_cmp_mask(ml)
    asc.select(zl, al, bl, repeat_times=repeat, repeat_params=p, sel_mode=asc.SelMode.VSEL_CMPMASK_SPR)
    asc.data_copy(gm(z), zl, n)
    asc.data_copy(gm(m), ml, 32)


def reg_reference(x, y, a, b, z0, m0, mode, lo, hi, repeat):
    per = 256 // x.itemsize
    word = (lo | (hi << 64)) & ((1 << per) - 1)
    lanes = [e for e in range(per) if (word >> e) & 1]
    bits = np.zeros(128, bool)
    for e in lanes:
        bits[e] = MODES[list(MODES)[mode]](x[e], y[e])
    reg = np.packbits(bits, bitorder="little")
    if per == 64:
        reg[8:] = 0xFF           # a float compare leaves the high 64 bits undefined (poison)
    m = m0.copy()
    m[:16] = reg
    z = z0.copy()
    for r in range(repeat):
        for e in lanes:
            k = r * per + e
            z[k] = a[k] if bits[e] else b[k]
    return z, m


def _reg_inputs(dtype, seed, repeat, ties):
    rng = np.random.default_rng(seed)
    per = 256 // np.dtype(dtype).itemsize
    draw = (lambda k: rng.integers(-3, 4, k)) if ties else (lambda k: rng.random(k) * 20 - 10)
    x, y = draw(per).astype(dtype), draw(per).astype(dtype)
    n = per * repeat
    a, b = (rng.random(n) * 100).astype(dtype), (-rng.random(n) * 100).astype(dtype)
    z0 = np.full(n, 7, dtype)
    m0 = rng.integers(0, 256, 32).astype(np.uint8)
    return x, y, a, b, z0, m0


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from(["float16", "float32"]), st.integers(0, 5), st.integers(1, FULL), st.integers(0, FULL),
       st.integers(1, 3), st.integers(0, 999), st.booleans(), st.sampled_from(["sim", "eager"]))
def test_compare_into_cmpmask_then_select_by_it(dtype, mode, lo, hi, repeat, seed, ties, backend):
    x, y, a, b, z0, m0 = _reg_inputs(dtype, seed, repeat, ties)
    if dtype == "float32":
        hi = 0                   # a 32-bit op's mask1 selects nothing (64 lanes)
    z, m = z0.copy(), m0.copy()
    asc.jit(reg_kernel, backend=backend)[1](x, y, a, b, z, m, mode, lo, hi, repeat)
    rz, rm = reg_reference(x, y, a, b, z0, m0, mode, lo, hi, repeat)
    assert m.tobytes() == rm.tobytes()
    assert z.tobytes() == rz.tobytes()


@asc.jit
def cmp_dst_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, m: asc.GlobalAddress, mode: asc.ConstExpr[int],
                   repeat: asc.ConstExpr[int], src_rep: asc.ConstExpr[int]):
    """Compare's mask form with dst: every lane of `repeat` repeats (src0 `src_rep` blocks apart), bits packed."""
    per = 256 // x.dtype.sizeof()
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, per * 16)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, per * 4)
    ml = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 8192, 64)
    asc.data_copy(xl, gm(x), per * 16)
    asc.data_copy(yl, gm(y), per * 4)
    asc.data_copy(ml, gm(m), 64)
    asc.compare(ml, xl, yl, asc.CMPMODE(mode), 3, repeat, asc.BinaryRepeatParams(1, 1, 1, 8, src_rep, 8))
    asc.data_copy(gm(m), ml, 64)


@settings(max_examples=examples(20), deadline=None)
@given(st.sampled_from(["float16", "float32"]), st.integers(0, 5), st.integers(1, 4), st.integers(0, 12),
       st.integers(0, 999), st.sampled_from(["sim", "eager"]))
def test_compare_mask_form_compares_every_lane(dtype, mode, repeat, src_rep, seed, backend):
    rng = np.random.default_rng(seed)
    per = 256 // np.dtype(dtype).itemsize
    x, y = rng.integers(-2, 3, per * 16).astype(dtype), rng.integers(-2, 3, per * 4).astype(dtype)
    m0 = rng.integers(0, 256, 64).astype(np.uint8)
    m = m0.copy()
    asc.jit(cmp_dst_kernel, backend=backend)[1](x, y, m, mode, repeat, src_rep)
    bits = []
    for r in range(repeat):
        xs = x[r * src_rep * (32 // x.itemsize):][:per]
        bits += list(MODES[list(MODES)[mode]](xs, y[r * per:(r + 1) * per]))
    want = m0.copy()
    packed = np.packbits(np.array(bits, bool), bitorder="little")
    want[:len(packed)] = packed
    assert m.tobytes() == want.tobytes()


@asc.jit
def sel_kernel(s: asc.GlobalAddress, a: asc.GlobalAddress, b: asc.GlobalAddress, z: asc.GlobalAddress,
               m: asc.GlobalAddress, mode: asc.ConstExpr[int], count: asc.ConstExpr[int], lo: asc.ConstExpr[int],
               repeat: asc.ConstExpr[int], scalar: asc.ConstExpr[float]):
    """Select's count form (count > 0) or mask form (count == 0) in `mode`, then what it left in CMPMASK."""
    n = 256 // a.dtype.sizeof() * 4
    sl = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 128)
    al = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, 256, n)
    bl = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, 256 + 1024, n)
    zl = asc.LocalTensor(a.dtype, asc.TPosition.VECOUT, 256 + 2048, n)
    ml = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 256 + 3072, 32)
    asc.data_copy(sl, gm(s), 128)
    asc.data_copy(al, gm(a), n)
    asc.data_copy(bl, gm(b), n)
    asc.data_copy(zl, gm(z), n)
    asc.data_copy(ml, gm(m), 32)
    src1 = scalar if mode == 1 else bl
    if count:
        asc.select(zl, sl, al, src1, asc.SelMode(mode), count)
    else:
        asc.select(zl, sl, al, src1, sel_mode=asc.SelMode(mode), mask=[lo, 0], repeat_times=repeat,
                   repeat_params=asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.get_cmp_mask(ml)
    asc.data_copy(gm(z), zl, n)
    asc.data_copy(gm(m), ml, 32)


def sel_reference(s, a, b, z0, m0, mode, count, lo, repeat, scalar):
    per = 256 // a.itemsize
    bits = np.unpackbits(s, bitorder="little").astype(bool)
    z, m = z0.copy(), m0.copy()
    if count:
        ks = list(range(count))
    else:
        lanes = [e for e in range(per) if (lo >> e) & 1]
        ks = [r * per + e for r in range(repeat) for e in lanes]
    for k in ks:
        take = bits[k % per] if mode == 0 else bits[k]
        z[k] = a[k] if take else (np.asarray(scalar, a.dtype) if mode == 1 else b[k])
    if mode == 0:
        m[:16] = s[:16]
    elif mode == 1:
        m[:16] = np.frombuffer(np.full(16 // a.itemsize, scalar, a.dtype).tobytes(), np.uint8)
    else:
        m[:16] = 0xFF            # tensor-tensor mode: the register holds sel_mask's address (undefined)
    return z, m


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from(["float16", "float32"]), st.integers(0, 2), st.booleans(), st.integers(1, FULL),
       st.integers(1, 4), st.integers(0, 999), st.sampled_from(["sim", "eager"]))
def test_select_forms_and_what_they_leave_in_cmpmask(dtype, mode, counted, lo, repeat, seed, backend):
    rng = np.random.default_rng(seed)
    n = 256 // np.dtype(dtype).itemsize * 4
    s = rng.integers(0, 256, 128).astype(np.uint8)
    a, b = (rng.random(n) * 100).astype(dtype), (-rng.random(n) * 100).astype(dtype)
    z0, m0 = np.full(n, 3, dtype), rng.integers(0, 256, 32).astype(np.uint8)
    count = int(rng.integers(1, n + 1)) if counted else 0
    scalar = float(np.asarray(-2.5, dtype))
    z, m = z0.copy(), m0.copy()
    asc.jit(sel_kernel, backend=backend)[1](s, a, b, z, m, mode, count, lo, repeat, scalar)
    rz, rm = sel_reference(s, a, b, z0, m0, mode, count, lo, repeat, scalar)
    assert z.tobytes() == rz.tobytes()
    assert m.tobytes() == rm.tobytes()


@asc.jit
def set_scalar_kernel(s: asc.GlobalAddress, a: asc.GlobalAddress, r: asc.GlobalAddress, z: asc.GlobalAddress):
    """set_cmp_mask, then Select's register scalar form: the scalar is CMPMASK's low element."""
    n = 256 // a.dtype.sizeof() * 2
    sl = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 64)
    al = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, 256, n)
    rl = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 1024, 32)
    zl = asc.LocalTensor(a.dtype, asc.TPosition.VECOUT, 2048, n)
    asc.data_copy(sl, gm(s), 64)
    asc.data_copy(al, gm(a), n)
    asc.data_copy(rl, gm(r), 32)
    asc.data_copy(zl, gm(z), n)
    asc.set_cmp_mask(rl)
    asc.set_vector_mask(FULL, FULL, dtype=a.dtype, mode=asc.MaskMode.NORMAL)
    asc.select(zl, sl, al, repeat_times=2, repeat_params=asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.data_copy(gm(z), zl, n)


@pytest.mark.parametrize("backend", ["sim", "eager"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_set_cmp_mask_gives_the_scalar_of_the_register_form(dtype, backend):
    rng = np.random.default_rng(5)
    n = 256 // np.dtype(dtype).itemsize * 2
    s = rng.integers(0, 256, 64).astype(np.uint8)
    a = (rng.random(n) * 10).astype(dtype)
    r = np.zeros(32, np.uint8)
    r[:np.dtype(dtype).itemsize] = np.frombuffer(np.asarray([-1.25], dtype).tobytes(), np.uint8)
    z = np.zeros(n, dtype)
    asc.jit(set_scalar_kernel, backend=backend)[1](s, a, r, z)
    bits = np.unpackbits(s, bitorder="little").astype(bool)[:n]
    assert z.tobytes() == np.where(bits, a, np.asarray(-1.25, dtype)).astype(dtype).tobytes()


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_HEADERS, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mode", [0, 3, 5])
def test_cpu_debug_gives_the_bytes_of_sim_register_forms(dtype, mode):
    x, y, a, b, z0, m0 = _reg_inputs(dtype, 3 + mode, 2, True)
    out = {}
    for backend in ("sim", "cpu_debug"):
        z, m = z0.copy(), m0.copy()
        asc.jit(reg_kernel, backend=backend)[1](x, y, a, b, z, m, mode, 0xF0F0F0F0F0F0F0FF, 0x0FF0 if dtype == "float16"
                                                else 0, 2)
        out[backend] = (z.tobytes(), m.tobytes())
    assert out["sim"] == out["cpu_debug"]


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_HEADERS, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mode,counted", [(0, True), (0, False), (1, True), (1, False), (2, False)])
def test_cpu_debug_gives_the_bytes_of_sim_select(dtype, mode, counted):
    rng = np.random.default_rng(mode)
    n = 256 // np.dtype(dtype).itemsize * 4
    s = rng.integers(0, 256, 128).astype(np.uint8)
    a, b = (rng.random(n) * 100).astype(dtype), (-rng.random(n) * 100).astype(dtype)
    out = {}
    for backend in ("sim", "cpu_debug"):
        z, m = np.full(n, 3, dtype), np.zeros(32, np.uint8)
        asc.jit(sel_kernel, backend=backend)[1](s, a, b, z, m, mode, 77 if counted else 0, 0xFFF0FF, 3, -2.5)
        # tensor-tensor mode leaves an address in CMPMASK: its bytes differ by backend and are not compared
        out[backend] = (z.tobytes(), m.tobytes() if mode != 2 else b"")
    assert out["sim"] == out["cpu_debug"]


def test_the_pyasc_forms_emit_the_vendor_calls():
    src = asc.compile(reg_kernel, (np.zeros(128, np.float16),) * 5 + (np.zeros(32, np.uint8), 0, 3, 0, 2),
                      core_num=1).source
    assert "AscendC::Compare(" in src and "AscendC::CMPMODE::LT" in src
    assert "AscendC::GetCmpMask(" in src
    assert "AscendC::Select<half, AscendC::SELMODE::VSEL_CMPMASK_SPR>(" in src


def test_cpp_refuses_the_register_forms_by_name():
    args = (np.zeros(128, np.float16),) * 5 + (np.zeros(32, np.uint8), 0, 3, 0, 1)
    with pytest.raises(asc.ToolchainError, match="CMPMASK") as e:
        asc.jit(reg_kernel, backend="cpp")[1](*args)
    assert "test_cmpmask.py" in str(e.value)


@asc.jit
def misuse_kernel(which: asc.ConstExpr[int]):
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    i = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 512, 128)
    u = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 1024, 256)
    p = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    if which == 0:
        asc.compare(i, i, cmp_mode=asc.CMPMODE.EQ, mask=64, repeat_params=p)  # cm0 (int32 has no vcmp)
    elif which == 1:
        asc.select(h, h, h, repeat_times=1, repeat_params=p, sel_mode=asc.SelMode.VSEL_TENSOR_TENSOR_MODE)  # cm1
    elif which == 2:
        asc.select(h, h, h, repeat_times=1, repeat_params=p, sel_mode=asc.SelMode.VSEL_CMPMASK_SPR)  # cm2
    elif which == 3:
        asc.compare(u, h, h, cmp_mode=asc.CMPMODE.LT, mask=128, repeat_times=1, repeat_params=(1, 1))  # cm3
    elif which == 4:
        asc.get_cmp_mask(3)  # cm4


@pytest.mark.parametrize("which,exc", [(0, asc.DTypeError), (1, asc.TraceError), (2, asc.TraceError),
                                       (3, asc.TraceError), (4, asc.TraceError)])
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_misuse_is_refused_at_the_users_line(which, exc, backend):
    with pytest.raises(exc) as e:
        asc.jit(misuse_kernel, backend=backend)[1](which)
    assert_points_at(e.value, f"cm{which}")
