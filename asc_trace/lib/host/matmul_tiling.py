"""pyasc's host tiling for the high-level Matmul (`asc.lib.host`: `MultiCoreMatmulTiling`, `MatmulApiTiling`),
with the vendor's setter names, filling an `asc.adv.TCubeTiling` with `get_tiling(tiling)` (0 on success,
-1 when no tiling fits, as the vendor's returns).

The split is asc_trace's own, simple and stated here (the vendor's search is not published): the cores split
M x N (K stays whole on a core), choosing the grid cm x cn <= dim that makes the largest per-core block smallest
(then the squarest),
blocks rounded up to 16; the base block is the vendor's usual 128 x 256 x 64 for 16-bit inputs (x 32 for
float, x 128 for int8), cut down to the core's block and to what L0A / L0B (64 KB), L0C (128 KB), the bias
table (1 KB: base_n <= 256 with a bias) and L1 hold; `set_fix_split` and `set_single_shape` override it.
"""
from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

from ...errors import LaunchError, NotProvidedError, TraceError
from ...proxies.source_loc import user_loc

L0AB_BYTES = 64 * 1024
L0C_BYTES = 128 * 1024
L1_BYTES = 512 * 1024 - 128


class TPosition(IntEnum):
    """The host tiling's TPosition (`matmul_tiling::TPosition`): only the name is compared."""
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
    LCM = 12
    SPM = 13
    SHM = 14
    TSCM = 15
    MAX = 16


class CubeFormat(IntEnum):
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7
    ROW_MAJOR = 8
    COLUMN_MAJOR = 9


class DataType(IntEnum):
    """The element types the tiling takes (ge::DataType names); the ones the cube multiplies are sized."""
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_STRING = 13
    DT_DUAL = 14
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_QINT8 = 18
    DT_QINT16 = 19
    DT_QINT32 = 20
    DT_QUINT8 = 21
    DT_QUINT16 = 22
    DT_STRING_REF = 25
    DT_BF16 = 27
    DT_BFLOAT16 = 27
    DT_INT4 = 29
    DT_UINT1 = 30
    DT_INT2 = 31
    DT_VARIANT = 26
    DT_UNDEFINED = 28
    DT_MAX = 40


class MatrixTraverse(IntEnum):
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class MatrixMadType(IntEnum):
    NORMAL = 0
    HF32 = 1
    MXMODE = 2


class DequantType(IntEnum):
    SCALAR = 0
    TENSOR = 1


class ScheduleType(IntEnum):
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1


_SIZE = {DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_BF16: 2, DataType.DT_INT8: 1}


class PlatformAscendC:
    """The chip a tiling is made for: its name and its number of AI cores (cube cores)."""

    def __init__(self, soc_version: str | None = None) -> None:
        from ...runtime.platform import platform
        p = platform(soc_version)
        self.soc_version = p.name
        self.aiv_core_num = int(p.aiv_cores)
        self.aic_core_num = self.aiv_core_num // 2        # 1 cube + 2 vector cores per AI core (910B)

    def get_core_num_aic(self) -> int:
        return self.aic_core_num

    def get_core_num_aiv(self) -> int:
        return self.aiv_core_num


class PlatformAscendCManager:
    @staticmethod
    def get_instance(soc_version: str | None = None) -> PlatformAscendC:
        return PlatformAscendC(soc_version)


def get_ascendc_platform() -> PlatformAscendC:
    """The platform asc_trace.runtime.config.set_platform chose (else asc_trace's default)."""
    return PlatformAscendC()


def _whole(v: Any, what: str, lo: int | None = None) -> int:
    """A setter's integer argument, or a TraceError naming it: int() would turn None into a raw TypeError and
    16.5 silently into 16."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) and not (isinstance(v, (float, np.floating))
                                                                            and float(v).is_integer()):
        raise TraceError(f"{what} is a whole number, got {v!r}", user_loc())
    if lo is not None and int(v) < lo:
        raise TraceError(f"{what} is at least {lo}, got {int(v)}", user_loc())
    return int(v)


def _enum(cls: Any, v: Any, what: str) -> Any:
    try:
        return cls(v)
    except (ValueError, TypeError):
        raise TraceError(f"{what} is an asc.lib.host.{cls.__name__} ({', '.join(m.name for m in cls)}), got {v!r}",
                         user_loc()) from None


def _up(x: int, d: int) -> int:
    return -(-x // d) * d


class MatmulApiTilingBase:
    """The setters both tilings share (the vendor's MatmulApiTilingBase)."""

    def __init__(self, platform: Any = None) -> None:
        self.platform = platform if isinstance(platform, PlatformAscendC) else PlatformAscendC()
        self.types: dict[str, tuple] = {}
        self.shape = (0, 0, 0)
        self.org: tuple[int, int, int, int] | None = None
        self.bias = False
        self.traverse = MatrixTraverse.FIRSTM
        self.fix = (-1, -1, -1)
        self.space = (-1, -1, -1, -1)
        self.dim = 1
        self.single: tuple[int, int, int] = (-1, -1, -1)

    def set_a_type(self, pos: Any, type: Any, data_type: Any, is_trans: bool = False) -> int:  # noqa: A002
        self.types["a"] = (pos, type, _enum(DataType, data_type, "data_type"), bool(is_trans))
        return 0

    def set_b_type(self, pos: Any, type: Any, data_type: Any, is_trans: bool = False) -> int:  # noqa: A002
        self.types["b"] = (pos, type, _enum(DataType, data_type, "data_type"), bool(is_trans))
        return 0

    def set_c_type(self, pos: Any, type: Any, data_type: Any) -> int:  # noqa: A002
        self.types["c"] = (pos, type, _enum(DataType, data_type, "data_type"))
        return 0

    def set_bias_type(self, pos: Any, type: Any, data_type: Any) -> int:  # noqa: A002
        self.types["bias"] = (pos, type, _enum(DataType, data_type, "data_type"))
        return 0

    def set_shape(self, m: int, n: int, k: int) -> int:
        self.shape = (_whole(m, "m"), _whole(n, "n"), _whole(k, "k"))
        return 0

    def set_org_shape(self, org_m_in: int, org_n_in: int, org_ka_in: int, org_kb_in: int | None = None) -> int:
        ka = _whole(org_ka_in, "org_ka_in")
        self.org = (_whole(org_m_in, "org_m_in"), _whole(org_n_in, "org_n_in"), ka,
                    ka if org_kb_in is None else _whole(org_kb_in, "org_kb_in"))
        return 0

    def enable_bias(self, is_bias_in: bool = False) -> int:
        self.bias = bool(is_bias_in)
        return 0

    def set_traverse(self, traverse: Any) -> int:
        self.traverse = _enum(MatrixTraverse, traverse, "traverse")
        return 0

    def set_fix_split(self, base_m_in: int = -1, base_n_in: int = -1, base_k_in: int = -1) -> int:
        self.fix = (_whole(base_m_in, "base_m_in"), _whole(base_n_in, "base_n_in"), _whole(base_k_in, "base_k_in"))
        return 0

    def set_buffer_space(self, l1_size: int = -1, l0_c_size: int = -1, ub_size: int = -1, bt_size: int = -1) -> int:
        self.space = (_whole(l1_size, "l1_size"), _whole(l0_c_size, "l0_c_size"), _whole(ub_size, "ub_size"),
                      _whole(bt_size, "bt_size"))
        return 0

    def set_double_buffer(self, *args: Any, **kwargs: Any) -> int:
        return 0       # the expansion ping-pongs the buffers that fit twice, whatever this asks

    def set_mad_type(self, mad_type: Any) -> int:
        if _enum(MatrixMadType, mad_type, "mad_type") != MatrixMadType.NORMAL:
            raise NotProvidedError(f"MatrixMadType.{MatrixMadType(mad_type).name} is not modelled", user_loc())
        return 0

    def __getattr__(self, name: str) -> Any:
        if name.startswith("set_") or name.startswith("get_") or name.startswith("enable_"):
            raise NotProvidedError(f"asc.lib.host tiling .{name} is not provided (the sizes, types, bias, split, "
                                   "traverse and buffer-space setters are)", user_loc())
        raise AttributeError(name)

    # -- the tiling -------------------------------------------------------------------------------------

    def _elem(self) -> int:
        a = self.types.get("a")
        return _SIZE.get(a[2], 2) if a else 2

    def _bases(self, sm: int, sn: int, k: int) -> tuple[int, int, int]:
        size = self._elem()
        c0 = 32 // size
        bm = self.fix[0] if self.fix[0] > 0 else min(128, _up(sm, 16))
        bn = self.fix[1] if self.fix[1] > 0 else min(256, _up(sn, 16))
        if self.bias:
            bn = min(bn, 256)
        kmul = max(16, c0)
        bk = self.fix[2] if self.fix[2] > 0 else min({1: 128, 2: 64, 4: 32}[size], _up(k, kmul))
        bk = max(kmul, bk // kmul * kmul)
        # cut base_k (then base_m / base_n) until L0A / L0B and L0C hold the blocks
        while bk > kmul and max(_up(bm, 16) * bk, bk * _up(bn, 16)) * size > L0AB_BYTES:
            bk -= kmul
        while bm > 16 and _up(bm, 16) * _up(bn, 16) * 4 > L0C_BYTES:
            bm -= 16
        return bm, bn, bk

    def _split(self, m: int, n: int) -> tuple[int, int]:
        if self.single[0] > 0 and self.single[1] > 0:
            return self.single[0], self.single[1]
        best = None
        for cm in range(1, self.dim + 1):
            cn = max(1, self.dim // cm)
            sm, sn = _up(-(-m // cm), 16), _up(-(-n // cn), 16)
            cores = -(-m // sm) * -(-n // sn)
            key = (sm * sn, sm + sn, cores)       # then the squarer block: more reuse of each A and B tile
            if best is None or key < best[0]:
                best = (key, sm, sn)
        return best[1], best[2]

    def get_tiling(self, tiling: Any) -> int:
        """Fill `tiling` (an asc.adv.TCubeTiling); 0, or -1 when the shape is not set or nothing fits."""
        if "base_m" not in getattr(tiling, "struct_fields", ()):      # asc.adv sits above this host module
            raise LaunchError(f"get_tiling fills an asc.adv.TCubeTiling, got {type(tiling).__name__}", user_loc())
        m, n, k = self.shape
        if min(m, n, k) <= 0:
            return -1
        om, on, oka, okb = self.org if self.org is not None else (m, n, k, k)
        sm, sn = self._split(m, n)
        sk = self.single[2] if self.single[2] > 0 else k
        bm, bn, bk = self._bases(sm, sn, sk)
        size = self._elem()
        if (_up(bm, 16) * _up(bk, 32 // size) + _up(bk, 16) * _up(bn, 16)) * size > L1_BYTES:
            return -1
        values = dict(used_core_num=-(-m // sm) * -(-n // sn), m=om, n=on, k_a=oka, k_b=okb, single_core_m=sm,
                      single_core_n=sn, single_core_k=sk, base_m=bm, base_n=bn, base_k=bk, depth_a1=2, depth_b1=2,
                      step_m=1, step_n=1, is_bias=int(self.bias),
                      iterate_order=0 if self.traverse != MatrixTraverse.FIRSTN else 1,
                      share_l1_size=L1_BYTES if self.space[0] < 0 else self.space[0],
                      share_l0c_size=L0C_BYTES if self.space[1] < 0 else self.space[1],
                      db_l0a=2, db_l0b=2, db_l0c=1)
        for key, v in values.items():
            setattr(tiling, key, v)
        return 0


class MatmulApiTiling(MatmulApiTilingBase):
    """One core's tiling (`matmul_tiling::MatmulApiTiling`): the whole shape on one core."""


class MultiCoreMatmulTiling(MatmulApiTilingBase):
    """`matmul_tiling::MultiCoreMatmulTiling`: the shape split over `set_dim(dim)` cores."""

    def set_dim(self, dim: int) -> int:
        # the vendor returns -1 for a dim below 1, which a caller rarely checks: get_tiling then splits over one
        # core without a word, so asc_trace refuses it
        self.dim = _whole(dim, "set_dim's dim", 1)
        return 0

    def set_single_shape(self, single_m_in: int = -1, single_n_in: int = -1, single_k_in: int = -1) -> int:
        self.single = (_whole(single_m_in, "single_m_in"), _whole(single_n_in, "single_n_in"),
                       _whole(single_k_in, "single_k_in"))
        return 0

    def get_core_num(self) -> int:
        m, n, _ = self.shape
        sm, sn = self._split(m, n)
        return -(-m // sm) * -(-n // sn)

    def enable_multi_core_split_k(self, flag: bool) -> None:
        if flag:
            raise NotProvidedError("splitting K over cores (partial sums added in GM) is not provided", user_loc())
