"""Recording one high-level call (graph/ops/adv_common.py's operand layout), with the checks every adv
call shares: LocalTensor operands, the element type the vendor supports, a uint8 temporary buffer, a count."""
from __future__ import annotations

from typing import Any

from ..dtypes import DataType, uint8
from ..errors import DTypeError, TraceError
from ..graph.node import Pipe, make_attrs
from ..graph.ops import REGISTRY
from ..graph.source_loc import SourceLoc
from ..proxies.api import count_expr, vec_operand
from ..proxies.context import current
from ..proxies.scalar import to_expr
from ..proxies.source_loc import user_loc


def record(op_name: str, outs: dict[str, Any], ins: dict[str, Any], temp_buffer: Any = None,
           scalars: dict[str, Any] | None = None, count: Any = None, *, counted: bool = True,
           dtype_of: str | None = None, tmp_form: bool = True, tmp_required: bool = False,
           size_of: str | None = None, **attrs: Any) -> SourceLoc:
    """Record `asc.adv.<name>`; `dtype_of`: the operand whose type is the call's T (default: the first);
    `size_of`: the tensor whose GetSize() is the count when none is given (the vendor's count-less forms)."""
    name = op_name[4:]
    ctx = current(f"asc.adv.{name}")
    loc = user_loc()
    op = REGISTRY[op_name]
    refs = {k: vec_operand(t, k, f"adv.{name}", loc) for k, t in {**outs, **ins}.items()}
    dt: DataType = refs[dtype_of or next(iter(refs))].dtype
    if not op.supports(dt.name):
        raise DTypeError(f"asc.adv.{name} does not support {dt} (the vendor's {op.c_name} takes "
                         f"{', '.join(sorted(op.dtypes or ()))})", loc, hint="cast with asc.cast first")
    args: list[Any] = list(refs.values())
    tmp = None
    if temp_buffer is not None and tmp_form:
        tmp = vec_operand(temp_buffer, "temp_buffer", f"adv.{name}", loc)
        if tmp.dtype is not uint8:
            raise DTypeError(f"the temp_buffer of asc.adv.{name} is a LocalTensor of {tmp.dtype}; the vendor's "
                             "sharedTmpBuffer is a LocalTensor<uint8_t>", loc,
                             hint="tbuf.get(asc.uint8), or t.reinterpret_cast(asc.uint8)")
        args.append(tmp)
    elif tmp_required:
        raise TraceError(f"asc.adv.{name} needs temp_buffer= (Ascend C {op.c_name} has no form without a "
                         "sharedTmpBuffer)", loc, hint=f"size it with asc.adv.get_{name}_max_min_tmp_size")
    elif tmp_form and getattr(ctx, "asc_tpipe", None) is None:
        # the vendor's form without sharedTmpBuffer pops its scratch from the UB the TPipe has not handed out
        # (PopStackBuffer asserts GetTPipePtr() != nullptr); with no TPipe yet the API refuses the call on the
        # NPU and on cpu_debug, so every backend refuses it here, at the call, rather than inventing scratch
        raise TraceError(f"asc.adv.{name} without temp_buffer= takes its scratch from the TPipe's free UB, and no "
                         "asc.TPipe() was created before this call", loc,
                         hint="create asc.TPipe() before the call, or pass temp_buffer= (a uint8 LocalTensor, e.g. from "
                              "a TBuf, sized by the vendor's GetXxxMaxMinTmpSize host helper)")
    for k, v in (scalars or {}).items():
        e = to_expr(v, f"{k} of asc.adv.{name}")
        args.append(e)
    if counted:
        if count is None and size_of is not None:
            count = _size(ins[size_of], loc)
        if count is None:
            raise TraceError(f"asc.adv.{name} needs the element count (count=...)", loc,
                             hint="asc_trace does not know a LocalTensor's size from its declaration alone")
        args.append(count_expr(count, loc))
    ctx.record(op_name, tuple(args), loc, Pipe.V, make_attrs(dtype=dt, tmp=True if tmp is not None else None,
                                                            **attrs))
    return loc


def _size(t: Any, loc: SourceLoc) -> Any:
    """`t.GetSize()`, as the vendor's forms without calCount read it (Log(dst, src) is Log(dst, src,
    src.GetSize())); a tensor whose size is not known is the same TraceError as a missing count."""
    try:
        return t.get_size()
    except TraceError as e:
        raise TraceError(f"the element count was not given and the source's size is not known: {e.args[0]}", loc,
                         hint="pass count=...") from None
