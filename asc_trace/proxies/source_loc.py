"""Find the user's source position: the first stack frame outside the asc_trace package
(the idea of JAX's `_exclude_paths` and torch.fx's `_find_user_frame`)."""
from __future__ import annotations

import linecache
import os
import sys
from itertools import islice
from types import FrameType

from ..graph.source_loc import UNKNOWN_LOC, SourceLoc

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_cache: dict[tuple[object, int], SourceLoc] = {}


def is_internal(filename: str) -> bool:
    return filename.startswith(_PKG_DIR)


def user_frame(skip: int = 1) -> FrameType | None:
    f: FrameType | None = sys._getframe(skip)
    while f is not None and is_internal(f.f_code.co_filename):
        f = f.f_back
    return f


def loc_of_frame(f: FrameType) -> SourceLoc:
    key = (f.f_code, f.f_lasti)
    loc = _cache.get(key)
    if loc is None:
        code = f.f_code
        line = f.f_lineno or code.co_firstlineno
        col = end_col = -1
        try:
            pos = next(islice(code.co_positions(), f.f_lasti // 2, None))
            if pos[0] == line and pos[2] is not None and pos[3] is not None and pos[1] == line:
                col, end_col = pos[2], pos[3]
            elif pos[0] == line and pos[2] is not None:
                col = pos[2]
        except (StopIteration, AttributeError, ValueError):
            pass
        text = linecache.getline(code.co_filename, line).rstrip("\n")
        loc = SourceLoc(code.co_filename, line, code.co_name, text, col, end_col)
        if len(_cache) > 100_000:
            _cache.clear()
        _cache[key] = loc
    return loc


def user_loc() -> SourceLoc:
    """The user's position for the API call in progress."""
    f = user_frame(2)
    return loc_of_frame(f) if f is not None else UNKNOWN_LOC


def loc_of_def(fn: object) -> SourceLoc | None:
    """The `def` line of a kernel function (for errors about the function as a whole)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    line = code.co_firstlineno
    for ln in range(line, line + 50):    # co_firstlineno is the first decorator's line: skip to `def`
        text = linecache.getline(code.co_filename, ln)
        if text.lstrip().startswith(("def ", "async def ")):
            line = ln
            break
    text = linecache.getline(code.co_filename, line).rstrip("\n")
    return SourceLoc(code.co_filename, line, code.co_name, text, -1, -1)
