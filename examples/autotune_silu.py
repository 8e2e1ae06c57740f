"""Autotuning on the timing model: a flag-free SiLU kernel (x * sigmoid(x)), its tile size and core
count swept with asc.autotune. Each config is profiled on the model (timing only: the arrays are not
touched), the fastest is launched, and the choice is cached per value of `n` (in memory and on disk).
Configs whose buffers overflow the UB are skipped with a warning.

Run: python examples/autotune_silu.py
"""
import numpy as np

import asc_trace as asc


@asc.jit
def silu_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
    per_core = n // asc.get_block_num()           # n: a multiple of 8 x the core count
    base = asc.get_block_idx() * per_core
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, per_core)
    zg.set_global_buffer(z + base, per_core)
    nbytes = tile * x.dtype.sizeof()
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    tl = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, nbytes, tile)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nbytes, tile)
    full = per_core // tile
    for i in range(full):                          # no flags: the scheduler syncs and double-buffers
        silu_tile(xg, zg, xl, tl, zl, i * tile, tile)
    silu_tile(xg, zg, xl, tl, zl, full * tile, per_core - full * tile)   # the rest (maybe nothing)


@asc.jit
def silu_tile(xg, zg, xl, tl, zl, off, count):
    asc.data_copy(xl, xg[off:], count)
    asc.muls(tl, xl, -1.0, count)                  # x / (1 + exp(-x))
    asc.exp(tl, tl, count)
    asc.adds(tl, tl, 1.0, count)
    asc.div(zl, xl, tl, count)
    asc.data_copy(zg[off:], zl, count)


CONFIGS = [asc.Config(core_num=cores, tile=tile) for cores in (8, 16, 24, 48)
           for tile in (1024, 2048, 4096, 8192, 16384)]
silu = asc.autotune(silu_kernel, configs=CONFIGS, key=["n"])


def reference(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    return (x64 / (1 + np.exp(-x64))).astype(x.dtype)


def run(n: int = 48 * 32768, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    z = np.zeros_like(x)
    silu(x, z, n)
    return z, reference(x)


if __name__ == "__main__":
    got, want = run()
    print("silu matches NumPy:", np.allclose(got, want, rtol=1e-5, atol=1e-6))
    print(f"{'config':<34} modeled us")
    for cfg, us in sorted(silu.timings.items(), key=lambda kv: kv[1]):
        print(f"{cfg!r:<34} {us:8.2f}{'   <- chosen' if cfg == silu.best_config else ''}")
    for cfg, why in silu.skipped.items():
        print(f"{cfg!r:<34} skipped: {why.split(':')[0]} (does not fit)")
    print("best:", silu.best_config)
