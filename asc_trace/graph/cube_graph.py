"""Which kernels run on the cube core: a graph with a cube instruction, a cube event or a tensor in a cube
memory. Such a kernel takes the cube's passes, simulator and lowering; a kernel with both cube and vector
work (a mixed kernel) is not provided yet."""
from __future__ import annotations

from ..cube_enums import CUBE_SPACES
from ..errors import NotProvidedError
from .kernel_graph import KernelGraph
from .node import Node, Pipe, TensorRef

CUBE_PIPES = frozenset({Pipe.MTE1, Pipe.M, Pipe.FIX})
VECTOR_PIPES = frozenset({Pipe.V, Pipe.MTE3})


def _is_cube_node(n: Node) -> bool:
    if n.pipe in CUBE_PIPES:
        return True
    return any(isinstance(a, TensorRef) and a.space in CUBE_SPACES for a in n.args)


def is_cube_graph(g: KernelGraph) -> bool:
    """Whether the kernel uses the cube; raises NotProvidedError for one that uses both cores."""
    cube = next((n for n in g if _is_cube_node(n)), None)
    if cube is None:
        return False
    vec = next((n for n in g if n.pipe in VECTOR_PIPES or any(isinstance(a, TensorRef) and a.space == "ub"
                                                              for a in n.args)), None)
    if vec is not None:
        raise NotProvidedError("this kernel uses both the cube core and a vector core: mixed cube + vector kernels "
                               "(kernel_type MIX_AIC_1_2, a GM workspace and cross-core flags) are not provided yet",
                               node=vec, related=[("cube work", cube.loc)])
    return True
