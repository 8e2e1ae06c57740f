"""`asc.torch_op`: a PyTorch custom operator whose implementation launches asc_trace kernels.

Modelled on `torch.library.triton_op`: the decorated function allocates its outputs with torch and
launches kernels; it becomes a `torch.library.custom_op`, callable as `torch.ops.<ns>.<op>(...)` and
as the decorated object itself. Its fake implementation is the same function run on fake tensors,
where launches check their arguments and run nothing (`launch.skip_fake_launch`), so
`torch.compile(..., fullgraph=True)` sees the op without a graph break. Unlike triton_op the op stays
opaque to Inductor (there is no higher-order op for an Ascend kernel): Inductor calls it as it is.
"""
from __future__ import annotations

import functools
import inspect
import re
from typing import Any, Callable, Iterable

from ..errors import AscTraceError, TorchOpError
from ..graph.source_loc import SourceLoc
from ..proxies.source_loc import user_loc
from .launch import OpCall, op_running

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*$")
_FAKE_NOTE = ("asc.torch_op: {name}'s fake implementation runs {fn} on fake tensors (torch.compile, torch.export, "
              "meta tensors): kernel launches run nothing there, but {fn} must not read tensor values (.item(), "
              ".tolist(), .numpy()) or branch on them. Keep such code out of the op, or register a fake "
              "implementation of your own with {fn}.register_fake(...).")


def torch_op(name: str, fn: Callable[..., Any] | None = None, /, *, mutates_args: str | Iterable[str],
             schema: str | None = None) -> Any:
    """Register a function that launches asc_trace kernels as a PyTorch custom operator.

    The function takes and returns tensors (annotated as for `torch.library.custom_op`), allocates its
    outputs with torch and launches `@asc.jit` kernels on them. On CPU tensors the kernels run on the
    default CPU backend (the simulator, or the kernel's own `backend=`); on NPU tensors on the npu
    backend. Use the result as the function, as `torch.ops.<namespace>.<name>`, inside
    `torch.compile(..., fullgraph=True)`, and attach a backward with `.register_autograd(...)`.

    Args:
        name: "namespace::op_name", e.g. "mylib::vadd".
        fn: the function (or use `@asc.torch_op(name, mutates_args=...)` as a decorator).
        mutates_args: the names of the tensor arguments the function writes in place (`()` for none),
            or "unknown". A kernel that writes an input not named here is refused with a LaunchError.
        schema: an explicit torch schema string; by default inferred from the annotations.

    Returns:
        a `torch.library.CustomOpDef`.

    Raises:
        TorchOpError: torch is missing or too old, or the name, annotations or mutates_args do not
            make a valid operator.
    """
    loc = user_loc()

    def dec(f: Callable[..., Any]) -> Any:
        return _register(name, f, mutates_args, schema, loc)

    return dec if fn is None else dec(fn)


def _register(name: str, fn: Callable[..., Any], mutates_args: Any, schema: str | None, loc: SourceLoc) -> Any:
    from ..jit_function import JitFunction   # here: jit_function imports this package's launch hooks
    torch = _torch(loc)
    if isinstance(fn, JitFunction):
        raise TorchOpError(f"asc.torch_op({name!r}) decorates a Python function that launches kernels, not the "
                           f"@asc.jit kernel {fn.name} itself", loc,
                           hint=f"write def op(x: torch.Tensor, ...) -> torch.Tensor that allocates the output and "
                                f"calls {fn.name}[core_num](...), and decorate that")
    if not callable(fn):
        raise TorchOpError(f"asc.torch_op({name!r}) decorates a function, got {type(fn).__name__}", loc)
    if not isinstance(name, str) or not _NAME.match(name):
        raise TorchOpError(f"asc.torch_op name {name!r} is not of the form 'namespace::op_name'", loc,
                           hint="use identifiers on both sides of '::', e.g. 'mylib::vadd' (your project's name "
                                "as the namespace)")
    if isinstance(mutates_args, str) and mutates_args != "unknown":
        raise TorchOpError(f"mutates_args={mutates_args!r} is a string; it takes a tuple of parameter names or "
                           "'unknown'", loc, hint=f"write mutates_args=({mutates_args!r},)")
    mutable = None if mutates_args == "unknown" else frozenset(mutates_args)
    sig = inspect.signature(fn)
    try:
        if schema is None:      # the schema torch will infer: checked here to explain a failure
            torch.library.infer_schema(fn, mutates_args=mutates_args)
    except (ValueError, TypeError, RuntimeError) as exc:
        raise TorchOpError(f"asc.torch_op({name!r}): PyTorch cannot make a schema from {fn.__name__}'s "
                           f"signature: {exc}", loc,
                           hint="annotate every parameter and the return value (torch.Tensor, int, float, bool, "
                                "list[torch.Tensor], ...) as for torch.library.custom_op") from None

    def call_of(args: tuple, kwargs: dict, fake: bool) -> OpCall:
        bound = sig.bind(*args, **kwargs)
        inputs = []
        for pname, v in bound.arguments.items():
            for t in (v if isinstance(v, (list, tuple)) else (v,)):
                if isinstance(t, torch.Tensor):
                    inputs.append((pname, t))
        device = inputs[0][1].device.type if inputs else "cpu"
        return OpCall(name, device, tuple(inputs), mutable, fake)

    @functools.wraps(fn)      # torch reads the signature (and so the schema) through __wrapped__
    def impl(*args: Any, **kwargs: Any) -> Any:
        with op_running(call_of(args, kwargs, fake=False)):
            return fn(*args, **kwargs)

    @functools.wraps(fn)
    def fake_impl(*args: Any, **kwargs: Any) -> Any:
        with op_running(call_of(args, kwargs, fake=True)):
            try:
                return fn(*args, **kwargs)
            except AscTraceError:
                raise
            except Exception as exc:
                # keep torch's own exception type: dynamo turns some of them into graph breaks
                exc.add_note(_FAKE_NOTE.format(name=name, fn=fn.__name__))
                raise

    try:
        op = torch.library.custom_op(name, impl, mutates_args=mutates_args, schema=schema)
        op.register_fake(fake_impl)
    except (ValueError, TypeError, RuntimeError) as exc:
        raise TorchOpError(f"PyTorch refused to register {name!r}: {exc}", loc) from None
    return op


def _torch(loc: SourceLoc) -> Any:
    try:
        import torch
    except ImportError:
        raise TorchOpError("asc.torch_op needs PyTorch, which is not installed", loc,
                           hint="pip install torch (2.5 or newer), or pip install 'asc-trace[torch]'") from None
    if not hasattr(torch.library, "custom_op") or not hasattr(torch.library, "infer_schema"):
        raise TorchOpError(f"asc.torch_op needs torch.library.custom_op (PyTorch 2.5 or newer); this is "
                           f"torch {torch.__version__}", loc, hint="pip install -U torch")
    return torch
