// asc_trace_bisheng_view.h: what bisheng puts in front of every dav-c220 aicore compile that a host
// build of the same source does not see, so that the host builds (the cpp backend, cpu_debug and the
// header check) reject what bisheng would. The host builds include it right after kernel_operator.h,
// before the kernel's own text (the API headers' CPU-debug paths use these names as variables);
// the NPU build never includes it: there bisheng's own force-included headers do the same.
//
// The macros (facts, from CANN 8.1.RC1 ccec_compiler/lib/clang/15.0.5/include, the headers bisheng
// force-includes through __clang_cce_runtime_wrapper.h, preprocessed for dav-c220-vec):
// __clang_cce_aicore_builtin_vars.h turns the builtin variables into calls, so a kernel declaring a
// variable of one of these names does not compile; the others are object-like macros of
// __clang_cce_types.h, __clang_cce_aicore_intrinsics.h and cce_aicore_intrinsics.h.
#ifndef ASC_TRACE_BISHENG_VIEW_H
#define ASC_TRACE_BISHENG_VIEW_H

#define block_idx get_block_idx()
#define block_num get_block_num()
#define l2_vaddr_base get_l2_vaddr_base()
#define l2_in_main get_l2_in_main()
#define PIPE_LSU1 PIPE_MTE1
#define PIPE_LSU2 PIPE_MTE2
#define PIPE_LSU3 PIPE_MTE3
#define CCE_TRUE 1
#define CCE_FALSE 0
#define CCE_AICORE_INTRINSICS_TYPES
// function-like: a name followed by `(` (a kernel called so) expands
#define PIPE_ID(v) __attribute__((unused))
#define BISHENG_BUILTIN_TYPE_PROXY(NAME) __asc_trace_bisheng_type_proxy_##NAME
#define DEFINE_BISHENG_BUILTIN_TYPE_PROXY(NAME, BYTE_SIZE) struct __asc_trace_bisheng_type_proxy_##NAME
#define CCE_INTRINSIC static inline
#define CCE_GET_VA_INTRINSIC static inline

#endif  // ASC_TRACE_BISHENG_VIEW_H
