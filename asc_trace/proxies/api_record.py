"""`asc.<name>` for the ops of the family "vec_record" (graph/ops/record_family.py): the call is read off
the record (`OpDef.operands`), so such an op needs no front-end code of its own."""
from __future__ import annotations

from typing import Any, Callable

from ..errors import NotProvidedError, TraceError
from ..graph.node import Pipe, make_attrs
from ..graph.ops import OpDef
from ..graph.ops.record_family import operand_names
from .context import current
from .operands import check_same_dtype, check_supported, count_expr
from .source_loc import user_loc
from .tensors import vec_operand


def make_record_call(op: OpDef) -> Callable[..., None]:
    names = operand_names(op)
    signature = ", ".join(n for n, _ in names)

    def call(*args: Any, **kwargs: Any) -> None:
        ctx = current(f"asc.{op.name}")
        loc = user_loc()
        bound = _bind([n for n, _ in names], args, kwargs)
        if bound is None:
            if op.other_forms:
                raise NotProvidedError(f"asc.{op.name} takes ({signature}) here; its other forms are not "
                                       f"provided: {op.other_forms}", loc)
            raise TraceError(f"asc.{op.name} takes ({signature})", loc)
        refs, operands = [], []
        for name, is_tensor in names:
            if is_tensor:
                r = vec_operand(bound[name], name, op.name, loc)
                refs.append((name, r))
                operands.append(r)
            else:
                operands.append(count_expr(bound[name], loc, name))
        dtype = check_same_dtype(op.name, [r for _, r in refs], [n for n, _ in refs], loc)
        check_supported(op, dtype, loc)
        ctx.record(op.name, tuple(operands), loc, Pipe.V, make_attrs(dtype=dtype))

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
