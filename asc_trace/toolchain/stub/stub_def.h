// asc_trace's CPU-debug stub layer: what the AI Core compiler builds in (qualifiers, builtin types,
// registers, block index) for the Ascend C headers compiled as host C++ with ASCENDC_CPU_DEBUG=1.
// Written by asc_trace from the documentation and from what the headers reference; not CANN's file.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cassert>
#include <map>
#include <set>
#include <string>
#include <iostream>
#include <vector>

// Address-space and function qualifiers: empty on the host.
#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __ssbuf__
#define __host__
#define __host_aicore__
#define __simd_callee__
#define __simd_vf__
#define __BLOCK_LOCAL__
#define __sync_alias__
#define __check_sync_alias__
#define __disable_kernel_type_autoinfer__
#define __in_pipe__(...)
#define __out_pipe__(...)
#define __inout_pipe__(...)
#define ASCENDC_HOST
#define ASCENDC_AICORE
#define ASCENDC_HOST_AICORE

#include "kernel_fp16.h"
#include "kernel_bf16.h"

// Compiler builtin enums (the values of pipe_t follow pyasc's model; the compiler's are unpublished).
enum pipe_t : uint8_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5,
                        PIPE_V2, PIPE_FIX, PIPE_NUM_ };
enum event_t : uint8_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
enum class Order_t : uint8_t { VALUE_INDEX = 0, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };
enum class cache_line_t : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class dcci_dst_t : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum class QuantMode_t : uint8_t {
    NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8, REQ4, VREQ4,
    DEQS16, VDEQS16, QF162B8_PRE, VQF162B8_PRE, QF162S16_PRE, VQF162S16_PRE, QF162S4_PRE, VQF162S4_PRE,
    QF322BF16_PRE, VQF322BF16_PRE, QF322F16_PRE, VQF322F16_PRE, QF322F32_PRE, VQF322F32_PRE, QF322FP8_PRE,
    VQF322FP8_PRE, QF322HIF8_PRE, VQF322HIF8_PRE, QF322HIF8_PRE_HYBRID, VQF322HIF8_PRE_HYBRID, QS322BF16_PRE,
    VQS322BF16_PRE
};
enum atomic_type_t : uint8_t { ATOMIC_TYPE_NONE_ = 0 };
enum atomic_op_t : uint8_t { ATOMIC_OP_NONE_ = 0 };
enum addr_cal_mode_t : uint8_t { inc = 0, dec };
enum mem_dsb_t : uint8_t { DSB_ALL = 0, DSB_DDR, DSB_UB, DSB_SEQ };   // CANN 8.1.RC1's hccl header names DSB_ALL
enum mem_t : uint8_t { MEM_NONE_ = 0 };
enum pad_t : uint8_t { PAD_NONE = 0 };
enum ub_addr8_t : uint8_t { VA0 = 0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };
enum vld_va_part_t : uint8_t { L128 = 0, H128 };

// Register types of the newer (dav_3510 "reg_compute") vector path: referenced by the headers'
// declarations only, never by the dav-c220 path this layer runs.
struct vector_bool {};
struct vector_address {};
struct vector_align {};

// Narrow float types of other architectures, named by the headers' type lists.
struct fp8_e4m3fn_t { uint8_t bits; };
struct fp8_e5m2_t { uint8_t bits; };
struct fp8_e8m0_t { uint8_t bits; };
struct fp4x2_e1m2_t { uint8_t bits; };
struct fp4x2_e2m1_t { uint8_t bits; };
struct hifloat8_t { uint8_t bits; };

// The per-core globals the headers read (defined in the stub's runtime, set by the launcher).
extern int64_t block_idx;
extern int64_t block_num;
extern int64_t sub_block_idx;
extern int32_t g_coreType;
extern uint32_t g_taskRation;
extern uint64_t g_fixpipeNdNzParam;
extern uint8_t* g_ubBase;

namespace AscendC {
// Core types of g_coreType as the log helpers spell them (AIC / AIV / MIX come from the headers).
constexpr int32_t AIC_TYPE = 1;
constexpr int32_t AIV_TYPE = 2;
extern bool g_isVdeq;
}  // namespace AscendC

#include "stub_fun.h"
