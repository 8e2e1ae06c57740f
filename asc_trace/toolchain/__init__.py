"""The toolchain below `lower/`: bisheng and CANN's layout and version, the real Ascend C headers'
discovery and the header check, the CPU-debug stub layer and tikicpulib, the host C++ compiler, the
vendor's MLIR compiler, compiler errors mapped to graph nodes, and the disk cache of built artifacts.
It never imports `lower/`, `runtime/` or anything above them (tests/test_layers.py)."""
