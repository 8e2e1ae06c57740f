"""The op library on the three CPU backends: the simulator, eager, and the emitted Ascend C compiled
against the API model (cpp) give the same bytes, transcendentals included."""
import numpy as np
import pytest

import asc_trace as asc
import op_cases as C
from asc_trace.graph.ops import REGISTRY

CASES = sorted({(op.name, "float16" if "float16" in (op.dtypes or ()) else sorted(op.dtypes)[0])
                for op in REGISTRY.values() if op.family in ("vec_binary", "vec_unary", "vec_scalar", "vec_duplicate")}
               | {("exp", "float32"), ("ln", "float32"), ("div", "float32"), ("reduce_sum", "float16")})


def _all(kernel, make_args, read):
    out = {}
    for backend in ("sim", "eager", "cpp"):
        args = make_args()
        asc.jit(kernel, backend=backend)[1](*args)
        out[backend] = read(args)
    assert out["sim"].tobytes() == out["eager"].tobytes(), "sim != eager"
    assert out["sim"].tobytes() == out["cpp"].tobytes(), "sim != cpp"


@pytest.mark.parametrize("op,dt", CASES)
def test_elementwise_backends_agree(op, dt):
    rng = np.random.default_rng(1)
    n, cap = 200, C.padded(200, dt)
    a = C.values(cap, dt, rng, positive=op in ("ln", "sqrt", "rsqrt"))
    b = C.values(cap, dt, rng)
    z0 = C.values(cap, dt, rng)
    scalar = 0.75 if dt in ("float16", "float32", "bfloat16") else 3
    if op == "reduce_sum":
        _all(C.reduce_kernel, lambda: (a, np.zeros(16, np.float16), n, cap, op, False), lambda args: args[1])
        return
    fam = REGISTRY[op].family
    _all(C.elementwise, lambda: (C.as_arg(a, dt), C.as_arg(b, dt), C.as_arg(z0.copy(), dt), n, cap, op, fam, scalar),
         lambda args: C.bits_of(args[2], dt))


@pytest.mark.parametrize("src,dst,mode", [("float32", "float16", 6), ("float32", "bfloat16", 2), ("float32", "int32", 4),
                                          ("float16", "int8", 5), ("int32", "float32", 3), ("float32", "float32", 1),
                                          ("float16", "float32", 0)])
def test_cast_backends_agree(src, dst, mode):
    rng = np.random.default_rng(2)
    n, cap = 100, 128
    x = (rng.standard_normal(cap) * 300).astype(C.NP[src]) if src != "int32" else \
        rng.integers(-2**30, 2**30, cap).astype(np.int32)
    _all(C.cast_kernel, lambda: (x, C.as_arg(np.zeros(cap, C.NP[dst]), dst), n, cap, mode),
         lambda args: C.bits_of(args[1], dst))


def test_masked_reduce_cmpsel_pad_backends_agree():
    rng = np.random.default_rng(3)
    a = C.values(640, "float16", rng)
    b = C.values(640, "float16", rng)
    _all(C.masked, lambda: (a, b, np.zeros(640, np.float16), 640, "add", "vec_binary", 0.0, (0xF0F0F0F0F0F0F0F0, 7),
                            3, (1, 2, 1, 9, 10, 8)), lambda args: args[2])
    _all(C.whole_reduce_kernel, lambda: (a, np.zeros(256, np.float16), 640, "whole_reduce_max", 100, 3, 2, 1, 9, 0),
         lambda args: args[1])
    _all(C.cmpsel_kernel, lambda: (a[:256], b[:256], np.zeros(32, np.uint8), np.zeros(256, np.float16), 256, 4, 0.5),
         lambda args: np.concatenate([args[2].view(np.uint8), args[3].view(np.uint8)]))
    x32 = C.values(200, "float32", rng)
    _all(C.pad_in_kernel, lambda: (x32, np.zeros(96, np.float32), 96, (3, 13 * 4, 8, 1, 0), (True, 2, 1, 5.0)),
         lambda args: args[1])
