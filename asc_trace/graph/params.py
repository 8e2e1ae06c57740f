"""Parameter structs of the Ascend C API as graph operands (fields are scalar expressions).

Units follow the API (docs/facts.md#facts-4, #facts-5): DataCopyParams counts 32-byte blocks; DataCopyExtParams counts
bytes on the GM side and 32-byte blocks on the UB side; repeat params count 32-byte blocks.
"""
from __future__ import annotations

from dataclasses import dataclass

from .expr import Expr


@dataclass(frozen=True, slots=True)
class DataCopyParams:
    block_count: Expr
    block_len: Expr      # 32-byte blocks
    src_stride: Expr     # gap after each block, 32-byte blocks
    dst_stride: Expr


@dataclass(frozen=True, slots=True)
class DataCopyExtParams:
    block_count: Expr
    block_len: Expr      # bytes
    src_stride: Expr     # GM -> UB: bytes; UB -> GM: 32-byte blocks
    dst_stride: Expr     # GM -> UB: 32-byte blocks; UB -> GM: bytes
    rsv: Expr


@dataclass(frozen=True, slots=True)
class DataCopyPadExtParams:
    is_pad: Expr
    left_padding: Expr   # elements
    right_padding: Expr  # elements
    padding_value: Expr


@dataclass(frozen=True, slots=True)
class BinaryRepeatParams:
    dst_blk_stride: Expr
    src0_blk_stride: Expr
    src1_blk_stride: Expr
    dst_rep_stride: Expr
    src0_rep_stride: Expr
    src1_rep_stride: Expr


@dataclass(frozen=True, slots=True)
class UnaryRepeatParams:
    dst_blk_stride: Expr
    src_blk_stride: Expr
    dst_rep_stride: Expr
    src_rep_stride: Expr


@dataclass(frozen=True, slots=True)
class ShapeInfo:
    shape: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Mask:
    """A vector mask: `count` contiguous elements per repeat, or `bits` = (mask0, mask1) 64-bit words
    (mask0: elements 0-63 of a repeat, mask1: elements 64-127), as Ascend C's uint64_t mask[2]."""

    count: Expr | None = None
    bits: tuple[int, int] | None = None

    def __str__(self) -> str:
        if self.bits is not None:
            return f"mask=[{self.bits[0]:#x}, {self.bits[1]:#x}]"
        from .expr import to_str
        return f"mask={to_str(self.count)}"


def _positional(obj: object) -> str:
    from dataclasses import fields
    from .expr import to_str
    return f"{type(obj).__name__}(" + ", ".join(to_str(getattr(obj, f.name)) for f in fields(obj)) + ")"


for _cls in (DataCopyParams, DataCopyExtParams, DataCopyPadExtParams, BinaryRepeatParams, UnaryRepeatParams):
    _cls.__str__ = _positional  # type: ignore[method-assign]
ShapeInfo.__str__ = lambda self: f"ShapeInfo{list(self.shape)}"  # type: ignore[method-assign]
