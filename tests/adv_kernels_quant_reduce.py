"""Kernels calling asc.adv.dequant, sum, mean, log2, log10, clamp_max and clamp_min in their forms (issue #22,
helper m22), for tests/test_adv_dequant.py, test_adv_reduce.py, test_adv_math_more.py and the suite's
emitted-source checks (adv_kernels.suite)."""
from __future__ import annotations

import numpy as np

import asc_trace as asc

from adv_kernels import UbTensors

N = 1024
SCALAR = {"clamp_max": 0.75, "clamp_min": -0.5}


TMP_AT = 0x10000


def _pitch(n: int, dt) -> int:
    per = 32 // np.dtype(dt).itemsize
    return -(-n // per) * per


def dequant_kernel(m: int, n: int, cal: int, dst_dt, scale_dt, form: str = "params", with_tmp: bool = True,
                   tmp_bytes: int | None = None, scalar: float | None = None, mode=None, count: int | None = None,
                   backend: str = "sim"):
    """src [m, n] int32, scale [n] -> dst [m, pitch]; form: params / count / size."""
    # bfloat16 travels as uint16 (NumPy has none) and is reinterpreted in the kernel
    dst_asc = {"float16": asc.float16, "float32": asc.float32, "bfloat16": asc.uint16}[dst_dt]
    sc_asc = {"uint64": asc.uint64, "float32": asc.float32, "bfloat16": asc.uint16}[scale_dt]
    pitch = _pitch(n, np.float16 if dst_dt != "float32" else np.float32)
    sp = -(-n * np.dtype(scale_dt if scale_dt != "bfloat16" else "uint16").itemsize // 32) * 32 \
        // np.dtype(scale_dt if scale_dt != "bfloat16" else "uint16").itemsize     # the scales, padded to 32 bytes
    tb = tmp_bytes if tmp_bytes is not None else asc.adv.get_ascend_dequant_max_min_tmp_size([m, n], 4)[0]
    kw = {} if mode is None else {"mode": mode}

    def kernel(x: asc.GlobalAddress, s: asc.GlobalAddress, z: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        xg, sg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        sg.set_global_buffer(s)
        zg.set_global_buffer(z)
        xl = lt(asc.int32, asc.TPosition.VECIN, 0, m * n)
        sl = lt(sc_asc, asc.TPosition.VECIN, 0x8000, sp)
        zl = lt(dst_asc, asc.TPosition.VECOUT, 0xA000, m * pitch)
        asc.data_copy(xl, xg, m * n)
        asc.data_copy(sl, sg, sp)
        asc.data_copy(zl, zg, m * pitch)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP_AT, tb) if with_tmp else None
        scale = (sl.reinterpret_cast(asc.bfloat16) if scale_dt == "bfloat16" else sl) if scalar is None else scalar
        zd = zl.reinterpret_cast(asc.bfloat16) if dst_dt == "bfloat16" else zl
        if scalar is not None:
            asc.adv.dequant_scalar(zd, xl, scale, asc.adv.DequantParams(m, n, cal), tmp, **kw)
        elif form == "params":
            asc.adv.dequant(zd, xl, scale, asc.adv.DequantParams(m, n, cal), tmp, **kw)
        elif form == "count":
            asc.adv.dequant(zd, xl, scale, temp_buffer=tmp, count=count if count is not None else m * n)
        else:
            asc.adv.dequant(zd, xl, scale, temp_buffer=tmp)
        asc.data_copy(zg, zl, m * pitch)
    kernel.__name__ = kernel.__qualname__ = f"adv_dequant_{dst_dt}_{scale_dt}_{form}"
    return asc.jit(kernel, backend=backend)


def reduce_kernel(name: str, outter: int, inner: int, n: int, dt, with_tmp: bool = True, acc=None,
                  tmp_bytes: int | None = None, backend: str = "sim"):
    """x [outter, inner] -> asc.adv.<sum|mean> -> z [outter rounded up to a block]."""
    t = asc.float16 if dt == np.float16 else asc.float32
    per = 32 // np.dtype(dt).itemsize
    zn = -(-outter // per) * per
    isz = np.dtype(dt).itemsize
    if tmp_bytes is None:
        tmp_bytes = (asc.adv.get_sum_max_min_tmp_size(n, isz)[0] if name == "sum"
                     else asc.adv.get_mean_max_min_tmp_size(n, isz, 4 if acc is not None else isz)[0])
        tmp_bytes = max(tmp_bytes, 32) * 4       # the vendor's Mean sizing is short for many partials (docs)

    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = lt(t, asc.TPosition.VECIN, 0, outter * inner)
        zl = lt(t, asc.TPosition.VECOUT, 0x10000, zn)
        asc.data_copy(xl, xg, outter * inner)
        asc.data_copy(zl, zg, zn)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 0x14000, tmp_bytes) if with_tmp else None
        p = asc.adv.SumParams(outter, inner, n)
        if name == "sum":
            asc.adv.sum(zl, xl, p, tmp)
        else:
            asc.adv.mean(zl, xl, p, tmp, acc_dtype=acc)
        asc.data_copy(zg, zl, zn)
    kernel.__name__ = kernel.__qualname__ = f"adv_{name}_{outter}x{n}"
    return asc.jit(kernel, backend=backend)


def math_kernel(name: str, with_tmp: bool = True, backend: str = "sim", tmp_bytes: int = 8192, alias: bool = False):
    fn = getattr(asc.adv, name)

    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        lt = UbTensors(with_tmp)
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, N)
        zl = xl if alias else lt(x.dtype, asc.TPosition.VECOUT, 8192, N)
        asc.data_copy(xl, xg, n)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 16384, tmp_bytes) if with_tmp else None
        if name in SCALAR:
            fn(zl, xl, SCALAR[name], n, tmp)
        else:
            fn(zl, xl, n, tmp)
        asc.data_copy(zg, zl, n)
    k.__name__ = k.__qualname__ = f"adv_{name}_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(k, backend=backend)


def suite() -> list:
    """One compiled kernel per form."""
    out = []
    for dst_dt, scale_dt, form, mode in (("float16", "uint64", "params", asc.adv.DeQuantMode.DEQUANT_WITH_MULTI_ROW),
                                         ("float32", "float32", "count", None), ("bfloat16", "float32", "size", None)):
        k = dequant_kernel(2, 16, 16, dst_dt, scale_dt, form=form, mode=mode)
        sdt = {"uint64": np.uint64, "float32": np.float32}[scale_dt]
        ddt = {"float16": np.float16, "float32": np.float32, "bfloat16": np.uint16}[dst_dt]
        out.append(asc.compile(k, (np.ones(32, np.int32), np.ones(16, sdt), np.zeros(32, ddt))))
    out.append(asc.compile(dequant_kernel(2, 16, 8, "float32", "float32", scalar=0.5, with_tmp=False),
                           (np.ones(32, np.int32), np.ones(16, np.float32), np.zeros(32, np.float32))))
    # the size form without a temp buffer: AscendDequant(dst, src, scale), the vendor's 3-argument overload
    out.append(asc.compile(dequant_kernel(2, 16, 16, "float32", "float32", form="size", with_tmp=False),
                           (np.ones(32, np.int32), np.ones(16, np.float32), np.zeros(32, np.float32))))
    for name, acc, with_tmp in (("sum", None, True), ("sum", None, False), ("mean", asc.float32, True),
                                ("mean", None, False)):
        out.append(asc.compile(reduce_kernel(name, 2, 320, 300, np.float16, with_tmp=with_tmp, acc=acc),
                               (np.ones(640, np.float16), np.zeros(16, np.float16))))
    for name in ("log2", "log10", "clamp_max", "clamp_min"):
        for with_tmp in (True, False):
            out.append(asc.compile(math_kernel(name, with_tmp), (np.ones(N, np.float16), np.zeros(N, np.float16), N)))
    from adv_kernels_fmod import fmod_kernel     # Fmod(dst, src0, src1[, tmp], count): both arities
    for with_tmp in (True, False):
        out.append(asc.compile(fmod_kernel(with_tmp), (np.ones(N, np.float16), np.ones(N, np.float16),
                                                       np.zeros(N, np.float16), N)))
    from adv_kernels_antiquant import antiquant_kernel     # AscendAntiQuant: the /6 (offset, tmp) and /5 forms
    for dst_dt, kw in (("float16", {}), ("bfloat16", {"offset": None}), ("float16", {"with_tmp": False})):
        out.append(asc.compile(antiquant_kernel(dst_dt, **kw), (np.ones(1024, np.int8), np.zeros(1024, np.uint16
                                                                                                if dst_dt == "bfloat16"
                                                                                                else np.float16))))
    from adv_kernels_cumsum import cumsum_kernel     # CumSum<T, config>: with and without sharedTmpBuffer
    for last, with_tmp in ((True, True), (False, False)):
        out.append(asc.compile(cumsum_kernel(16, 16, last, with_tmp=with_tmp),
                               (np.ones(256, np.float16), np.zeros(256, np.float16), np.zeros(16, np.float16))))
    return out
