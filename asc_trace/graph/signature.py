"""A kernel's parameters as the graph sees them: GM pointers, runtime scalars and constants."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..dtypes import DataType


@dataclass(frozen=True, slots=True)
class Param:
    """One kernel parameter.

    kind: "gm" (a GlobalAddress; `dtype` from the launch argument), "int" / "float" (a runtime scalar
    passed to the kernel), "const" (an `asc.ConstExpr`, baked into the graph; `value` holds it).
    alias: for a GM parameter whose memory overlaps another one's at this launch (`k(x, x)`, or two
    views of one array), (that parameter's index, this one's first byte minus that one's, >= 0): the
    scheduler and the checkers then see one memory (graph/analysis.py, graph/sync_proof.py); the
    kernel is compiled per sharing pattern.
    """

    index: int
    name: str
    kind: str
    dtype: DataType | None = None
    value: Any = None
    alias: tuple[int, int] | None = None

    def __str__(self) -> str:
        if self.kind == "gm":
            shared = ""
            if self.alias is not None:
                shared = f" (shares the memory of parameter {self.alias[0]}, +{self.alias[1]} bytes)"
            return f"{self.name}: gm {self.dtype.short if self.dtype else '?'}*{shared}"
        if self.kind == "const":
            return f"{self.name}: const = {self.value!r}"
        return f"{self.name}: {self.kind}"


@dataclass(frozen=True, slots=True)
class Signature:
    params: tuple[Param, ...]

    @property
    def runtime(self) -> tuple[Param, ...]:
        """The parameters that are real kernel arguments (everything but constants)."""
        return tuple(p for p in self.params if p.kind != "const")

    @property
    def shared(self) -> bool:
        """Whether two GM arguments share memory at this launch (some parameter has an `alias`)."""
        for p in self.params:
            if p.alias is not None:
                return True
        return False

    @property
    def gm(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind == "gm")

    def __str__(self) -> str:
        return "(" + ", ".join(str(p) for p in self.params) + ")"

    def gm_home(self, index: int) -> tuple[int, int]:
        """(the parameter whose memory GM parameter `index` lies in, the byte offset in it): itself and
        0 unless it shares memory with another argument at this launch."""
        p = self.params[index] if 0 <= index < len(self.params) else None
        if p is None or p.alias is None:
            return index, 0
        return p.alias

    def __iter__(self):
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)
