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
// -- the gated activations and per-tensor quantisation (element-wise: one element's steps at a time) ------
namespace detail {
template <typename T> inline float widen_(T v) { return cast1<float, T>(v, NONE); }
template <typename T> inline T narrow_(float v) { return cast1<T, float>(v, NONE); }

// swiglu_common_impl.h: src0 * src1 / (exp(-beta src1) + 1), in float (half widened, narrowed with CAST_NONE)
template <typename T> inline T swiglu_(T a, T b, float beta)
{
    const float nb = wrap_mul(-1.0f, beta);
    const float x1 = widen_(b);
    float s = wrap_add(exp_(wrap_mul(x1, nb)), 1.0f);
    s = div(x1, s);
    return narrow_<T>(wrap_mul(widen_(a), s));
}
// geglu_common_impl.h GeGLUCompute: src0 * src1 / (exp((src1^2 + C1) src1 C0) + 1), in float
template <typename T> inline T geglu_(T a, T b)
{
    const float c0 = coef<float>(-0.0713548162726), c1 = coef<float>(2.2363860002236e1);
    const float x1 = widen_(b);
    float t = wrap_add(wrap_mul(x1, x1), c1);
    t = wrap_mul(wrap_mul(t, x1), c0);
    t = div(x1, wrap_add(exp_(t), 1.0f));
    return narrow_<T>(wrap_mul(widen_(a), t));
}
// ascend_quant_pre_impl.h AscendQuantIntrinsicsImpl: in half (a float source narrowed first), * scale,
// + offset, then Cast to int8 with CAST_NONE
template <typename T> inline int8_t quant_(T x, half scale, half offset)
{
    const half h = cast1<half, T>(x, NONE);
    return cast1<int8_t, half>(wrap_add(wrap_mul(h, scale), offset), NONE);
}

template <typename T, typename F>
inline void binary_to(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint32_t count, F f)
{
    if (count == 0) return;
    const T* pa = a.span(count, "src0");
    const T* pb = b.span(count, "src1");
    T* pd = dst.span(count, "dst");
    std::vector<T> out(count);
    for (uint32_t i = 0; i < count; ++i) out[i] = f(pa[i], pb[i]);
    std::memcpy(pd, out.data(), count * sizeof(T));
}
}  // namespace detail

template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                   const float& scalarValue, const LocalTensor<uint8_t>& tmp, const uint32_t count)
{
    (void)tmp;
    detail::binary_to(dst, src0, src1, count, [&](T a, T b) { return detail::swiglu_(a, b, scalarValue); });
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                   const float& scalarValue, const uint32_t count)
{
    detail::binary_to(dst, src0, src1, count, [&](T a, T b) { return detail::swiglu_(a, b, scalarValue); });
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& tmp, const uint32_t count)
{
    (void)tmp;
    detail::binary_to(dst, src0, src1, count, [](T a, T b) { return detail::geglu_(a, b); });
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const uint32_t count)
{
    detail::binary_to(dst, src0, src1, count, [](T a, T b) { return detail::geglu_(a, b); });
}

// the split the vendor's per-tensor AscendQuant takes (ascend_quant_utils.h); it changes no value
struct AscendQuantConfig {
    constexpr AscendQuantConfig(const uint32_t calc, const uint32_t offset, const uint32_t scale, const uint32_t work)
        : calcCount(calc), offsetCount(offset), scaleCount(scale), workLocalSize(work) {}
    uint32_t calcCount = 0;
    uint32_t offsetCount = 0;
    uint32_t scaleCount = 0;
    uint32_t workLocalSize = 0;
};
constexpr AscendQuantConfig ASCEND_QUANT_DEFAULT_CFG = {0, 0, 0, 0};

namespace detail {
template <typename T>
inline void quant_all(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src, float scale, float offset,
                      uint32_t count)
{
    if (count == 0) return;
    const T* ps = src.span(count, "src");
    int8_t* pd = dst.span(count, "dst");
    const half s = cast1<half, float>(scale, NONE), o = cast1<half, float>(offset, NONE);
    std::vector<int8_t> out(count);
    for (uint32_t i = 0; i < count; ++i) out[i] = quant_(ps[i], s, o);
    std::memcpy(pd, out.data(), count);
}
}  // namespace detail
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                        const float scale, const float offset, const uint32_t count)
{
    (void)tmp;
    detail::quant_all(dst, src, scale, offset, count);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src, const float scale,
                        const float offset, const uint32_t count)
{
    detail::quant_all(dst, src, scale, offset, count);
}
}  // namespace AscendC
