"""Cycles of the cube core's instructions, from the published figures (ascend-cube-facts §7). Each
instruction's head cost (the Δt / ΔT of the vendor's tables) is not published and is taken as 0 here; the
figures are those of a 910B1 AI core at 1.85 GHz."""
from __future__ import annotations

CLOCK_HZ = 1.85e9                      # 910B1 cube clock (BP README)
# GM -> L1: no published rate by copy size; the PTO-ISA A2/A3 cost model fits one 135 GiB/s per core
MTE2_BYTES_PER_CYCLE = 135 * 2**30 / CLOCK_HZ
L0A_BYTES_PER_CYCLE = 256.0            # L1 -> L0A (LoadData2D), CYC table 3
L0B_BYTES_PER_CYCLE = 128.0            # L1 -> L0B, CYC table 3
BIAS_BYTES_PER_CYCLE = 32.0            # L1 -> bias table, CYC table 7
FIX_ELEMS_PER_CYCLE = 64.0             # Fixpipe L0C -> L1, 64 elements a cycle (CYC); L0C -> GM is not tabulated
# cube m x n x k per cycle by input type (CYC table 1)
CUBE_K = {"float16": 16, "bfloat16": 16, "int8": 32, "float32": 4}
K0 = {"float16": 16, "bfloat16": 16, "int8": 32, "float32": 8}


def mte2(nbytes: int) -> float:
    return nbytes / MTE2_BYTES_PER_CYCLE


def mte1(nbytes: int, space: str) -> float:
    return nbytes / (L0A_BYTES_PER_CYCLE if space == "l0a" else L0B_BYTES_PER_CYCLE)


def bias_copy(nbytes: int) -> float:
    return nbytes / BIAS_BYTES_PER_CYCLE


def fill(nbytes: int) -> float:
    """InitConstValue: no published rate; taken as one 32-byte block a cycle (an assumption)."""
    return nbytes / 32.0


def mmad(m: int, n: int, k: int, dtype: str) -> float:
    """ceil16(m) * ceil16(n) * ceil_k0(k) / (16 * 16 * cube_k): Mmad(128, 256, 64) fp16 = 512 cycles."""
    k0 = K0[dtype]
    kk = -(-k // k0) * k0
    return (-(-m // 16) * 16) * (-(-n // 16) * 16) * kk / (16 * 16 * CUBE_K[dtype])


def fixpipe(m: int, n: int) -> float:
    return m * n / FIX_ELEMS_PER_CYCLE
