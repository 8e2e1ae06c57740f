"""`asc.sync_all`, `asc.ib_set`, `asc.ib_wait`: synchronisation between the vector cores of a launch
(graph/ops/block_sync.py says what each does; runtime/block_sync_sim.py runs them)."""
from __future__ import annotations

from typing import Any

from ..dtypes import int32
from ..errors import DTypeError, NotProvidedError, TraceError
from ..graph.expr import Const
from ..graph.node import TensorRef
from ..graph.source_loc import SourceLoc
from .context import current
from .operands import count_expr
from .source_loc import user_loc
from .tensors import GlobalTensor, LocalTensor, tensor_ref


def _aiv_only(is_aiv_only: Any, what: str, loc: SourceLoc) -> None:
    if is_aiv_only is not True and is_aiv_only != 1:
        raise NotProvidedError(f"asc.{what}(is_aiv_only=False) synchronises the cube cores too (a mixed kernel's "
                               "launch); asc_trace runs it between vector cores only", loc,
                               hint="leave is_aiv_only=True; a mixed kernel orders its cube and vector cores with "
                                    "cross_core_set_flag / cross_core_wait_flag")


def _workspace(gm: Any, ub: Any, what: str, loc: SourceLoc) -> tuple[TensorRef, TensorRef]:
    """The (GM, UB) workspace operands: a GlobalTensor and a LocalTensor of int32, as the vendor declares."""
    if not isinstance(gm, GlobalTensor):
        raise TraceError(f"the gm_workspace of asc.{what} is a GlobalTensor of int32, got {type(gm).__name__}", loc,
                         hint="ws = asc.GlobalTensor(); ws.set_global_buffer(workspace_addr) over a zeroed int32 array")
    if not isinstance(ub, LocalTensor):
        raise TraceError(f"the ub_workspace of asc.{what} is a LocalTensor of int32, got {type(ub).__name__}", loc)
    g, u = tensor_ref(gm, "gm_workspace"), tensor_ref(ub, "ub_workspace")
    for ref, name in ((g, "gm_workspace"), (u, "ub_workspace")):
        if ref.dtype is not int32:
            raise DTypeError(f"the {name} of asc.{what} holds int32 (Ascend C's {name} is a "
                             f"{'GlobalTensor' if ref.space == 'gm' else 'LocalTensor'}<int32_t>), got {ref.dtype}",
                             loc, hint="view the workspace as int32")
    return g, u


def sync_all(gm_workspace: Any = None, ub_workspace: Any = None, used_cores: Any = 0,
             is_aiv_only: bool = True) -> None:
    """`SyncAll<true>()` (no workspace: the hardware barrier) or `SyncAll<true>(gm, ub, used_cores)` (the
    software barrier over an int32 GM workspace of 8 words per core, zeroed before the first launch, and a UB
    workspace of 8 words per core): every core reaches it before any core passes it.

    Raises:
        TraceError / DTypeError: only one workspace given, or one of the wrong kind or type.
        NotProvidedError: is_aiv_only=False (the cube cores' barrier of a mixed kernel).
    """
    ctx = current("asc.sync_all")
    loc = user_loc()
    if isinstance(gm_workspace, bool) and ub_workspace is None:
        # pyasc's first overload, sync_all(is_aiv_only): a bool where a workspace would be is that flag
        gm_workspace, is_aiv_only = None, gm_workspace
    _aiv_only(is_aiv_only, "sync_all", loc)
    if gm_workspace is None and ub_workspace is None:
        if not (isinstance(used_cores, int) and used_cores == 0):
            raise TraceError("asc.sync_all(used_cores=...) counts cores in the GM workspace: give gm_workspace and "
                             "ub_workspace too (the hardware barrier always waits for every core)", loc)
        ctx.record("sync_all", (None, None, Const(0)), loc)
        return
    if gm_workspace is None or ub_workspace is None:
        raise TraceError("asc.sync_all takes both workspaces (the software barrier) or neither (the hardware "
                         "barrier)", loc)
    g, u = _workspace(gm_workspace, ub_workspace, "sync_all", loc)
    ctx.record("sync_all", (g, u, count_expr(used_cores, loc, "used_cores")), loc)


def _ib(op: str, gm_workspace: Any, ub_workspace: Any, block_idx: Any, event_id: Any, is_aiv_only: Any) -> None:
    ctx = current(f"asc.{op}")
    loc = user_loc()
    _aiv_only(is_aiv_only, op, loc)
    g, u = _workspace(gm_workspace, ub_workspace, op, loc)
    ctx.record(op, (g, u, count_expr(block_idx, loc, "block_idx"), count_expr(event_id, loc, "event_id")), loc)


def ib_set(gm_workspace: Any, ub_workspace: Any, block_idx: Any, event_id: Any, is_aiv_only: bool = True) -> None:
    """`IBSet<true>(gm, ub, block_idx, event_id)`: wait until the flag word of core `block_idx` and event
    `event_id` (`gm[block_num * 8 * event_id + block_idx * 8]`) is 0, then write 1.

    Raises:
        TraceError / DTypeError: a workspace of the wrong kind or type.
    """
    _ib("ib_set", gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only)


def ib_wait(gm_workspace: Any, ub_workspace: Any, block_idx: Any, event_id: Any, is_aiv_only: bool = True) -> None:
    """`IBWait<true>(gm, ub, block_idx, event_id)`: wait until that flag word is 1, then write 0.

    Raises:
        TraceError / DTypeError: a workspace of the wrong kind or type.
    """
    _ib("ib_wait", gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only)
