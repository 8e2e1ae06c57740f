"""Tensors and the TPipe / TQue / TBuf framework (docs/facts.md#facts-6).

These nodes define storage (a GlobalTensor window, a static LocalTensor, a queue or TBuf tensor) or
move queue buffers between states; TQue operations also carry the events of the table in docs/facts.md#facts-6, which
the simulator and the scheduler take into account.
"""
from __future__ import annotations

from . import OpDef, register

register(
    OpDef("global_tensor", "framework", None, "SetGlobalBuffer", doc="GlobalTensor.set_global_buffer"),
    OpDef("local_tensor", "framework", None, "LocalTensor", doc="static LocalTensor(pos, addr, length)"),
    OpDef("tpipe", "framework", None, "TPipe"),
    OpDef("tque", "framework", None, "TQue"),
    OpDef("tbuf", "framework", None, "TBuf"),
    OpDef("init_buffer", "framework", None, "InitBuffer"),
    OpDef("alloc_tensor", "framework", None, "AllocTensor"),
    OpDef("enque", "framework", None, "EnQue", reads=()),
    OpDef("deque", "framework", None, "DeQue"),
    OpDef("free_tensor", "framework", None, "FreeTensor", reads=()),
    OpDef("tbuf_get", "framework", None, "Get"),
)
