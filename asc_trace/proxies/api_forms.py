"""pyasc's call forms of the vector ops: the same arguments positionally or by keyword.

pyasc declares `add(dst, src0, src1, *args, **kwargs)` and picks an overload by the names and number of
the remaining arguments: `(count, is_set_mask=True)` or `(mask, repeat_times, repeat_params,
is_set_mask=True)`. `bind_form` does the same pick for asc_trace's front end, so that
`asc.add(z, x, y, 512)`, `asc.add(z, x, y, count=512)` and `asc.add(z, x, y, mask=64, repeat_times=1,
repeat_params=p)` all reach one recording function.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TraceError
from ..graph.source_loc import SourceLoc


@dataclass(frozen=True)
class Form:
    """One overload: its name, its parameters in positional order and the defaults of the optional ones."""

    name: str
    params: tuple[str, ...]
    defaults: tuple[tuple[str, Any], ...] = ()

    @property
    def required(self) -> tuple[str, ...]:
        optional = {k for k, _ in self.defaults}
        return tuple(p for p in self.params if p not in optional)

    def text(self, opname: str, head: str) -> str:
        opt = dict(self.defaults)
        parts = [f"{p}={opt[p]!r}" if p in opt else p for p in self.params]
        return f"asc.{opname}({head}, {', '.join(parts)})"


COUNT = Form("count", ("count", "is_set_mask"), (("is_set_mask", True),))


def mask_form(params_kw: str = "repeat_params", repeat_kw: str = "repeat_times") -> Form:
    return Form("mask", ("mask", repeat_kw, params_kw, "is_set_mask"), (("is_set_mask", True),))


BINARY_FORMS = (COUNT, mask_form())
UNARY_FORMS = BINARY_FORMS
DUPLICATE_FORMS = (COUNT, Form("mask", ("mask", "repeat_times", "dst_block_stride", "dst_repeat_stride",
                                        "is_set_mask"), (("is_set_mask", True),)))


def given(**kw: Any) -> dict[str, Any]:
    """The keyword arguments a caller actually passed (None: not passed; is_set_mask: passed when not True)."""
    out = {k: v for k, v in kw.items() if v is not None and k != "is_set_mask"}
    if kw.get("is_set_mask", True) is not True:
        out["is_set_mask"] = kw["is_set_mask"]
    return out


def bind_form(opname: str, head: str, args: tuple, kw: dict[str, Any], forms: tuple[Form, ...],
              loc: SourceLoc) -> tuple[str, dict[str, Any]]:
    """(the form's name, its arguments by name) for the trailing `args` and keywords `kw` of a call."""
    for form in forms:
        if len(args) > len(form.params) or any(k not in form.params for k in kw):
            continue
        bound = dict(zip(form.params, args))
        clash = [k for k in kw if k in bound]
        if clash:
            raise TraceError(f"asc.{opname} got {clash[0]!r} both by position and by keyword", loc)
        bound.update(kw)
        if any(p not in bound for p in form.required):
            continue
        for k, v in form.defaults:
            bound.setdefault(k, v)
        return form.name, bound
    shapes = " or ".join(f.text(opname, head) for f in forms)
    names = f"keywords {', '.join(kw)}" if kw else "no keywords"
    raise TraceError(f"asc.{opname} takes {shapes}; got {len(args)} more positional argument(s) and {names}", loc)


# the families whose mask form reads the mask register with is_set_mask=False (Op<T, isSetMask>(...))
REGISTER_MASK_FAMILIES = ("vec_binary", "vec_unary", "vec_scalar")


def check_set_mask(opname: str, form: str, value: Any, loc: SourceLoc, family: str = "") -> None:
    """is_set_mask=False in the mask form reads the mask an earlier call left in the register
    (proxies/mask_reg.py), for the element-wise families."""
    if not isinstance(value, bool):
        raise TraceError(f"is_set_mask of asc.{opname} must be True or False, got {value!r}", loc)
    if form == "mask" and not value and (family not in REGISTER_MASK_FAMILIES or opname == "axpy"):
        raise TraceError(f"asc.{opname}(..., is_set_mask=False) would use the mask register, which asc_trace "
                         "follows only for the element-wise ops (add, exp, adds, ...)", loc,
                         hint="pass the mask to the call itself and leave is_set_mask=True")
