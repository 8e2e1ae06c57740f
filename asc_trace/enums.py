"""Ascend C enumerations, with pyasc's names and values."""
from __future__ import annotations

from enum import Enum, IntEnum
from typing import Any, TypeVar

E = TypeVar("E", bound=Enum)


class TPosition(IntEnum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 11
    SPM = 12
    SHM = 12
    TSCM = 13


QuePosition = TPosition

# Positions that live in the Unified Buffer (the only local memory of a vector core).
UB_POSITIONS = frozenset({TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC})


class HardEvent(IntEnum):
    MTE2_MTE1 = 0
    MTE1_MTE2 = 1
    MTE1_M = 2
    M_MTE1 = 3
    MTE2_V = 4
    V_MTE2 = 5
    MTE3_V = 6
    V_MTE3 = 7
    M_V = 8
    V_M = 9
    V_V = 10
    MTE3_MTE1 = 11
    MTE1_MTE3 = 12
    MTE1_V = 13
    MTE2_M = 14
    M_MTE2 = 15
    V_MTE1 = 16
    M_FIX = 17
    FIX_M = 18
    MTE3_MTE2 = 19
    MTE2_MTE3 = 20
    S_V = 21
    V_S = 22
    S_MTE2 = 23
    MTE2_S = 24
    S_MTE3 = 25
    MTE3_S = 26
    MTE2_FIX = 27
    FIX_MTE2 = 28
    FIX_S = 29
    M_S = 30
    FIX_MTE3 = 31
    MTE1_FIX = 32
    FIX_MTE1 = 33
    FIX_FIX = 34

    @property
    def src(self) -> str:
        """The pipe that sets the flag (X in X_Y)."""
        return self.name.split("_")[0]

    @property
    def dst(self) -> str:
        """The pipe that waits on the flag (Y in X_Y)."""
        return self.name.split("_")[1]


# The events that mean something on a vector core (AIV); the others return at once there.
AIV_EVENTS = frozenset({HardEvent.MTE2_V, HardEvent.V_MTE2, HardEvent.MTE3_V, HardEvent.V_MTE3,
                        HardEvent.V_V, HardEvent.MTE3_MTE2, HardEvent.MTE2_MTE3, HardEvent.S_V,
                        HardEvent.V_S, HardEvent.S_MTE2, HardEvent.MTE2_S, HardEvent.S_MTE3,
                        HardEvent.MTE3_S})

# The events between the cube core's pipes (ascend-cube-facts §4, the AIC's HardEvent set EV:82-107) that
# asc_trace's cube simulator models: MTE2 (GM -> L1), MTE1 (L1 -> L0), M (Mmad), FIX (L0C -> GM).
AIC_EVENTS = frozenset({HardEvent.MTE2_MTE1, HardEvent.MTE1_MTE2, HardEvent.MTE1_M, HardEvent.M_MTE1,
                        HardEvent.MTE2_M, HardEvent.M_MTE2, HardEvent.M_FIX, HardEvent.FIX_M, HardEvent.MTE2_FIX,
                        HardEvent.FIX_MTE2, HardEvent.MTE1_FIX, HardEvent.FIX_MTE1, HardEvent.FIX_FIX,
                        HardEvent.FIX_S, HardEvent.M_S, HardEvent.S_MTE2, HardEvent.MTE2_S})


class PipeID(IntEnum):
    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6
    PIPE_MTE4 = 7
    PIPE_MTE5 = 8
    PIPE_V2 = 9
    PIPE_FIX = 10


class CacheLine(IntEnum):
    """DataCacheCleanAndInvalid's extent: one cache line or the whole data cache."""
    SINGLE_CACHE_LINE = 0
    ENTIRE_DATA_CACHE = 1


class DcciDst(IntEnum):
    """Which data cache lines DataCacheCleanAndInvalid cleans."""
    CACHELINE_ALL = 0
    CACHELINE_UB = 1
    CACHELINE_OUT = 2
    CACHELINE_ATOMIC = 3


class MemDsbT(IntEnum):
    """DataSyncBarrier's scope: which memory accesses complete before the next instruction."""
    ALL = 0
    DDR = 1
    UB = 2
    SEQ = 3


class CacheMode(IntEnum):
    """GlobalTensor.set_l2_cache_hint's L2 cache policy (pyasc's numbering; emitted by name)."""
    CACHE_MODE_NORMAL = 0
    CACHE_MODE_DISABLE = 1
    CACHE_MODE_LAST = 2
    CACHE_MODE_PERSISTENT = 4


class CacheRwMode(IntEnum):
    """Which accesses an L2 cache hint applies to."""
    READ = 1
    WRITE = 2
    RW = 3


class MaskMode(IntEnum):
    """How vector instructions read the mask register: NORMAL (lane bits per repeat) or COUNTER (an element
    count over all repeats)."""
    NORMAL = 0
    COUNTER = 1


class AtomicDtype(IntEnum):
    """SetStoreAtomicConfig's element type (the store-atomic register's type field)."""
    ATOMIC_NONE = 0
    ATOMIC_F32 = 1
    ATOMIC_F16 = 2
    ATOMIC_S16 = 3
    ATOMIC_S32 = 4
    ATOMIC_S8 = 5
    ATOMIC_BF16 = 6


class AtomicOp(IntEnum):
    """SetStoreAtomicConfig's operation."""
    ATOMIC_SUM = 0


class RoundMode(IntEnum):
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6


class CMPMODE(IntEnum):
    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SELMODE(IntEnum):
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


SelMode = SELMODE


class ReduceOrder(IntEnum):
    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


class DataFormat(IntEnum):
    ND = 0
    NZ = 1
    NCHW = 2
    NC1HWC0 = 3
    NHWC = 4


class Hardware(IntEnum):
    """Ascend C's physical memories (impl/utils/common_types.h), for `asc.LocalMemAllocator(hard=...)`."""
    GM = 0
    UB = 1
    L1 = 2
    L0A = 3
    L0B = 4
    L0C = 5
    BIAS = 6
    FIXBUF = 7
    MAX = 8


def member(cls: type[E], value: Any) -> E:
    """`cls(value)`, refusing a member of another enum: every asc enum is an IntEnum, so
    `HardEvent(PipeID.PIPE_V)` would otherwise quietly be the HardEvent whose number is PIPE_V's (pyasc's
    bindings and Ascend C's templates refuse it). Raises TypeError / ValueError like `cls(value)`."""
    if isinstance(value, Enum) and not isinstance(value, cls):
        raise TypeError(f"an asc.{type(value).__name__}, not an asc.{cls.__name__}")
    return cls(value)
