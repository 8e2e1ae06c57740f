"""pyasc's `asc.lib.host`: the host-side tiling of the high-level Matmul (lib/host/matmul_tiling.py).

    import asc_trace as asc
    import asc_trace.lib.host as host
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False) ...
    tiling = asc.adv.TCubeTiling(); t.get_tiling(tiling)

`BatchMatmulTiling` (batched matmuls) is not provided: asking for it is a NotProvidedError.
"""
from __future__ import annotations

from typing import Any

from ...errors import NotProvidedError
from ...proxies.source_loc import user_loc
from .matmul_tiling import (CubeFormat, DataType, DequantType, MatmulApiTiling, MatrixMadType, MatrixTraverse,
                            MultiCoreMatmulTiling, PlatformAscendC, PlatformAscendCManager, ScheduleType, TPosition,
                            get_ascendc_platform)

_ABSENT = {"BatchMatmulTiling": "batched matmuls are not provided yet",
           "MatmulConfigParams": "the Matmul's schedule parameters do not change asc_trace's one schedule "
                                 "(docs/cube.md); leave them out"}


def __getattr__(name: str) -> Any:
    if name in _ABSENT:
        raise NotProvidedError(f"asc.lib.host.{name} is not provided: {_ABSENT[name]}", user_loc())
    raise AttributeError(f"module 'asc_trace.lib.host' has no attribute {name!r}")


__all__ = ["CubeFormat", "DataType", "DequantType", "MatmulApiTiling", "MatrixMadType", "MatrixTraverse",
           "MultiCoreMatmulTiling", "PlatformAscendC", "PlatformAscendCManager", "ScheduleType", "TPosition",
           "get_ascendc_platform"]
