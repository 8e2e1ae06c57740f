"""The cpp backend on the cube examples against the cube simulator: agreement and time per run.

For each example: its own random inputs (fp16 / float32 outputs: how many elements differ, the largest
difference in float16 ulps for fp16 outputs, relative for float32 ones) and the same run on integer-valued
inputs (every partial sum exact: must be equal to the bit), and the best of 3 run times on sim, eager and
cpp (cpp: the compiled library reused, after a first build). Prints one JSON line per example.

Run: python benchmarks/cube_cpp.py"""
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
import asc_trace as asc  # noqa: E402

CASES = [("matmul_cube", "matmul_cube", {}), ("matmul_bias_relu", "matmul_bias_relu", {}),
         ("matmul_adv", "matmul_kernel", {}), ("matmul_vendor_tiling", "matmul_vendor_tiling", {})]
_RNG = np.random.default_rng


class IntegerRng:
    def __init__(self, seed: int) -> None:
        self.rng = _RNG(seed)

    def standard_normal(self, shape):
        return self.rng.integers(-4, 5, shape).astype(np.float64)

    def integers(self, lo, hi, shape):
        return self.rng.integers(lo, hi, shape)


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_bench", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def outputs(mod, kernel: str, kwargs: dict, backend: str, integer: bool):
    setattr(mod, kernel, asc.jit(mod.__dict__["_orig_" + kernel], backend=backend))
    mod.np.random.default_rng = IntegerRng if integer else _RNG
    try:
        times = []
        for _ in range(3):
            t = time.perf_counter()
            got, _want = mod.run(**kwargs)
            times.append(time.perf_counter() - t)
    finally:
        mod.np.random.default_rng = _RNG
    return got, min(times)


def main() -> None:
    for name, kernel, kwargs in CASES:
        mod = load(name)
        mod.__dict__["_orig_" + kernel] = getattr(mod, kernel)
        row = {"example": name}
        for integer in (False, True):
            sim, t_sim = outputs(mod, kernel, kwargs, "sim", integer)
            cpp, t_cpp = outputs(mod, kernel, kwargs, "cpp", integer)
            tag = "int" if integer else "random"
            row[f"{tag}_equal"] = bool(np.array_equal(sim, cpp))
            row[f"{tag}_differ"] = f"{int((sim != cpp).sum())}/{sim.size}"
            if not integer:
                if sim.dtype == np.float16:
                    u = np.abs(sim.view(np.int16).astype(np.int32) - cpp.view(np.int16).astype(np.int32))
                    row["max_ulp_fp16"] = int(u.max())
                    big = np.abs(sim.astype(np.float32)) >= 1
                    row["max_ulp_fp16_where_abs_ge_1"] = int(u[big].max()) if big.any() else 0
                else:
                    d = np.abs(sim.astype(np.float64) - cpp) / np.maximum(np.abs(sim.astype(np.float64)), 1e-30)
                    row["max_rel_fp32"] = float(d.max())
                row["sim_s"], row["cpp_s"] = round(t_sim, 3), round(t_cpp, 3)
                _, t_eager = outputs(mod, kernel, kwargs, "eager", False)
                row["eager_s"] = round(t_eager, 3)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
