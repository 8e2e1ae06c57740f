"""asc.mrg_sort (Ascend C MrgSort: both forms, MrgSortSrcList, MrgSort4Info) and asc.sort (Ascend C Sort, plain and
full): against NumPy references written from the API's documentation on sim and eager (a merge of sorted lists of
8-byte (score, index) structures, largest score first, of equal scores the earlier list's; exhausted suspension
stops after the structure that empties a list; repeats over four back-to-back lists); the emission checked against
the real headers and both CANN symbol lists; the undocumented cases refused; misuse refused at the user's line; the
cpp backend's refusal; cpu_debug (the stub's vmrgsort4 under the vendor's own MrgSort and Sort) equal to sim."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from asc_trace.toolchain.ascendc_headers import find_ascendc_headers
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm
from test_sort32 import reference as sort32_reference
import lane  # the fast lane leaves the g++ header checks to `make test`

CAP = 32        # structures per list slot in the kernels below (a multiple of 4: every list 32-byte aligned)
VALID = {2: 3, 3: 7, 4: 15}


@asc.jit
def mrg_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, l1: asc.ConstExpr[int], l2: asc.ConstExpr[int],
               l3: asc.ConstExpr[int], l4: asc.ConstExpr[int], valid: asc.ConstExpr[int], exhausted: asc.ConstExpr[int],
               info: asc.ConstExpr[int]):
    per = 8 // x.dtype.sizeof()
    n = 4 * CAP * per
    buf = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    o = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, n)
    asc.data_copy(buf, gm(x), n)
    asc.data_copy(o, gm(z), n)
    s3 = buf[2 * CAP * per:] if valid >= 7 or info else None     # an unused list may be given or left out
    s4 = buf[3 * CAP * per:] if valid == 15 or info else None
    lst = asc.MrgSortSrcList(x.dtype, buf, buf[CAP * per:], s3, s4)
    if info:
        asc.mrg_sort(o, lst, asc.MrgSort4Info([l1, l2, l3, l4], exhausted == 1, valid, 1))
    else:
        asc.mrg_sort(o, lst, [l1, l2, l3, l4], [0, 0, 0, 0], valid, 1, is_exhausted_suspension=exhausted == 1)
    asc.data_copy(gm(z), o, n)


@asc.jit
def mrg_repeat_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, length: asc.ConstExpr[int],
                      repeat: asc.ConstExpr[int]):
    per = 8 // x.dtype.sizeof()
    n = 4 * length * repeat * per
    buf = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    o = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 65536, n)
    asc.data_copy(buf, gm(x), n)
    lst = asc.MrgSortSrcList(x.dtype, buf, buf[length * per:], buf[2 * length * per:], buf[3 * length * per:])
    asc.mrg_sort(o, lst, asc.MrgSort4Info([length] * 4, False, 15, repeat))
    asc.data_copy(gm(z), o, n)


@asc.jit
def sort_kernel(s: asc.GlobalAddress, i: asc.GlobalAddress, z: asc.GlobalAddress, t: asc.GlobalAddress,
                n: asc.ConstExpr[int], repeat: asc.ConstExpr[int], full: asc.ConstExpr[int]):
    per = 8 // s.dtype.sizeof()
    a = asc.LocalTensor(s.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 32768, n)
    o = asc.LocalTensor(s.dtype, asc.TPosition.VECOUT, 65536, n * per)
    tmp = asc.LocalTensor(s.dtype, asc.TPosition.VECCALC, 131072, n * per)
    asc.data_copy(a, gm(s), n)
    asc.data_copy(b, gm(i), n)
    asc.data_copy(o, gm(z), n * per)
    asc.data_copy(tmp, gm(t), n * per)
    asc.sort(o, a, b, tmp, repeat, is_full_sort=full == 1)
    asc.data_copy(gm(z), o, n * per)
    asc.data_copy(gm(t), tmp, n * per)


# -- references, from the documentation --------------------------------------------------------------------------

def key_of(struct: bytes, dtype: str) -> float:
    return float(np.frombuffer(struct[:np.dtype(dtype).itemsize], dtype)[0])


def reference_merge(lists: list[list[bytes]], dtype: str, exhausted: bool) -> list[bytes]:
    """Take the largest head each step (of equal heads the earlier list's); with exhausted suspension stop as soon
    as a list is empty."""
    pos = [0] * len(lists)
    out = []
    while True:
        live = [k for k in range(len(lists)) if pos[k] < len(lists[k])]
        if not live or (exhausted and len(live) < len(lists)):
            return out
        best = live[0]
        for k in live[1:]:
            if key_of(lists[k][pos[k]], dtype) > key_of(lists[best][pos[best]], dtype):
                best = k
        out.append(lists[best][pos[best]])
        pos[best] += 1


def make_list(rng: np.random.Generator, dtype: str, length: int, ties: bool) -> list[bytes]:
    """`length` structures sorted largest score first (+0 only), random indices and reserved bytes."""
    keys = (rng.integers(-4, 4, length) if ties else rng.random(length) * 200 - 100).astype(dtype)
    keys[keys == 0] = 0
    keys = -np.sort(-keys, kind="stable")
    out = []
    for k in keys:
        raw = bytearray(rng.integers(0, 256, 8, dtype=np.uint8).tobytes())      # reserved bytes travel along
        raw[:keys.itemsize] = k.tobytes()
        out.append(bytes(raw))
    return out


def random_bytes(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    return rng.integers(-9, 9, n).astype(dtype)


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(["float16", "float32"]), st.sampled_from([2, 3, 4]), st.lists(st.integers(0, CAP), min_size=4,
       max_size=4), st.booleans(), st.booleans(), st.booleans(), st.integers(0, 999), st.sampled_from(["sim", "eager"]))
def test_mrg_sort_matches_the_documented_merge(dtype, used, lengths, ties, exhausted, info, seed, backend):
    rng = np.random.default_rng(seed)
    if exhausted:
        lengths = [max(1, v) for v in lengths]      # an empty list with exhausted suspension is refused (below)
    per = 8 // np.dtype(dtype).itemsize
    lists = [make_list(rng, dtype, lengths[k], ties) for k in range(4)]
    raw = bytearray(random_bytes(rng, 4 * CAP * per, dtype).tobytes())
    for k, li in enumerate(lists):
        for j, s in enumerate(li):
            raw[(k * CAP + j) * 8:(k * CAP + j + 1) * 8] = s
    x = np.frombuffer(bytes(raw), dtype).copy()
    z0 = random_bytes(rng, 4 * CAP * per, dtype)
    z = z0.copy()
    asc.jit(mrg_kernel, backend=backend)[1](x, z, *lengths, VALID[used], int(exhausted), int(info))
    want = bytearray(z0.tobytes())
    merged = b"".join(reference_merge(lists[:used], dtype, exhausted))
    want[:len(merged)] = merged
    assert z.tobytes() == bytes(want)


@settings(max_examples=examples(15), deadline=None)
@given(st.sampled_from(["float16", "float32"]), st.sampled_from([4, 8, 12]), st.integers(1, 4), st.booleans(),
       st.integers(0, 999), st.sampled_from(["sim", "eager"]))
def test_mrg_sort_repeats_merge_each_group_of_four(dtype, length, repeat, ties, seed, backend):
    rng = np.random.default_rng(seed)
    groups = [[make_list(rng, dtype, length, ties) for _ in range(4)] for _ in range(repeat)]
    x = np.frombuffer(b"".join(s for g in groups for li in g for s in li), dtype).copy()
    z = np.zeros_like(x)
    asc.jit(mrg_repeat_kernel, backend=backend)[1](x, z, length, repeat)
    assert z.tobytes() == b"".join(s for g in groups for s in reference_merge(g, dtype, False))


def sort_reference(scores: np.ndarray, idx: np.ndarray, z0: np.ndarray, repeat: int, full: bool) -> np.ndarray:
    z = sort32_reference(scores, idx, z0, repeat)
    if full:
        n = repeat * 32
        raw = z.view(np.uint8)
        structs = [bytes(raw[k * 8:k * 8 + 8]) for k in range(n)]
        structs.sort(key=lambda s: -key_of(s, scores.dtype.name))      # stable: equal scores keep their order
        raw[:n * 8] = np.frombuffer(b"".join(structs), np.uint8)
    return z


@settings(max_examples=examples(25), deadline=None)
@given(st.sampled_from(["float16", "float32"]), st.sampled_from([1, 2, 3, 4, 5, 6, 8, 9, 16, 17]), st.booleans(),
       st.booleans(), st.integers(0, 999), st.sampled_from(["sim", "eager"]))
def test_sort_matches_the_documented_order(dtype, repeat, full, ties, seed, backend):
    rng = np.random.default_rng(seed)
    n = 32 * 17
    scores = (rng.integers(-4, 4, n) if ties else rng.random(n) * 200 - 100).astype(dtype)
    scores[scores == 0] = 0
    idx = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    per = 8 // np.dtype(dtype).itemsize
    z0 = random_bytes(rng, n * per, dtype)
    t0 = random_bytes(rng, n * per, dtype)
    z, t = z0.copy(), t0.copy()
    asc.jit(sort_kernel, backend=backend)[1](scores, idx, z, t, n, repeat, int(full))
    want = sort_reference(scores, idx, z0, repeat, full)
    assert z.tobytes() == want.tobytes()
    if full:         # tmp holds a copy of the sorted structures (DoFullSort's last step); the rest untouched
        assert t.tobytes()[:repeat * 256] == want.tobytes()[:repeat * 256]
        assert t.tobytes()[repeat * 256:] == t0.tobytes()[repeat * 256:]
    else:
        assert t.tobytes() == t0.tobytes()


def test_sort_takes_a_runtime_repeat_time():
    @asc.jit
    def runtime_repeat(s: asc.GlobalAddress, i: asc.GlobalAddress, z: asc.GlobalAddress, rep: int):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        b = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 1024, 256)
        o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 512)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, 512)
        asc.data_copy(a, gm(s), 256)
        asc.data_copy(b, gm(i), 256)
        asc.data_copy(o, gm(z), 512)
        asc.sort(o, a, b, t, rep, True)
        asc.data_copy(gm(z), o, 512)

    rng = np.random.default_rng(2)
    scores = rng.integers(-3, 3, 256).astype(np.float32)
    scores[scores == 0] = 0
    idx = np.arange(256, dtype=np.uint32)
    for rep in (3, 6):
        z0 = random_bytes(rng, 512, "float32")
        z = z0.copy()
        runtime_repeat[1](scores, idx, z, rep)
        assert z.tobytes() == sort_reference(scores, idx, z0, rep, True).tobytes()


# -- what the documentation leaves open is refused ---------------------------------------------------------------

def _two_lists(first: list[float], second: list[float]) -> np.ndarray:
    raw = np.zeros(4 * CAP * 2, np.float32)
    raw[0:2 * len(first):2] = first
    raw[2 * CAP:2 * CAP + 2 * len(second):2] = second
    return raw


@pytest.mark.parametrize("first,second,match", [
    ([3.0, np.nan], [1.0], "NaN"), ([1.0, 0.0], [-0.0], "-0"), ([1.0, 2.0], [0.5], "list 1 is not sorted")])
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_undocumented_merges_are_refused(first, second, match, backend):
    x = _two_lists(first, second)
    with pytest.raises(asc.NotProvidedError, match=match):
        asc.jit(mrg_kernel, backend=backend)[1](x, np.zeros_like(x), len(first), len(second), 0, 0, 3, 0, 0)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_full_sort_refuses_signed_zeros_across_repeats(backend):
    scores = np.arange(64, dtype=np.float32)
    scores[3], scores[40] = 0.0, -0.0
    z, t = np.zeros(128, np.float32), np.zeros(128, np.float32)
    with pytest.raises(asc.NotProvidedError, match="-0"):
        asc.jit(sort_kernel, backend=backend)[1](scores, np.arange(64, dtype=np.uint32), z, t, 64, 2, 1)
    asc.jit(sort_kernel, backend=backend)[1](scores, np.arange(64, dtype=np.uint32), z, t, 64, 2, 0)   # per repeat: fine


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_repeat_needs_back_to_back_lists(backend):
    @asc.jit
    def apart(x: asc.GlobalAddress):
        buf = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1024)
        o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 8192, 256)
        asc.data_copy(buf, gm(x), 1024)
        lst = asc.MrgSortSrcList(asc.float32, buf, buf[64:], buf[128:], buf[256:])
        asc.mrg_sort(o, lst, asc.MrgSort4Info([8, 8, 8, 8], False, 15, 2))  # apart
        asc.data_copy(gm(x), o, 256)

    with pytest.raises(asc.NotProvidedError, match="back to back") as e:
        asc.jit(apart, backend=backend)[1](np.zeros(1024, np.float32))
    assert_points_at(e.value, "apart")


# -- emission, the real headers, the cpp backend ------------------------------------------------------------------

def test_emission_and_the_real_headers():
    x = np.zeros(4 * CAP * 4, np.float16)
    srcs = [asc.compile(mrg_kernel, (x, x, 5, 7, 3, 1, 7, 0, 1)).source,
            asc.compile(mrg_kernel, (x, x, 5, 7, 3, 1, 15, 1, 0)).source,
            asc.compile(mrg_kernel, (x, x, 5, 7, 0, 0, 3, 0, 0)).source,
            asc.compile(sort_kernel, (np.zeros(64, np.float32), np.zeros(64, np.uint32), np.zeros(128, np.float32),
                                      np.zeros(128, np.float32), 64, 2, 1)).source,
            asc.compile(sort_kernel, (np.zeros(64, np.float16), np.zeros(64, np.uint32), np.zeros(256, np.float16),
                                      np.zeros(256, np.float16), 64, 2, 0)).source]
    assert "AscendC::MrgSort(" in srcs[0] and "AscendC::MrgSort4Info(" in srcs[0]
    assert "AscendC::MrgSort<half, true>(" in srcs[1] and "AscendC::MrgSort<half, false>(" in srcs[2]
    assert "AscendC::Sort<float, true>(" in srcs[3] and "AscendC::Sort<half, false>(" in srcs[4]
    for src in srcs:
        assert unlisted(src, "asc-devkit") == [] and unlisted(src, "cann-8.1") == []
    if headers_if_configured() is not None and not lane.FAST:
        kernels = [Kernel(f"mrg{k}", src) for k, src in enumerate(srcs)]
        assert not check_kernels(kernels)
        if os.environ.get("ASC_TRACE_CANN81_HOME"):
            tree = find_ascendc_headers({"ASC_TRACE_ASCENDC_HOME": os.environ["ASC_TRACE_CANN81_HOME"]})
            assert not check_kernels(kernels, tree)


@pytest.mark.parametrize("op", ["mrg_sort", "sort"])
def test_cpp_refuses_with_the_records_reason(op):
    reason = REGISTRY[op].cpp_model.reason
    with pytest.raises(asc.ToolchainError) as e:
        if op == "mrg_sort":
            x = np.zeros(4 * CAP * 2, np.float32)
            asc.jit(mrg_kernel, backend="cpp")[1](x, x.copy(), 4, 4, 0, 0, 3, 0, 0)
        else:
            asc.jit(sort_kernel, backend="cpp")[1](np.zeros(64, np.float32), np.zeros(64, np.uint32),
                                                   np.zeros(128, np.float32), np.zeros(128, np.float32), 64, 2, 1)
    assert reason in str(e.value)


# -- misuse at the user's line ----------------------------------------------------------------------------------

@asc.jit
def misuse_kernel(x: asc.GlobalAddress, case: asc.ConstExpr[int]):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 256)
    u = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 2048, 256)
    i = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 3072, 256)
    o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 512)
    if case == 0:
        asc.mrg_sort(o, asc.MrgSortSrcList(asc.float32, a, a[64:]), [8, 8, 0, 0], [0] * 4, 5, 1)  # valid-5
    elif case == 1:
        asc.mrg_sort(o, asc.MrgSortSrcList(asc.float32, a, a[64:]), [8, 8, 8, 0], [0] * 4, 7, 1)  # too-few
    elif case == 2:
        asc.MrgSortSrcList(asc.float32, a, h)  # mixed-list
    elif case == 3:
        lst = asc.MrgSortSrcList(asc.float32, a, a[64:], a[128:], a[192:])
        asc.mrg_sort(o, lst, asc.MrgSort4Info([8, 8, 8, 4], False, 15, 2))  # unequal-repeat
    elif case == 4:
        asc.mrg_sort(o, asc.MrgSortSrcList(asc.float32, a, a[64:]), [8, 4096], [0] * 4, 3, 1)  # too-long
    elif case == 5:
        asc.sort(o, a, u, o, 2, is_full_sort=1)  # not-bool
    elif case == 6:
        asc.sort(o, a, i, o, 2)  # index-type
    elif case == 7:
        asc.mrg_sort(o, [a, a], [8, 8], [0] * 4, 3, 1)  # not-a-list
    elif case == 8:
        asc.mrg_sort(i, asc.MrgSortSrcList(asc.int32, i, i[64:]), [8, 8], [0] * 4, 3, 1)  # int-lists
    elif case == 9:
        asc.mrg_sort(o, asc.MrgSortSrcList(asc.float32, a, a[64:]), [8, 0], [0] * 4, 3, 1, True)  # empty-exhausted
    elif case == 10:
        asc.sort(o, a, u, o, 256)  # sort-repeat


@pytest.mark.parametrize("case,cls,match,marker", [
    (0, asc.TraceError, "3, 7 or 15", "valid-5"),
    (1, asc.TraceError, "merges 3 lists", "too-few"),
    (2, asc.DTypeError, "src2 holds", "mixed-list"),
    (3, asc.TraceError, "one length", "unequal-repeat"),
    (4, asc.TraceError, "0..4095", "too-long"),
    (5, asc.TraceError, "True or False", "not-bool"),
    (6, asc.DTypeError, "uint32", "index-type"),
    (7, asc.TraceError, "MrgSortSrcList", "not-a-list"),
    (8, asc.DTypeError, "half or float", "int-lists"),
    (9, asc.TraceError, "empty", "empty-exhausted"),
    (10, asc.TraceError, "255", "sort-repeat"),
])
def test_misuse_is_refused_at_the_users_line(case, cls, match, marker):
    with pytest.raises(cls, match=match) as e:
        asc.compile(misuse_kernel, (np.zeros(8, np.float32), case))
    assert_points_at(e.value, marker)


# -- cpu_debug: the stub's vmrgsort4 (asc_trace/toolchain/stub/src/sort.cpp) under the vendor's MrgSort and Sort ----
_HEADERS = pytest.mark.skipif(headers_if_configured() is None,
                              reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")


@pytest.mark.slow
@_HEADERS
@pytest.mark.parametrize("dtype,used,exhausted,info", [("float16", 4, False, True), ("float32", 3, True, False),
                                                       ("float32", 2, False, False), ("float16", 4, True, True)])
def test_mrg_sort_on_cpu_debug_gives_the_bytes_of_sim(dtype, used, exhausted, info):
    rng = np.random.default_rng(11)
    lengths = [5, 12, 1, 9]
    per = 8 // np.dtype(dtype).itemsize
    lists = [make_list(rng, dtype, lengths[k], True) for k in range(4)]
    raw = bytearray(random_bytes(rng, 4 * CAP * per, dtype).tobytes())
    for k, li in enumerate(lists):
        for j, s in enumerate(li):
            raw[(k * CAP + j) * 8:(k * CAP + j + 1) * 8] = s
    x = np.frombuffer(bytes(raw), dtype).copy()
    z0 = random_bytes(rng, 4 * CAP * per, dtype)
    out = {}
    for backend in ("sim", "cpu_debug"):
        z = z0.copy()
        asc.jit(mrg_kernel, backend=backend)[1](x, z, *lengths, VALID[used], int(exhausted), int(info))
        out[backend] = z.tobytes()
    assert out["sim"] == out["cpu_debug"]


@pytest.mark.slow
@_HEADERS
@pytest.mark.parametrize("dtype,repeat", [("float16", 5), ("float32", 17), ("float32", 16)])
def test_full_sort_on_cpu_debug_gives_the_bytes_of_sim(dtype, repeat):
    """The vendor's DoFullSort (Sort32, then rounds of MrgSort through tmp) against sim's stable sort."""
    rng = np.random.default_rng(5)
    n = 32 * 17
    scores = rng.integers(-6, 6, n).astype(dtype)
    scores[scores == 0] = 0
    idx = np.arange(n, dtype=np.uint32)
    per = 8 // np.dtype(dtype).itemsize
    out = {}
    for backend in ("sim", "cpu_debug"):
        z, t = np.zeros(n * per, dtype), np.zeros(n * per, dtype)
        asc.jit(sort_kernel, backend=backend)[1](scores, idx, z, t, n, repeat, 1)
        out[backend] = z.tobytes() + t.tobytes()
    assert out["sim"] == out["cpu_debug"]


@pytest.mark.slow
@_HEADERS
def test_mrg_sort_repeats_on_cpu_debug_give_the_bytes_of_sim():
    rng = np.random.default_rng(9)
    groups = [[make_list(rng, "float16", 8, True) for _ in range(4)] for _ in range(3)]
    x = np.frombuffer(b"".join(s for g in groups for li in g for s in li), np.float16).copy()
    out = {}
    for backend in ("sim", "cpu_debug"):
        z = np.zeros_like(x)
        asc.jit(mrg_repeat_kernel, backend=backend)[1](x, z, 8, 3)
        out[backend] = z.tobytes()
    assert out["sim"] == out["cpu_debug"] == b"".join(s for g in groups for s in reference_merge(g, "float16", False))


@pytest.mark.slow
@_HEADERS
def test_mrg_sort_refusals_are_the_same_on_cpu_debug():
    x = _two_lists([1.0, 2.0], [0.5])
    for backend in ("sim", "cpu_debug"):
        with pytest.raises(asc.NotProvidedError, match="not sorted"):
            asc.jit(mrg_kernel, backend=backend)[1](x, np.zeros_like(x), 2, 1, 0, 0, 3, 0, 0)
