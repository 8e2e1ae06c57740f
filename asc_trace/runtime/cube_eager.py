"""The eager backend for cube kernels: each call executes on the cube core's memories the moment it is
made, with the simulator's own executors (runtime/cube_exec.py: the same bytes in the same fractal
layouts, the same bounds and alignment checks, the same numerics), in program order.

Program order cannot show what the pipes would get wrong, so before a cube kernel runs eagerly its
scheduled graph goes through the cube simulator's pipe model and race checker without data effects
(`CubeArtifact.launch(data=False)`: flags, races, unit flags and writes across cores checked, nothing
computed or written), as runtime/hazards.py does for vector kernels."""
from __future__ import annotations

from typing import Any, Callable

from .. import config
from ..cube_enums import CUBE_MEMORY
from ..graph.node import Node
from .base import LaunchJob
from .cube_exec import BINDERS, bind_copy_gm_l1, bind_local_tensor
from . import cube_exec_l1  # noqa: F401 - registers Fixpipe L0C -> L1


def cube_binder(node: Node) -> Callable | None:
    """The cube executor of `node`, or None when the vector executors handle it (scalars, sync, ...)."""
    b = BINDERS.get(node.op)
    if b is not None:
        return b(node)
    if node.op == "local_tensor" and node.args[0] in CUBE_MEMORY:
        return bind_local_tensor(node)
    if node.op == "data_copy" and getattr(node.args[0], "space", None) == "l1":
        return bind_copy_gm_l1(node)
    return None


class CubeHazards:
    """The cube simulator run once per launch key without data, for its hazard verdict."""

    def __init__(self, graph: Any) -> None:
        from .cube_sim import CubeArtifact
        self.art = CubeArtifact(graph)

    def check(self, job: LaunchJob) -> None:
        if not config.sanitize():
            return
        from .cube_cores import BytesUnknown
        from .sim import launch_key
        key = launch_key(job)[0]
        try:
            self.art.launch(job, check=True, key=key, data=False)
        except BytesUnknown:
            if job.bound.signature.shared:
                raise           # copies would not share memory as the arguments do
            # two cores write the same elements: equal bytes are order-independent (runtime/cube_cores.py),
            # which only the data can tell, so the check runs again computing, on copies of the arguments
            copies = [a.copy() if a is not None else None for a in job.bound.arrays]
            self.art.launch(job, check=True, key=key, data=True, arrays=copies)
