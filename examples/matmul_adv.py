"""pyasc's high-level Matmul on the cube alone: C = A @ B (+ bias), fp16 in, fp32 out, the tiling from the
host (asc.lib.host.MultiCoreMatmulTiling), written as pyasc's matmul tutorials write it.

Two things differ from pyasc's tutorial 04 (matmul_cube_only) besides the import, both because asc_trace
traces the kernel once for all cores instead of compiling its AST: a core's tail (its block of C cut at the
matrix edge) is a `min` of runtime values rather than a Python `if` on them, and the launch uses exactly
`tiling.used_core_num` cores rather than testing `get_block_idx() < used_core_num` with an `if`.
The Matmul expands into the basic cube instructions at trace time (docs/cube.md), so auto_sync, the
simulator's checks and asc.profile see every copy, load, Mmad and Fixpipe.

Run: python examples/matmul_adv.py
"""
import numpy as np

import asc_trace as asc
import asc_trace.lib.host as host


def smin(a, b):
    """min of runtime integers (no Python `if` on a traced value)."""
    return b + (a - b) * (a < b)


@asc.jit(matmul_cube_only=True)
def matmul_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                  tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    if asc.ascend_is_aic():                       # a Python bool while tracing: True in a cube kernel
        m_blocks = tiling.m.ceildiv(tiling.single_core_m)
        m_index = asc.get_block_idx() % m_blocks
        n_index = asc.get_block_idx() // m_blocks
        a_global, b_global = asc.GlobalTensor(), asc.GlobalTensor()
        c_global, bias_global = asc.GlobalTensor(), asc.GlobalTensor()
        a_global.set_global_buffer(a + m_index * tiling.k_a * tiling.single_core_m)
        b_global.set_global_buffer(b + n_index * tiling.single_core_n)
        c_global.set_global_buffer(c + m_index * tiling.n * tiling.single_core_m + n_index * tiling.single_core_n)
        bias_global.set_global_buffer(bias + n_index * tiling.single_core_n)
        tail_m = smin(tiling.m - m_index * tiling.single_core_m, tiling.single_core_m)
        tail_n = smin(tiling.n - n_index * tiling.single_core_n, tiling.single_core_n)
        pipe = asc.TPipe()
        matmul = asc.adv.Matmul(
            a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype),
            bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bias_global.dtype),
        )
        asc.adv.register_matmul(pipe, workspace, matmul, tiling)
        matmul.set_tensor_a(a_global)
        matmul.set_tensor_b(b_global)
        if tiling.is_bias:                        # a TCubeTiling field: known while tracing
            matmul.set_bias(bias_global)
        matmul.set_tail(tail_m, tail_n, tiling.k_a)
        matmul.iterate_all(c_global)
        matmul.end()


def generate_tiling(m: int, n: int, k: int, cores: int, bias: bool) -> asc.adv.TCubeTiling:
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(cores)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(bias)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    if t.get_tiling(tiling) != 0:
        raise RuntimeError("no tiling fits")
    return tiling


def run(m: int = 200, n: int = 300, k: int = 120, cores: int = 4, bias: bool = True,
        seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 5, (m, k)).astype(np.float16)
    b = rng.integers(-5, 5, (k, n)).astype(np.float16)
    bv = rng.integers(-5, 5, (1, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tiling = generate_tiling(m, n, k, cores, bias)
    matmul_kernel[tiling.used_core_num](a, b, c, bv, tiling, np.zeros(1024, np.uint8))
    want = a.astype(np.float32) @ b.astype(np.float32) + (bv if bias else 0)
    return c, want


if __name__ == "__main__":
    got, want = run()
    print(f"asc.adv.Matmul 200 x 120 @ 120 x 300 + bias on the cube: max |error| vs NumPy = "
          f"{np.abs(got - want).max():.3g}")
