"""PyTorch integration: `asc.torch_op` and what kernel launches do on fake tensors (torch stays optional)."""
from . import launch as _launch  # noqa: F401 - installs the launch hooks (runtime/launch_hooks.py)
from .op import torch_op

__all__ = ["torch_op"]
