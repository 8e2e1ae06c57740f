"""What Select leaves in the CMPMASK register (graph/ops/cmpmask.py), shared by the count-form executor
(executors_ops.py) and the CMPMASK forms (executors_cmpmask.py)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from ..enums import SELMODE
from ..graph.ops.cmpmask import CMPMASK_BYTES
from .machine import Machine

_POISON = config.UB_POISON_BYTE


def select_count_sets_cmpmask(m: Machine, mode: int, scalar: Any, dt: Any) -> None:
    """What a count- or mask-form Select leaves in CMPMASK besides the lanes (the A2 VselIntrinsicsImplPre):
    the scalar duplicated (scalar mode), sel_mask's address (tensor-tensor mode: poison for asc_trace)."""
    if mode == int(SELMODE.VSEL_TENSOR_SCALAR_MODE):
        row = np.broadcast_to(np.asarray(scalar, dtype=dt.np).reshape(-1, 1), (m.C, CMPMASK_BYTES // dt.itemsize))
        m.cmpmask[...] = np.ascontiguousarray(row).view(np.uint8).reshape(m.C, CMPMASK_BYTES)
    elif mode == int(SELMODE.VSEL_TENSOR_TENSOR_MODE):
        m.cmpmask[...] = _POISON
