// What the instrumented Ascend C calls besides the API in asc_trace's two host builds: `cpp` (the
// API model, kernel_operator.h, defines these inline) and `cpu_debug` (the stub layer under the real
// headers, stub/src/runtime.cpp). One declaration for both, so emitted code means the same on each.
#pragma once

// Stop the kernel: `kind` is alignment, bounds, ub, queue, sync, ... (the AscTraceError subclass),
// the message names what went wrong; the Python side adds the node's user line.
[[noreturn]] void asc_trace_fail(const char* kind, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// The graph node whose statement runs next (`// file.py:LINE (%id)` in the source).
void asc_trace_mark_node(int node);

#define ASC_TRACE_NODE(n) asc_trace_mark_node(n)
