"""A mask / repeat form's operands are bounded by their LocalTensors, not by the UB, on every backend.

The reach of an operand is the last element any enabled lane of any repeat touches, placed by the block and
repeat strides. Past its tensor (even inside the UB) sim, eager and cpp raise OutOfBoundsError, and cpu_debug
(the vendor's API over the stub layer: toolchain/stub/src/vector.cpp check_reach, fed the tensors by the API's
check hooks in api_hooks.cpp) raises the same class at the user's line, writing nothing. At exactly the edge
the call runs, and its output is the simulator's byte for byte. The expected reach is computed here from the
lanes, independently of either implementation."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import NotProvidedError, OutOfBoundsError
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm

CPU_DEBUG = pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))
BACKENDS = ["sim", "eager", "cpp", CPU_DEBUG]
OUT = 96 * 1024          # the destination's UB address: far from the source, so that a reach past it stays in the UB


def lanes_of(mask, per: int) -> list[int]:
    """The enabled lanes: the first `mask` of a repeat (int form), or the set bits of lo | hi << 64 (list form)."""
    if isinstance(mask, int):
        return list(range(min(mask, per)))
    word = mask[0] | (mask[1] << 64)
    return [e for e in range(per) if (word >> e) & 1]


def reach(itemsize: int, mask, repeat: int, blk: int, rep: int) -> int:
    """Elements from the tensor's start up to the last one an enabled lane touches (0 if none)."""
    epb, per = 32 // itemsize, 256 // itemsize
    lanes = lanes_of(mask, per)
    if not lanes or repeat == 0:
        return 0
    return max((r * rep + (e // epb) * blk) * epb + e % epb + 1 for r in range(repeat) for e in lanes)


@asc.jit
def add_mask_form(x: asc.GlobalAddress, z: asc.GlobalAddress, size: asc.ConstExpr[int], lo: asc.ConstExpr[int],
                  hi: asc.ConstExpr[int], as_list: asc.ConstExpr[bool], repeat: int, blk: asc.ConstExpr[int],
                  rep: asc.ConstExpr[int]):
    epb = 32 // x.dtype.sizeof()
    loaded = size // epb * epb
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, size)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, OUT, size)
    asc.data_copy(a, gm(x), loaded)
    asc.duplicate(d, 0, loaded)
    mask = [lo, hi] if as_list else lo
    asc.add(d, a, a, mask, repeat, asc.BinaryRepeatParams(blk, blk, blk, rep, rep, rep))  # MARK-add
    asc.data_copy(gm(z), d, loaded)


# (dtype, mask, repeat, block stride, repeat stride): strides 0, 8 and past 8, int and list masks
CASES = [
    ("float16", 128, 4, 1, 8),
    ("float32", 64, 3, 1, 0),                    # repeat stride 0: every repeat on the same 256 bytes
    ("float32", 40, 2, 1, 16),                   # repeat stride 16 blocks: a 256-byte gap between repeats
    ("int32", [0x8000_0000_0000_0001, 0], 3, 2, 9),   # list form: lanes 0 and 63, block stride 2
    ("float16", [0, 1 << 63], 2, 1, 12),         # list form: only lane 127 (the high word's top bit)
    ("int16", 16, 5, 1, 1),                      # repeat stride 1: repeats overlap, 16 lanes each
]


def _run(backend, dtype, size, mask, repeat, blk, rep, z=None):
    x = (np.arange(4096) % 97 + 1).astype(dtype)
    z = np.full(4096, 5, dtype) if z is None else z
    lo, hi, as_list = (mask[0], mask[1], True) if isinstance(mask, list) else (mask, 0, False)
    asc.jit(add_mask_form, backend=backend)[1](x, z, size, lo, hi, as_list, repeat, blk, rep)
    return z


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, mask, repeat, blk, rep", CASES)
def test_at_the_edge_runs_and_matches_sim(backend, dtype, mask, repeat, blk, rep):
    size = reach(np.dtype(dtype).itemsize, mask, repeat, blk, rep)
    got = _run(backend, dtype, size, mask, repeat, blk, rep)
    want = _run("sim", dtype, size, mask, repeat, blk, rep)
    assert got.tobytes() == want.tobytes()
    epb = 32 // np.dtype(dtype).itemsize
    assert (want[: size // epb * epb] != 0).any() or size < epb     # the add wrote something


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, mask, repeat, blk, rep", CASES)
def test_one_element_short_is_out_of_bounds_at_the_users_line(backend, dtype, mask, repeat, blk, rep):
    size = reach(np.dtype(dtype).itemsize, mask, repeat, blk, rep) - 1
    z = np.full(4096, 5, dtype)
    with pytest.raises(OutOfBoundsError, match=rf"\b{size + 1} (x \w+ )?elements") as info:
        _run(backend, dtype, size, mask, repeat, blk, rep, z)
    assert_points_at(info.value, "MARK-add")
    assert (z == 5).all()                                       # nothing reached global memory


# -- the CMPMASK forms: Compare into the register, Select by it, get / set_cmp_mask ----------------------------
# (the cpp backend has no model of the register and refuses these kernels at their line: runtime/cpp.py)
REG_BACKENDS = ["sim", "eager", CPU_DEBUG]


@asc.jit
def compare_reg(x: asc.GlobalAddress, z: asc.GlobalAddress, size: asc.ConstExpr[int], lo: asc.ConstExpr[int],
                hi: asc.ConstExpr[int]):
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, size)
    ml = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, OUT, 32)
    asc.data_copy(xl, gm(x), size // 16 * 16)
    asc.duplicate(ml.reinterpret_cast(asc.int16), 0, 16)
    p = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    asc.compare(xl, xl, cmp_mode=asc.CMPMODE.EQ, mask=[lo, hi], repeat_params=p)  # MARK-cmp-reg
    asc.get_cmp_mask(ml)
    asc.data_copy(gm(z), ml, 32)


@pytest.mark.parametrize("backend", REG_BACKENDS)
@pytest.mark.parametrize("lo, hi, last", [((1 << 64) - 1, 0, 63), (1, 1 << 3, 67), (0, 1 << 63, 127)])
def test_compare_into_the_register_is_bounded_by_the_lanes_it_reads(backend, lo, hi, last):
    x = (np.arange(4096) % 7).astype(np.float16)
    assert reach(2, [lo, hi], 1, 1, 8) == last + 1
    got = np.zeros(32, np.uint8)
    asc.jit(compare_reg, backend=backend)[1](x, got, last + 1, lo, hi)           # exactly the lanes' reach: runs
    want = np.zeros(32, np.uint8)
    asc.jit(compare_reg, backend="sim")[1](x, want, last + 1, lo, hi)
    assert got.tobytes() == want.tobytes() and want.any()
    with pytest.raises(OutOfBoundsError, match=rf"\b{last + 1} (x \w+ )?elements") as info:
        asc.jit(compare_reg, backend=backend)[1](x, got, last, lo, hi)         # one element short
    assert_points_at(info.value, "MARK-cmp-reg")


@asc.jit
def select_reg(x: asc.GlobalAddress, z: asc.GlobalAddress, size: asc.ConstExpr[int], lane: asc.ConstExpr[int],
               repeat: int):
    per = 256 // x.dtype.sizeof()
    al = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, per * 4)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, OUT, size)
    whole = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, OUT, per * 4)
    asc.data_copy(al, gm(x), per * 4)
    asc.duplicate(whole, 0, per * 4)
    lo = 1 << lane if lane < 64 else 0
    hi = 1 << (lane - 64) if lane >= 64 else 0
    p = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    asc.compare(al, al, cmp_mode=asc.CMPMODE.EQ, mask=[lo, hi], repeat_params=p)   # leaves the vector mask on `lane`
    asc.select(zl, al, al, repeat_times=repeat, repeat_params=p, sel_mode=asc.SelMode.VSEL_CMPMASK_SPR)  # MARK-sel
    asc.data_copy(gm(z), whole, per * 4)


@pytest.mark.parametrize("backend", REG_BACKENDS)
@pytest.mark.parametrize("dtype, lane, repeat", [("float16", 0, 2), ("float32", 63, 3), ("float16", 100, 1)])
def test_select_by_the_register_is_bounded_by_the_lanes_it_writes(backend, dtype, lane, repeat):
    x = (np.arange(4096) % 11 + 1).astype(dtype)
    edge = reach(np.dtype(dtype).itemsize, [1 << lane, 0] if lane < 64 else [0, 1 << (lane - 64)], repeat, 1, 8)
    got, want = np.zeros(4096, dtype), np.zeros(4096, dtype)
    asc.jit(select_reg, backend=backend)[1](x, got, edge, lane, repeat)
    asc.jit(select_reg, backend="sim")[1](x, want, edge, lane, repeat)
    assert got.tobytes() == want.tobytes() and want.any()
    with pytest.raises(OutOfBoundsError, match=rf"\b{edge} (x \w+ )?elements") as info:
        asc.jit(select_reg, backend=backend)[1](x, got, edge - 1, lane, repeat)
    assert_points_at(info.value, "MARK-sel")


@asc.jit
def cmp_mask_io(x: asc.GlobalAddress, z: asc.GlobalAddress, size: asc.ConstExpr[int], write: asc.ConstExpr[bool]):
    per = 32 // x.dtype.sizeof()
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 0, size)
    whole = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 0, 2 * per)
    asc.data_copy(whole, gm(x), 2 * per)
    if write:
        asc.set_cmp_mask(t)  # MARK-set-cmp-mask
        asc.get_cmp_mask(whole[per:])                # the register read back into the next block
    else:
        asc.get_cmp_mask(t)  # MARK-get-cmp-mask
    asc.data_copy(gm(z), whole, 2 * per)


@pytest.mark.parametrize("backend", REG_BACKENDS)
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32"])
@pytest.mark.parametrize("write", [False, True])
def test_get_and_set_cmp_mask_need_16_bytes_of_their_tensor(backend, dtype, write):
    x = (np.arange(64) + 3).astype(dtype)
    n = 16 // np.dtype(dtype).itemsize
    got, want = np.zeros(64, dtype), np.zeros(64, dtype)
    asc.jit(cmp_mask_io, backend=backend)[1](x, got, n, write)
    asc.jit(cmp_mask_io, backend="sim")[1](x, want, n, write)
    assert got.tobytes() == want.tobytes()
    with pytest.raises(OutOfBoundsError, match=rf"needs (16 bytes|{n} x {dtype} elements)") as info:
        asc.jit(cmp_mask_io, backend=backend)[1](x, got, n - 1, write)
    assert_points_at(info.value, "MARK-set-cmp-mask" if write else "MARK-get-cmp-mask")


@asc.jit
def compare_bits(x: asc.GlobalAddress, z: asc.GlobalAddress, bits: asc.ConstExpr[int], repeat: int):
    per = 256 // x.dtype.sizeof()
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, per * 4)
    m = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, OUT, bits)
    whole = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, OUT, 128)
    asc.data_copy(a, gm(x), per * 4)
    asc.duplicate(whole.reinterpret_cast(asc.int16), 0, 64)
    asc.compare(m, a, a, asc.CMPMODE.EQ, 7, repeat, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))  # MARK-cmp-bits
    asc.data_copy(gm(z), whole, 128)


@pytest.mark.parametrize("backend", REG_BACKENDS)
@pytest.mark.parametrize("dtype, repeat", [("float16", 4), ("float32", 3)])
def test_compare_bits_need_a_bit_per_lane_of_every_repeat(backend, dtype, repeat):
    x = (np.arange(4096) % 5).astype(dtype)
    edge = repeat * (256 // np.dtype(dtype).itemsize) // 8     # whatever the mask: vcmpv compares every lane
    got, want = np.zeros(128, np.uint8), np.zeros(128, np.uint8)
    asc.jit(compare_bits, backend=backend)[1](x, got, edge, repeat)
    asc.jit(compare_bits, backend="sim")[1](x, want, edge, repeat)
    assert got.tobytes() == want.tobytes() and want.any()
    with pytest.raises(OutOfBoundsError, match=rf"mask dst needs {edge} (x uint8 elements|bytes)") as info:
        asc.jit(compare_bits, backend=backend)[1](x, got, edge - 1, repeat)
    assert_points_at(info.value, "MARK-cmp-bits")


# -- the reductions' mask forms: WholeReduce*, BlockReduce*, PairReduceSum ------------------------------------
# The source reaches the last element an enabled lane reads (as for add); the destination its last result:
# a whole reduction writes `width` elements a repeat, `dst_rep` results apart; a block reduction one element per
# 32-byte block with an enabled lane, 8 a repeat; a pair reduction one per enabled pair, per / 2 a repeat.
@asc.jit
def reduce_mask_form(x: asc.GlobalAddress, z: asc.GlobalAddress, ssize: asc.ConstExpr[int], dsize: asc.ConstExpr[int],
                     op: asc.ConstExpr[str], mask: asc.ConstExpr[object], repeat: int, dst_rep: asc.ConstExpr[int],
                     blk: asc.ConstExpr[int], rep: asc.ConstExpr[int]):
    epb = 32 // x.dtype.sizeof()
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, ssize)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, OUT, dsize)
    asc.data_copy(a, gm(x), ssize // epb * epb)
    asc.duplicate(d, 0, dsize // epb * epb)
    if op == "whole_reduce_sum":
        asc.whole_reduce_sum(d, a, mask, repeat, dst_rep, blk, rep)  # MARK-whole_reduce_sum
    elif op == "whole_reduce_max":
        asc.whole_reduce_max(d, a, mask, repeat, dst_rep, blk, rep, asc.ReduceOrder(0))  # MARK-whole_reduce_max
    else:
        getattr(asc, op)(d, a, repeat, mask, dst_rep, blk, rep)  # MARK-block_or_pair
    asc.data_copy(gm(z), d, dsize // epb * epb)


def dst_reach(op: str, itemsize: int, mask, repeat: int, dst_rep: int) -> int:
    """Elements from the destination's start up to the last result the reduction writes."""
    epb, per = 32 // itemsize, 256 // itemsize
    lanes = lanes_of(mask, per)
    if op.startswith("whole"):
        width = 2 if op == "whole_reduce_max" else 1          # ReduceOrder 0: value and index
        return ((repeat - 1) * dst_rep + 1) * width
    per_repeat, lanes_per_result = (8, epb) if op.startswith("block") else (per // 2, 2)
    return (repeat - 1) * dst_rep * per_repeat + max(lanes) // lanes_per_result + 1


# (op, dtype, mask, repeat, dst repeat stride, src block stride, src repeat stride)
REDUCE_CASES = [
    ("block_reduce_sum", "float16", 128, 2, 1, 1, 8),            # the known-gaps example: 2 repeats of 128 lanes
    ("block_reduce_max", "float32", 20, 3, 2, 2, 9),             # lanes 0..19: blocks 0-2, block stride 2
    ("block_reduce_min", "float16", (1 << 17, 0), 2, 0, 1, 1),   # one lane (17), dst stride 0, repeats overlapping
    ("pair_reduce_sum", "float16", (0, 3 << 62), 2, 1, 1, 8),    # the last pair only
    ("pair_reduce_sum", "float32", 8, 3, 2, 1, 12),
    ("whole_reduce_sum", "float32", 64, 3, 2, 1, 8),
    ("whole_reduce_max", "float16", 100, 2, 3, 1, 8),            # value and index: 2 elements a result
]


# the cpp backend's API model has only WholeReduce* of these and refuses the others at their line (runtime/cpp.py)
def _reduce_runs() -> list:
    runs = []
    for i, case in enumerate(REDUCE_CASES):
        for b in BACKENDS:
            name, marks = (b, ()) if isinstance(b, str) else (b.values[0], b.marks)
            if name != "cpp" or case[0].startswith("whole"):
                runs.append(pytest.param(name, *case, marks=marks, id=f"{case[0]}-{case[1]}-{i}-{name}"))
    return runs


REDUCE_RUNS = _reduce_runs()


def _run_reduce(backend, op, dtype, mask, repeat, dst_rep, blk, rep, ssize, dsize, z=None):
    x = (np.arange(4096) % 97 + 1).astype(dtype)
    z = np.full(4096, 5, dtype) if z is None else z
    asc.jit(reduce_mask_form, backend=backend)[1](x, z, ssize, dsize, op, mask, repeat, dst_rep, blk, rep)
    return z


def _reduce_edges(op, dtype, mask, repeat, dst_rep, blk, rep):
    size = np.dtype(dtype).itemsize
    return reach(size, mask, repeat, blk, rep), dst_reach(op, size, mask, repeat, dst_rep)


@pytest.mark.parametrize("backend, op, dtype, mask, repeat, dst_rep, blk, rep", REDUCE_RUNS)
def test_a_reduction_at_the_edge_runs_and_matches_sim(backend, op, dtype, mask, repeat, dst_rep, blk, rep):
    ssize, dsize = _reduce_edges(op, dtype, mask, repeat, dst_rep, blk, rep)
    got = _run_reduce(backend, op, dtype, mask, repeat, dst_rep, blk, rep, ssize, dsize)
    want = _run_reduce("sim", op, dtype, mask, repeat, dst_rep, blk, rep, ssize, dsize)
    assert got.tobytes() == want.tobytes()
    epb = 32 // np.dtype(dtype).itemsize
    assert (want[: dsize // epb * epb] != 0).any() or dsize < epb      # the reduction wrote something


@pytest.mark.parametrize("short", ["src", "dst"])
@pytest.mark.parametrize("backend, op, dtype, mask, repeat, dst_rep, blk, rep", REDUCE_RUNS)
def test_a_reduction_one_element_short_is_out_of_bounds(backend, short, op, dtype, mask, repeat, dst_rep, blk, rep):
    ssize, dsize = _reduce_edges(op, dtype, mask, repeat, dst_rep, blk, rep)
    need = ssize if short == "src" else dsize
    ssize, dsize = (ssize - 1, dsize) if short == "src" else (ssize, dsize - 1)
    z = np.full(4096, 5, dtype)
    with pytest.raises(OutOfBoundsError, match=rf"\b{need} (x \w+ )?elements") as info:
        _run_reduce(backend, op, dtype, mask, repeat, dst_rep, blk, rep, ssize, dsize, z)
    assert_points_at(info.value, f"MARK-{op if op.startswith('whole') else 'block_or_pair'}")
    assert (z == 5).all()                                       # nothing reached global memory
