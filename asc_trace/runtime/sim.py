"""The `sim` backend: the kernel's graph on a NumPy model of the vector cores."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.kernel_graph import KernelGraph
from .base import LaunchJob, Runtime, written_params
from .interpreter import Interpreter, per_core_reason
from .machine import Machine
from .printf import emit_output


class SimArtifact:
    def __init__(self, graph: KernelGraph) -> None:
        self.interp = Interpreter(graph)
        self.written = written_params(graph)
        self.per_core = per_core_reason(graph) is not None


class SimRuntime(Runtime):
    name = "sim"

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> SimArtifact:
        return SimArtifact(graph)

    def launch(self, art: SimArtifact, job: LaunchJob) -> None:
        gm = job.bound.stage(art.written)
        groups = ([np.array([c]) for c in range(job.core_num)] if art.per_core else [np.arange(job.core_num)])
        out: list[tuple[int, list[str]]] = []
        try:
            for cores in groups:
                m = Machine(cores, job.core_num, gm, job.bound.scalars)
                try:
                    art.interp.run(m)
                finally:
                    out.extend((int(c), m.out[i]) for i, c in enumerate(cores))
        finally:
            emit_output(sorted(out, key=lambda t: t[0]), job.core_num)
        job.bound.commit()
