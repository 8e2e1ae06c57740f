"""What a framework plug-in may change about a launch, registered by the plug-in itself.

The core (jit_function, tuning) calls these hooks; it never imports a plug-in. Without one, a launch
runs as it is. `asc_trace.torch_library` installs its hooks when it is imported (asc_trace imports
it), so that launches inside an `asc.torch_op` follow the op's fake run, device and `mutates_args`.
"""
from __future__ import annotations

from typing import Any, Callable

from ..graph.kernel_graph import KernelGraph
from ..graph.source_loc import SourceLoc
from .args import BoundArgs, ParamSpec


class LaunchHooks:
    """The default: nothing to skip, the backend as asked, no extra write check."""

    def fake_run(self, *values: Any) -> bool:
        """Are these values (or the call around them) a fake run, where nothing is computed?"""
        return False

    def skip_launch(self, name: str, specs: list[ParamSpec], args: tuple, kwargs: dict,
                    loc: SourceLoc | None) -> bool:
        """True when the launch only checks its arguments and computes nothing."""
        return False

    def core_count(self, core_num: Any, name: str, loc: SourceLoc | None, fake: bool,
                   max_blocks: int) -> tuple[Any, bool]:
        """The core count to check and launch on, and whether it is accepted as it is (unchecked)."""
        return core_num, False

    def concrete_args(self, args: tuple, kwargs: dict, name: str, loc: SourceLoc | None) -> tuple[tuple, dict]:
        """The launch's arguments as numbers a real launch can use."""
        return args, kwargs

    def backend_for(self, backend: str) -> str:
        """The backend a launch asking for `backend` runs on."""
        return backend

    def check_writes(self, name: str, bound: BoundArgs, graph: Callable[[], KernelGraph],
                     loc: SourceLoc | None) -> None:
        """Refuse a launch whose writes the plug-in does not allow."""


_installed: LaunchHooks = LaunchHooks()


def install(hooks: LaunchHooks) -> None:
    """Make `hooks` the launch hooks (a plug-in calls this when it is imported)."""
    global _installed
    _installed = hooks


def hooks() -> LaunchHooks:
    return _installed
