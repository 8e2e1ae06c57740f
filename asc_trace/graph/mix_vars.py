"""The values that differ between the cube core and the vector cores of a mixed kernel
(`GetSubBlockIdx`, `GetSubBlockNum`, `GetTaskRatio`; vendor
impl/basic_api/dav_c220/kernel_operator_sys_var_impl.h:31-72). The trace records them as variables;
splitting a mixed kernel into its cube side and its vector side (graph/mix_split.py) replaces each by
its value on that side, so no later layer sees them. On the vector side `GetBlockIdx()` is
`block_idx * 2 + sub_block_idx` (1:2 mode): the simulator numbers the vector cores that way, and the
sub-block index is `block_idx % 2` there."""
from __future__ import annotations

from .expr import BLOCK_IDX, Const, Expr, Var, binop

SUB_BLOCK_IDX = Var("local", -101, "sub_block_idx")
SUB_BLOCK_NUM = Var("local", -102, "sub_block_num")
TASK_RATIO = Var("local", -103, "task_ratio")
MIX_VARS = (SUB_BLOCK_IDX, SUB_BLOCK_NUM, TASK_RATIO)
AIV_PER_AIC = 2                  # KERNEL_TYPE_MIX_AIC_1_2: one cube core and two vector cores per AI core


def side_values(side: str) -> dict[Var, Expr]:
    """Each mixed-kernel variable's value on the "aic" or the "aiv" side."""
    if side == "aic":
        return {SUB_BLOCK_IDX: Const(0), SUB_BLOCK_NUM: Const(1), TASK_RATIO: Const(1)}
    return {SUB_BLOCK_IDX: binop("%", BLOCK_IDX, Const(AIV_PER_AIC)), SUB_BLOCK_NUM: Const(AIV_PER_AIC),
            TASK_RATIO: Const(AIV_PER_AIC)}
