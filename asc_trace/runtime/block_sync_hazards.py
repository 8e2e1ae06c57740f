"""The hazard check the cpp backend runs before a block-synchronised kernel (kept apart from
runtime/block_sync_sim.py, which runtime/sim.py imports, so that importing the simulator here makes no cycle)."""
from __future__ import annotations

from ..errors import SyncError
from ..graph.kernel_graph import KernelGraph
from .base import LaunchJob
from .block_sync_sim import BlockSyncArtifact


class BlockSyncHazards:
    """What the cpp backend asks before it runs a block-synchronised kernel: the simulator's verdict on races
    and hangs (its C++ model runs the cores in the same turns but sees neither the pipes nor GM ordering),
    found on copies of the arguments (the flags and counters are data) without printf output. Any other
    error is left to the backend, which reports it itself."""

    def __init__(self, graph: KernelGraph) -> None:
        self.graph = graph
        self.art: BlockSyncArtifact | None = None

    def check(self, job: LaunchJob) -> None:
        import contextlib
        import dataclasses
        import io

        from .. import config
        from ..errors import AscTraceError, RaceError
        if not config.sanitize():
            return
        if self.art is None:
            from .sim import Simulator
            self.art = BlockSyncArtifact(self.graph, Simulator)
        arrays = [None if a is None else a.copy() for a in job.bound.arrays]
        trial = dataclasses.replace(job, bound=dataclasses.replace(job.bound, arrays=arrays))
        try:
            with contextlib.redirect_stdout(io.StringIO()):     # the kernel's printf text comes from the real run
                self.art.launch(trial, True)
        except (RaceError, SyncError):
            raise
        except AscTraceError:
            return
