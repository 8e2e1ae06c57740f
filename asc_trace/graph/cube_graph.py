"""Which kernels run on the cube core: a graph with a cube instruction, a cube event or a tensor in a cube
memory. Such a kernel takes the cube's passes, simulator and lowering; a kernel with both cube and vector
work is a mixed kernel (graph/mix_split.py), whose cube side takes them."""
from __future__ import annotations

from ..cube_enums import CUBE_MEMORY, CUBE_SPACES
from .kernel_graph import KernelGraph
from .node import Node, Pipe, TensorRef

CUBE_PIPES = frozenset({Pipe.MTE1, Pipe.M, Pipe.FIX})
VECTOR_PIPES = frozenset({Pipe.V, Pipe.MTE3})


def _is_cube_node(n: Node) -> bool:
    if n.pipe in CUBE_PIPES:
        return True
    return any(isinstance(a, TensorRef) and a.space in CUBE_SPACES for a in n.args)


def is_cube_graph(g: KernelGraph) -> bool:
    """Whether the kernel uses the cube (a cube kernel, or a mixed cube + vector kernel: graph/mix_split.py)."""
    return any(_is_cube_node(n) for n in g)


def has_cube_memory(g: KernelGraph) -> bool:
    """Whether the kernel places a LocalTensor in a cube memory (L1, L0A/B/C, the bias table), used or not.
    A backend without the cube refuses such a kernel as a cube kernel: cpu_debug would otherwise lay the
    tensor out as UB bytes and report an overflow at an address that means nothing (x36)."""
    return any(n.op == "local_tensor" and n.args and n.args[0] in CUBE_MEMORY for n in g)


def is_mix_graph(g: KernelGraph) -> bool:
    """Whether the kernel has work for both the cube core and the vector cores (KERNEL_TYPE_MIX_AIC_1_2)."""
    from .mix_split import MixGraph, is_mixed
    return isinstance(g, MixGraph) or is_mixed(g) is not None


def refuse_lone_cube_barrier(g: KernelGraph) -> None:
    """A PipeBarrier on a cube pipe (PIPE_MTE1 / PIPE_M / PIPE_FIX), or a SetFlag / WaitFlag of an event between
    cube pipes (M_MTE1, FIX_M ...), in a kernel with no other cube work is refused with a TraceError at its line.
    Left alone it made a vector kernel a mixed one (each vector core running beside a cube core that has nothing
    to do), which sim / eager / cpp ran while cpu_debug refused it as a cube kernel: a different class per backend
    for one misuse, found before any backend is chosen."""
    from ..errors import TraceError
    from .ops.opdef import REGISTRY
    cube = [n for n in g if _is_cube_node(n)]
    if not cube or has_cube_memory(g) or any(
            n.op not in REGISTRY or REGISTRY[n.op].family != "sync" for n in cube):
        return
    first = cube[0]
    name = first.args[0].name if first.args and hasattr(first.args[0], "name") else str(first.pipe)
    if first.op != "pipe_barrier":
        raise TraceError(f"asc.{first.op}(HardEvent.{name}) synchronises cube pipes, but this kernel has no cube "
                         "work: the vector cores it runs on have no such pipes", node=first,
                         hint="a vector kernel's events are among MTE2, V, MTE3 and S (MTE2_V, V_MTE3, S_V ...)")
    raise TraceError(f"asc.pipe_barrier({name}) orders a cube pipe, but this kernel has no cube work: the vector "
                     "cores it runs on have no such pipe", node=first,
                     hint="use PIPE_V, PIPE_MTE2, PIPE_MTE3 or PIPE_ALL in a vector kernel")
