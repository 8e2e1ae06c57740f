"""Binding launch arguments: NumPy arrays and torch CPU tensors become global memory (written in
place), Python numbers become runtime scalars or constants. Nothing reaches the caller's arrays
until the kernel has run without error (`BoundArgs.commit`)."""
from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import dtypes as D
from ..errors import LaunchError
from ..graph.signature import Param, Signature
from ..graph.scalar_ops import to_f32
from ..graph.source_loc import SourceLoc

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """How a kernel parameter is declared: kind "gm", "int", "float", "const" or "auto" (no annotation)."""

    name: str
    kind: str
    default: Any = inspect.Parameter.empty


@dataclass
class BoundArgs:
    signature: Signature
    arrays: list[np.ndarray | None]          # flat storage view per parameter (GM only)
    scalars: dict[str, Any]                  # env entries of the runtime scalars ("p<i>")
    values: list[Any]                        # what the caller passed, by parameter


def _torch():
    return sys.modules.get("torch")


def _torch_dtype(t: Any) -> D.DataType | None:
    torch = _torch()
    table = {torch.float16: D.float16, torch.float32: D.float32, torch.bfloat16: D.bfloat16, torch.int8: D.int8,
             torch.int16: D.int16, torch.int32: D.int32, torch.int64: D.int64, torch.uint8: D.uint8,
             torch.bool: D.bool_}
    return table.get(t)


def as_storage(value: Any, name: str, loc: SourceLoc | None,
               device_ok: bool = False) -> tuple[np.ndarray | None, D.DataType]:
    """A flat, writable storage view of an array argument and its kernel dtype (no view for a tensor
    on an NPU: the npu backend passes it by device pointer)."""
    torch = _torch()
    if torch is not None and isinstance(value, torch.Tensor):
        if value.device.type != "cpu" and not device_ok:
            raise LaunchError(f"argument {name!r} is a tensor on {value.device}; the CPU backends need CPU tensors",
                              loc, hint="call .cpu() on it, or launch with backend='npu'")
        if not value.is_contiguous():
            raise LaunchError(f"argument {name!r} is not contiguous", loc, hint="pass t.contiguous()")
        if value.device.type != "cpu":
            dt = _torch_dtype(value.dtype)
            if dt is None:
                raise LaunchError(f"argument {name!r} has dtype {value.dtype}, which kernels cannot take", loc)
            return None, dt
        t = value.detach()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16).reshape(-1), D.bfloat16
        if t.dtype == torch.bool:
            arr = t.numpy()
        else:
            try:
                arr = t.numpy()
            except (TypeError, RuntimeError) as exc:
                raise LaunchError(f"argument {name!r} has dtype {t.dtype}, which kernels cannot take", loc) from exc
        value = arr
    if not isinstance(value, np.ndarray):
        raise LaunchError(f"argument {name!r} must be a NumPy array or a torch tensor (global memory), got "
                          f"{type(value).__name__}", loc)
    # np.ma costs ~8 ms to import (a third of a first compile); a masked array exists only once it is imported
    ma = sys.modules.get("numpy.ma")
    if ma is not None and isinstance(value, ma.MaskedArray):
        raise LaunchError(f"argument {name!r} is a masked array: a kernel reads and writes every element, the "
                          "masked ones too", loc, hint="pass a.filled(value) or a.data")
    if type(value) is not np.ndarray:
        # np.matrix, np.memmap, ...: the kernel sees the bytes, so a plain view of them (a matrix stays 2-D
        # through reshape, and every backend must see the same flat storage)
        value = value.view(np.ndarray)
    dt = D.from_numpy(value.dtype)
    if dt is None and not value.dtype.isnative and D.from_numpy(value.dtype.newbyteorder("=")) is not None:
        raise LaunchError(f"argument {name!r} has dtype {value.dtype.str}, whose bytes are in the other order than "
                          "the NPU's (and this machine's)", loc,
                          hint="pass a.astype(a.dtype.newbyteorder('=')), a copy in native byte order")
    if dt is None:
        raise LaunchError(f"argument {name!r} has dtype {value.dtype}, which Ascend vector kernels cannot take", loc,
                          hint="use float16, float32, bfloat16 (torch) or an 8/16/32/64-bit integer type")
    if not value.flags.c_contiguous:
        raise LaunchError(f"argument {name!r} is not C-contiguous (strides {value.strides})", loc,
                          hint="pass np.ascontiguousarray(a)")
    if not value.flags.writeable:
        raise LaunchError(f"argument {name!r} is a read-only array", loc, hint="pass a writable copy")
    return value.reshape(-1), dt


def bind_args(name: str, specs: list[ParamSpec], args: tuple, kwargs: dict, loc: SourceLoc | None,
              device_ok: bool = False) -> BoundArgs:
    """Match launch arguments to the kernel's parameters.

    Raises:
        LaunchError: wrong number of arguments, or one of the wrong kind.
    """
    values = _match(name, specs, args, kwargs, loc)
    params: list[Param] = []
    arrays: list[np.ndarray | None] = []
    scalars: dict[str, Any] = {}
    for i, (spec, v) in enumerate(zip(specs, values)):
        kind = spec.kind if spec.kind != "auto" else _infer_kind(v)
        if kind == "gm":
            arr, dt = as_storage(v, spec.name, loc, device_ok)
            params.append(Param(i, spec.name, "gm", dt))
            arrays.append(arr)
            continue
        arrays.append(None)
        if kind == "const":
            if getattr(v, "__asc_struct__", False):
                v = v.__asc_frozen__()    # a pyasc Struct: a read-only snapshot of its values
            try:
                hash(v)
            except TypeError:
                raise LaunchError(f"ConstExpr argument {spec.name!r} must be hashable, got {type(v).__name__}",
                                  loc) from None
            params.append(Param(i, spec.name, "const", value=v))
        elif kind == "int":
            scalars[f"p{i}"] = _as_int(v, spec.name, loc)
            params.append(Param(i, spec.name, "int"))
        elif kind == "float":
            scalars[f"p{i}"] = _as_float(v, spec.name, loc)
            params.append(Param(i, spec.name, "float"))
        else:
            raise LaunchError(f"argument {spec.name!r} of type {type(v).__name__} cannot be passed to a kernel", loc,
                              hint="kernels take arrays/tensors (GlobalAddress), ints, floats and ConstExpr values")
    return BoundArgs(Signature(tuple(_shared_memory(params, arrays))), arrays, scalars, values)


def _overlapping(arrays: list[np.ndarray]) -> bool:
    """Whether two of the (C-contiguous) arrays share a byte. For contiguous arrays np.may_share_memory
    compares exactly their byte extents (an empty array shares none), in C: about five times faster on a
    warm launch than reading each array's `__array_interface__`."""
    n = len(arrays)
    for i in range(n - 1):
        a = arrays[i]
        for j in range(i + 1, n):
            if _may_share(a, arrays[j]):
                return True
    return False


_may_share = np.may_share_memory


def _shared_memory(params: list[Param], arrays: list[np.ndarray | None]) -> list[Param]:
    """`params` with `alias` set on every GM parameter whose bytes overlap another's (graph/signature.py):
    groups of overlapping arrays, each member placed by its first byte relative to the group's lowest
    (ties: the earlier parameter is the home)."""
    spans = [(a.__array_interface__["data"][0], a.nbytes, i) for i, a in enumerate(arrays)
             if isinstance(a, np.ndarray) and a.nbytes]
    if len(spans) < 2:
        return params
    spans.sort()
    out = list(params)
    home, end = spans[0], spans[0][0] + spans[0][1]
    for lo, n, i in spans[1:]:
        if lo < end:
            out[i] = replace(out[i], alias=(home[2], lo - home[0]))
            end = max(end, lo + n)
        else:
            home, end = (lo, n, i), lo + n
    return out


class ArgBinder:
    """`bind_args` for one kernel, its signature remembered per argument classes, dtypes and constants:
    a launch whose arguments are of the kinds of an earlier one's binds them without building the
    signature again. Only positional NumPy arrays (C-contiguous, writable) and Python ints and floats
    take this path; any other launch, and the first of each kind, goes through `bind_args`, which also
    gives every error."""

    MAX = 64      # signatures kept

    def __init__(self, name: str, specs: list[ParamSpec]) -> None:
        self.name, self.specs = name, specs
        self.sigs: dict[tuple, Signature] = {}
        # the compile cache's key of each remembered signature, by identity (equal signatures can have
        # different keys: a constant -0.0 equals 0.0), kept alive by `sigs`
        self.keys: dict[int, tuple[Signature, tuple]] = {}

    def sig_key(self, sig: Signature) -> tuple | None:
        """The compile cache's key of `sig` when this binder made it, else None."""
        hit = self.keys.get(id(sig))
        return hit[1] if hit is not None and hit[0] is sig else None

    def __call__(self, args: tuple, kwargs: dict, loc: SourceLoc | None, device_ok: bool = False) -> BoundArgs:
        specs = self.specs
        if kwargs or len(args) != len(specs):
            return bind_args(self.name, specs, args, kwargs, loc, device_ok)
        parts: list[Any] = []
        for spec, v in zip(specs, args):
            cls = v.__class__
            if cls is np.ndarray:
                flags = v.flags
                if not (flags.c_contiguous and flags.writeable):
                    return bind_args(self.name, specs, args, kwargs, loc, device_ok)
                parts.append(v.dtype)
            elif cls is int or cls is float:
                # a constant's value is part of the signature (repr: -0.0 is not 0.0 there)
                parts.append((cls, repr(v)) if spec.kind == "const" else cls)
            else:
                return bind_args(self.name, specs, args, kwargs, loc, device_ok)
        if _overlapping([v for v in args if v.__class__ is np.ndarray]):
            # arguments sharing memory: the signature records it (and is not remembered)
            return bind_args(self.name, specs, args, kwargs, loc, device_ok)
        key = tuple(parts)
        sig = self.sigs.get(key)
        if sig is None:
            bound = bind_args(self.name, specs, args, kwargs, loc, device_ok)
            if len(self.sigs) >= self.MAX:
                self.sigs.clear()
                self.keys.clear()
            self.sigs[key] = bound.signature
            self.keys[id(bound.signature)] = (bound.signature, sig_key(bound.signature))
            return bound
        arrays: list[np.ndarray | None] = []
        scalars: dict[str, Any] = {}
        for p, v in zip(sig.params, args):
            kind = p.kind
            if kind == "gm":
                arrays.append(v if v.ndim == 1 else v.reshape(-1))
                continue
            arrays.append(None)
            if kind == "int":
                scalars[f"p{p.index}"] = _as_int(v, p.name, loc)
            elif kind == "float":
                scalars[f"p{p.index}"] = _as_float(v, p.name, loc)
        return BoundArgs(sig, arrays, scalars, list(args))


def sig_key(sig: Signature, sharing: bool = True) -> tuple:
    """What a compilation depends on in a signature: kinds, dtypes, the constants by their repr and (with
    `sharing`) which arguments share memory."""
    return tuple((p.kind, p.dtype.name if p.dtype else None, repr(p.value) if p.kind == "const" else None,
                  p.alias if sharing else None) for p in sig.params)


def _match(name: str, specs: list[ParamSpec], args: tuple, kwargs: dict, loc: SourceLoc | None) -> list[Any]:
    names = [s.name for s in specs]
    if len(args) > len(specs):
        raise LaunchError(f"{name} takes {len(specs)} argument(s) ({', '.join(names)}) but {len(args)} were given",
                          loc)
    values: list[Any] = list(args) + [inspect.Parameter.empty] * (len(specs) - len(args))
    for k, v in kwargs.items():
        if k not in names:
            raise LaunchError(f"{name} has no parameter {k!r} (parameters: {', '.join(names)})", loc)
        i = names.index(k)
        if values[i] is not inspect.Parameter.empty:
            raise LaunchError(f"{name} got two values for {k!r}", loc)
        values[i] = v
    for i, s in enumerate(specs):
        if values[i] is inspect.Parameter.empty:
            values[i] = s.default
        if values[i] is inspect.Parameter.empty:
            missing = [sp.name for sp, v in zip(specs, values) if v is inspect.Parameter.empty]
            raise LaunchError(f"{name} takes {len(specs)} argument(s) ({', '.join(names)}); missing: "
                              f"{', '.join(missing)}", loc)
    return values


def _infer_kind(v: Any) -> str:
    torch = _torch()
    if isinstance(v, np.ndarray) or (torch is not None and isinstance(v, torch.Tensor)):
        return "gm"
    if isinstance(v, (bool, int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    if getattr(v, "__asc_struct__", False):
        return "const"
    return "?"


def _as_int(v: Any, name: str, loc: SourceLoc | None) -> int:
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if not isinstance(v, (int, np.integer)):
        raise LaunchError(f"argument {name!r} is declared int but got {type(v).__name__} {v!r}", loc)
    v = int(v)
    if not INT64_MIN <= v <= INT64_MAX:
        raise LaunchError(f"argument {name!r} = {v} does not fit a 64-bit integer", loc)
    return v


_F64_MAX = int(np.finfo(np.float64).max)


def _as_float(v: Any, name: str, loc: SourceLoc | None) -> float:
    """A runtime float argument is a C `float` on the NPU: round it to float32 here too."""
    if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
        raise LaunchError(f"argument {name!r} is declared float but got {type(v).__name__} {v!r}", loc)
    if isinstance(v, int) and not -_F64_MAX <= v <= _F64_MAX:
        raise LaunchError(f"argument {name!r} is declared float but the int of {v.bit_length()} bits is beyond any float's range",
                          loc, hint="pass float('inf') or float('-inf') if infinity is meant")
    return float(to_f32(v) if isinstance(v, int) else np.float32(v))
