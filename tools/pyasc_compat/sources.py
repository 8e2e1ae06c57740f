"""pyasc's kernel files in a checkout, rewritten to import asc_trace instead of asc.

Two groups: `unit` (the API unit tests under python/test/unit/language, compile only) and `reference`
(tutorials, test kernels and generalization tests, which check results against NumPy / torch).

The rewrite changes the import lines and nothing else a kernel sees, line for line (so every line
number stays the same). Two more substitutions touch only the test harness, never a kernel:
- `from asc.runtime.jit import MockTensor, MockValue` (pyasc's test doubles for GM and scalar
  arguments) imports the census's own doubles;
- a reference test's `BACKENDS = [...]` list, which pyasc's generalization tests set to NPU only, runs
  on `config.Backend.Model` (asc_trace's simulator; there is no NPU here).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

UNIT_DIRS = ("python/test/unit/language",)
REFERENCE_DIRS = ("python/tutorials", "python/test/kernels", "python/test/generalization")
GLUE_MODULE = "pyasc_census_glue"


@dataclass(frozen=True)
class PyascFile:
    group: str          # "unit" or "reference"
    rel: str            # path inside the checkout, e.g. python/test/unit/language/basic/test_scalar.py
    kind: str           # "pytest" (a test module) or "script" (a tutorial run as __main__)

    def source(self, checkout: Path) -> str:
        return (checkout / self.rel).read_text()


def find_files(checkout: Path) -> list[PyascFile]:
    """Every pyasc kernel file of the two groups, sorted."""
    out: list[PyascFile] = []
    for group, dirs in (("unit", UNIT_DIRS), ("reference", REFERENCE_DIRS)):
        for d in dirs:
            root = checkout / d
            if not root.is_dir():
                continue
            for path in sorted(root.rglob("*.py")):
                name = path.name
                if name == "conftest.py" or name.startswith("_"):
                    continue
                is_test = name.startswith("test_")
                if not is_test and group == "unit":
                    continue
                out.append(PyascFile(group, path.relative_to(checkout).as_posix(), "pytest" if is_test else "script"))
    return out


_IMPORT_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(\s*)import asc\.language as asc\b"), r"\1import asc_trace as asc"),
    (re.compile(r"^(\s*)from asc\.runtime\.jit import "), rf"\1from {GLUE_MODULE} import "),
    (re.compile(r"^(\s*)import asc\.([\w.]+) as (\w+)"), r"\1import asc_trace.\2 as \3"),
    (re.compile(r"^(\s*)import asc\.([\w.]+)[ \t]*$", re.M), r"\1import asc_trace.\2, asc_trace as asc"),
    (re.compile(r"^(\s*)import asc\b(?!_)"), r"\1import asc_trace as asc"),
    (re.compile(r"^(\s*)from asc((?:\.[\w]+)*) import "), r"\1from asc_trace\2 import "),
)
_BACKENDS_LIST = re.compile(r"^BACKENDS\s*=\s*\[.*?^\]", re.S | re.M)


def rewrite(source: str, group: str) -> str:
    """The file with asc_trace imported in place of pyasc (same line count)."""
    lines = []
    for line in source.splitlines(keepends=True):
        for pattern, repl in _IMPORT_RULES:
            new = pattern.sub(repl, line, count=1)
            if new != line:
                line = new
                break
        lines.append(line)
    text = "".join(lines)
    if group == "reference":
        text = _BACKENDS_LIST.sub(lambda m: m.group(0).replace("config.Backend.NPU", "config.Backend.Model"), text)
    return text


def write_tree(checkout: Path, files: list[PyascFile], dest: Path) -> None:
    """The rewritten files under `dest`, at their paths inside the checkout."""
    for f in files:
        out = dest / f.rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(rewrite(f.source(checkout), f.group))
