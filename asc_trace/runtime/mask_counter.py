"""A mask form's elements in COUNTER mask mode (after asc.set_mask_count), as the vendor's dav-c220 API runs them.

A mask-form call with is_set_mask=True writes its mask to the register the same way in either mode
(asc-devkit impl/basic_api/kernel_utils_base.h AscendCUtils::SetMask): a mask list [mask0, mask1] as the two
words, a count `len` as lane bits - all ones in the low word when len >= 64 or len is a whole repeat,
else (1 << len) - 1. In COUNTER mode the instruction then reads the low word as an element COUNT
(SetVectorMask<T, MaskMode::COUNTER>(len) writes (0, len)): elements 0 .. count-1, a repeat's worth of lanes
to each repeat placed by the repeat stride, the rest by the block stride; the repeat-time argument is not
read. So a count n < 64 runs 2**n - 1 elements, and n >= 64 asks for 2**64 - 1 (refused: past the tensors).
The CPU-debug stub layer reads the register the same way (toolchain/stub/src/state.h for_active)."""
from __future__ import annotations

from .. import config
from ..errors import NotProvidedError, OutOfBoundsError
from ..graph.node import Node
from ..graph.params import Mask
from .executor_base import efn
from .machine import Machine

FULL = (1 << 64) - 1


def low_word(mask: Mask, env: dict, m: Machine, node: Node, per_rep: int) -> int:
    """The register's low word after the call's SetMask: the element count in COUNTER mode."""
    if mask.bits is not None:
        return mask.bits[0]
    n = m.uniform_int(efn(mask.count)(env), node, "the mask count")
    if n < 0 or n > 0xFFFF_FFFF:      # CheckMaskValue's COUNTER branch: mask in [0, UINT32_MAX]
        raise OutOfBoundsError(f"the mask of asc.{node.op} in counter mode is 0..4294967295, got {n}", node=node)
    return FULL if n >= 64 or n == per_rep else (1 << n) - 1


def counter_count(mask: Mask, env: dict, m: Machine, node: Node, per_rep: int, itemsize: int) -> int:
    """Elements the instruction runs in COUNTER mode, refused past what the UB holds (the stub's rule)."""
    count = low_word(mask, env, m, node, per_rep)
    most = (config.UB_USABLE // 256) * per_rep
    if count > most:
        raise OutOfBoundsError(f"counter mode: the mask register's count {count} is more elements than the UB holds "
                               f"({most})", node=node,
                               hint="in counter mode the mask is an element count across repeats, and a mask-form "
                                    "count n sets it to 2**n - 1 (n < 64) or 2**64 - 1 (n >= 64): pass the count as "
                                    "the mask list [count, 0], or set it with asc.set_vector_mask(0, count, "
                                    "mode=asc.MaskMode.COUNTER) and is_set_mask=False")
    return count


def refuse_counter(m: Machine, node: Node) -> None:
    """The families whose COUNTER-mode runs are not modelled (only the element-wise mask forms are)."""
    if m.mask_counter:
        raise NotProvidedError(f"asc.{node.op}'s mask form in counter mask mode (asc.set_mask_count) is not modelled "
                               "by asc_trace: only the element-wise ops' mask forms (binary, unary, scalar, "
                               "duplicate) follow the register's count", node=node,
                               hint="call asc.set_mask_norm() first, or use the op's count form")
