"""`asc.<name>` for the ops of the family "vec_record" (graph/ops/record_family.py): the call is read off
the record (`OpDef.operands`), so such an op needs no front-end code of its own."""
from __future__ import annotations

from typing import Any, Callable

from ..errors import NotProvidedError, TraceError
from ..graph.node import Pipe, make_attrs
from ..graph.ops import OpDef
from ..graph.ops.record_family import operand_kinds
from .context import current
from .operands import check_same_dtype, check_supported, count_expr, scalar_for
from .source_loc import user_loc
from .tensors import vec_operand


def make_record_call(op: OpDef) -> Callable[..., None]:
    kinds = operand_kinds(op)
    signature = ", ".join(n for n, _ in kinds)

    def call(*args: Any, **kwargs: Any) -> None:
        ctx = current(f"asc.{op.name}")
        loc = user_loc()
        bound = _bind([n for n, _ in kinds], args, kwargs)
        if bound is None:
            if op.other_forms:
                raise NotProvidedError(f"asc.{op.name} takes ({signature}) here; its other forms are not "
                                       f"provided: {op.other_forms}", loc)
            raise TraceError(f"asc.{op.name} takes ({signature})", loc)
        refs = [(name, vec_operand(bound[name], name, op.name, loc)) for name, kind in kinds if kind == "tensor"]
        dtype = check_same_dtype(op.name, [r for _, r in refs], [n for n, _ in refs], loc)
        check_supported(op, dtype, loc)
        tensors = dict(refs)
        operands = []
        for name, kind in kinds:
            if kind == "tensor":
                operands.append(tensors[name])
            elif kind == "scalar":      # Ascend C's `const T& name`: a value of the element type
                operands.append(scalar_for(dtype, bound[name], op.name, loc))
            else:
                operands.append(count_expr(bound[name], loc, name))
        ctx.record(op.name, tuple(operands), loc, op.pipe or Pipe.V, make_attrs(dtype=dtype))

    call.__doc__ = op.doc or f"Ascend C {op.c_name}({signature})."
    return call


def _bind(params: list[str], args: tuple, kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments by parameter name, or None when they do not fit the parameters exactly."""
    if len(args) > len(params):
        return None
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params or k in bound:
            return None
        bound[k] = v
    return bound if len(bound) == len(params) else None
