"""Is the NPU backend usable here? torch-npu importable, an NPU visible, and a CANN toolkit found."""
from __future__ import annotations

import importlib.util
import os
from functools import lru_cache


@lru_cache(maxsize=1)
def npu_usable() -> bool:
    if os.environ.get("ASC_TRACE_DISABLE_NPU"):
        return False
    if importlib.util.find_spec("torch_npu") is None:
        return False
    if not (os.environ.get("ASCEND_HOME_PATH") or os.environ.get("ASCEND_TOOLKIT_HOME")):
        return False
    try:
        import torch  # noqa: F401
        import torch_npu  # noqa: F401
        return bool(torch.npu.is_available())
    except Exception:  # noqa: BLE001 - any failure means "not usable"
        return False
