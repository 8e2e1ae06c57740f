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
    """

    index: int
    name: str
    kind: str
    dtype: DataType | None = None
    value: Any = None

    def __str__(self) -> str:
        if self.kind == "gm":
            return f"{self.name}: gm {self.dtype.short if self.dtype else '?'}*"
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
    def gm(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind == "gm")

    def __str__(self) -> str:
        return "(" + ", ".join(str(p) for p in self.params) + ")"

    def __iter__(self):
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)
