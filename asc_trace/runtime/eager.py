"""The `eager` backend: run the kernel function itself, core after core, executing each API call on
real data the moment it is made. `print(x)` of a runtime value shows its value, `pdb` works, and
`LocalTensor.numpy()` shows a tensor's contents.

Eager accepts exactly the kernels the other backends accept and gives the same answer or the same
error: the kernel is traced and scheduled first (the trace-time errors are shared), runtime scalars
stay symbolic and are evaluated with the kernel's scalar semantics (int64 that wraps, float32; so a
Python `if` on a runtime value is the same TraceError as when tracing), every call runs the
simulator's executor with its checks, and the hazards the simulator finds in the scheduled kernel
(races, unmatched events, cross-core writes) are checked before the kernel runs
(runtime/hazards.py). Runtime loops are real Python loops here, in program order; asc.cond calls only
the branch taken and asc.while_loop is a Python while loop."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import AscTraceError, TraceError
from ..graph.kernel_graph import KernelGraph
from ..proxies.context import TRACE_LOCK, use
from ..proxies.runtime_if import kernel_callable
from ..proxies.tracer import param_proxy, user_loc_of_traceback
from .base import LaunchJob, Runtime
from .cube_eager import CubeHazards
from .eager_context import EagerContext
from .hazards import HazardMemo, check_hazards
from .machine import GmJournal, Machine
from .printf import emit_output


class EagerArtifact:
    def __init__(self, graph: KernelGraph) -> None:
        from ..graph.cube_graph import is_cube_graph
        from ..graph.mix_split import MixGraph
        self.graph = graph
        self.mixed = isinstance(graph, MixGraph)
        self.cube = not self.mixed and is_cube_graph(graph)
        if self.mixed:
            from .mix_eager import MixPlan
            from .mix_hazards import MixHazards
            self.plan = MixPlan(graph)
            self.hazards: Any = MixHazards(graph)
        else:
            self.hazards = CubeHazards(graph) if self.cube else HazardMemo(graph)
        # the UB addresses graph/auto_place.py gave the LocalTensorAuto tensors, by call site (None where one
        # call site made tensors at different addresses, e.g. a sub-kernel called twice)
        self.auto_places: dict[Any, int | None] = {}
        for n in graph:
            if n.op == "local_tensor" and n.attr("auto"):
                key = (n.loc.file, n.loc.line, n.loc.col)
                addr = n.args[1].value
                self.auto_places[key] = addr if self.auto_places.get(key, addr) == addr else None


class EagerRuntime(Runtime):
    name = "eager"

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> EagerArtifact:
        return EagerArtifact(graph)

    def launch(self, art: EagerArtifact, job: LaunchJob) -> None:
        if art.mixed:           # three cores per AI core following the scheduled graph's flags (runtime/mix_eager.py)
            from .mix_eager import launch_mixed, refuse_control
            refuse_control(art.plan)
            art.hazards.check(job)
            with TRACE_LOCK:
                launch_mixed(art.plan, job)
            return
        from .block_sync_sim import refuse_block_sync
        refuse_block_sync(art.graph, "eager")
        if art.cube:
            art.hazards.check(job)
        else:
            check_hazards(art.hazards, job)
        sig = job.bound.signature
        proxies = [param_proxy(p) for p in sig.params]
        journal = GmJournal()
        try:
            for core in range(job.core_num):
                # GetBlockNum() is the launched count, also when each block runs two Matmul clients
                clients = job.options.get("matmul_clients", 1)
                m = Machine(np.array([core]), job.core_num // clients, job.bound.arrays, job.bound.scalars, journal)
                if clients > 1:     # the kernel's code is a Matmul client's, on a vector core (matmul_clients.py)
                    from ..graph.mix_vars import SUB_BLOCK_IDX, SUB_BLOCK_NUM, TASK_RATIO
                    m.env[SUB_BLOCK_IDX.env_key] = core % clients
                    m.env[SUB_BLOCK_NUM.env_key] = m.env[TASK_RATIO.env_key] = clients
                ctx = EagerContext(KernelGraph(job.name, sig, dict(job.options)), m)
                if art.cube:
                    from .cube_exec import memories
                    m.cube = memories()
                    ctx.cube = True
                ctx.auto_places = art.auto_places
                try:
                    with TRACE_LOCK, use(ctx):
                        run = kernel_callable(job.fn)
                        ctx.enter_function(run)
                        try:
                            run(*proxies)
                        except AscTraceError:
                            raise
                        except Exception as exc:  # noqa: BLE001 - a Python error in the kernel body
                            raise TraceError(f"{type(exc).__name__} while running {job.name} eagerly: {exc}",
                                             user_loc_of_traceback(exc.__traceback__)) from exc
                        finally:
                            ctx.restore()
                finally:
                    emit_output([(core, m.out[0])], job.core_num)
        except BaseException:
            journal.rollback()
            raise
        journal.commit()
