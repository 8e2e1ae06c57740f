// Part of the stub layer CANN's tikicpulib provides (asc-devkit README). These headers never include
// it; kept, empty, for trees that do: the print lock of CPU-debug printf is ProcessLock, whose
// members src/api_hooks.cpp defines.
#pragma once
