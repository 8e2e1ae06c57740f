"""The Ascend C symbols the emitted source may use (api_symbols.txt: each with the line that declares it
in asc-devkit and in CANN 8.1.RC1), and the symbols a given emitted source does use.

The reading is textual and fitted to the emitter's own output (lower/ascendc.py), which is regular: API
names are always qualified `AscendC::`, members are called on the emitter's `asct_` locals. What it
establishes is which declarations a source relies on; that each call resolves to the right overload is
the header check's job (toolchain/header_check.py)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .cexpr import PREFIX

SYMBOLS_FILE = Path(__file__).resolve().parent / "api_symbols.txt"
GENERATIONS = {"asc-devkit": 0, "cann-8.1": 1}      # the columns of api_symbols.txt
_ENUMS = ("TPosition", "HardEvent", "RoundMode", "CMPMODE", "SELMODE", "ReduceOrder", "CacheLine", "DcciDst", "MemDsbT",
          "CacheMode", "CacheRwMode", "MaskMode", "AtomicDtype", "AtomicOp")
_WORDS = ("GM_ADDR", "KERNEL_TASK_TYPE_DEFAULT", "KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_AIC_ONLY", "__aicore__",
          "__global__", "__gm__", "KERNEL_TYPE_MIX_AIC_1_2", "ASCEND_IS_AIC", "ASCEND_IS_AIV",
          "PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL", "PIPE_FIX", "PIPE_MTE1", "PIPE_M")


@dataclass(frozen=True)
class Location:
    path: str | None          # None: this generation has no such declaration
    line: int = 0
    builtin: bool = False     # bisheng provides it

    @staticmethod
    def parse(text: str) -> "Location":
        text = text.strip()
        if text == "-":
            return Location(None)
        if text == "builtin":
            return Location(None, builtin=True)
        path, _, line = text.rpartition(":")
        return Location(path, int(line))

    @property
    def present(self) -> bool:
        return self.builtin or self.path is not None


@lru_cache(maxsize=1)
def listed() -> dict[str, tuple[Location, Location]]:
    """key -> (asc-devkit location, CANN 8.1.RC1 location)."""
    out: dict[str, tuple[Location, Location]] = {}
    for raw in SYMBOLS_FILE.read_text().splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        key, devkit, cann81 = (part.strip() for part in raw.split("|"))
        if key in out:
            raise ValueError(f"{SYMBOLS_FILE.name}: {key} listed twice")
        out[key] = (Location.parse(devkit), Location.parse(cann81))
    from ..graph.ops import REGISTRY      # the declarations an op record carries (OpDef.declared)
    for op in REGISTRY.values():
        for key, (devkit, cann81) in op.declared.items():
            if key in out:
                raise ValueError(f"{key} listed twice ({SYMBOLS_FILE.name} and the record of {op.name})")
            out[key] = (Location.parse(devkit), Location.parse(cann81))
    return out


def _code(source: str) -> str:
    """The source without comments and string literals."""
    source = re.sub(r'"(?:\\.|[^"\\])*"', '""', source)
    return re.sub(r"//[^\n]*", "", source)


def _skip_template(code: str, i: int) -> int:
    """The index after the template argument list starting at code[i] == '<'."""
    depth = 0
    while i < len(code):
        depth += code[i] == "<"
        depth -= code[i] == ">"
        i += 1
        if depth == 0:
            return i
    return i


def _arguments(code: str, i: int) -> int:
    """How many arguments the call whose '(' is at code[i] has."""
    depth, count, seen = 0, 0, False
    for ch in code[i:]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return count + 1 if seen else 0
        elif ch == "," and depth == 1:
            count += 1
        elif depth >= 1 and not ch.isspace():
            seen = True
    return count + 1 if seen else 0


def emitted_symbols(source: str) -> set[str]:
    """The keys of api_symbols.txt that `source` (emitted Ascend C) uses."""
    code = _code(source)
    out: set[str] = set()
    kinds: dict[str, str] = {}           # local -> its API class, for subscripting
    for m in re.finditer(r"AscendC::(\w+)", code):
        name, j = m.group(1), m.end()
        if name in _ENUMS:
            out.add(name)
            continue
        if code.startswith("::", j):     # a nested name (the enums above are the only ones emitted)
            out.add(name + re.match(r"::\w+", code[j:]).group(0))
            continue
        tmpl = ""
        if j < len(code) and code[j] == "<":
            j, tmpl = _skip_template(code, j), "<>"
        decl = re.match(rf"\s+({PREFIX}\w+)\s*", code[j:])
        if decl:                        # a declaration: `AscendC::Type<T> name` [(args) | = ... | ;]
            kinds[decl.group(1)] = name
            k = j + decl.end()
            out.add(f"{name}/{_arguments(code, k)}" if k < len(code) and code[k] == "(" else name)
            continue
        if j < len(code) and code[j] == "(":
            out.add("printf/*" if name == "printf" else f"{name}{tmpl}/{_arguments(code, j)}")
        else:
            out.add(name)
    for m in re.finditer(rf"\b({PREFIX}\w+)(\[|\.(\w+)(<[^()]*?>)?\()", code):
        local, kind = m.group(1), m.group(2)
        if kind == "[":
            if local in kinds:
                out.add(f"{kinds[local]}::operator[]")
            continue
        out.add(f".{m.group(3)}{'<>' if m.group(4) else ''}/{_arguments(code, m.end() - 1)}")
    for m in re.finditer(r"\.(ReinterpretCast)<[^()]*?>\(", code):
        out.add(f".{m.group(1)}<>/0")
    out |= {w for w in _WORDS if re.search(rf"(?<![\w]){w}(?![\w])", code)}
    return out


def unlisted(source: str, generation: str) -> list[str]:
    """The symbols `source` uses that the list does not give for `generation` ("asc-devkit" or
    "cann-8.1"), sorted."""
    col = GENERATIONS[generation]
    table = listed()
    return sorted(s for s in emitted_symbols(source) if s not in table or not table[s][col].present)


def declares(root: Path, loc: Location, key: str) -> bool:
    """Whether line `loc.line` of `root / loc.path` declares the symbol `key` (its name is on the line)."""
    name = re.sub(r"(<>)?(/.*)?$", "", key).lstrip(".").split("::")[-1]
    if name == "operator[]":
        name = "operator[]"
    try:
        lines = (root / loc.path).read_text(errors="replace").splitlines()
    except OSError:
        return False
    return 0 < loc.line <= len(lines) and name in lines[loc.line - 1]
