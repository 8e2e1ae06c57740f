"""Loading `FILE.py::KERNEL` and the inputs `inspect` runs it with: `--args` written on the command
line, or the example inputs the file declares.

`--args` takes one token per kernel parameter, in order, or `name=TOKEN` for a keyword:
  DTYPE[SHAPE]         an array of random values (seeded), e.g. f32[16384], float16[8,256], i32[64]
  DTYPE[SHAPE]:FILL    FILL one of rand, zeros, ones, arange
  2048, -3, 0x40       an int;   1.5, 1e-3   a float;   (8, 128), True, 'text'   a Python literal
DTYPE is a kernel dtype name or its short form: float16/f16/half, float32/f32/float, bfloat16/bf16
(a torch tensor: needs torch), int8..int64/i8..i64, uint8..uint64/u8..u64, bool.

Example inputs a file declares: a module-level `__asc_examples__`, a dict (or a function returning one)
that maps a kernel's name to its launch arguments, either a tuple or a dict
`{"args": (...), "kwargs": {...}, "core_num": N}`:

    def __asc_examples__():
        x = np.random.rand(8 * 2048).astype(np.float32)
        return {"vadd_kernel": {"args": (x, x.copy(), np.zeros_like(x), 2048), "core_num": 8}}
"""
from __future__ import annotations

import ast
import importlib.util
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from .. import dtypes as D
from ..jit_function import JitFunction
from .common import EXIT_LOAD, EXIT_USAGE, CliError

_ARRAY = re.compile(r"^(?P<dt>[A-Za-z_][A-Za-z0-9_]*)\[(?P<shape>[0-9,\s]*)\](?::(?P<fill>[a-z]+))?$")
_KEYWORD = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$")
_DTYPES: dict[str, D.DataType] = {**D.BY_NAME, **{d.short: d for d in D.ALL}, "half": D.float16,
                                  "float": D.float32, "float_": D.float32, "int": D.int32, "int_": D.int32,
                                  "bool_": D.bool_}
FILLS = ("rand", "zeros", "ones", "arange")
EXAMPLES_ATTR = "__asc_examples__"


@dataclass
class Inputs:
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    core_num: int | None = None
    origin: str = "--args"


def load_kernel(target: str) -> tuple[ModuleType, JitFunction, Path]:
    """`path/to/file.py::kernel_name` -> (module, kernel, path); CliError(2) for a malformed target, (3) when
    loading it fails."""
    if "::" not in target:
        raise CliError(EXIT_USAGE, f"{target!r}: name the kernel as FILE.py::KERNEL")
    file_part, name = target.rsplit("::", 1)
    # an empty side or a name no Python kernel can have is a mistake in the command line (exit 2), found
    # before the file is imported; a well-formed name the file lacks is a load failure (exit 3)
    if not file_part.strip():
        raise CliError(EXIT_USAGE, f"{target!r}: the file is missing: name the kernel as FILE.py::KERNEL")
    if not name.isidentifier():
        what = "the kernel name is empty" if not name else f"{name!r} is not a Python name"
        raise CliError(EXIT_USAGE, f"{target!r}: {what}: name the kernel as FILE.py::KERNEL")
    path = Path(file_part).expanduser().resolve()
    if not path.exists():
        raise CliError(EXIT_LOAD, f"no such file: {file_part}")
    if not path.is_file():
        raise CliError(EXIT_LOAD, f"{file_part} is not a Python file (a {'folder' if path.is_dir() else 'device'})")
    mod_name = path.stem if path.stem.isidentifier() and path.stem not in sys.modules else f"_asc_inspect_{id(path)}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise CliError(EXIT_LOAD, f"cannot load {file_part} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))       # so the file's own sibling imports work
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - whatever the user's module raised is the message
        sys.modules.pop(mod_name, None)
        raise CliError(EXIT_LOAD, f"importing {file_part} failed:\n{traceback.format_exc(limit=-3)}") from None
    kernels = sorted(k for k, v in vars(module).items() if isinstance(v, JitFunction))
    obj = getattr(module, name, None)
    if obj is None:
        raise CliError(EXIT_LOAD, f"{file_part} has no {name!r}; its @asc.jit kernels: "
                                  f"{', '.join(kernels) or 'none'}")
    if not isinstance(obj, JitFunction):
        if not callable(obj):
            raise CliError(EXIT_LOAD, f"{file_part}::{name} is a {type(obj).__name__}, not a kernel")
        obj = JitFunction(obj)
    return module, obj, path


def _array(dt: D.DataType, shape: tuple[int, ...], fill: str, rng: np.random.Generator) -> Any:
    n = int(np.prod(shape)) if shape else 1
    if fill == "zeros":
        vals = np.zeros(n)
    elif fill == "ones":
        vals = np.ones(n)
    elif fill == "arange":
        vals = np.arange(n)
    elif dt.is_float:
        vals = rng.uniform(-1.0, 1.0, n)
    elif dt is D.bool_:
        vals = rng.integers(0, 2, n)
    else:
        vals = rng.integers(0 if dt.name.startswith("u") else -8, 16, n)
    if dt is D.bfloat16:
        try:
            import torch
        except ImportError:
            raise CliError(EXIT_USAGE, "bfloat16 arrays are passed as torch tensors, and torch is not "
                                       "installed") from None
        return torch.tensor(vals, dtype=torch.float32).to(torch.bfloat16).reshape(shape)
    return vals.astype(dt.np).reshape(shape)


def parse_token(token: str, rng: np.random.Generator) -> Any:
    """One --args token -> an array or a scalar (see the module docstring)."""
    m = _ARRAY.match(token.strip())
    if m:
        dt = _DTYPES.get(m.group("dt"))
        if dt is None:
            raise CliError(EXIT_USAGE, f"--args {token!r}: unknown dtype {m.group('dt')!r} "
                                       f"(one of {', '.join(sorted(D.BY_NAME))} or their short forms)")
        fill = m.group("fill") or "rand"
        if fill not in FILLS:
            raise CliError(EXIT_USAGE, f"--args {token!r}: unknown fill {fill!r} (one of {', '.join(FILLS)})")
        dims = [s for s in m.group("shape").replace(" ", "").split(",") if s]
        if not dims:
            raise CliError(EXIT_USAGE, f"--args {token!r}: give the array's shape, e.g. f32[1024]")
        shape = tuple(int(s) for s in dims)
        try:
            return _array(dt, shape, fill, rng)
        except (MemoryError, ValueError) as e:   # numpy's _ArrayMemoryError is a MemoryError
            raise CliError(EXIT_USAGE, f"--args {token!r}: cannot allocate a {'x'.join(map(str, shape))} "
                                       f"{dt.name} array ({type(e).__name__}); give a smaller shape") from None
    for conv in (lambda t: int(t, 0), float, ast.literal_eval):
        try:
            return conv(token)
        except (ValueError, SyntaxError, TypeError):
            continue
    raise CliError(EXIT_USAGE, f"--args {token!r} is neither an array like f32[1024] nor a number or Python "
                               "literal")


def parse_args_spec(tokens: list[str], seed: int = 0) -> Inputs:
    rng = np.random.default_rng(seed)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for tok in tokens:
        kw = _KEYWORD.match(tok)
        if kw and not _ARRAY.match(tok):
            kwargs[kw.group("name")] = parse_token(kw.group("value"), rng)
        elif kwargs:
            raise CliError(EXIT_USAGE, f"--args {tok!r}: a positional value after keyword ones")
        else:
            args.append(parse_token(tok, rng))
    return Inputs(tuple(args), kwargs)


def declared_examples(module: ModuleType, kernel: str, path: Path) -> Inputs | None:
    """The example inputs `module` declares for `kernel` (None when it declares none)."""
    decl = getattr(module, EXAMPLES_ATTR, None)
    if decl is None:
        return None
    where = f"{path.name}: {EXAMPLES_ATTR}"
    try:
        table = decl() if callable(decl) else decl
    except Exception:  # noqa: BLE001 - the user's function failed: show its traceback
        raise CliError(EXIT_LOAD, f"{where}() failed:\n{traceback.format_exc(limit=-3)}") from None
    if not isinstance(table, dict):
        raise CliError(EXIT_LOAD, f"{where} must be a dict (or a function returning one) mapping kernel names to "
                                  f"arguments, got {type(table).__name__}")
    if kernel not in table:
        return None
    entry = table[kernel]
    if isinstance(entry, (tuple, list)):
        return Inputs(tuple(entry), origin=where)
    if isinstance(entry, dict) and set(entry) <= {"args", "kwargs", "core_num"}:
        args, kwargs, cores = entry.get("args", ()), entry.get("kwargs", {}), entry.get("core_num")
        bad = ("args must be a tuple or list" if not isinstance(args, (tuple, list)) else
               "kwargs must be a dict of names to values" if not (isinstance(kwargs, dict)
                                                                  and all(isinstance(k, str) for k in kwargs)) else
               "core_num must be an int from 1 to 65535" if cores is not None and (
                   isinstance(cores, bool) or not isinstance(cores, (int, np.integer)) or not 1 <= cores <= 65535)
               else None)
        if bad:
            got = {"args": args, "kwargs": kwargs, "core_num": cores}[bad.split()[0]]
            raise CliError(EXIT_LOAD, f"{where}[{kernel!r}]: {bad}; got {got!r:.80}")
        return Inputs(tuple(args), dict(kwargs), None if cores is None else int(cores), where)
    raise CliError(EXIT_LOAD, f"{where}[{kernel!r}] must be a tuple of arguments or a dict with keys args, kwargs, "
                              f"core_num; got {entry!r:.80}")


def describe(v: Any) -> str:
    """How an input is shown in inspect's header: f32[8,2048] or the scalar's repr."""
    torch = sys.modules.get("torch")
    if isinstance(v, np.ndarray):
        dt = D.from_numpy(v.dtype)
        return f"{dt.short if dt else v.dtype}[{','.join(map(str, v.shape))}]"
    if torch is not None and isinstance(v, torch.Tensor):
        return f"{str(v.dtype).replace('torch.', '')}[{','.join(map(str, v.shape))}] tensor"
    return repr(v)
