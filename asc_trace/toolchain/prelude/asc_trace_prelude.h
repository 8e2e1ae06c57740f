// asc_trace_prelude.h: the scalar semantics and the runtime checks that asc_trace's emitted Ascend C
// relies on. Include it after kernel_operator.h: it needs only `__aicore__` and the <cstdint> types
// from there (and <cstdio> on host builds, for the check messages).
//
// One rule set for every backend (asc_trace/graph/scalar_ops.py and graph/operand_checks.py are the
// Python side, docs/numerics.md):
// - int64 scalar arithmetic wraps in two's complement (the build must use -fwrapv, or a compiler
//   with wrapping signed arithmetic); // and % are floor division and modulo; INT64_MIN // -1 wraps;
// - float scalar min / max are IEEE 754-2019 maximum / minimum; // and % on floats are NumPy's;
//   a NaN result of + - * / is the first NaN operand's;
// - float -> int64 truncates and saturates, NaN -> 0.
//
// Checks. ASC_TRACE_CHECKS=1 makes the kernel check what asc_trace's simulator checks before each
// instruction (operand ranges, integer division by zero, shift counts, zero loop steps) and report a
// failure through `asc_trace_fail(kind, message)`, which the including host build must define (it
// never returns: asc_trace's cpp model throws). ASC_TRACE_CHECKS=0 compiles every check out; that is
// the default for a bisheng device build (__CCE_AICORE__ without ASCENDC_CPU_DEBUG).
#ifndef ASC_TRACE_PRELUDE_H
#define ASC_TRACE_PRELUDE_H

#ifndef ASC_TRACE_CHECKS
#if defined(__CCE_AICORE__) && !defined(ASCENDC_CPU_DEBUG)
#define ASC_TRACE_CHECKS 0
#else
#define ASC_TRACE_CHECKS 1
#endif
#endif

// error kinds (asc_trace/graph/operand_checks.py KIND_CODES)
#define ASC_TRACE_KIND_BOUNDS 1
#define ASC_TRACE_KIND_SCALAR 2
#define ASC_TRACE_KIND_SYNC 3
#define ASC_TRACE_KIND_ALIGNMENT 4
#define ASC_TRACE_KIND_UB 5
#define ASC_TRACE_KIND_QUEUE 6

#if ASC_TRACE_CHECKS
#include <cstdio>
[[noreturn]] void asc_trace_fail(int kind, const char* message);

inline void asc_trace_check_range(int64_t v, int64_t lo, int64_t hi, int below, int above, const char* what)
{
    if (v >= lo && v <= hi) return;
    char msg[224];
    std::snprintf(msg, sizeof msg, "%s is %lld, outside %lld..%lld", what, static_cast<long long>(v),
                  static_cast<long long>(lo), static_cast<long long>(hi));
    asc_trace_fail(v < lo ? below : above, msg);
}
// lo <= expr <= hi, else an error of kind `below` / `above` naming `what`
#define ASC_CHECK_RANGE(expr, lo, hi, below, above, what) \
    asc_trace_check_range(static_cast<int64_t>(expr), (lo), (hi), (below), (above), (what))
// a condition that must hold, else an error of kind `kind` whose whole message is `what`
#define ASC_CHECK_HOLDS(expr, kind, what) \
    do { if (static_cast<int64_t>(expr) != 1) asc_trace_fail((kind), (what)); } while (0)
// evaluate expr now (its divisions check themselves), so that faults come in the canonical order
#define ASC_CHECK_EVAL(expr) static_cast<void>(expr)
#define ASC_TRACE_FAULT(kind, message) asc_trace_fail((kind), (message))
#else
#define ASC_CHECK_RANGE(expr, lo, hi, below, above, what) static_cast<void>(0)
#define ASC_CHECK_EVAL(expr) static_cast<void>(0)
#define ASC_CHECK_HOLDS(expr, kind, what) static_cast<void>(0)
#define ASC_TRACE_FAULT(kind, message) static_cast<void>(0)
#endif

// -- int64 ----------------------------------------------------------------------------------------
__aicore__ inline int64_t asct_floordiv(int64_t a, int64_t b)
{
    if (b == 0) { ASC_TRACE_FAULT(ASC_TRACE_KIND_SCALAR, "integer division by zero"); return 0; }
    if (b == -1) return static_cast<int64_t>(0ULL - static_cast<uint64_t>(a));   // INT64_MIN // -1 wraps
    int64_t q = a / b;
    return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__aicore__ inline int64_t asct_mod(int64_t a, int64_t b)
{
    if (b == 0) { ASC_TRACE_FAULT(ASC_TRACE_KIND_SCALAR, "integer modulo by zero"); return 0; }
    if (b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__aicore__ inline void asct_shift_count(int64_t n)
{
    if (n < 0 || n > 63) {
#if ASC_TRACE_CHECKS
        char msg[64];
        std::snprintf(msg, sizeof msg, "shift count %lld is outside 0..63", static_cast<long long>(n));
        ASC_TRACE_FAULT(ASC_TRACE_KIND_SCALAR, msg);
#endif
    }
}
__aicore__ inline int64_t asct_shl(int64_t a, int64_t n)
{
    asct_shift_count(n);
    return static_cast<int64_t>(static_cast<uint64_t>(a) << (n & 63));
}
__aicore__ inline int64_t asct_shr(int64_t a, int64_t n)
{
    asct_shift_count(n);
    return a >> (n & 63);
}
template <typename T> __aicore__ inline T asct_min(T a, T b) { return a < b ? a : b; }
template <typename T> __aicore__ inline T asct_max(T a, T b) { return a < b ? b : a; }
template <typename T> __aicore__ inline T asct_abs(T a) { return a < 0 ? static_cast<T>(0 - a) : a; }

// -- float32 --------------------------------------------------------------------------------------
template <> __aicore__ inline float asct_max<float>(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a != b) return a > b ? a : b;
    return __builtin_signbit(a) ? b : a;           // +0.0 over -0.0
}
template <> __aicore__ inline float asct_min<float>(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a != b) return a < b ? a : b;
    return __builtin_signbit(a) ? a : b;           // -0.0 under +0.0
}
template <> __aicore__ inline float asct_abs<float>(float a) { return __builtin_fabsf(a); }

// + - * / on floats: a NaN result is the first NaN operand's, quieted (a compiler may swap the
// operands of a plain + or *, and with them which NaN comes out)
__aicore__ inline float asct_quiet(float x)
{
    uint32_t u;
    __builtin_memcpy(&u, &x, 4);
    u |= 0x00400000u;
    __builtin_memcpy(&x, &u, 4);
    return x;
}
#define ASC_TRACE_FLOAT_OP(NAME, OP)                                        \
    __aicore__ inline float NAME(float a, float b)                          \
    {                                                                       \
        if (a != a) return asct_quiet(a);                                    \
        if (b != b) return asct_quiet(b);                                    \
        return a OP b;                                                      \
    }
ASC_TRACE_FLOAT_OP(asct_fadd, +)
ASC_TRACE_FLOAT_OP(asct_fsub, -)
ASC_TRACE_FLOAT_OP(asct_fmul, *)
ASC_TRACE_FLOAT_OP(asct_fdiv, /)
#undef ASC_TRACE_FLOAT_OP

// NumPy's float32 floor_divide and remainder (npy_divmod): the Python semantics of // and % on floats
__aicore__ inline float asct_ffloordiv(float a, float b)
{
    if (b == 0.0f) return a / b;
    float mod = __builtin_fmodf(a, b);
    float div = (a - mod) / b;
    if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) div -= 1.0f;
    if (div == 0.0f) return __builtin_copysignf(0.0f, a / b);
    float fl = __builtin_floorf(div);
    return (div - fl > 0.5f) ? fl + 1.0f : fl;
}
__aicore__ inline float asct_fmod(float a, float b)
{
    float mod = __builtin_fmodf(a, b);
    if (b == 0.0f) return mod;
    if (mod != 0.0f) return ((b < 0.0f) != (mod < 0.0f)) ? mod + b : mod;
    return __builtin_copysignf(0.0f, b);
}
// float -> int64: truncate, saturate, NaN -> 0
__aicore__ inline int64_t asct_f2i(float x)
{
    if (x != x) return 0;
    if (x >= 9223372036854775808.0f) return 9223372036854775807LL;
    if (x <= -9223372036854775808.0f) return -9223372036854775807LL - 1;
    return static_cast<int64_t>(x);
}

// -- loops ----------------------------------------------------------------------------------------
// Iterations of range(start, stop, step), computed without overflow (a zero step is an error).
__aicore__ inline uint64_t asct_trip_count(int64_t start, int64_t stop, int64_t step)
{
    if (step == 0) { ASC_TRACE_FAULT(ASC_TRACE_KIND_BOUNDS, "the loop step is zero"); return 0; }
    if (step > 0)
        return start >= stop ? 0 : (static_cast<uint64_t>(stop) - static_cast<uint64_t>(start) - 1) /
                                       static_cast<uint64_t>(step) + 1;
    return start <= stop ? 0 : (static_cast<uint64_t>(start) - static_cast<uint64_t>(stop) - 1) /
                                    (0ULL - static_cast<uint64_t>(step)) + 1;
}
#endif  // ASC_TRACE_PRELUDE_H
