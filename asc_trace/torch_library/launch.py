"""What a kernel launch does differently inside an `asc.torch_op`.

- On fake or meta tensors (torch.compile and torch.export trace an op's shapes by running its function
  on them; `op(meta_tensor)` does the same) a launch checks its arguments and runs nothing: that is how
  the op's fake implementation is derived from the function itself.
- Inside a real call of the op, the `auto` backend follows the tensors' device (CPU tensors: the
  simulator; NPU tensors: the npu backend), and a kernel that writes into an input the op did not
  declare in `mutates_args` is refused before it runs: PyTorch would otherwise reorder or drop the
  mutation under torch.compile without a word.

Nothing here imports torch: without an `import torch` by the user no tensor can reach a launch, and
every function returns at once.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from ..errors import LaunchError
from ..graph.kernel_graph import KernelGraph
from ..graph.source_loc import SourceLoc
from ..runtime.args import BoundArgs, ParamSpec, _infer_kind, _match, _torch_dtype
from ..runtime.base import written_params
from ..runtime.launch_hooks import LaunchHooks, install


@dataclass(frozen=True)
class OpCall:
    """The asc.torch_op whose function is running: its name, the device of its tensors, its tensor
    inputs by parameter name, the ones it declared mutable, and whether this is the fake run."""

    name: str
    device: str
    inputs: tuple[tuple[str, Any], ...]
    mutable: frozenset[str] | None          # None: mutates_args="unknown", every input may be written
    fake: bool = False


_CURRENT: contextvars.ContextVar[OpCall | None] = contextvars.ContextVar("asc_trace_torch_op", default=None)


@contextlib.contextmanager
def op_running(call: OpCall) -> Iterator[None]:
    token = _CURRENT.set(call)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def is_fake_tensor(v: Any) -> bool:
    """A tensor without data: a FakeTensor (torch.compile, torch.export) or a meta tensor."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(v, torch.Tensor):
        return False
    if type(v) is torch.Tensor:       # the common case: FakeTensor and wrappers are subclasses
        return v.is_meta
    return v.is_meta or _is_fake()(v)


@functools.lru_cache(maxsize=1)
def _is_fake() -> Callable[[Any], bool]:
    from torch._subclasses.fake_tensor import is_fake   # also sees through functional-tensor wrappers
    return is_fake


def fake_run(*values: Any) -> bool:
    """Is this the fake run of an asc.torch_op, or is any of `values` a fake or meta tensor?"""
    call = _CURRENT.get()
    if call is None and "torch" not in sys.modules:
        return False
    return (call is not None and call.fake) or any(map(is_fake_tensor, values))


def _sym_types() -> tuple[type, ...]:
    torch = sys.modules.get("torch")
    return (torch.SymInt, torch.SymBool, torch.SymFloat) if torch is not None else ()


def is_sym(v: Any) -> bool:
    """A torch symbolic scalar (torch.compile(dynamic=True) / torch.export compute shapes with them)."""
    types = _sym_types()
    return bool(types) and isinstance(v, types)


def concrete(v: Any, what: str, name: str, loc: SourceLoc | None) -> Any:
    """A SymInt / SymBool / SymFloat known at launch as its plain Python value; a LaunchError that names it
    when it has none (an unbacked value, e.g. from .item() under torch.compile)."""
    if not is_sym(v):
        return v
    conv = {"SymInt": int, "SymBool": bool, "SymFloat": float}[type(v).__name__]
    try:
        return conv(v)
    except Exception as e:  # noqa: BLE001 - torch raises several guard errors; all mean "no value here"
        raise LaunchError(f"{name}: {what} is a {type(v).__name__} ({v}) with no value at launch: wrap it in "
                          f"{conv.__name__}() where it is computed, or compute it from sizes torch knows "
                          f"({type(e).__name__})", loc,
                          hint="torch.compile(dynamic=True) passes sizes as SymInts; asc_trace needs the number "
                               "when the kernel runs") from None


def fake_hint(v: Any) -> Any:
    """The example value behind a SymInt during a fake run, without adding a guard (None if it has none)."""
    if not is_sym(v):
        return v
    try:
        from torch.fx.experimental.symbolic_shapes import has_hint, hint_int
        return hint_int(v) if isinstance(v, sys.modules["torch"].SymInt) and has_hint(v) else None
    except Exception:  # noqa: BLE001 - an older or newer torch without these helpers: no hint
        return None


def concrete_args(args: tuple, kwargs: dict, name: str, loc: SourceLoc | None) -> tuple[tuple, dict]:
    """The launch's scalar arguments with every torch symbolic scalar made concrete (a real launch needs numbers)."""
    if not _sym_types():
        return args, kwargs
    return (tuple(concrete(v, f"argument {i}", name, loc) for i, v in enumerate(args)),
            {k: concrete(v, f"argument {k!r}", name, loc) for k, v in kwargs.items()})


def skip_fake_launch(name: str, specs: list[ParamSpec], args: tuple, kwargs: dict, loc: SourceLoc | None) -> bool:
    """True when this launch is part of a fake run (nothing to compute): its arguments are checked as
    a real launch would check them (count, names, tensor dtypes and layout), then nothing runs."""
    if not fake_run(*args, *kwargs.values()):
        return False
    torch = sys.modules["torch"]
    values = _match(name, specs, args, kwargs, loc)
    call = _CURRENT.get()
    if call is None or not call.fake:
        tensors = [(spec.name, v) for spec, v in zip(specs, values) if isinstance(v, torch.Tensor)]
        real = [n for n, v in tensors if not is_fake_tensor(v)]
        fake = [n for n, v in tensors if is_fake_tensor(v)]
        if real and fake:       # a real output would silently keep its old bytes
            raise LaunchError(f"argument {fake[0]!r} is a meta / fake tensor (it has no data) while {real[0]!r} is a "
                              f"real one: {name} can run on data, or be shape-checked on fake tensors only", loc,
                              hint="pass tensors with data (e.g. on the CPU), or only meta tensors to check shapes")
    for spec, v in zip(specs, values):
        kind = spec.kind if spec.kind != "auto" else _fake_kind(v, torch)
        if kind == "gm":
            if not isinstance(v, torch.Tensor):
                raise LaunchError(f"argument {spec.name!r} must be a torch tensor when {name} is launched on fake "
                                  f"tensors, got {type(v).__name__}", loc,
                                  hint="allocate every kernel argument with torch (torch.empty_like, ...) inside "
                                       "the op, so the fake run sees it as a tensor too")
            if _torch_dtype(v.dtype) is None:
                raise LaunchError(f"argument {spec.name!r} has dtype {v.dtype}, which kernels cannot take", loc)
            if not v.is_contiguous():
                raise LaunchError(f"argument {spec.name!r} is not contiguous", loc, hint="pass t.contiguous()")
        elif kind in ("int", "float"):
            ok = (torch.SymInt, torch.SymBool, int) if kind == "int" else (torch.SymFloat, torch.SymInt, int, float)
            if isinstance(v, torch.Tensor) or not isinstance(v, ok + (np.number,)):
                raise LaunchError(f"argument {spec.name!r} is declared {kind} but got {type(v).__name__} {v!r}", loc)
    return True


def _fake_kind(v: Any, torch: Any) -> str:
    if isinstance(v, (torch.SymInt, torch.SymBool)):
        return "int"
    if isinstance(v, torch.SymFloat):
        return "float"
    return _infer_kind(v)


def backend_for(backend: str) -> str:
    """Inside an asc.torch_op, `auto` follows the tensors: the npu backend for NPU tensors, the
    simulator for CPU tensors (torch dispatches an op by its tensors' device; so do we)."""
    call = _CURRENT.get()
    if call is None or (backend or "auto").lower() != "auto":
        return backend
    return "npu" if call.device == "npu" else "sim"


def check_writes(name: str, bound: BoundArgs, graph: Callable[[], KernelGraph], loc: SourceLoc | None) -> None:
    """Refuse a launch, inside an asc.torch_op, that writes into an op input not in `mutates_args`."""
    call = _CURRENT.get()
    if call is None or call.mutable is None or not call.inputs:
        return
    guarded = [(n, t) for n, t in call.inputs if n not in call.mutable]
    if not guarded:
        return
    g = graph()
    params = {p.index: p.name for p in g.signature.params}
    for idx in sorted(written_params(g)):
        span = _byte_span(bound.values[idx])
        for input_name, t in guarded:
            other = _byte_span(t, whole_storage=True)
            if span and other and span[0] == other[0] and span[1] < other[2] and other[1] < span[2]:
                raise LaunchError(
                    f"{name} writes its argument {params[idx]!r}, which is (part of) the input {input_name!r} of "
                    f"torch op {call.name}, and {input_name!r} is not in its mutates_args", loc,
                    hint=f"write into a tensor the op allocates (torch.empty_like({input_name})), or declare "
                         f"mutates_args=({input_name!r},) so PyTorch knows the op changes it")


def _byte_span(v: Any, whole_storage: bool = False) -> tuple[str, int, int] | None:
    """(device, first byte address, end address) of an array or tensor, None when it has no bytes."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(v, torch.Tensor):
        if whole_storage:
            s = v.untyped_storage()
            start, size = s.data_ptr(), s.nbytes()
        else:
            start, size = v.data_ptr(), v.numel() * v.element_size()
        return (str(v.device), start, start + size) if size else None
    nbytes = getattr(v, "nbytes", 0)
    if not nbytes:
        return None
    start = v.__array_interface__["data"][0]
    return ("cpu", start, start + nbytes)


class TorchLaunchHooks(LaunchHooks):
    """Launches inside an asc.torch_op: fake runs skip, `auto` follows the tensors' device, writes
    outside `mutates_args` are refused."""

    def fake_run(self, *values: Any) -> bool:
        return fake_run(*values)

    def skip_launch(self, name: str, specs: list[ParamSpec], args: tuple, kwargs: dict,
                    loc: SourceLoc | None) -> bool:
        return skip_fake_launch(name, specs, args, kwargs, loc)

    def core_count(self, core_num: Any, name: str, loc: SourceLoc | None, fake: bool,
                   max_blocks: int) -> tuple[Any, bool]:
        """A torch SymInt (a count computed from sizes under torch.compile) is made concrete for a real
        launch; in a fake run, where nothing runs, its example value is checked without adding a guard
        (the compiled graph then serves every size, each real launch checking its own)."""
        if not is_sym(core_num):
            return core_num, False
        if fake:
            hint = fake_hint(core_num)
            if hint is None or 1 <= hint <= max_blocks:
                return core_num, True
            return hint, False
        return concrete(core_num, "core_num", f"{name}[core_num]", loc), False

    def concrete_args(self, args: tuple, kwargs: dict, name: str, loc: SourceLoc | None) -> tuple[tuple, dict]:
        return concrete_args(args, kwargs, name, loc)

    def backend_for(self, backend: str) -> str:
        return backend_for(backend)

    def check_writes(self, name: str, bound: BoundArgs, graph: Callable[[], KernelGraph],
                     loc: SourceLoc | None) -> None:
        check_writes(name, bound, graph, loc)


install(TorchLaunchHooks())
