// The entry point the cpu_debug backend appends to one or more emitted kernels (runtime/cpu_debug.py):
// its `main` passes a call per kernel and the Unified Buffer the API allocated to run_launch.
#pragma once

#include <cstdint>

namespace asc_stub {
// Printed on stdout before each core's output, followed by the core index and \x1e.
constexpr const char* CORE_MARK = "\x1e" "@@ASC_TRACE_CORE ";
using KernelCall = void (*)(void** args);
int run_launch(int argc, char** argv, const KernelCall* kernels, int n_kernels, uint8_t* (*ub)());
}  // namespace asc_stub
