"""Kernel-side Sort32 (graph/ops/vec_sort.py), pyasc's `sort32(dst, src0, src1, repeat_time)`."""
from __future__ import annotations

from typing import Any, Callable

from ..errors import DTypeError
from ..graph.node import Pipe, make_attrs
from ..graph.ops import OpDef
from .api_vec_more import repeat_time_arg
from .context import current
from .operands import check_same_dtype, check_supported
from .source_loc import user_loc
from .tensors import vec_operand
from .api_families import api_for_families


def _make_sort32(op: OpDef) -> Callable[..., None]:
    def sort32(dst: Any, src0: Any, src1: Any, repeat_time: Any) -> None:
        """Ascend C Sort32(dst, src0, src1, repeatTime): per repeat, 32 scores (src0, half / float) with their uint32
        indices (src1) sorted largest first (ties in input order) into 8-byte (score, index) structures in dst."""
        ctx = current("asc.sort32")
        loc = user_loc()
        d = vec_operand(dst, "dst", "sort32", loc)
        s0 = vec_operand(src0, "src0", "sort32", loc)
        s1 = vec_operand(src1, "src1", "sort32", loc)
        dtype = check_same_dtype("sort32", [d, s0], ["dst", "src0"], loc)
        check_supported(op, dtype, loc)
        if s1.dtype.name != "uint32":
            raise DTypeError(f"src1 of asc.sort32 holds the uint32 indices; it is {s1.dtype}", loc)
        ctx.record("sort32", (d, s0, s1, repeat_time_arg(repeat_time, loc)), loc, Pipe.V, make_attrs(dtype=dtype))
    return sort32


FAMILY_BUILDERS: dict[str, Callable[[OpDef], Callable[..., Any]]] = {"vec_sort32": _make_sort32}


def build_sort_api() -> dict[str, Callable[..., Any]]:
    return api_for_families(FAMILY_BUILDERS)
