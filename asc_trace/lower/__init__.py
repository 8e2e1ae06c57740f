"""Lowering: Ascend C source from a scheduled KernelGraph, the bisheng build, and the compile cache."""
