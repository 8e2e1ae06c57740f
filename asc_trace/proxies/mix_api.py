"""Mixed cube + vector kernels, kernel side, with pyasc's names: the sub-block index and count and the task
ratio (symbolic: each side of the kernel gets its own value, graph/mix_vars.py) and the cross-core flags
(graph/ops/cross_core.py). `ascend_is_aic` / `ascend_is_aiv` are proxies/core_type.py's."""
from __future__ import annotations

from typing import Any

from ..enums import PipeID, member
from ..errors import SyncError, TraceError
from ..graph.expr import Const
from ..graph.mix_vars import SUB_BLOCK_IDX, SUB_BLOCK_NUM, TASK_RATIO
from ..graph.node import Pipe
from ..graph.ops.cross_core import FLAG_IDS
from .context import current
from .scalar import Scalar, to_expr
from .source_loc import user_loc

# PipeID -> the pipe a cross-core set runs on (the vector core's and the cube core's pipes)
_PIPES = {PipeID.PIPE_S: Pipe.S, PipeID.PIPE_V: Pipe.V, PipeID.PIPE_MTE2: Pipe.MTE2, PipeID.PIPE_MTE3: Pipe.MTE3,
          PipeID.PIPE_MTE1: Pipe.MTE1, PipeID.PIPE_M: Pipe.M, PipeID.PIPE_FIX: Pipe.FIX}


def get_sub_block_idx() -> Any:
    """`GetSubBlockIdx()`: 0 or 1 on a vector core of a mixed kernel (which half of the AI core's vector
    work it does), 0 on the cube core."""
    current("asc.get_sub_block_idx")
    return Scalar(SUB_BLOCK_IDX)


def get_sub_block_num() -> Any:
    """`GetSubBlockNum()`: 2 on a vector core of a mixed kernel (1:2), 1 on the cube core."""
    current("asc.get_sub_block_num")
    return Scalar(SUB_BLOCK_NUM)


def get_task_ratio() -> Any:
    """`GetTaskRatio()`: vector cores per cube core, 2 on a vector core of a mixed kernel, 1 on the cube core;
    `get_block_idx() // get_task_ratio()` is the AI core's index on both."""
    current("asc.get_task_ratio")
    return Scalar(TASK_RATIO)


def _cross_core(api: str, flag_id: Any, mode_id: Any, pipe: Any, op: str) -> None:
    ctx = current(f"asc.{api}")
    loc = user_loc()
    fid = to_expr(flag_id, "the cross-core flag id")
    if fid.type != "int":
        raise TraceError(f"the flag id of asc.{api} must be an integer, got `{fid}`", loc)
    if isinstance(fid, Const) and fid.value not in FLAG_IDS:
        raise SyncError(f"cross-core flag id {fid.value} is outside 0..10: ids 11-14 belong to SyncAll and the "
                        "counters have 16 ids in all (ascend-cube-facts §6, SY:117-120)", loc)
    if not isinstance(mode_id, int) or isinstance(mode_id, bool) or not 0 <= mode_id <= 2:
        raise TraceError(f"the mode of asc.{api} is 0 (all AICs or all AIVs), 1 (the two AIVs of a core) or 2 "
                         f"(AIC <-> AIV in a core), got {mode_id!r}", loc)
    try:
        p = member(PipeID, pipe)
    except (ValueError, TypeError):
        raise TraceError(f"asc.{api} takes an asc.PipeID, got {pipe!r}", loc) from None
    if p not in _PIPES:
        raise TraceError(f"asc.{api} with PipeID.{p.name}: a cross-core set runs on one pipe of the core "
                         f"({', '.join('PipeID.' + q.name for q in _PIPES)})", loc)
    # the set runs on its pipe (it fires once that pipe's earlier work is done); a wait holds the whole
    # core, which the scalar unit does by not issuing past it
    ctx.record(op, (fid, int(mode_id), p), loc, _PIPES[p] if op == "cross_core_set_flag" else Pipe.S)


def cross_core_set_flag(flag_id: Any, mode_id: int = 0, pipe: Any = PipeID.PIPE_S) -> None:
    """`CrossCoreSetFlag<mode, pipe>(flagId)`: raise counter `flag_id` (0..10) of the other core(s) once
    `pipe`'s earlier work is done. Mode 2: cube -> both vector cores of the AI core, or each vector core ->
    the cube core (which counts a pair of sets as one); mode 1: between the two vector cores.

    Raises:
        SyncError: an id outside 0..10. TraceError: a mode outside 0..2 or a pipe that is not a core's pipe.
    """
    _cross_core("cross_core_set_flag", flag_id, mode_id, pipe, "cross_core_set_flag")


def cross_core_wait_flag(flag_id: Any, mode_id: int = 0, pipe: Any = PipeID.PIPE_S) -> None:
    """`CrossCoreWaitFlag(flagId)`: block the core until counter `flag_id` (0..10) is positive, then lower it.

    Raises:
        SyncError: an id outside 0..10. TraceError: a mode outside 0..2 or a pipe that is not a PipeID.
    """
    _cross_core("cross_core_wait_flag", flag_id, mode_id, pipe, "cross_core_wait_flag")
