"""`asc.autotune`: pick a kernel's core count and ConstExpr values by timing every candidate, in the
shape of Triton's `triton.autotune` (configs, key, a cache per key value).

Without an NPU the candidates are timed on the timing model (`asc.profile`, timing only when the
kernel's timing cannot depend on its data, so tuning never writes the caller's arrays); with the
`npu` backend they are timed on the device. The best configuration is launched, and remembered per
key value in memory and in the disk cache (toolchain/cache.py), next to the compiled kernels.
"""
from __future__ import annotations

import copy
import inspect
import json
import operator
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from . import config as _config
from .errors import (AlignmentError, AscTraceError, AscTraceWarning, CacheError, LaunchError, OptionError,
                     OutOfBoundsError, ScalarError, TraceError, UBOverflowError)
from .jit_function import MAX_BLOCKS, JitFunction, _clean, profile
from .proxies.source_loc import user_loc
from .runtime.launch_hooks import hooks as launch_hooks

# What makes a configuration not fit the data or the core (skipped with a note, unless none fits): too big,
# misaligned, out of bounds, or a ConstExpr value the kernel's arithmetic cannot take (a tile of 0 in n // tile).
DOES_NOT_FIT = (UBOverflowError, AlignmentError, OutOfBoundsError, ScalarError)

PROGRESS_AFTER_S = 1.0     # tuning shows its progress once it has taken longer than this


class Config:
    """One candidate launch: the core count and values for the kernel's ConstExpr parameters.

    `asc.Config(core_num=8, tile=256)`; as in Triton, the ConstExpr values may also come as a dict:
    `asc.Config({"tile": 256}, core_num=8)`. core_num=None means every vector core of the platform.
    """

    def __init__(self, kwargs: dict[str, Any] | None = None, *, core_num: int | None = None, **constexprs: Any):
        if kwargs is not None and not isinstance(kwargs, Mapping):
            raise TraceError(f"asc.Config takes the ConstExpr values as keywords or one dict, got "
                             f"{type(kwargs).__name__} {kwargs!r}", user_loc(),
                             hint="asc.Config(core_num=8, tile=256) or asc.Config({'tile': 256}, core_num=8)")
        bad = [k for k in (kwargs or {}) if not isinstance(k, str)]
        if bad:
            raise TraceError(f"asc.Config's dict must map ConstExpr parameter names to values, got the key "
                             f"{bad[0]!r}", user_loc())
        self.kwargs: dict[str, Any] = {**(kwargs or {}), **constexprs}
        self.core_num = _core_num(core_num)

    def all_kwargs(self) -> dict[str, Any]:
        return {**self.kwargs, "core_num": self.core_num}

    def _ident(self) -> tuple:
        return (self.core_num, tuple(sorted((k, repr(v)) for k, v in self.kwargs.items())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self._ident() == other._ident()

    def __hash__(self) -> int:
        return hash(self._ident())

    def __repr__(self) -> str:
        parts = [f"core_num={self.core_num!r}"] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"Config({', '.join(parts)})"


def _core_num(value: Any) -> int | None:
    """A Config's core count as a plain int (NumPy integers are ints, as at a launch), None for every core."""
    if value is None:
        return None
    if not isinstance(value, bool):
        try:
            n = operator.index(value)
        except TypeError:
            n = None
        if n is not None and 1 <= n <= MAX_BLOCKS:
            return n
    raise TraceError(f"asc.Config: core_num must be an int from 1 to {MAX_BLOCKS} (or None for every vector "
                     f"core), got {type(value).__name__} {value!r}", user_loc())


def _count_option(name: str, value: Any, least: int) -> int:
    """autotune's warmup= / rep=: a whole number of launches, at least `least`."""
    if not isinstance(value, bool):
        try:
            n = operator.index(value)
        except TypeError:
            n = None
        if n is not None and n >= least:
            return n
    raise OptionError(f"asc.autotune {name}= must be an int of at least {least} (launches), got "
                      f"{type(value).__name__} {value!r}", user_loc())


class Autotuner:
    """The callable `asc.autotune` returns: call it with the kernel's arguments other than the tuned
    ConstExprs; it tunes once per new key value, then launches the best configuration.

    best_config: the configuration chosen for the last key value.
    timings: config -> time in microseconds (modeled, or measured on the NPU) for the last key value.
    skipped: config -> why it was left out (it does not fit), for the last key value.
    cache: key value -> chosen configuration, for every key value seen.
    """

    def __init__(self, kernel: Any, configs: Iterable[Config], key: Iterable[str], platform: str | None = None,
                 cache_results: bool = True, warmup: int = 3, rep: int = 10) -> None:
        loc = user_loc()
        self.kernel: JitFunction = kernel if isinstance(kernel, JitFunction) else JitFunction(kernel)
        if not (isinstance(configs, Iterable) and isinstance(key, Iterable)):
            raise TraceError(f"asc.autotune takes a list of asc.Config as configs= and a list of parameter names as "
                             f"key=, got {type(configs).__name__} and {type(key).__name__}", loc)
        self.configs = list(configs)
        self.key = list(key) if not isinstance(key, str) else [key]
        self.platform = platform
        if not isinstance(cache_results, (bool, np.bool_)):
            raise OptionError(f"asc.autotune cache_results= must be True or False, got {cache_results!r}", loc)
        self.cache_results = bool(cache_results)
        self.warmup, self.rep = _count_option("warmup", warmup, 0), _count_option("rep", rep, 1)
        self.cache: dict[tuple, Config] = {}
        self.best_config: Config | None = None
        self.timings: dict[Config, float] = {}
        self._gm_written: dict[Config, float] = {}   # modeled GM bytes each config's launch writes
        self.skipped: dict[Config, str] = {}
        specs = self.kernel.specs
        self.tuned = self._check_configs(loc)
        self.arg_specs = [s for s in specs if s.name not in self.tuned]
        names = [s.name for s in self.arg_specs]
        for k in self.key:
            if k not in names:
                raise TraceError(f"asc.autotune key {k!r} is not a parameter the tuned kernel is called with "
                                 f"({', '.join(names)})", loc)
        self.__name__ = self.kernel.name
        self.__doc__ = self.kernel.fn.__doc__

    def _check_configs(self, loc: Any) -> tuple[str, ...]:
        if not self.configs or not all(isinstance(c, Config) for c in self.configs):
            raise TraceError("asc.autotune needs a non-empty list of asc.Config(core_num=..., **constexprs)", loc)
        const = {s.name for s in self.kernel.specs if s.kind == "const"}
        names = set(self.configs[0].kwargs)
        for c in self.configs:
            bad = sorted(set(c.kwargs) - const)
            if bad:
                raise TraceError(f"{c} sets {', '.join(bad)}, which {'is' if len(bad) == 1 else 'are'} not "
                                 f"asc.ConstExpr parameter(s) of {self.kernel.name} (ConstExprs: "
                                 f"{', '.join(sorted(const)) or 'none'})", loc)
            if set(c.kwargs) != names:
                raise TraceError(f"every config must set the same ConstExprs: {c} differs from {self.configs[0]}", loc)
            if c.core_num is not None and (isinstance(c.core_num, bool) or not isinstance(c.core_num, int)
                                           or c.core_num < 1):
                raise TraceError(f"{c}: core_num must be a positive int", loc)
        if len(set(self.configs)) != len(self.configs):
            raise TraceError("asc.autotune got the same config twice", loc)
        return tuple(names)

    # -- calls ------------------------------------------------------------------------------------
    def __getitem__(self, item: Any) -> Any:
        # `tuned[8](...)`, the launch form of a plain kernel, out of habit: the configs choose the core count
        raise _clean(LaunchError(f"{self!r}[{item!r}]: an autotuned kernel takes its core count from its configs "
                                 "(asc.Config(core_num=...)); call it directly: tuned(*args)", user_loc()))

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        loc = user_loc()
        try:
            values = self._bind(args, kwargs, loc)
            self._check_hashable(values, loc)
            if launch_hooks().fake_run(*values.values()):    # torch.compile tracing an asc.torch_op: no data
                cfg = self.configs[0]                       # to time; the launch checks its arguments
                self.kernel.launch(self._cores(cfg), None, tuple(self._full_args(values, cfg)), {}, loc)
                return
            k = self._key(values)
            cfg = self.cache.get(k)
            if cfg is None:
                cfg = self._tune(values, k, loc)
                self.cache[k] = cfg
            else:
                self.best_config = cfg
            self.kernel.launch(self._cores(cfg), None, tuple(self._full_args(values, cfg)), {}, loc)
        except AscTraceError as e:
            raise _clean(e)

    def _bind(self, args: tuple, kwargs: dict, loc: Any) -> dict[str, Any]:
        names = [s.name for s in self.arg_specs]
        if len(args) > len(names):
            raise LaunchError(f"the tuned {self.kernel.name} takes {len(names)} argument(s) ({', '.join(names)}) "
                              f"but {len(args)} were given (the tuned ConstExprs {', '.join(self.tuned)} come "
                              "from the configs)", loc)
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k in self.tuned:
                raise LaunchError(f"{k} is tuned by asc.autotune; do not pass it", loc)
            if k not in names or k in values:
                raise LaunchError(f"the tuned {self.kernel.name} got an unexpected or repeated argument {k!r}", loc)
            values[k] = v
        for s in self.arg_specs:
            if s.name not in values:
                if s.default is inspect.Parameter.empty:
                    raise LaunchError(f"the tuned {self.kernel.name} is missing argument {s.name!r}", loc)
                values[s.name] = s.default
        return values

    def _check_hashable(self, values: dict[str, Any], loc: Any) -> None:
        """A key value selects a tuning from a dict: refuse an unhashable one as a plain launch refuses it."""
        for k in self.key:
            v = values[k]
            if hasattr(v, "shape") and hasattr(v, "dtype"):
                continue                    # arrays are keyed by shape and dtype
            try:
                hash(v)
            except TypeError:
                raise LaunchError(f"asc.autotune key argument {k!r} must be hashable, got {type(v).__name__}", loc,
                                  hint="pass a tuple instead of a list, or leave this parameter out of key=") \
                    from None

    def _key(self, values: dict[str, Any]) -> tuple:
        """The key arguments' values, and every array argument's dtype (as Triton does)."""
        def norm(v: Any) -> Any:
            if hasattr(v, "shape") and hasattr(v, "dtype"):
                return ("array", tuple(v.shape), str(v.dtype))
            return v
        dtypes = tuple(str(v.dtype) for v in values.values() if hasattr(v, "dtype") and hasattr(v, "shape"))
        return tuple(norm(values[k]) for k in self.key) + (dtypes,)

    def _platform_name(self) -> Any:
        return self.platform if self.platform is not None else self.kernel.options.get("platform")

    def _cores(self, cfg: Config) -> int:
        if cfg.core_num is not None:
            return cfg.core_num
        from .runtime.platform import platform as make_platform
        return int(make_platform(self._platform_name()).aiv_cores)

    def _full_args(self, values: dict[str, Any], cfg: Config) -> list[Any]:
        return [cfg.kwargs[s.name] if s.name in self.tuned else values[s.name] for s in self.kernel.specs]

    # -- tuning -----------------------------------------------------------------------------------
    def _tune(self, values: dict[str, Any], k: tuple, loc: Any) -> Config:
        on_npu = self._backend() == "npu"
        disk_key = self._disk_key(values, k, on_npu) if self._use_disk() else None
        if disk_key is not None:
            hit = _load(disk_key)
            if _valid_choice(hit, len(self.configs)):
                self.timings = {c: t for c, t in zip(self.configs, hit["timings"]) if t is not None}
                self.skipped = {c: r for c, r in zip(self.configs, hit["skipped"]) if r is not None}
                self.best_config = self.configs[hit["best"]]
                return self.best_config
        timings: dict[Config, float] = {}
        self._gm_written = {}
        work: dict[Config, float] = {}        # ties (e.g. all at the chip's GM bound) go to the least core time
        skipped: dict[Config, str] = {}
        errors: list[AscTraceError] = []
        t0, shown = time.perf_counter(), False
        bench = self._bench_npu if on_npu else self._bench_model
        for i, cfg in enumerate(self.configs):
            try:
                timings[cfg], work[cfg] = bench(values, cfg)
            except DOES_NOT_FIT as e:
                skipped[cfg] = f"{type(e).__name__}: {e.msg}"
                errors.append(e)
                warnings.warn(f"asc.autotune({self.kernel.name}): skipping {cfg}: it does not fit "
                              f"({skipped[cfg]})", stacklevel=3)
            if time.perf_counter() - t0 > PROGRESS_AFTER_S or shown:
                shown = True
                best = min(timings, key=lambda c: (timings[c], work[c])) if timings else None
                _progress(f"asc.autotune({self.kernel.name}): {i + 1}/{len(self.configs)} configs timed"
                          + (f", best so far {best} at {timings[best]:.2f} us" if best else ""))
        self.timings, self.skipped = timings, skipped
        if not timings:
            reasons = "; ".join(f"{c}: {r}" for c, r in skipped.items())
            raise LaunchError(f"asc.autotune({self.kernel.name}): none of the {len(self.configs)} configs fits "
                              f"({reasons})", loc, hint="add configs with smaller tiles or other core counts") \
                from errors[0]
        best = min(timings, key=lambda c: (timings[c], work[c]))
        self.best_config = best
        self._warn_unequal_work(best)
        if shown or _config.env_int("ASC_TRACE_PRINT_AUTOTUNING", 0):
            _progress(f"asc.autotune({self.kernel.name}) finished after {time.perf_counter() - t0:.2f} s; best "
                      f"{best} at {timings[best]:.2f} us ({'measured' if on_npu else 'modeled'})")
        if disk_key is not None:
            _store(disk_key, {"best": self.configs.index(best),
                              "timings": [timings.get(c) for c in self.configs],
                              "skipped": [skipped.get(c) for c in self.configs]})
        return best

    def _bench_model(self, values: dict[str, Any], cfg: Config) -> tuple[float, float]:
        """(modeled microseconds, of which the cores' part) of one config: timing only when the
        kernel's timing cannot depend on its data (nothing is read or written), else a full run on
        scratch copies of the arrays."""
        from .runtime.args import bind_args
        from .runtime.sim import data_dependent_node
        args = self._full_args(values, cfg)
        bound = bind_args(self.kernel.name, self.kernel.specs, tuple(args), {}, None)
        timing_only = data_dependent_node(self.kernel.compiled(bound.signature).graph) is None
        if not timing_only:
            args = [_copy_array(a) for a in args]
        prof = profile(self.kernel, *args, core_num=self._cores(cfg), platform=self.platform,
                       timing_only=timing_only)
        self._gm_written[cfg] = sum(prof.record.writes.values())
        return prof.time_us, prof.platform.cycles_to_us(prof.core_cycles)

    def _warn_unequal_work(self, best: Config) -> None:
        """Configs must do the same work (docs/autotune.md): one that writes fewer GM bytes, e.g. because
        its core_num changes what a per-core-length kernel covers, would "win" by doing less."""
        written = {c: b for c, b in self._gm_written.items() if c in self.timings}
        if len(set(written.values())) <= 1:
            return
        shown = ", ".join(f"{c}: {b:.0f}" for c, b in written.items())
        warnings.warn(AscTraceWarning(
            f"asc.autotune({self.kernel.name}): the configs write different amounts of GM ({shown} bytes), so "
            f"they do different work and the fastest ({best}) may just do the least; make every config cover "
            "the same data (derive per-core lengths from get_block_num()), see docs/autotune.md"), stacklevel=4)

    def _bench_npu(self, values: dict[str, Any], cfg: Config) -> tuple[float, float]:
        """Measured microseconds per launch on the NPU: warm-up launches, then `rep` launches between
        two timing events on the current stream (torch_npu's torch.npu.Event, as torch.cuda.Event).
        Written from the torch-npu documentation; never run (no NPU here)."""
        import torch
        import torch_npu  # noqa: F401
        args = [a.clone() if isinstance(a, torch.Tensor) else a for a in self._full_args(values, cfg)]
        launch = self.kernel[self._cores(cfg)]
        for _ in range(self.warmup):
            launch(*args)
        start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
        torch.npu.synchronize()
        start.record()
        for _ in range(self.rep):
            launch(*args)
        end.record()
        torch.npu.synchronize()
        us = start.elapsed_time(end) * 1e3 / self.rep
        return us, us

    def _backend(self) -> str:
        from .runtime import get_runtime
        return get_runtime(self.kernel.backend).name

    def _use_disk(self) -> bool:
        return self.cache_results and not self.kernel.options.get("always_compile")

    def _disk_key(self, values: dict[str, Any], k: tuple, on_npu: bool) -> str:
        """What the choice depends on: each config's scheduled graph (or why it cannot be built), the
        key, the timing model's parameters and vector costs (or the NPU), the configs."""
        from .graph.ops import REGISTRY
        from .toolchain.cache import cache_key
        from .runtime.args import bind_args
        from .runtime.platform import platform as make_platform
        graphs = []
        for cfg in self.configs:
            try:
                bound = bind_args(self.kernel.name, self.kernel.specs, tuple(self._full_args(values, cfg)), {}, None,
                                  device_ok=True)
                graphs.append(str(self.kernel.compiled(bound.signature).graph))
            except AscTraceError as e:
                graphs.append(f"{type(e).__name__}: {e.msg}")
        if on_npu:
            target = "npu"
        else:
            plat = make_platform(self._platform_name())
            target = plat.fingerprint() + repr(sorted((n, repr(op.cost)) for n, op in REGISTRY.items()))
        return cache_key({"autotune": self.kernel.name, "graphs": graphs, "key": repr(k), "target": target,
                          "configs": [repr(c) for c in self.configs]})

    def __repr__(self) -> str:
        return f"<asc.autotune of {self.kernel.name}: {len(self.configs)} configs, key={self.key}>"


def autotune(kernel: Any = None, configs: Iterable[Config] = (), key: Iterable[str] = (), *,
             platform: str | None = None, cache_results: bool = True, warmup: int = 3,
             rep: int = 10) -> Any:
    """Tune a kernel's core count and ConstExpr values per key value; returns the tuned callable.

    `asc.autotune(kernel, configs=[asc.Config(core_num=8, tile=256), ...], key=["n"])`, or as a
    decorator above `@asc.jit`: `@asc.autotune(configs=[...], key=["n"])`.

    Args:
        kernel: an @asc.jit kernel (or a plain kernel function).
        configs: the candidates (asc.Config), each setting the same ConstExpr parameters.
        key: names of parameters whose value (shape and dtype for arrays) selects a tuning: a new
            value tunes again; array dtypes always count.
        platform: the timing model's preset (default: the kernel's `platform` option).
        cache_results: keep choices in the disk cache too (ASC_TRACE_CACHE_DIR), across processes.
        warmup, rep: launches before and between the timing events on the NPU.

    Raises:
        TraceError: a config sets something that is not a ConstExpr of the kernel, or a key is not
            one of the remaining parameters.
        LaunchError (at the call): no config fits.
    """
    if kernel is None:
        return lambda fn: Autotuner(fn, configs, key, platform, cache_results, warmup, rep)
    return Autotuner(kernel, configs, key, platform, cache_results, warmup, rep)


def _copy_array(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        return a.copy()
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor):
        return a.clone()
    return copy.copy(a) if isinstance(a, (list, dict)) else a


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _load(key: str) -> dict[str, Any] | None:
    from .toolchain.cache import CompileCache
    path = CompileCache().lookup(key, "autotune.json")
    if path is None:
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _valid_choice(hit: Any, n: int) -> bool:
    """A stored choice is used only when it has the shape _store wrote (a corrupt one is re-tuned)."""
    return (isinstance(hit, dict) and isinstance(hit.get("best"), int) and 0 <= hit["best"] < n
            and all(isinstance(hit.get(f), list) and len(hit[f]) == n for f in ("timings", "skipped")))


def _store(key: str, data: dict[str, Any]) -> None:
    from .toolchain.cache import CompileCache

    def build(tmp: Path) -> Path:
        out = tmp / "autotune.json"
        out.write_text(json.dumps(data))
        return out
    try:
        CompileCache().get_or_build(key, "autotune.json", build, always=True)
    except (OSError, CacheError) as e:   # an unusable cache loses the choice across processes, nothing else
        warnings.warn(f"asc.autotune: could not store the choice in the disk cache: {e}", stacklevel=3)


__all__ = ["Autotuner", "Config", "autotune"]
