// asc_trace's host model of the element-wise activations of the high-level API (include/adv_api/activation:
// Gelu, FasterGelu, Silu, Sigmoid), included by kernel_operator.h. Each is the vendor's A2 sequence of
// vector instructions (graph/ops/adv_activation.py, which the simulator runs), applied per element with the
// basic ops' own models (asc_trace_numerics.h: every step rounds to T, exp goes through float64 and rounds
// once), so a call gives the simulator's bits. The shared temporary buffer is accepted and left untouched:
// the model needs no scratch, and what the vendor leaves in it is unspecified.
#pragma once

namespace AscendC {
namespace detail {
// a coefficient as the vendor's `const T` (rounded once from the decimal, as NumPy's asarray(v, dtype))
template <typename T> inline T coef(double v) { return from_double<T>(v); }

template <typename T> inline T gelu_(T x)
{
    // gelu_impl.h GeluCalcSimplifiedAvoid: y = 1.5957691216057308 (x + 0.044715 x^3); x / (exp(-|y|) + 1) * exp(min(y, 0))
    T a = wrap_mul(x, x);
    T b = wrap_mul(x, a);
    a = wrap_mul(b, coef<T>(0.044715));
    b = wrap_add(x, a);
    const T y = wrap_mul(b, coef<T>(1.5957691216057308));
    const T e = exp_(min_(y, coef<T>(0.0)));
    a = exp_(wrap_mul(abs_(y), coef<T>(-1.0)));
    a = div(x, wrap_add(a, coef<T>(1.0)));
    return wrap_mul(a, e);
}
template <typename T> inline T faster_gelu_(T x)
{
    // FastGeluCalcSimplified: x / (exp(-1.702 x) + 1)
    return div(x, wrap_add(exp_(wrap_mul(x, coef<T>(-1.702))), coef<T>(1.0)));
}
template <typename T> inline T silu_(T x)
{
    return div(x, wrap_add(exp_(wrap_mul(x, coef<T>(-1.0))), coef<T>(1.0)));
}
template <typename T> inline T sigmoid_(T x)
{
    return div(coef<T>(1.0), wrap_add(exp_(wrap_mul(x, coef<T>(-1.0))), coef<T>(1.0)));
}
}  // namespace detail

// the vendor's overloads (adv_api/activation/gelu.h, silu.h, sigmoid.h): with or without the shared
// temporary buffer; the template flags (highPrecision, highPerformance, isReuseSource) pick variants the
// front end does not emit, so they are accepted and have no effect here
#define ASC_MODEL_ADV_UNARY(NAME, FN)                                                                          \
    template <typename T, bool F1 = false, bool F2 = false>                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,   \
                     const uint32_t count)                                                                     \
    {                                                                                                          \
        (void)tmp;                                                                                             \
        detail::unary(dst, src, static_cast<int32_t>(count), [](T a) { return detail::FN(a); });             \
    }                                                                                                          \
    template <typename T, bool F1 = false, bool F2 = false>                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)              \
    {                                                                                                          \
        detail::unary(dst, src, static_cast<int32_t>(count), [](T a) { return detail::FN(a); });             \
    }
ASC_MODEL_ADV_UNARY(Gelu, gelu_)
ASC_MODEL_ADV_UNARY(FasterGelu, faster_gelu_)
ASC_MODEL_ADV_UNARY(Silu, silu_)
ASC_MODEL_ADV_UNARY(Sigmoid, sigmoid_)
#undef ASC_MODEL_ADV_UNARY
}  // namespace AscendC
