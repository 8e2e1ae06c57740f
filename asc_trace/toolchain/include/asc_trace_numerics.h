// The element arithmetic of the host builds of the emitted Ascend C, shared by asc_trace's API model
// (kernel_operator.h) and the CPU-debug intrinsic model (stub/): the same definitions as the simulator
// (asc_trace/graph/numerics.py, runtime/executors_ops.py), so that every CPU backend gives the same bits.
// Include after the host `half` and `bfloat16_t` classes are defined.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "asc_trace_float16.h"

namespace asc_num {
// RoundMode values (CAST_NONE .. CAST_ODD), as the API numbers them.
enum Round : int { NONE = 0, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD };
using namespace asc_float16;

template <typename T> struct Calc { using type = T; };
template <> struct Calc<half> { using type = float; };
template <> struct Calc<bfloat16_t> { using type = float; };
template <typename T> struct is_16bit_float : std::false_type {};
template <> struct is_16bit_float<half> : std::true_type {};
template <> struct is_16bit_float<bfloat16_t> : std::true_type {};

inline half half_of(uint16_t bits)
{
    half h;
    std::memcpy(&h, &bits, 2);
    return h;
}


// Float arithmetic with asc_trace's NaN rule (graph/scalar_ops.py first_nan): a NaN result is the
// first NaN operand's, quieted. Written out, because a compiler may swap the operands of + and *.
template <typename C, typename F> inline C nan_rule(C x, C y, F f)
{
    if (std::isnan(x)) return asc_float16::u2f(asc_float16::f2u(x) | 0x00400000u);
    if (std::isnan(y)) return asc_float16::u2f(asc_float16::f2u(y) | 0x00400000u);
    return f(x, y);
}
template <typename T, typename F> inline T arith(T a, T b, F f)
{
    if constexpr (std::is_integral<T>::value) {          // integers wrap
        using U = typename std::make_unsigned<T>::type;
        return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
    } else {
        using C = typename Calc<T>::type;
        return static_cast<T>(nan_rule(static_cast<C>(a), static_cast<C>(b), f));
    }
}
template <typename T> inline T wrap_add(T a, T b) { return arith(a, b, [](auto x, auto y) { return x + y; }); }
template <typename T> inline T wrap_sub(T a, T b) { return arith(a, b, [](auto x, auto y) { return x - y; }); }
template <typename T> inline T wrap_mul(T a, T b) { return arith(a, b, [](auto x, auto y) { return x * y; }); }
template <typename T> inline T div(T a, T b) { return arith(a, b, [](auto x, auto y) { return x / y; }); }
template <typename C> inline bool isnan_(C v)
{
    if constexpr (std::is_floating_point<C>::value) return std::isnan(v); else return false;
}
// IEEE 754-2019 maximum / minimum for floats (a NaN operand wins, the first if both; +0.0 above
// -0.0), plain max / min for integers: graph/numerics.py maximum / minimum
template <typename T> inline T max_(T a, T b)
{
    using C = typename Calc<T>::type;
    C x = static_cast<C>(a), y = static_cast<C>(b);
    if (isnan_(x)) return a;
    if (isnan_(y)) return b;
    if (x != y) return x > y ? a : b;
    if constexpr (std::is_floating_point<C>::value) return std::signbit(x) ? b : a;
    return a;
}
template <typename T> inline T min_(T a, T b)
{
    using C = typename Calc<T>::type;
    C x = static_cast<C>(a), y = static_cast<C>(b);
    if (isnan_(x)) return a;
    if (isnan_(y)) return b;
    if (x != y) return x < y ? a : b;
    if constexpr (std::is_floating_point<C>::value) return std::signbit(x) ? a : b;
    return a;
}
template <typename T> inline T abs_(T a)
{
    if constexpr (std::is_integral<T>::value) {
        return a < 0 ? wrap_sub(static_cast<T>(0), a) : a;
    } else {
        return static_cast<T>(std::fabs(static_cast<typename Calc<T>::type>(a)));
    }
}

// a float64 result rounded once to T (float: directly; half: through round-to-odd float, which keeps
// the rounding exact)
template <typename T> inline T from_double(double d)
{
    if constexpr (std::is_same<T, half>::value) {
        float f = static_cast<float>(d);
        if (std::isfinite(d) && static_cast<double>(f) != d) {
            float toward0 = std::fabs(static_cast<double>(f)) > std::fabs(d) ? std::nextafter(f, 0.0f) : f;
            uint32_t bits = asc_float16::f2u(toward0) | 1u;            // round to odd
            f = asc_float16::u2f(bits);
        }
        return half(f);
    } else {
        return static_cast<T>(d);
    }
}


template <typename T> inline T band(T a, T b) { return static_cast<T>(a & b); }
template <typename T> inline T bor(T a, T b) { return static_cast<T>(a | b); }
template <typename T> inline T bnot(T a) { return static_cast<T>(~a); }
template <typename T> inline T recip(T a)
{
    using C = typename Calc<T>::type;
    return static_cast<T>(static_cast<C>(1) / static_cast<C>(a));
}
template <typename T> inline T rsqrt(T a)
{
    using C = typename Calc<T>::type;
    T root = static_cast<T>(std::sqrt(static_cast<C>(a)));          // rounded to T, as NumPy does
    return static_cast<T>(static_cast<C>(1) / static_cast<C>(root));
}
template <typename T> inline T leaky(T a, T alpha)
{
    using C = typename Calc<T>::type;
    return static_cast<C>(a) >= static_cast<C>(0) ? a : wrap_mul(a, alpha);
}

template <typename T> inline double to_double(T v) { return static_cast<double>(static_cast<typename Calc<T>::type>(v)); }
template <typename T> inline T exp_(T a) { return from_double<T>(std::exp(to_double(a))); }
template <typename T> inline T ln_(T a) { return from_double<T>(std::log(to_double(a))); }
template <typename T> inline T sqrt_(T a) { return static_cast<T>(std::sqrt(static_cast<typename Calc<T>::type>(a))); }
template <typename T> inline T relu_(T a) { return max_(a, static_cast<T>(0)); }
// vshl: a logical left shift (bits past the top are lost); vshr: arithmetic for signed T, logical for
// unsigned. The shift is 0 .. bits-1 (the front end refuses others); integer types only.
template <typename T> inline T shl_(T a, T s)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<unsigned>(s)));
    } else {
        return a;
    }
}
template <typename T> inline T shr_(T a, T s)
{
    if constexpr (std::is_integral<T>::value) return static_cast<T>(a >> static_cast<unsigned>(s));
    else return a;
}
// CMPMODE LT, GT, EQ, LE, GE, NE (0..5), compared in the compute type (NaN compares unequal).
template <typename T> inline bool compare(int mode, T a, T b)
{
    using C = typename Calc<T>::type;
    const C x = static_cast<C>(a), y = static_cast<C>(b);
    switch (mode) {
        case 0: return x < y;
        case 1: return x > y;
        case 2: return x == y;
        case 3: return x <= y;
        case 4: return x >= y;
        default: return x != y;
    }
}
template <typename T, typename U> inline T axpy1(T d, U x, U s)
{
    U prod = wrap_mul(x, s);                                        // rounded to the source type
    return wrap_add(d, static_cast<T>(static_cast<typename Calc<U>::type>(prod)));
}


inline double integral(double x, int m)
{
    switch (m) {
        case FLOOR: return std::floor(x);
        case CEIL: return std::ceil(x);
        case TRUNC: return std::trunc(x);
        case ROUND: return x > 0 ? std::floor(x + 0.5) : (x < 0 ? -std::floor(-x + 0.5) : x);
        default: return std::nearbyint(x);
    }
}

inline uint16_t half_next(uint16_t h, bool up)
{
    if ((h & 0x7FFFu) > 0x7C00u) return h;                          // NaN
    if ((h & 0x7FFFu) == 0) return up ? 0x0001u : 0x8001u;
    bool positive = !(h & 0x8000u);
    return static_cast<uint16_t>(positive == up ? h + 1 : h - 1);
}

inline half round_to_half(double x, int m)
{
    uint16_t r = asc_float16::float_to_half_bits(static_cast<float>(x));  // x holds a float exactly: no double rounding
    if (m == NONE || m == RINT || std::isnan(x)) return half_of(r);
    double back = static_cast<double>(asc_float16::half_bits_to_float(r));
    uint16_t down = half_next(r, false), up = half_next(r, true);
    switch (m) {
        case FLOOR: return half_of(back > x ? down : r);
        case CEIL: return half_of(back < x ? up : r);
        case TRUNC: return half_of(std::fabs(back) > std::fabs(x) ? (x > 0 ? down : up) : r);
        default: break;
    }
    uint16_t lo = back > x ? down : r, hi = back < x ? up : r;
    double lo64 = asc_float16::half_bits_to_float(lo), hi64 = asc_float16::half_bits_to_float(hi);
    if (m == ROUND) {
        bool tie = (x - lo64) == (hi64 - x) && lo != hi;
        return half_of(tie ? (x > 0 ? hi : lo) : r);
    }
    // ODD
    if (back == x) return half_of(r);
    return half_of((lo & 1u) ? lo : hi);
}

inline float round_to_float(double x, int m)
{
    float r = static_cast<float>(x);
    if (m == NONE || m == RINT || std::isnan(x)) return r;
    double back = r;
    float down = std::nextafter(r, -INFINITY), up = std::nextafter(r, INFINITY);
    switch (m) {
        case FLOOR: return back > x ? down : r;
        case CEIL: return back < x ? up : r;
        case TRUNC: return std::fabs(back) > std::fabs(x) ? (x > 0 ? down : up) : r;
        default: break;
    }
    float lo = back > x ? down : r, hi = back < x ? up : r;
    if (m == ROUND) {
        bool tie = (x - static_cast<double>(lo)) == (static_cast<double>(hi) - x) && lo != hi;
        return tie ? (x > 0 ? hi : lo) : r;
    }
    if (back == x) return r;
    return (asc_float16::f2u(lo) & 1u) ? lo : hi;
}

inline bfloat16_t round_to_bf16(float f, int m)
{
    uint32_t bits = asc_float16::f2u(f);
    uint32_t low = bits & 0xFFFFu, high = bits >> 16, neg = bits >> 31;
    bool up = false;
    switch (m) {
        case ROUND: up = low >= 0x8000u; break;
        case TRUNC: up = false; break;
        case FLOOR: up = low != 0 && neg; break;
        case CEIL: up = low != 0 && !neg; break;
        case ODD: if (low != 0) high |= 1u; break;
        default: up = low > 0x8000u || (low == 0x8000u && (high & 1u)); break;
    }
    bfloat16_t out;
    out.bits = static_cast<uint16_t>(high + (up ? 1u : 0u));
    if (std::isnan(f)) out.bits = static_cast<uint16_t>(0x7FC0u | (neg << 15));
    return out;
}

template <typename I> inline I saturate(double x)
{
    if (std::isnan(x)) return 0;
    const double lo = static_cast<double>(std::numeric_limits<I>::min());
    const double hi = static_cast<double>(std::numeric_limits<I>::max());
    if (x <= lo) return std::numeric_limits<I>::min();
    if (x >= hi) return std::numeric_limits<I>::max();
    return static_cast<I>(x);
}

template <typename T, typename U> inline T cast1(U v, int m)
{
    constexpr bool src_float = std::is_floating_point<U>::value || is_16bit_float<U>::value;
    double x = to_double(v);
    if constexpr (std::is_same<T, bfloat16_t>::value) {
        return round_to_bf16(static_cast<float>(x), m == NONE ? RINT : m);
    } else if constexpr (std::is_same<T, half>::value) {
        return round_to_half(x, m);
    } else if constexpr (std::is_same<T, float>::value) {
        if (src_float && sizeof(T) >= sizeof(U) && m != NONE && !std::is_same<U, bfloat16_t>::value)
            return round_to_float(integral(x, m), RINT);        // float -> float: round to an integer
        return round_to_float(x, m);
    } else {
        return saturate<T>(src_float ? integral(x, m) : x);
    }
}

template <typename T> inline std::vector<T> fold_repeats(const std::vector<T>& in, size_t width)
{
    size_t reps = in.empty() ? 1 : (in.size() + width - 1) / width;
    std::vector<T> v(in);
    v.resize(reps * width, T(0));
    std::vector<T> out(reps);
    for (size_t r = 0; r < reps; ++r) {
        T* row = v.data() + r * width;
        for (size_t w = width / 2; w >= 1; w /= 2) {           // adjacent pairs, level by level
            for (size_t i = 0; i < w; ++i) row[i] = wrap_add(row[2 * i], row[2 * i + 1]);
            if (w == 1) break;
        }
        out[r] = row[0];
    }
    return out;
}
template <typename T> inline T tree_sum(std::vector<T> v, size_t width)
{
    while (true) {
        std::vector<T> out = fold_repeats(v, width);
        if (out.size() == 1) return out[0];
        v = out;
    }
}
template <typename T> inline T index_bits(uint32_t i)
{
    T out{};   // the index's low bytes (little-endian) in T's bits; whole reductions are half/float only
    std::memcpy(&out, &i, sizeof(T) < 4 ? sizeof(T) : 4);
    return out;
}
template <typename T> inline uint32_t pick(const T* a, uint32_t n, bool want_max)
{
    using C = typename Calc<T>::type;
    uint32_t best = 0;
    for (uint32_t i = 0; i < n; ++i) {
        C x = static_cast<C>(a[i]);
        if (isnan_(x)) return i;
        C y = static_cast<C>(a[best]);
        if (want_max ? x > y : x < y) best = i;
    }
    return best;
}

// Elements of dst one repeat's result of a whole reduction takes, also the unit of dstRepStride
// (ReduceRepeat docs, table 3): sum or value 1, value and index 2, the index alone a uint32.
inline uint32_t result_width(int kind, int order, size_t itemsize)
{
    if (kind == 0 || order == 2) return 1;
    if (order == 3) return static_cast<uint32_t>(4 / itemsize);
    return 2;
}

// One repeat of a whole reduction (kind 0 sum, 1 max, 2 min) over `per` positions, `on` the mask:
// the result written at `out` as the order places it (0 value-index, 1 index-value, 2 value, 3 index).
template <typename T> inline void repeat_result(T* out, const T* vals, const bool* on, uint32_t per, int kind, int order)
{
    std::vector<T> full(per, T(0)), picked;
    std::vector<uint32_t> where;
    for (uint32_t e = 0; e < per; ++e)
        if (on[e]) {
            full[e] = vals[e];
            picked.push_back(vals[e]);
            where.push_back(e);
        }
    if (kind == 0) {
        out[0] = tree_sum(full, per);
        return;
    }
    uint32_t k = pick(picked.data(), static_cast<uint32_t>(picked.size()), kind == 1);
    T value = picked[k], index = index_bits<T>(where[k]);
    switch (order) {
        case 0: out[0] = value; out[1] = index; break;
        case 1: out[0] = index; out[1] = value; break;
        case 2: out[0] = value; break;
        default: std::memcpy(out, &where[k], 4); break;
    }
}

// One GM -> UB row of DataCopyPad (docs: every row is filled up to 32 bytes): `n` elements of
// `elem` bytes land after `left` padding elements; the left and right pads and the dummy tail up to
// `row` elements take `pad` when it is given (isPad) and there are pads; with no pads the tail
// repeats the row's first element; otherwise they keep their bytes.
inline void pad_row(uint8_t* out, const uint8_t* data, uint32_t n, uint32_t elem, uint32_t left, uint32_t right,
                    uint32_t row, const uint8_t* pad)
{
    std::memmove(out + left * elem, data, static_cast<size_t>(n) * elem);
    if (left + right == 0) {
        for (uint32_t j = n; j < row; ++j) std::memmove(out + j * elem, out, elem);
        return;
    }
    if (pad == nullptr) return;
    for (uint32_t j = 0; j < row; ++j)
        if (j < left || j >= left + n) std::memcpy(out + j * elem, pad, elem);
}

}  // namespace asc_num
