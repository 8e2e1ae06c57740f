"""Saying when launches of one kernel keep tracing again (like torch.compile's recompile warning).

A launch reuses a compiled kernel while its fingerprint (fingerprint.py) and its ConstExpr values stay
the same. A global that changes at every launch, a value the fingerprint cannot compare (so it never
matches), or a ConstExpr fed a new value each time makes every launch trace, schedule and prepare the
kernel again: correct, but far off the warm path, and silent. This module counts the compilations that
launches cause for one kernel and one set of argument kinds and dtypes (ConstExpr values left out), and
at the RECOMPILE_LIMIT-th recompilation because something the kernel reads changed (or the
CONSTEXPR_LIMIT-th new ConstExpr value) warns once, at the launch's line, with what changed.
"""
from __future__ import annotations

import types
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .errors import AscTraceWarning
from .fingerprint import Unstable
from .graph.signature import Signature
from .graph.source_loc import SourceLoc

# As torch._dynamo's cache_size_limit: this many recompilations because something the kernel reads changed
# (a global, a value that cannot be compared), for the same argument dtypes, are usually a value that
# changes at every launch.
RECOMPILE_LIMIT = 8
# A new asc.ConstExpr value is a new specialization, cached beside the others: a sweep over configurations
# (a test's parameters, an autotune) makes dozens on purpose, so only this many, for the same argument
# dtypes, are taken as a ConstExpr fed a value that changes at every launch (a loop counter, a size).
CONSTEXPR_LIMIT = 64


@dataclass(slots=True)
class _History:
    """What the last compilation of one (argument kinds and dtypes, options) key saw."""

    deps: tuple
    consts: dict[str, Any]
    recompiles: int = 0
    specializations: int = 0            # of the recompiles, those where only ConstExpr values differed
    reasons: Counter = field(default_factory=Counter)
    warned: bool = False


def dtype_key(sig_key: tuple) -> tuple:
    """A compile-cache key without its ConstExpr values: what "the same argument dtypes" means here."""
    sk, options_key = sig_key
    return tuple((kind, dtype, None, alias) for kind, dtype, _value, alias in sk), options_key


class RecompileWatch:
    """One kernel's compilations caused by launches, by `dtype_key`."""

    __slots__ = ("name", "seen")

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: dict[tuple, _History] = {}

    def compiled(self, key: tuple, deps: tuple, signature: Signature, loc: SourceLoc | None) -> None:
        """Record a compilation a launch at `loc` caused for cache key `key`; warn when it is the limit's."""
        consts = {p.name: p.value for p in signature.params if p.kind == "const"}
        dk = dtype_key(key)
        h = self.seen.get(dk)
        if h is None:
            self.seen[dk] = _History(deps, consts)
            return
        reasons = _reasons(h.deps, deps, h.consts, consts)
        for reason in reasons:
            h.reasons[reason] += 1
        h.recompiles += 1
        if reasons and all(r.startswith("asc.ConstExpr ") for r in reasons):
            h.specializations += 1
        h.deps, h.consts = deps, consts
        if not h.warned and (h.recompiles - h.specializations >= RECOMPILE_LIMIT
                             or h.specializations >= CONSTEXPR_LIMIT):
            h.warned = True
            _warn(self.name, h, loc)


def _warn(name: str, h: _History, loc: SourceLoc | None) -> None:
    shown = "; ".join(f"{r} ({n}x)" for r, n in h.reasons.most_common(4)) or "no difference found"
    msg = (f"{name} was traced and scheduled again {h.recompiles} times for the same argument dtypes, so these "
           f"launches are not reusing the compiled kernel (each costs a full compilation): {shown}. Keep that "
           "value fixed between launches, pass a changing number as a runtime int/float argument instead of a "
           "global or an asc.ConstExpr, or bind the global to a value asc_trace can compare (docs/caching.md)")
    if h.specializations >= CONSTEXPR_LIMIT:
        msg += ("; a deliberate sweep over ConstExpr values (each compiled once and cached) may ignore this, e.g. "
                "warnings.filterwarnings('ignore', 'traced and scheduled again', asc.AscTraceWarning)")
    if loc is not None and loc.line > 0:
        warnings.warn_explicit(AscTraceWarning(msg), AscTraceWarning, loc.file, loc.line)
    else:
        warnings.warn(AscTraceWarning(msg), stacklevel=4)


def _reasons(old: tuple, new: tuple, old_consts: dict[str, Any], new_consts: dict[str, Any]) -> list[str]:
    """What differs between two compilations of one dtype key, in words."""
    out = [f"asc.ConstExpr {n} changed" for n, v in new_consts.items() if repr(old_consts.get(n)) != repr(v)]
    out += _fingerprint_changes(old, new)
    return out


def _fingerprint_changes(old: tuple, new: tuple, via: str = "") -> list[str]:
    """The parts of two `fingerprint.fingerprint` tuples that differ: the code object, then (label, key)
    pairs, a label being the name of a global the function loads, `<free NAME>` for a closure cell or
    <defaults>, <kwdefaults>. A function reached from the kernel (a helper in a global or a closure cell)
    is followed, so the reason names the global that really changed and the path to it."""
    out = []
    if old[0] is not new[0] and old[0] != new[0]:
        out.append(f"the code{via or ' of the kernel'} changed")
    before, after = dict(old[1:]), dict(new[1:])
    for label, key in after.items():
        what = _what(label) + via
        why = _unstable_why(key)
        inner_old, inner_new = _function_fp(before.get(label)), _function_fp(key)
        if why is not None and inner_new is None:
            out.append(f"{what} cannot be compared between launches ({why}), so it never matches")
        elif label not in before:
            out.append(f"{what} appeared")
        elif inner_old is not None and inner_new is not None:
            out += _fingerprint_changes(inner_old, inner_new, f" (read through {_what(label)}{via})")
        elif before[label] != key:
            out.append(f"{what} changed")
    out += [f"{_what(n)}{via} was deleted" for n in before if n not in after]
    return out


def _what(label: str) -> str:
    if label.startswith("<free "):
        return f"closure variable {label[6:-1]}"
    return {"<defaults>": "a default argument", "<kwdefaults>": "a keyword default"}.get(label, f"global {label}")


def _function_fp(key: Any) -> tuple | None:
    """The fingerprint inside a function's or sub-kernel's key (`("fn", fp)`, `("jit", fp, options)`)."""
    if isinstance(key, tuple) and len(key) >= 2 and key[0] in ("fn", "jit") and isinstance(key[1], tuple) \
            and key[1] and isinstance(key[1][0], types.CodeType):
        return key[1]
    return None


def _unstable_why(key: Any) -> str | None:
    if isinstance(key, Unstable):
        return key.why
    if isinstance(key, tuple):
        for part in key:
            why = _unstable_why(part)
            if why is not None:
                return why
    return None
