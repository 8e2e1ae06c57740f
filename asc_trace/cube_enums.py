"""The cube's enumerations and constants, with pyasc's names (ascend-cube-facts §1, §3)."""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from .enums import TPosition


class CubeFormat(IntEnum):
    ND = 0
    NZ = 1


class QuantModes(IntEnum):
    """Fixpipe's pre-quantisation (`QuantMode_t`): the conversion on the way out of L0C."""

    NoQuant = 0
    F322F16 = 1
    F322BF16 = 2
    DEQF16 = 3
    VDEQF16 = 4
    QF322B8_PRE = 5
    VQF322B8_PRE = 6
    REQ8 = 7
    VREQ8 = 8


class CO2Layout(IntEnum):
    NZ = 0
    ROW_MAJOR = 1
    COLUMN_MAJOR = 2


@dataclass(frozen=True, slots=True)
class FixpipeConfig:
    """`FixpipeConfig{CO2Layout format}` (the only field on Atlas A2)."""

    layout: CO2Layout = CO2Layout.ROW_MAJOR


FixpipeConfig.cfg_row_major = FixpipeConfig(CO2Layout.ROW_MAJOR)      # type: ignore[attr-defined]
FixpipeConfig.cfg_nz = FixpipeConfig(CO2Layout.NZ)                    # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Property:
    """A device constant read with `asc.property(...)`: its Ascend C name and its Atlas A2 value."""

    name: str
    value: int


# asc-devkit impl/basic_api/utils/kernel_utils_constants.h (KC:128-138): L1 keeps 128 bytes for the
# high-level Matmul's messages; L0C is 128 KB; C0 is one 32-byte block of 16 half elements.
DEFAULT_C0_SIZE = Property("::AscendC::DEFAULT_C0_SIZE", 32)
ONE_BLK_SIZE = Property("::AscendC::ONE_BLK_SIZE", 32)
TOTAL_L1_SIZE = Property("::AscendC::TOTAL_L1_SIZE", 512 * 1024 - 128)
TOTAL_L0C_SIZE = Property("::AscendC::TOTAL_L0C_SIZE", 128 * 1024)


def property(prop: Property) -> int:  # noqa: A001 - pyasc's asc.property
    """The value of a device constant (`asc.property(asc.TOTAL_L1_SIZE)`), a compile-time int."""
    if not isinstance(prop, Property):
        from .errors import TraceError
        raise TraceError(f"asc.property takes one of asc.TOTAL_L1_SIZE, asc.TOTAL_L0C_SIZE, asc.DEFAULT_C0_SIZE, "
                         f"asc.ONE_BLK_SIZE; got {prop!r}")
    return prop.value


@dataclass(frozen=True, slots=True)
class CubeMemory:
    """One on-chip memory of the cube core: its name in the graph dump, size and address alignment."""

    space: str
    hardware: str
    nbytes: int
    align: int


# ascend-cube-facts §1: sizes (KC:50-51, 138; the bias table from c2_buffer.h:40) and the alignment a
# LocalTensor there must have (MMC:90-91, 343; DCK:158-160). The whole 512 KB of L1 is usable by the basic API.
L1 = CubeMemory("l1", "L1", 512 * 1024, 32)
L0A = CubeMemory("l0a", "L0A", 64 * 1024, 512)
L0B = CubeMemory("l0b", "L0B", 64 * 1024, 512)
L0C = CubeMemory("l0c", "L0C", 128 * 1024, 64)
BT = CubeMemory("bt", "BiasTable", 1024, 64)

CUBE_MEMORY: dict[TPosition, CubeMemory] = {
    TPosition.A1: L1, TPosition.B1: L1, TPosition.C1: L1, TPosition.TSCM: L1,
    TPosition.A2: L0A, TPosition.B2: L0B, TPosition.CO1: L0C, TPosition.C2: BT,
}
MEMORY_BY_SPACE: dict[str, CubeMemory] = {m.space: m for m in (L1, L0A, L0B, L0C, BT)}
CUBE_SPACES = frozenset(MEMORY_BY_SPACE)
