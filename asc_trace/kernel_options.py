"""The options a kernel is built and launched with: one frozen, typed record. Its field defaults are
the only place each default is written; `options.py` validates what a user passes (the one place
values are checked) and builds this record. It reads like a mapping too (`opts["auto_sync"]`,
`opts.get(...)`, `{**opts}`), so code handed a plain dict of options keeps working."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, Union


@dataclasses.dataclass(frozen=True)
class KernelOptions(Mapping):
    auto_sync: bool = True
    multi_buffer: Union[bool, int, str] = "auto"
    always_compile: bool = False
    backend: str | None = None
    opt_level: int = 3
    kernel_type: str | None = None
    matmul_cube_only: bool = False
    insert_sync: bool | None = None
    record_overflow: bool = False
    platform: str | None = None

    def __getitem__(self, name: str) -> Any:
        if name not in NAMES:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)

    def replace(self, **changes: Any) -> "KernelOptions":
        return dataclasses.replace(self, **changes)


NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(KernelOptions))
DEFAULTS = KernelOptions()


def option_default(name: str) -> Any:
    """The default of option `name` (for code handed a plain dict that may lack it)."""
    return DEFAULTS[name]
