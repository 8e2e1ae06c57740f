"""PyTorch integration: `asc.torch_op` and what kernel launches do on fake tensors (torch stays optional)."""
from .op import torch_op

__all__ = ["torch_op"]
