"""The options a kernel is built and launched with: one frozen, typed record. Its field defaults are
the only place each default is written; `options.py` validates what a user passes (the one place
values are checked) and builds this record. It reads like a mapping too (`opts["auto_sync"]`,
`opts.get(...)`, `{**opts}`); code that may be handed a plain dict reads `as_options(opts).auto_sync`, so
no default is written twice."""
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


def as_options(opts: Mapping[str, Any] | None) -> KernelOptions:
    """`opts` as the typed record: a KernelOptions as it is; a plain mapping (a graph or a pass list built by
    hand, in tests and tools) with every option it leaves out at its default, and keys that are no option
    ignored. Nothing is checked here: options.py validates what a user passes, once."""
    if isinstance(opts, KernelOptions):
        return opts
    return KernelOptions(**{k: v for k, v in (opts or {}).items() if k in NAMES})
