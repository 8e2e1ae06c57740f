// asc_trace's host model of the element-wise activations of the high-level API (include/adv_api/activation:
// Gelu, FasterGelu, Silu, Sigmoid), included by kernel_operator.h. Each is the vendor's A2 sequence of
// vector instructions (graph/ops/adv_activation.py, which the simulator runs), applied per element with the
// basic ops' own models (asc_trace_numerics.h: every step rounds to T, exp goes through float64 and rounds
// once), so a call gives the simulator's bits. The shared temporary buffer is accepted and left untouched:
// the model needs no scratch, and what the vendor leaves in it is unspecified.
#pragma once

#define ASC_TRACE_ADV_TMP_MIN(need, name, helper) (AscendC::detail::adv_tmp_min() = AscendC::detail::AdvTmpMin{need, name, helper})

namespace AscendC {
namespace detail {
// The vendor's minimum temporary buffer of the next adv call (set by the cpp backend's instrumentation,
// runtime/cpp.py adv_tmp_minimums, when it is known while tracing): the call refuses a smaller buffer before
// writing anything, as sim and eager do (UBOverflowError). The model itself uses no scratch.
struct AdvTmpMin {
    uint32_t need = 0;
    const char* name = "";
    const char* helper = "";
};
inline AdvTmpMin& adv_tmp_min()
{
    static thread_local AdvTmpMin m;
    return m;
}
inline void check_tmp(const LocalTensor<uint8_t>& tmp)
{
    AdvTmpMin m = adv_tmp_min();
    adv_tmp_min() = AdvTmpMin{};
    if (m.need != 0 && tmp.GetSize() < m.need)
        fail("ub", "the temporary buffer of asc.adv.%s holds %u bytes; the call needs at least %u (the vendor's "
             "minimum for this size and type, %s)", m.name, tmp.GetSize(), m.need, m.helper);
}
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
        detail::check_tmp(tmp);                                                                                             \
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
// reglu_common_impl.h: src0 * max(src1, 0) in float (half widened, narrowed with CAST_NONE)
template <typename T> inline T reglu_(T a, T b)
{
    return narrow_<T>(wrap_mul(widen_(a), max_(widen_(b), 0.0f)));
}
// swish_common_impl.h SwishCalcSimplified, in T: x / (exp(x * T(-1.0f * beta)) + 1)
template <typename T> inline T swish_(T x, T beta)
{
    const T neg = cast1<T, float>(wrap_mul(-1.0f, widen_(beta)), NONE);
    return div(x, wrap_add(exp_(wrap_mul(x, neg)), coef<T>(1.0)));
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
    detail::check_tmp(tmp);
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
    detail::check_tmp(tmp);
    detail::binary_to(dst, src0, src1, count, [](T a, T b) { return detail::geglu_(a, b); });
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const uint32_t count)
{
    detail::binary_to(dst, src0, src1, count, [](T a, T b) { return detail::geglu_(a, b); });
}

template <typename T, bool isReuseSource = false>
inline void ReGlu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& tmp, const uint32_t count)
{
    detail::check_tmp(tmp);
    detail::binary_to(dst, src0, src1, count, [](T a, T b) { return detail::reglu_(a, b); });
}
template <typename T, bool isReuseSource = false>
inline void ReGlu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const uint32_t count)
{
    detail::binary_to(dst, src0, src1, count, [](T a, T b) { return detail::reglu_(a, b); });
}
template <typename T, bool isReuseSource = false>
inline void Swish(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, const T beta)
{
    detail::unary(dst, src, static_cast<int32_t>(count), [&](T a) { return detail::swish_(a, beta); });
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
    detail::check_tmp(tmp);
    detail::quant_all(dst, src, scale, offset, count);
}
template <typename T, bool isReuseSource = false, const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
inline void AscendQuant(const LocalTensor<int8_t>& dst, const LocalTensor<T>& src, const float scale,
                        const float offset, const uint32_t count)
{
    detail::quant_all(dst, src, scale, offset, count);
}
}  // namespace AscendC

// -- the row-wise calls: SoftMax, RmsNorm, LayerNorm ----------------------------------------------------
// Their tiling structs as the emitted kernel declares them (at global scope: CANN 8.1 declares them there,
// asc-devkit in AscendC::tiling with a global using). Only the fields the values depend on are read: the
// split the vendor's kernel takes from the rest changes where it computes, not what.
struct SoftMaxTiling {
    uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0, outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0,
             splitSize = 0, reduceM = 0, reduceK = 0, reduceSize = 0, rangeM = 0, tailM = 0, tailSplitSize = 0,
             tailReduceSize = 0;
};
struct LogSoftMaxTiling {
    uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0, outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0,
             splitSize = 0, reduceM = 0, reduceK = 0, reduceSize = 0, rangeM = 0, tailM = 0, tailSplitSize = 0,
             tailReduceSize = 0;
};
struct RmsNormTiling {
    uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0;
    float reciprocalOfHLength = 0.0f;
    uint32_t mainBshLength = 0, mainBsLength = 0, mainBsLengthAlign = 0, loopRound = 0, inputTailPos = 0,
             tailBshLength = 0, tailBsLength = 0;
};
struct LayerNormTiling {
    uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0, inputXSize = 0, meanVarSize = 0,
             numberOfTmpBuf = 0, meanTmpTensorPos = 0, meanTmpTensorSize = 0, varianceTmpTensorPos = 0,
             varianceTmpTensorSize = 0, tmpBufSize = 0, oneTmpSize = 0, firstTmpStartPos = 0, secondTmpStartPos = 0,
             thirdTmpStartPos = 0, loopRound = 0, inputRoundSize = 0, inputTailSize = 0, inputTailPos = 0,
             meanVarRoundSize = 0, meanVarTailSize = 0, meanVarTailPos = 0, bshCurLength = 0, bsCurLength = 0;
    float lastDimValueBack = 0.0f;
};

namespace AscendC {
struct SoftMaxShapeInfo {
    uint32_t srcM = 0, srcK = 0, oriSrcM = 0, oriSrcK = 0;
};

namespace detail {
constexpr uint32_t FLOAT_REPEAT = 64;       // floats in one 256-byte repeat
constexpr uint32_t FLOAT_BLOCK = 8;         // floats in one 32-byte block

template <typename T> inline std::vector<float> widen_row(const T* p, uint32_t n)
{
    std::vector<float> out(n);
    for (uint32_t i = 0; i < n; ++i) out[i] = widen_(p[i]);
    return out;
}

// the row max (np.max: a NaN wins; the first of equal values is kept, so a row whose max is +0.0 and -0.0
// at once may keep the other zero than NumPy's reduction does)
inline float row_max_(const float* x, uint32_t n)
{
    float best = x[0];
    for (uint32_t i = 0; i < n; ++i) {
        if (std::isnan(x[i])) return x[i];
        if (x[i] > best) best = x[i];
    }
    return best;
}

// NewReduceSumLastNDImpl (v220), graph/ops/adv_norm.py softmax_row_sum: the 64-float blocks added onto the
// first in turn, the tail onto its first lanes, then BlockReduceSum 64 -> 8 -> 1; a row below 64 or from 512
// floats on is one repeat-wise tree
inline float softmax_row_sum_(const std::vector<float>& e)
{
    const uint32_t k = static_cast<uint32_t>(e.size());
    if (k < FLOAT_REPEAT || k >= 512) return tree_sum(e, FLOAT_REPEAT);
    const uint32_t blocks = k / FLOAT_REPEAT;
    std::vector<float> acc(e.begin(), e.begin() + FLOAT_REPEAT);
    for (uint32_t b = 1; b < blocks; ++b)
        for (uint32_t i = 0; i < FLOAT_REPEAT; ++i) acc[i] = wrap_add(acc[i], e[b * FLOAT_REPEAT + i]);
    for (uint32_t i = 0; i < k - blocks * FLOAT_REPEAT; ++i) acc[i] = wrap_add(acc[i], e[blocks * FLOAT_REPEAT + i]);
    std::vector<float> eight(FLOAT_BLOCK);
    for (uint32_t b = 0; b < FLOAT_BLOCK; ++b)
        eight[b] = tree_sum(std::vector<float>(acc.begin() + b * FLOAT_BLOCK, acc.begin() + (b + 1) * FLOAT_BLOCK),
                            FLOAT_BLOCK);
    return tree_sum(eight, FLOAT_BLOCK);
}

// LayerNormReduceSumImpl: block b added onto block 0 (the block first: Add(dst, src[64], dst)), the tail onto
// the first lanes, one WholeReduceSum of the (up to) 64 lanes
inline float layernorm_row_sum_(const std::vector<float>& x)
{
    const uint32_t h = static_cast<uint32_t>(x.size());
    if (h <= FLOAT_REPEAT) return tree_sum(x, FLOAT_REPEAT);
    const uint32_t blocks = h / FLOAT_REPEAT;
    std::vector<float> acc(x.begin(), x.begin() + FLOAT_REPEAT);
    for (uint32_t b = 1; b < blocks; ++b)
        for (uint32_t i = 0; i < FLOAT_REPEAT; ++i) acc[i] = wrap_add(x[b * FLOAT_REPEAT + i], acc[i]);
    for (uint32_t i = 0; i < h - blocks * FLOAT_REPEAT; ++i) acc[i] = wrap_add(x[blocks * FLOAT_REPEAT + i], acc[i]);
    return tree_sum(acc, FLOAT_REPEAT);
}

// SoftMaxGenericNDImpl (graph/ops/adv_norm.py _softmax): in float; x - max; Exp; the row sum; x / sum; a half
// result narrowed with A2's CAST_ROUND; the row max and sum written over reduceK elements of each row
// `log`: LogSoftMax (logsoftmax_common_impl.h GenericLogNDImpl): then Ln and a Muls by 0.4342944819 (the
// vendor's log10 e: its LogSoftMax is log10 of the softmax)
template <typename T, typename U, typename Tiling>
inline void softmax_(const LocalTensor<T>& dst, const LocalTensor<U>& sum, const LocalTensor<U>& max,
                     const LocalTensor<T>& src, const Tiling& tiling, const SoftMaxShapeInfo& shape, bool log = false)
{
    const uint32_t m = shape.srcM, k = shape.srcK;
    if (m == 0 || k == 0) return;
    // reduceK: the host tiling's from sizeof(T); a zero tiling is recomputed in the kernel from sizeof(U)
    const uint32_t width = (tiling.srcM != 0 && tiling.srcK != 0) ? 32 / sizeof(T) : 32 / sizeof(U);
    const T* ps = src.span(m * k, "src");
    T* pd = dst.span(m * k, "dst");
    U* psum = sum.span(m * width, "sum");
    U* pmax = max.span(m * width, "max");
    const int narrow = std::is_same<T, half>::value ? ROUND : NONE;
    const int narrow_stat = std::is_same<U, half>::value ? ROUND : NONE;
    std::vector<T> out(static_cast<size_t>(m) * k);
    std::vector<U> sums(static_cast<size_t>(m) * width), maxes(static_cast<size_t>(m) * width);
    for (uint32_t r = 0; r < m; ++r) {
        std::vector<float> w = widen_row(ps + static_cast<size_t>(r) * k, k);
        const float mx = row_max_(w.data(), k);
        for (auto& v : w) v = exp_(wrap_sub(v, mx));
        const float s = softmax_row_sum_(w);
        for (uint32_t i = 0; i < k; ++i) {
            float y = div(w[i], s);
            if (log) y = wrap_mul(ln_(y), coef<float>(0.4342944819));
            out[static_cast<size_t>(r) * k + i] = cast1<T, float>(y, narrow);
        }
        for (uint32_t j = 0; j < width; ++j) {
            sums[static_cast<size_t>(r) * width + j] = cast1<U, float>(s, narrow_stat);
            maxes[static_cast<size_t>(r) * width + j] = cast1<U, float>(mx, narrow_stat);
        }
    }
    std::memcpy(pd, out.data(), out.size() * sizeof(T));
    std::memcpy(psum, sums.data(), sums.size() * sizeof(U));
    std::memcpy(pmax, maxes.data(), maxes.size() * sizeof(U));
}

// RmsNormCompute (graph/ops/adv_norm.py _rmsnorm): in float; the sum of the first originalHLength squares of
// a row (RepeatReduceSum levels); * reciprocalOfHLength; + epsilon; exp(-0.5 ln(.)); x * that * gamma
template <typename T>
inline void rmsnorm_(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma, T epsilon,
                     const ::RmsNormTiling& t)
{
    const uint32_t rows = t.bLength * t.sLength, h = t.hLength, oh = t.originalHLength;
    if (rows == 0 || h == 0) return;
    const T* ps = src.span(rows * h, "src");
    const T* pg = gamma.span(h, "gamma");
    T* pd = dst.span(rows * h, "dst");
    const std::vector<float> g = widen_row(pg, h);
    const float eps = widen_(epsilon);
    std::vector<T> out(static_cast<size_t>(rows) * h);
    for (uint32_t r = 0; r < rows; ++r) {
        const std::vector<float> x = widen_row(ps + static_cast<size_t>(r) * h, h);
        std::vector<float> sq(oh);
        for (uint32_t i = 0; i < oh; ++i) sq[i] = wrap_mul(x[i], x[i]);
        const float v = wrap_add(wrap_mul(tree_sum(sq, FLOAT_REPEAT), t.reciprocalOfHLength), eps);
        const float f = exp_(wrap_mul(ln_(v), -0.5f));
        for (uint32_t i = 0; i < h; ++i)
            out[static_cast<size_t>(r) * h + i] = narrow_<T>(wrap_mul(wrap_mul(x[i], f), g[i]));
    }
    std::memcpy(pd, out.data(), out.size() * sizeof(T));
}

// LayerNormExe (graph/ops/adv_norm.py / adv_layernorm.py _layernorm): in float; mean of x * (1 / originalH);
// d = x - mean; variance of d * d * (1 / originalH); y = 1 / sqrt(variance + epsilon) * d * gamma + beta
template <typename T>
inline void layernorm_(const LocalTensor<T>& dst, const LocalTensor<T>& mean, const LocalTensor<T>& variance,
                       const LocalTensor<T>& src, const LocalTensor<T>& gamma, const LocalTensor<T>& beta, T epsilon,
                       const ::LayerNormTiling& t)
{
    const uint32_t rows = t.bLength * t.sLength, h = t.hLength;
    if (rows == 0 || h == 0) return;
    const T* ps = src.span(rows * h, "inputX");
    const std::vector<float> g = widen_row(gamma.span(h, "gamma"), h), be = widen_row(beta.span(h, "beta"), h);
    T* pd = dst.span(rows * h, "output");
    T* pm = mean.span(rows, "outputMean");
    T* pv = variance.span(rows, "outputVariance");
    const float inv = t.lastDimValueBack, eps = widen_(epsilon);
    std::vector<T> out(static_cast<size_t>(rows) * h), means(rows), vars(rows);
    for (uint32_t r = 0; r < rows; ++r) {
        const std::vector<float> x = widen_row(ps + static_cast<size_t>(r) * h, h);
        std::vector<float> tmp(h), d(h);
        for (uint32_t i = 0; i < h; ++i) tmp[i] = wrap_mul(x[i], inv);
        const float mu = layernorm_row_sum_(tmp);
        for (uint32_t i = 0; i < h; ++i) {
            d[i] = wrap_sub(x[i], mu);
            tmp[i] = wrap_mul(wrap_mul(d[i], d[i]), inv);
        }
        const float var = layernorm_row_sum_(tmp);
        const float rs = div(1.0f, sqrt_(wrap_add(var, eps)));
        for (uint32_t i = 0; i < h; ++i)
            out[static_cast<size_t>(r) * h + i] = narrow_<T>(wrap_add(wrap_mul(wrap_mul(rs, d[i]), g[i]), be[i]));
        means[r] = narrow_<T>(mu);
        vars[r] = narrow_<T>(var);
    }
    std::memcpy(pd, out.data(), out.size() * sizeof(T));
    std::memcpy(pm, means.data(), means.size() * sizeof(T));
    std::memcpy(pv, vars.data(), vars.size() * sizeof(T));
}
}  // namespace detail

// the vendor's overloads, with and without the shared temporary buffer (the model needs no scratch); the
// statistics' type U is deduced (T, or float with a half source)
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          typename U = T>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<U>& sum, const LocalTensor<U>& max,
                    const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp, const ::SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& shape)
{
    detail::check_tmp(tmp);
    detail::softmax_(dst, sum, max, src, tiling, shape);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          typename U = T>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<U>& sum, const LocalTensor<U>& max,
                    const LocalTensor<T>& src, const ::SoftMaxTiling& tiling, const SoftMaxShapeInfo& shape)
{
    detail::softmax_(dst, sum, max, src, tiling, shape);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false, typename U = T>
inline void LogSoftMax(const LocalTensor<T>& dst, const LocalTensor<U>& sum, const LocalTensor<U>& max,
                       const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp, const ::LogSoftMaxTiling& tiling,
                       const SoftMaxShapeInfo& shape)
{
    detail::check_tmp(tmp);
    detail::softmax_(dst, sum, max, src, tiling, shape, true);
}

namespace detail {
// SimpleSoftMaxGenericNDImpl (graph/ops/adv_simple_softmax.py): in float, (exp(x - max) / sum), narrowed with
// CAST_ROUND; lane j of row r reads the statistics at the row's start + j % 8 (one 32-byte block repeated);
// a row's start: reduceK a row, except on the half-src / float-stat path with a filled tiling, which advances
// between splits by reduceM x 8 floats (the vendor's code, as sim models it)
template <typename T, typename U>
inline void simple_softmax_(const LocalTensor<T>& dst, const LocalTensor<U>& sum, const LocalTensor<U>& max,
                            const LocalTensor<T>& src, const ::SoftMaxTiling& t, const SoftMaxShapeInfo& shape)
{
    const uint32_t m = shape.srcM, k = shape.srcK;
    if (m == 0 || k == 0) return;
    const bool filled = t.srcM == m && t.srcK == k;
    const uint32_t rk = filled ? 32 / sizeof(T) : 32 / sizeof(U);
    const bool half_float = sizeof(T) == 2 && sizeof(U) == 4;
    std::vector<uint32_t> start(m);
    for (uint32_t r = 0; r < m; ++r)
        start[r] = (filled && half_float && t.splitM != 0) ? (r / t.splitM) * t.reduceM * FLOAT_BLOCK + (r % t.splitM) * rk
                                                           : r * rk;
    const uint32_t stat_n = start[m - 1] + rk;
    const U* ps_sum = sum.span(stat_n, "sumTensor");
    const U* ps_max = max.span(stat_n, "maxTensor");
    const T* ps = src.span(m * k, "srcTensor");
    T* pd = dst.span(m * k, "dstTensor");
    const int narrow = std::is_same<T, half>::value ? ROUND : NONE;
    std::vector<T> out(static_cast<size_t>(m) * k);
    for (uint32_t r = 0; r < m; ++r)
        for (uint32_t j = 0; j < k; ++j) {
            const uint32_t at = start[r] + j % FLOAT_BLOCK;
            const float x = widen_(ps[static_cast<size_t>(r) * k + j]);
            const float y = div(exp_(wrap_sub(x, widen_(ps_max[at]))), widen_(ps_sum[at]));
            out[static_cast<size_t>(r) * k + j] = cast1<T, float>(y, narrow);
        }
    std::memcpy(pd, out.data(), out.size() * sizeof(T));
}
}  // namespace detail
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          typename U = T>
inline void SimpleSoftMax(const LocalTensor<T>& dst, const LocalTensor<U>& sum, const LocalTensor<U>& max,
                          const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp, const ::SoftMaxTiling& tiling,
                          const SoftMaxShapeInfo& shape)
{
    detail::check_tmp(tmp);
    detail::simple_softmax_(dst, sum, max, src, tiling, shape);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          typename U = T>
inline void SimpleSoftMax(const LocalTensor<T>& dst, const LocalTensor<U>& sum, const LocalTensor<U>& max,
                          const LocalTensor<T>& src, const ::SoftMaxTiling& tiling, const SoftMaxShapeInfo& shape)
{
    detail::simple_softmax_(dst, sum, max, src, tiling, shape);
}
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma,
                    const LocalTensor<uint8_t>& tmp, const T epsilon, const ::RmsNormTiling& tiling)
{
    detail::check_tmp(tmp);
    detail::rmsnorm_(dst, src, gamma, epsilon, tiling);
}
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma,
                    const T epsilon, const ::RmsNormTiling& tiling)
{
    detail::rmsnorm_(dst, src, gamma, epsilon, tiling);
}
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& dst, const LocalTensor<T>& mean, const LocalTensor<T>& variance,
                      const LocalTensor<T>& src, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                      const LocalTensor<uint8_t>& tmp, const T epsilon, ::LayerNormTiling& tiling)
{
    detail::check_tmp(tmp);
    detail::layernorm_(dst, mean, variance, src, gamma, beta, epsilon, tiling);
}
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& dst, const LocalTensor<T>& mean, const LocalTensor<T>& variance,
                      const LocalTensor<T>& src, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                      const T epsilon, ::LayerNormTiling& tiling)
{
    detail::layernorm_(dst, mean, variance, src, gamma, beta, epsilon, tiling);
}
// -- AscendDequant (ascend_dequant_common_impl.h, graph/ops/adv_dequant.py) ---------------------------------
enum class DeQuantMode { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW };
struct DequantParams {
    uint32_t m;
    uint32_t n;
    uint32_t calCount;
};

namespace detail {
template <typename S> inline float dequant_scale_(S v)
{
    if constexpr (std::is_same<S, uint64_t>::value) {     // GatherMask of the even words: the low 32 bits as a float
        const uint32_t low = static_cast<uint32_t>(v & 0xFFFFFFFFull);
        float f;
        std::memcpy(&f, &low, 4);
        return f;
    } else {
        return static_cast<float>(v);                       // float as it is, bfloat16 widened (exact)
    }
}

// CastSrc (int32 -> float), DequantMul (only the first calCount columns of each row of n: the vendor's
// behaviour), CastDst (float: Adds 0, half: CAST_NONE, bfloat16: CAST_RINT), row r of n written at r x pitch,
// the pitch n rounded up to a 32-byte block of dst. `scale` null: the scalar form's one value.
template <typename D, typename S>
inline void dequant_(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>* scale,
                     float scalar, uint32_t m, uint32_t n, uint32_t cal, uint32_t total, bool single_row)
{
    const uint32_t per = 32 / sizeof(D);
    if (single_row && m == 1 && cal % per == 0 && n % cal == 0) {   // UpdateDequantParams
        m = n / cal;
        n = cal;
    }
    if (total == 0 || n == 0) return;
    const uint32_t pitch = (n + per - 1) / per * per;
    const uint32_t last = total - 1;
    const int32_t* ps = src.span(total, "srcTensor");
    D* pd = dst.span(last / n * pitch + last % n + 1, "dstTensor");
    std::vector<float> sc(cal, scalar);
    if (scale != nullptr) {
        const S* pc = scale->span(cal, "deqScale");
        for (uint32_t j = 0; j < cal; ++j) sc[j] = dequant_scale_(pc[j]);
    }
    for (uint32_t i = 0; i < total; ++i) {
        const uint32_t col = i % n;
        float f = cast1<float, int32_t>(ps[i], NONE);
        if (col < cal) f = f * sc[col];
        D y;
        if constexpr (std::is_same<D, float>::value) y = wrap_add(f, 0.0f);
        else if constexpr (std::is_same<D, bfloat16_t>::value) y = cast1<D, float>(f, RINT);
        else y = cast1<D, float>(f, NONE);
        pd[i / n * pitch + col] = y;
    }
}
}  // namespace detail

#define ASC_MODEL_DEQUANT_TEMPLATE                                                                             \
    template <typename D, typename S, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
#define ASC_MODEL_SINGLE (mode == DeQuantMode::DEQUANT_WITH_SINGLE_ROW)
// the vendor's overloads: DequantParams; calCount (the scales are deqScale.GetSize() columns); all of src; and
// a scalar scale with DequantParams, each with or without the shared temporary buffer (unused here)
ASC_MODEL_DEQUANT_TEMPLATE
inline void AscendDequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>& deqScale,
                          const LocalTensor<uint8_t>& tmp, DequantParams p)
{
    detail::check_tmp(tmp);
    detail::dequant_(dst, src, &deqScale, 0.0f, p.m, p.n, p.calCount, p.m * p.n, ASC_MODEL_SINGLE);
}
ASC_MODEL_DEQUANT_TEMPLATE
inline void AscendDequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>& deqScale,
                          DequantParams p)
{
    detail::dequant_(dst, src, &deqScale, 0.0f, p.m, p.n, p.calCount, p.m * p.n, ASC_MODEL_SINGLE);
}
ASC_MODEL_DEQUANT_TEMPLATE
inline void AscendDequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>& deqScale,
                          const LocalTensor<uint8_t>& tmp, const uint32_t calCount)
{
    detail::check_tmp(tmp);
    const uint32_t n = deqScale.GetSize();
    detail::dequant_(dst, src, &deqScale, 0.0f, src.GetSize() / n, n, n, calCount, ASC_MODEL_SINGLE);
}
ASC_MODEL_DEQUANT_TEMPLATE
inline void AscendDequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>& deqScale,
                          const uint32_t calCount)
{
    const uint32_t n = deqScale.GetSize();
    detail::dequant_(dst, src, &deqScale, 0.0f, src.GetSize() / n, n, n, calCount, ASC_MODEL_SINGLE);
}
ASC_MODEL_DEQUANT_TEMPLATE
inline void AscendDequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>& deqScale,
                          const LocalTensor<uint8_t>& tmp)
{
    detail::check_tmp(tmp);
    const uint32_t n = deqScale.GetSize();
    detail::dequant_(dst, src, &deqScale, 0.0f, src.GetSize() / n, n, n, src.GetSize(), ASC_MODEL_SINGLE);
}
ASC_MODEL_DEQUANT_TEMPLATE
inline void AscendDequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>& deqScale)
{
    const uint32_t n = deqScale.GetSize();
    detail::dequant_(dst, src, &deqScale, 0.0f, src.GetSize() / n, n, n, src.GetSize(), ASC_MODEL_SINGLE);
}
ASC_MODEL_DEQUANT_TEMPLATE
inline void AscendDequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const S deqScale,
                          const LocalTensor<uint8_t>& tmp, DequantParams p)
{
    detail::check_tmp(tmp);
    detail::dequant_<D, S>(dst, src, nullptr, static_cast<float>(deqScale), p.m, p.n, p.calCount, p.m * p.n,
                           ASC_MODEL_SINGLE);
}
ASC_MODEL_DEQUANT_TEMPLATE
inline void AscendDequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const S deqScale, DequantParams p)
{
    detail::dequant_<D, S>(dst, src, nullptr, static_cast<float>(deqScale), p.m, p.n, p.calCount, p.m * p.n,
                           ASC_MODEL_SINGLE);
}
#undef ASC_MODEL_SINGLE
#undef ASC_MODEL_DEQUANT_TEMPLATE
// -- Sum and Mean (sum_common_impl.h, mean_common_impl.h; graph/ops/adv_reduce.py) --------------------------
struct SumParams {
    uint32_t outter;
    uint32_t inner;
    uint32_t n;
};
struct MeanParams {
    uint32_t outter;
    uint32_t inner;
    uint32_t n;
};
namespace detail {
// per row (rows `inner` apart, the first n read): RepeatReduceSum levels in A; Mean then * (1.0f / n) as an
// A, or (half source, float accumulator) in float, narrowed with CAST_NONE
template <typename T, typename A, bool is_mean>
inline void reduce_rows_(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t outter, uint32_t inner,
                         uint32_t n)
{
    if (outter == 0 || n == 0) return;
    const T* ps = src.span((outter - 1) * inner + n, "srcTensor");
    T* pd = dst.span(outter, "dstTensor");
    const float inv = 1.0f / static_cast<float>(n);
    std::vector<T> out(outter);
    for (uint32_t r = 0; r < outter; ++r) {
        std::vector<A> row(n);
        for (uint32_t i = 0; i < n; ++i) row[i] = cast1<A, T>(ps[static_cast<size_t>(r) * inner + i], NONE);
        const A sum = tree_sum(row, 256 / sizeof(A));
        if constexpr (!is_mean) out[r] = cast1<T, A>(sum, NONE);
        else out[r] = cast1<T, A>(wrap_mul(sum, cast1<A, float>(inv, NONE)), NONE);
    }
    std::memcpy(pd, out.data(), out.size() * sizeof(T));
}
}  // namespace detail
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                const SumParams& p)
{
    detail::check_tmp(tmp);
    detail::reduce_rows_<T, T, false>(dst, src, p.outter, p.inner, p.n);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& p)
{
    detail::reduce_rows_<T, T, false>(dst, src, p.outter, p.inner, p.n);
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                 const MeanParams& p)
{
    detail::check_tmp(tmp);
    detail::reduce_rows_<T, accType, true>(dst, src, p.outter, p.inner, p.n);
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dst, const LocalTensor<T>& src, const MeanParams& p)
{
    detail::reduce_rows_<T, accType, true>(dst, src, p.outter, p.inner, p.n);
}
}  // namespace AscendC
