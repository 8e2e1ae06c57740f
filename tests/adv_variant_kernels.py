"""Kernels for SoftMax's variants and the further norms of asc.adv (tests/test_adv_simple_softmax.py, ...):
raw LocalTensors at fixed UB places, one core, the tiling filled on the host."""
from __future__ import annotations

import asc_trace as asc

from adv_kernels import UbTensors


def simple_softmax_kernel(m: int, k: int, float_stats: bool = False, tmp_bytes: int = 32 * 1024,
                          type_size: int = 2, host_tiling: bool = True, with_tmp: bool = True, **options):
    """x [m, k], the row sum and max (reduceK elements a row, as SoftMax writes them) -> z = SimpleSoftMax."""
    tiling = asc.adv.softmax_tiling_func([m, k], type_size, tmp_bytes) if host_tiling else asc.adv.SoftmaxTiling()

    def simple_softmax_rows(x: asc.GlobalAddress, sm: asc.GlobalAddress, mx: asc.GlobalAddress,
                            z: asc.GlobalAddress, stat_n: int):
        lt = UbTensors(with_tmp)
        xg, sg, mg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        for t, a in ((xg, x), (sg, sm), (mg, mx), (zg, z)):
            t.set_global_buffer(a)
        st = asc.float32 if float_stats else x.dtype
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, m * k)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 32768, m * k)
        sl = lt(st, asc.TPosition.VECIN, 65536, 1024)
        ml = lt(st, asc.TPosition.VECIN, 65536 + 4096, 1024)
        asc.data_copy(xl, xg, m * k)
        asc.data_copy(sl, sg, stat_n)
        asc.data_copy(ml, mg, stat_n)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 81920, tmp_bytes)
            asc.adv.simple_softmax(zl, sl, ml, xl, tiling, tmp, shape=(m, k))
        else:
            asc.adv.simple_softmax(zl, sl, ml, xl, tiling, shape=(m, k))
        asc.data_copy(zg, zl, m * k)
    simple_softmax_rows.__name__ = simple_softmax_rows.__qualname__ = f"adv_simple_softmax_{m}x{k}"
    return asc.jit(simple_softmax_rows, **options)


def flash_v2_kernel(m: int, k: int, update: bool, float_stats: bool = False, tmp_bytes: int = 32 * 1024,
                    type_size: int = 2, host_tiling: bool = True, with_tmp: bool = True, **options):
    """x [m, k] and the last step's sum / max (N_STAT elements each) -> z, the new sum and max, exp_max
    (SoftmaxFlashV2); the statistics' buffers hold 1024 elements."""
    st_size = 4 if float_stats else type_size
    tiling = (asc.adv.softmax_flash_v2_tiling_func([m, k], type_size, st_size, tmp_bytes, update)
              if host_tiling else asc.adv.SoftmaxTiling())

    def flash_v2_rows(x: asc.GlobalAddress, in_sum: asc.GlobalAddress, in_max: asc.GlobalAddress,
                      z: asc.GlobalAddress, sm: asc.GlobalAddress, mx: asc.GlobalAddress, em: asc.GlobalAddress):
        lt = UbTensors(with_tmp)
        g = [asc.GlobalTensor() for _ in range(7)]
        for t, a in zip(g, (x, in_sum, in_max, z, sm, mx, em)):
            t.set_global_buffer(a)
        st = asc.float32 if float_stats else x.dtype
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, m * k)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 32768, m * k)
        isl = lt(st, asc.TPosition.VECIN, 65536, 1024)
        iml = lt(st, asc.TPosition.VECIN, 65536 + 4096, 1024)
        sl = lt(st, asc.TPosition.VECOUT, 65536 + 8192, 1024)
        ml = lt(st, asc.TPosition.VECOUT, 65536 + 12288, 1024)
        el = lt(x.dtype, asc.TPosition.VECOUT, 65536 + 16384, 1024)
        asc.data_copy(xl, g[0], m * k)
        asc.data_copy(isl, g[1], 1024)
        asc.data_copy(iml, g[2], 1024)
        asc.data_copy(sl, g[1], 1024)        # the outputs start as the inputs: rows not written stay comparable
        asc.data_copy(ml, g[2], 1024)
        asc.duplicate(el, 0, 1024)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 90112, tmp_bytes)
            asc.adv.softmax_flash_v2(zl, sl, ml, xl, el, isl, iml, tiling, tmp, is_update=update, shape=(m, k))
        else:
            asc.adv.softmax_flash_v2(zl, sl, ml, xl, el, isl, iml, tiling, is_update=update, shape=(m, k))
        asc.data_copy(g[3], zl, m * k)
        asc.data_copy(g[4], sl, 1024)
        asc.data_copy(g[5], ml, 1024)
        asc.data_copy(g[6], el, 1024)
    flash_v2_rows.__name__ = flash_v2_rows.__qualname__ = f"adv_flash_v2_{'upd' if update else 'first'}_{m}x{k}"
    return asc.jit(flash_v2_rows, **options)


def batchnorm_kernel(b: int, s: int, h: int, tmp_bytes: int, type_size: int, with_tmp: bool = True, tiling=None,
                     eps: float = 1e-5, **options):
    """x [b, s, h], gamma, beta [b] -> z = BatchNorm(x) over b, the column mean and variance [s, h] to mean, var."""
    tiling = tiling or asc.adv.get_batchnorm_nd_tiling_info([b, s, h], [b, s, h], tmp_bytes, type_size)
    n, mv = b * s * h, s * h
    per = 32 // type_size
    bp = -(-b // per) * per

    def batchnorm_cols(x: asc.GlobalAddress, g: asc.GlobalAddress, be: asc.GlobalAddress, z: asc.GlobalAddress,
                       mean: asc.GlobalAddress, var: asc.GlobalAddress):
        xg, gg, bg, zg, mg, vg = (asc.GlobalTensor() for _ in range(6))
        for t, a in ((xg, x), (gg, g), (bg, be), (zg, z), (mg, mean), (vg, var)):
            t.set_global_buffer(a)
        lt = UbTensors(with_tmp)       # a TPipe when the call takes its scratch from the stack
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, n)
        gl = lt(x.dtype, asc.TPosition.VECIN, 32768, bp)
        bl = lt(x.dtype, asc.TPosition.VECIN, 33792, bp)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 34816, n)
        ml = lt(x.dtype, asc.TPosition.VECOUT, 67584, mv)
        vl = lt(x.dtype, asc.TPosition.VECOUT, 67584 + 8192, mv)
        asc.data_copy(xl, xg, n)
        asc.data_copy(gl, gg, bp)
        asc.data_copy(bl, bg, bp)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 84992, tmp_bytes)
            asc.adv.batchnorm(zl, ml, vl, xl, gl, bl, eps, tiling, tmp)
        else:
            asc.adv.batchnorm(zl, ml, vl, xl, gl, bl, eps, tiling)
        asc.data_copy(zg, zl, n)
        asc.data_copy(mg, ml, mv)
        asc.data_copy(vg, vl, mv)
    batchnorm_cols.__name__ = batchnorm_cols.__qualname__ = f"adv_batchnorm_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(batchnorm_cols, **options)


def deepnorm_kernel(b: int, s: int, h: int, tmp_bytes: int, type_size: int, with_tmp: bool = True, tiling=None,
                    alpha: float = 0.8, eps: float = 1e-5, oh: int | None = None, **options):
    """x, gx [b, s, h], beta, gamma [h] -> z = DeepNorm(x, gx), the row mean and variance to mean, var."""
    tiling = tiling or asc.adv.get_deepnorm_tiling_info([b, s, h], [b, s, oh or h], tmp_bytes, type_size)
    n, rows = b * s * h, b * s
    per = 32 // type_size
    rp = -(-rows // per) * per

    def deepnorm_rows(x: asc.GlobalAddress, gx: asc.GlobalAddress, be: asc.GlobalAddress, g: asc.GlobalAddress,
                      z: asc.GlobalAddress, mean: asc.GlobalAddress, var: asc.GlobalAddress):
        gts = [asc.GlobalTensor() for _ in range(7)]
        for t, a in zip(gts, (x, gx, be, g, z, mean, var)):
            t.set_global_buffer(a)
        lt = UbTensors(with_tmp)       # a TPipe when the call takes its scratch from the stack
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, n)
        gxl = lt(x.dtype, asc.TPosition.VECIN, 24576, n)
        bl = lt(x.dtype, asc.TPosition.VECIN, 49152, h)
        gl = lt(x.dtype, asc.TPosition.VECIN, 49152 + 4096, h)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 57344, n)
        ml = lt(x.dtype, asc.TPosition.VECOUT, 81920, rp)
        vl = lt(x.dtype, asc.TPosition.VECOUT, 81920 + 2048, rp)
        for dst, src, cnt in ((xl, gts[0], n), (gxl, gts[1], n), (bl, gts[2], h), (gl, gts[3], h)):
            asc.data_copy(dst, src, cnt)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 86016, tmp_bytes)
            asc.adv.deepnorm(zl, ml, vl, xl, gxl, bl, gl, alpha, eps, tiling, tmp)
        else:
            asc.adv.deepnorm(zl, ml, vl, xl, gxl, bl, gl, alpha, eps, tiling)
        asc.data_copy(gts[4], zl, n)
        asc.data_copy(gts[5], ml, rp)
        asc.data_copy(gts[6], vl, rp)
    deepnorm_rows.__name__ = deepnorm_rows.__qualname__ = f"adv_deepnorm_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(deepnorm_rows, **options)


def groupnorm_kernel(n: int, c: int, hw: int, g: int, tmp_bytes: int, type_size: int, with_tmp: bool = True,
                     tiling=None, eps: float = 1e-5, **options):
    """x [n, c, hw], gamma, beta [c] -> z = GroupNorm(x) in g groups, the group mean and variance to mean, var."""
    tiling = tiling or asc.adv.get_groupnorm_nd_tiling_info([n, c, 1, hw], tmp_bytes, type_size, False, g)
    size, per = n * c * hw, 32 // type_size
    cp, gp = -(-c // per) * per, -(-(n * g) // per) * per

    def groupnorm_groups(x: asc.GlobalAddress, ga: asc.GlobalAddress, be: asc.GlobalAddress, z: asc.GlobalAddress,
                         mean: asc.GlobalAddress, var: asc.GlobalAddress):
        gts = [asc.GlobalTensor() for _ in range(6)]
        for t, a in zip(gts, (x, ga, be, z, mean, var)):
            t.set_global_buffer(a)
        lt = UbTensors(with_tmp)       # a TPipe when the call takes its scratch from the stack
        xl = lt(x.dtype, asc.TPosition.VECIN, 0, size)
        gl = lt(x.dtype, asc.TPosition.VECIN, 32768, cp)
        bl = lt(x.dtype, asc.TPosition.VECIN, 32768 + 2048, cp)
        zl = lt(x.dtype, asc.TPosition.VECOUT, 36864, size)
        ml = lt(x.dtype, asc.TPosition.VECOUT, 69632, gp)
        vl = lt(x.dtype, asc.TPosition.VECOUT, 69632 + 2048, gp)
        for dst, src, cnt in ((xl, gts[0], size), (gl, gts[1], cp), (bl, gts[2], cp)):
            asc.data_copy(dst, src, cnt)
        if with_tmp:
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 73728, tmp_bytes)
            asc.adv.groupnorm(zl, ml, vl, xl, gl, bl, eps, tiling, tmp)
        else:
            asc.adv.groupnorm(zl, ml, vl, xl, gl, bl, eps, tiling)
        asc.data_copy(gts[3], zl, size)
        asc.data_copy(gts[4], ml, gp)
        asc.data_copy(gts[5], vl, gp)
    groupnorm_groups.__name__ = groupnorm_groups.__qualname__ = f"adv_groupnorm_{'tmp' if with_tmp else 'stack'}"
    return asc.jit(groupnorm_groups, **options)


def suite() -> tuple:
    """One compiled kernel of each form, for the suite's emitted-source checks (suite_kernels.py)."""
    import numpy as np
    out = []
    x = np.zeros((4, 64), np.float16)
    s16, s32 = np.zeros(1024, np.float16), np.zeros(1024, np.float32)
    for fs, tmp in ((False, True), (True, False)):
        s = s32 if fs else s16
        out.append(asc.compile(simple_softmax_kernel(4, 64, fs, with_tmp=tmp), (x, s, s.copy(), x.copy(), 64)))
        for update in (False, True):
            out.append(asc.compile(flash_v2_kernel(4, 64, update, fs, with_tmp=tmp),
                                   (x, s, s.copy(), x.copy(), s.copy(), s.copy(), s16.copy())))
    for dt, tmp in ((np.float16, True), (np.float32, False)):
        xb, gb = np.zeros(3 * 64, dt), np.zeros(16, dt)
        out.append(asc.compile(batchnorm_kernel(3, 2, 32, 8192, np.dtype(dt).itemsize, with_tmp=tmp),
                               (xb, gb, gb.copy(), xb.copy(), xb[:64].copy(), xb[:64].copy())))
        xd, hd, sd = np.zeros(3 * 64, dt), np.zeros(64, dt), np.zeros(16, dt)
        out.append(asc.compile(deepnorm_kernel(1, 3, 64, 8192, np.dtype(dt).itemsize, with_tmp=tmp),
                               (xd, xd.copy(), hd, hd.copy(), xd.copy(), sd, sd.copy())))
        xg, cg = np.zeros(2 * 4 * 16, dt), np.zeros(16, dt)
        out.append(asc.compile(groupnorm_kernel(2, 4, 16, 2, 8192, np.dtype(dt).itemsize, with_tmp=tmp),
                               (xg, cg, cg.copy(), xg.copy(), cg.copy(), cg.copy())))
    return tuple(out)
