// Bit-exact IEEE binary16 and bfloat16 conversions (round to nearest, ties to even), shared by the
// two host builds of the emitted Ascend C: asc_trace's API model (kernel_operator.h) and the
// CPU-debug stub layer under the real headers (stub/kernel_fp16.h, stub/kernel_bf16.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace asc_float16 {
inline uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline uint16_t float_to_half_bits(float f)
{
    uint32_t x = f2u(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xFFu;
    uint32_t mant = x & 0x7FFFFFu;
    if (exp == 0xFFu) {                                     // inf / nan (the payload's top bits are kept, quiet)
        if (mant == 0) return static_cast<uint16_t>(sign | 0x7C00u);
        return static_cast<uint16_t>(sign | 0x7C00u | 0x200u | (mant >> 13));
    }
    int32_t e = static_cast<int32_t>(exp) - 127 + 15;
    if (e >= 0x1F) return static_cast<uint16_t>(sign | 0x7C00u);   // overflow -> inf
    if (e <= 0) {                                           // subnormal or zero
        if (e < -10) return static_cast<uint16_t>(sign);
        mant |= 0x800000u;
        uint32_t shift = static_cast<uint32_t>(14 - e);
        uint32_t half_mant = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half_mant & 1u))) half_mant++;
        return static_cast<uint16_t>(sign | half_mant);
    }
    uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) half++;   // may carry into the exponent: fine
    return static_cast<uint16_t>(half);
}

inline float half_bits_to_float(uint16_t h)
{
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    if (exp == 0) {
        if (mant == 0) return u2f(sign);
        float v = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -v : v;
    }
    if (exp == 0x1F) return u2f(sign | 0x7F800000u | (mant << 13));
    return u2f(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

inline uint16_t float_to_bf16_bits(float f)
{
    uint32_t x = f2u(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7FC0u);
    uint32_t low = x & 0xFFFFu;
    uint32_t high = x >> 16;
    if (low > 0x8000u || (low == 0x8000u && (high & 1u))) high++;
    return static_cast<uint16_t>(high);
}

inline float bf16_bits_to_float(uint16_t b) { return u2f(static_cast<uint32_t>(b) << 16); }
}  // namespace asc_float16
