"""`@asc.jit`, launches (`kernel[core_num, stream](...)`), `asc.compile` and the in-memory cache."""
from __future__ import annotations

import copy
import functools
import inspect
import typing
import warnings
from dataclasses import replace
from typing import Any, Callable

import numpy as np

from . import config
from .errors import AscTraceError, AscTraceWarning, LaunchError, NotProvidedError, OptionError, TraceError
from .fingerprint import launch_fingerprint
from .graph.kernel_graph import KernelGraph
from .graph.passes import run_passes
from .graph.ub_overlap import refuse_raw_over_pipe_buffers
from .graph.signature import Signature
from .graph.source_loc import SourceLoc
from .proxies.context import active
from .proxies.runtime_if import kernel_callable
from .proxies.source_loc import loc_of_def, user_loc
from .proxies.tensors import GlobalAddress
from .proxies.tracer import trace
from .recompile_watch import RecompileWatch
from .runtime import LaunchJob, get_runtime
from .kernel_options import KernelOptions
from .options import DEFAULT_OPTIONS, describe as describe_options, make as make_options
from .runtime.args import ArgBinder, BoundArgs, ParamSpec, bind_args, sig_key
from .runtime.base import written_params
from .runtime.executors_not_run import first_not_run, not_run_error
from .runtime.gm_sharing import refuse_shared_writes
from .runtime.launch_hooks import hooks as launch_hooks

MAX_BLOCKS = 65535


class ConstExpr:
    """`asc.ConstExpr[int]`: a parameter whose value is baked into the kernel (a new value traces again)."""

    def __class_getitem__(cls, item: Any) -> "_ConstAnnotation":
        return _ConstAnnotation(item)


class _ConstAnnotation:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __repr__(self) -> str:
        return f"asc.ConstExpr[{getattr(self.inner, '__name__', self.inner)}]"


def _param_kind(ann: Any) -> str:
    if ann is inspect.Parameter.empty or ann is None:
        return "auto"
    if ann is ConstExpr or isinstance(ann, _ConstAnnotation):
        return "const"
    if ann is GlobalAddress:
        return "gm"
    if getattr(ann, "__asc_struct__", False):
        return "const"      # a pyasc Struct: specialised on its values (language/core/struct.py)
    if ann in (int, bool):
        return "int"
    if ann is float:
        return "float"
    if isinstance(ann, str):
        low = ann.replace(" ", "")
        if "ConstExpr" in low:
            return "const"
        if low.endswith("GlobalAddress"):
            return "gm"
        if low in ("int", "bool"):
            return "int"
        if low == "float":
            return "float"
    return "auto"


def param_specs(fn: Callable[..., Any]) -> list[ParamSpec]:
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable string annotations: fall back to the raw text
        hints = {}
    specs = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TraceError(f"kernel parameters must be named; {fn.__name__} has *{p.name}", loc_of_def(fn))
        ann = hints.get(p.name, p.annotation)
        specs.append(ParamSpec(p.name, _param_kind(ann), p.default))
    return specs


class JitFunction:
    """A kernel. Launch it with `kernel[core_num](...)` or `kernel[core_num, stream](...)`; inside
    another kernel, calling it inlines it."""

    def __init__(self, fn: Callable[..., Any], **options: Any) -> None:
        if not (callable(fn) and hasattr(fn, "__code__")):
            raise TraceError(f"asc.jit takes a Python function (the kernel), got {type(fn).__name__} {fn!r:.60}",
                             user_loc())
        self.fn = fn
        self.__asc_jit_fn__ = fn
        self.options: KernelOptions = make_options(options, user_loc())
        self.name = fn.__name__
        self.specs = param_specs(fn)
        self._cache: dict[tuple, tuple[tuple, "CompiledKernel"]] = {}
        self._bind = ArgBinder(self.name, self.specs)
        self._recompiles = RecompileWatch(self.name)
        # the options are frozen: their part of the cache key is made once
        self._options_key = tuple(sorted((k, repr(v)) for k, v in self.options.items()))
        functools.update_wrapper(self, fn)

    def with_options(self, **options: Any) -> "JitFunction":
        return JitFunction(self.fn, **{**{k: v for k, v in self.options.items() if v != DEFAULT_OPTIONS[k]},
                                      **options})

    @property
    def traced_fn(self) -> Callable[..., Any]:
        """What runs when the kernel is traced or inlined: `fn` with its `if`s on runtime values made
        runtime branches (proxies/runtime_if.py)."""
        return kernel_callable(self.fn)

    # -- calls ----------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        ctx = active()
        if ctx is not None:
            return ctx.inline(self, args, kwargs)
        raise LaunchError(f"{self.name} is a kernel: launch it on cores with {self.name}[core_num](...) or "
                          f"{self.name}[core_num, stream](...)", user_loc())

    def __getitem__(self, cfg: Any) -> "Launcher":
        core_num, stream = _launch_config(cfg, self.name)
        return Launcher(self, core_num, stream)

    def __iter__(self) -> Any:
        # without this, __getitem__ makes Python iterate a kernel forever (tuple(k), `for x in k`)
        raise LaunchError(f"{self.name} is a kernel, not a sequence: launch it with {self.name}[core_num](...)",
                          user_loc())

    def launch(self, core_num: int, stream: Any, args: tuple, kwargs: dict, loc: SourceLoc | None) -> None:
        _launch(self, None, core_num, stream, args, kwargs, loc)

    @property
    def backend(self) -> str:
        return self.options["backend"] or config.backend_from_env()

    # -- compilation and the cache ----------------------------------------------------------------
    def compiled(self, signature: Signature, sig_key: tuple | None = None,
                 launch_loc: SourceLoc | None = None) -> "CompiledKernel":
        """The kernel traced and scheduled for `signature` (`sig_key`: its `_sig_key`, when known).
        `launch_loc`: the user's launch line when a launch asks, so that repeated recompilations warn there."""
        key = (sig_key or _sig_key(signature), self._options_key)
        deps = launch_fingerprint(self.fn)
        hit = self._cache.get(key)
        if hit is not None and hit[0] == deps and not self.options["always_compile"]:
            return hit[1]
        ck = CompiledKernel(self, signature)
        self._cache[key] = (deps, ck)
        if launch_loc is not None and not self.options["always_compile"]:
            self._recompiles.compiled(key, deps, signature, launch_loc)
        return ck

    def __repr__(self) -> str:
        return f"<asc.jit kernel {self.name}>"


class Launcher:
    def __init__(self, jitfn: JitFunction, core_num: int, stream: Any) -> None:
        self.jitfn, self.core_num, self.stream = jitfn, core_num, stream

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        loc = user_loc()
        try:
            self.jitfn.launch(self.core_num, self.stream, args, kwargs, loc)
        except AscTraceError as e:
            raise _clean(e)


class CompiledKernel:
    """A kernel traced and scheduled for one signature (argument dtypes and ConstExpr values).

    `ck(*args)` launches it on `core_num` cores; `ck.graph` is the scheduled KernelGraph
    (`ck.graph.nx` its networkx graph), `ck.traced` the graph as traced, `ck.source` the Ascend C.
    """

    def __init__(self, jitfn: JitFunction, signature: Signature, core_num: int | None = None) -> None:
        self.jitfn = jitfn
        self.name = jitfn.name
        self.signature = signature
        self.options: KernelOptions = jitfn.options
        self.core_num = core_num
        self.traced: KernelGraph = trace(jitfn.fn, signature, self.options)
        if getattr(self.traced, "core_type_asked", None) is not None:
            self.traced = _per_core_type(jitfn.fn, signature, self.options, self.traced)
        refuse_raw_over_pipe_buffers(self.traced)
        from .graph.matmul_clients import as_client_kernel, clients_per_block
        # pyasc's MIX Matmul mode: the kernel runs once per Matmul client, two per launched block
        self.clients = clients_per_block(self.traced, self.options)
        if self.clients > 1:
            self.traced = as_client_kernel(self.traced)
        self.graph: KernelGraph = run_passes(self.traced, self.options)
        if self.clients > 1:        # the lowering and the cpp launcher pair each client with a cube core
            self.graph.matmul_clients = self.clients
        self._artifacts: dict[str, Any] = {}
        self._not_run = first_not_run(self.graph)     # refused at each launch; the graph never changes
        if config.dump_dir() is not None:
            from .toolchain.cache import cache_key, dump_compilation
            scheduled = str(self.graph)
            dump_compilation(self.name, cache_key({"graph": scheduled}),
                             {"graph.txt": str(self.traced), "scheduled.txt": scheduled, "kernel.cpp": self.source})

    @property
    def source(self) -> str:
        from .lower.ascendc import lower
        if "source" not in self._artifacts:
            self._artifacts["source"] = lower(self.graph)
        return self._artifacts["source"]

    def artifact(self, rt: Any) -> Any:
        art = self._artifacts.get(rt.name)
        if art is None:
            art = rt.prepare(self.graph, self.options)
            self._artifacts[rt.name] = art
        return art

    def run(self, rt: Any, bound: BoundArgs, core_num: int, stream: Any, loc: SourceLoc | None) -> None:
        if self._not_run is not None:       # the same NotProvidedError on every backend, before one is prepared
            raise not_run_error(self._not_run)
        if rt.name not in ("sim", "eager", "cpp"):
            cube = self.__dict__.get("_cube")
            if cube is None:
                from .graph.cube_graph import has_cube_memory, is_cube_graph
                cube = self.__dict__["_cube"] = is_cube_graph(self.graph) or has_cube_memory(self.graph)
            if cube:
                why = (" (the vendor's headers lower the cube's API to AI Core intrinsics - "
                       "copy_gm_to_cbuf_multi_nd2nz_b16, load_cbuf_to_ca / load_cbuf_to_cb, mad, "
                       "copy_matrix_cc_to_gm - whose host implementation is CANN's closed tikicpulib library; "
                       "asc_trace's stub layer declares them so the real-header check compiles, but has no "
                       "executable model of them)" if rt.name == "cpu_debug" else "")
                raise NotProvidedError(f"{self.name} runs on the cube core, which only the sim, eager and cpp backends "
                                       f"model so far; the {rt.name} backend cannot run it{why}", loc,
                                       hint="run it with backend='sim', 'eager' or 'cpp'")
        if self.clients > 1 and rt.name not in ("sim", "cpp", "eager"):
            from .graph.mix_split import MixGraph
            if isinstance(self.graph, MixGraph):
                raise NotProvidedError(f"{self.name} is a mixed kernel in pyasc's MIX Matmul mode (each Matmul client "
                                       "paired with a cube core); only the sim and cpp backends run such kernels so "
                                       f"far, not {rt.name}", loc, hint="run it with backend='sim' or 'cpp'")
        self._warn_dropped_remainders(bound, core_num)
        refuse_shared_writes(self.graph, bound, loc)
        opts = self.options if self.clients == 1 else dict(self.options, matmul_clients=self.clients)
        rt.launch(self.artifact(rt), LaunchJob(self.name, self.jitfn.fn, self.graph, bound, core_num * self.clients,
                                               stream, loc, opts))

    def _warn_dropped_remainders(self, bound: BoundArgs, core_num: int) -> None:
        """An AscTraceWarning at the loop's line when `range(n // tile)` drops a non-zero `n % tile` of this launch
        (graph/remainder_lint.py), once per line as Python shows a warning."""
        checks = getattr(self, "_remainders", None)
        if checks is None:
            from .graph.expr import Bin, compile_expr
            from .graph.remainder_lint import dropped_remainders
            checks = self._remainders = [(r, compile_expr(Bin("%", r.dividend, r.divisor)))
                                         for r in dropped_remainders(self.traced)]
        for r, rem in checks:
            env = {**bound.scalars, "nblk": core_num}
            for blk in range(min(core_num, 64)):     # a per-core dividend: the first cores tell
                env["blk"] = blk
                try:
                    left = rem(env)
                except Exception:  # noqa: BLE001 - a division by zero is the launch's own error to report
                    break
                if left:
                    warnings.warn_explicit(AscTraceWarning(
                        f"{self.name}: this loop's trip count floors {r.dividend} // {r.divisor} and drops the remainder "
                        f"{r.dividend} % {r.divisor} = {left} (core {blk}): those elements are never processed; "
                        "add a tail step for them, or pass sizes that are multiples"),
                        AscTraceWarning, r.loc.file, r.loc.line)
                    break

    def __iter__(self) -> Any:
        # without this, __getitem__ makes Python iterate a compiled kernel forever
        raise LaunchError(f"{self.name} is a compiled kernel, not a sequence: call it, or launch it with "
                          "ck[core_num](...)", user_loc())

    def __getitem__(self, cfg: Any) -> Callable[..., None]:
        core_num, stream = _launch_config(cfg, self.name)

        def call(*args: Any, **kwargs: Any) -> None:
            self._call(core_num, stream, args, kwargs, user_loc())
        return call

    def __call__(self, *args: Any, core_num: int | None = None, stream: Any = None, **kwargs: Any) -> None:
        self._call(core_num or self.core_num, stream, args, kwargs, user_loc())

    def _call(self, core_num: int | None, stream: Any, args: tuple, kwargs: dict, loc: SourceLoc) -> None:
        try:
            if core_num is None:
                raise LaunchError(f"{self.name}: how many cores? pass core_num to asc.compile or call "
                                  "ck[core_num](...)", loc)
            _launch(self.jitfn, self, core_num, stream, args, kwargs, loc)
        except AscTraceError as e:
            raise _clean(e)

    def __repr__(self) -> str:
        return f"<CompiledKernel {self.name}{self.signature}>"


def _per_core_type(fn: Callable[..., Any], signature: Signature, options: KernelOptions,
                   first: KernelGraph) -> KernelGraph:
    """A kernel that asked asc.ascend_is_aic() (answered "vector"): traced once per core type if it is a mixed
    kernel with every block kept (proxies/core_type.py); otherwise as first traced."""
    from .proxies.core_type import trace_per_core_type
    return trace_per_core_type(fn, signature, options, first)


def _launch(jitfn: JitFunction, ck: CompiledKernel | None, core_num: int, stream: Any, args: tuple, kwargs: dict,
            loc: SourceLoc | None) -> None:
    """The one launch path: `kernel[core_num](...)` (ck None: compiled for these arguments, from the
    cache) and `ck(...)` (the compiled kernel, which the arguments must fit)."""
    hooks = launch_hooks()
    fake = hooks.fake_run(*args, *kwargs.values())
    core_num = _check_cores(core_num, jitfn.name, loc, fake)
    if fake and hooks.skip_launch(jitfn.name, jitfn.specs, args, kwargs, loc):
        return      # fake tensors (torch.compile tracing an asc.torch_op): nothing to compute
    args, kwargs = hooks.concrete_args(args, kwargs, jitfn.name, loc)
    rt = get_runtime(hooks.backend_for(jitfn.backend))
    bound = jitfn._bind(args, kwargs, loc, device_ok=rt.name == "npu")
    if ck is None:
        ck = jitfn.compiled(_apart(bound.signature), jitfn._bind.sig_key(bound.signature), loc)
    elif bound.signature is not ck.signature and \
            _sig_key(bound.signature, sharing=False) != _sig_key(ck.signature, sharing=False):
        raise LaunchError(f"{ck.name} was compiled for {ck.signature} but called with {bound.signature}", loc,
                          hint="compile it again for these arguments, or launch the @asc.jit kernel, which "
                               "specialises itself")
    if bound.signature is not ck.signature and bound.signature.shared and \
            _sig_key(bound.signature) != _sig_key(ck.signature) and _writes_shared(ck.graph, bound.signature):
        # arguments sharing memory, one of them written, as the compiled kernel's did not: the schedule for
        # this sharing (its JitFunction's cache keeps one per pattern; memory only read through two names
        # needs no order, so those launches keep the kernel compiled for separate arrays)
        ck = ck.jitfn.compiled(bound.signature)
    compiled = ck
    hooks.check_writes(jitfn.name, bound, lambda: compiled.graph, loc)
    compiled.run(rt, bound, core_num, stream, loc)


def _apart(sig: Signature) -> Signature:
    """The signature with no argument sharing memory."""
    if all(p.alias is None for p in sig.params):
        return sig
    return Signature(tuple(replace(p, alias=None) for p in sig.params))


def _writes_shared(graph: KernelGraph, sig: Signature) -> bool:
    """Whether the kernel writes an argument whose memory another argument shares at this launch."""
    groups: dict[int, set[int]] = {}
    for p in sig.params:
        if p.alias is not None:
            groups.setdefault(p.alias[0], {p.alias[0]}).add(p.index)
    if not groups:
        return False
    writes = written_params(graph)
    return any(members & writes for members in groups.values())


def _sig_key(sig: Signature, sharing: bool = True) -> tuple:
    return sig_key(sig, sharing)


def _launch_config(cfg: Any, name: str) -> tuple[int, Any]:
    if isinstance(cfg, tuple):
        if len(cfg) == 1:
            return cfg[0], None
        if len(cfg) == 2:
            if isinstance(cfg[1], str):     # k[1, "eager"] would otherwise run on the default backend, silently
                raise LaunchError(f"{name}[{cfg[0]!r}, {cfg[1]!r}]: the second item is a stream, not a backend "
                                  "name", user_loc(), hint=f"asc.jit({name}, backend={cfg[1]!r})[{cfg[0]!r}](...)")
            return cfg[0], cfg[1]
        raise LaunchError(f"{name}[...] takes the core count and optionally a stream, got {len(cfg)} values",
                          user_loc())
    return cfg, None


def _check_cores(core_num: Any, name: str, loc: SourceLoc | None, fake: bool = False) -> Any:
    """The core count to launch on. A torch SymInt (a count computed from sizes under torch.compile) is
    made concrete for a real launch; in a fake run, where nothing runs, its example value is checked
    without adding a guard (the compiled graph then serves every size, each real launch checking its own)."""
    core_num, accepted = launch_hooks().core_count(core_num, name, loc, fake, MAX_BLOCKS)
    if accepted:
        return core_num
    if isinstance(core_num, np.integer):     # a NumPy integer is an int here, as for an int parameter
        core_num = int(core_num)
    if isinstance(core_num, bool) or not isinstance(core_num, int) or not 1 <= core_num <= MAX_BLOCKS:
        raise LaunchError(f"{name}[core_num]: core_num must be an int from 1 to {MAX_BLOCKS}, got "
                          f"{type(core_num).__name__} {core_num!r}", loc)
    return core_num


def _clean(e: AscTraceError) -> AscTraceError:
    """Drop asc_trace's own frames from the traceback: the message already points at the user's line."""
    if config.debug_level() >= 1:
        return e
    return e.with_traceback(None)


def profile(fn: Any, *args: Any, core_num: int = 1, platform: str | None = None, timing_only: bool = False,
            **kwargs: Any) -> Any:
    """Run `fn` on the simulator with the timing model and return its `Profile`.

    The kernel runs for real (outputs are written as by a launch); the profile holds the modeled
    cycles per core and pipe: `.cycles`, `.time_us`, `.pipe_busy`, `.utilization`, `.bound`,
    `.summary()`, `.save_chrome_trace(path)`, `.save_png(path)`.

    Args:
        fn: an @asc.jit kernel (or a plain kernel function).
        args: the launch arguments.
        core_num: blocks to launch; more than the platform's vector cores run in waves.
        platform: timing preset, "Ascend910B1" .. "Ascend910B4" (default: the kernel's option, 910B2).
        timing_only: check and time every instruction without computing anything: the arrays are
            neither read nor written (np.empty arrays of the real shape do), so large shapes profile
            fast. The modeled time is the same as a full run's, because it depends only on addresses,
            counts and control flow, never on tensor data; a kernel whose addresses, counts or loops
            do depend on data it reads from the UB (get_value) is refused.

    Raises:
        LaunchError: timing_only for a kernel whose timing depends on its data.
    """
    from .runtime.platform import platform as make_platform
    from .runtime.sim import SimRuntime, data_dependent_node
    loc = user_loc()
    try:
        if not isinstance(timing_only, (bool, np.bool_)):
            raise OptionError(f"asc.profile timing_only= must be True or False, got {timing_only!r}", loc)
        jf = fn if isinstance(fn, JitFunction) else JitFunction(fn)
        core_num = _check_cores(core_num, jf.name, loc)
        try:        # before tracing, and at the user's line: platform() alone knows no caller
            plat = make_platform(platform if platform is not None else jf.options.get("platform"))
        except LaunchError as e:
            raise LaunchError(e.msg, loc, hint=e.hint) from None
        bound = bind_args(jf.name, jf.specs, args, kwargs, loc)
        ck = jf.compiled(_apart(bound.signature))
        if _writes_shared(ck.graph, bound.signature):
            ck = jf.compiled(bound.signature)       # arguments sharing written memory: their schedule
        if timing_only:
            node = data_dependent_node(ck.graph)
            if node is not None:
                raise LaunchError(f"{jf.name} cannot be profiled with timing_only=True: what it does depends on "
                                  "tensor data it reads at run time (this node's addresses, counts or loop bounds "
                                  "use a value read from the UB)", node=node,
                                  hint="profile it with timing_only=False (on real data)")
        rt = get_runtime("sim")
        assert isinstance(rt, SimRuntime)
        if ck.clients > 1:
            raise NotProvidedError(f"asc.profile of {jf.name}: in pyasc's MIX Matmul mode two Matmul clients share "
                                   "each AI core's cube core, which the timing model does not model (it would time "
                                   "each client on a cube core of its own)", loc,
                                   hint="profile it declared @asc.jit(matmul_cube_only=True), launched on 2 x blocks")
        refuse_shared_writes(ck.graph, bound, loc)
        job = LaunchJob(jf.name, jf.fn, ck.graph, bound, core_num, None, loc, ck.options)
        return rt.profile(ck.artifact(rt), job, plat, execute=not timing_only)
    except AscTraceError as e:
        raise _clean(e)


def jit(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """`@asc.jit`, `@asc.jit(auto_sync=False, ...)`, or `asc.jit(kernel, **options)` for a re-optioned copy.

    Options:
{options}

    Raises:
        OptionError: an unknown option, or a value of the wrong type or range (the message names the
            option and the values it accepts).
    """
    if fn is None:
        return lambda f: jit(f, **options)
    if isinstance(fn, JitFunction):
        return fn.with_options(**options)
    if not callable(fn):
        raise TraceError(f"asc.jit decorates a function, got {type(fn).__name__}", user_loc())
    return JitFunction(fn, **options)


jit.__doc__ = (jit.__doc__ or "").replace("{options}", describe_options())


def compile(fn: Any, example_inputs: tuple = (), core_num: int | None = None, **options: Any) -> CompiledKernel:  # noqa: A001
    """Trace and schedule `fn` for the dtypes / constants of `example_inputs`.

    Args:
        fn: an @asc.jit kernel or a plain kernel function.
        example_inputs: arguments like those of a launch (arrays, tensors, scalars).
        core_num: the default core count of `ck(...)` calls.
        options: asc.jit options (auto_sync, multi_buffer, backend, ...).

    Raises:
        LaunchError: the example inputs do not fit the kernel's parameters.
        TraceError: the kernel cannot be traced.
    """
    loc = user_loc()
    try:
        jf = fn if isinstance(fn, JitFunction) else JitFunction(fn)
        if options:
            jf = jf.with_options(**options)
        if core_num is not None:
            core_num = _check_cores(core_num, jf.name, loc)
        if not isinstance(example_inputs, (tuple, list)):
            raise LaunchError(f"asc.compile({jf.name}, example_inputs): example_inputs must be a tuple of launch "
                              f"arguments, got {type(example_inputs).__name__}", loc)
        bound = bind_args(jf.name, jf.specs, tuple(example_inputs), {}, loc, device_ok=True)
        # example inputs give dtypes and values, not memory: `asc.compile(k, (x, x, x, n))` compiles for
        # separate arrays (a launch whose arguments share memory gets its own schedule)
        ck = jf.compiled(_apart(bound.signature))
        if core_num is not None and core_num != ck.core_num:
            ck = copy.copy(ck)      # shares the graph and the built artifacts; only the default core count differs
            ck.core_num = core_num
        return ck
    except AscTraceError as e:
        raise _clean(e)
