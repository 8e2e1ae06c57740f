"""VdeqInfo (Ascend C kernel_struct_vdeq.h): the 16 per-channel dequantisation configs asc.set_deq_scale packs
into a uint64 LocalTensor; values known while tracing (they are emitted as C arrays)."""
from __future__ import annotations

from dataclasses import dataclass

VDEQ_TENSOR_SIZE = 16     # asc-devkit impl/basic_api/utils/kernel_utils_constants.h


@dataclass(frozen=True, slots=True)
class VdeqInfo:
    scale: tuple[float, ...]
    offset: tuple[int, ...]
    sign_mode: tuple[bool, ...]
