"""Where in the user's code a node or an error comes from."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceLoc:
    """A user source position: file, line, function and the text of that line.

    `col`/`end_col` (0-based, may be -1 when unknown) let error messages draw a caret under the call.
    """

    file: str
    line: int
    func: str = "?"
    code: str = ""
    col: int = -1
    end_col: int = -1

    @property
    def short(self) -> str:
        """`file.py:LINE` with the base name only, as used in dumps and emitted comments."""
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


UNKNOWN_LOC = SourceLoc("<unknown>", 0, "?", "")
