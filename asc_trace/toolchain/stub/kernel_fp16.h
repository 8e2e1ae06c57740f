// `half`: the AI Core's IEEE binary16, as a host class (CPU-debug stub layer, written by asc_trace).
// A distinct class, not an alias, so that an API scalar of another type fails deduction as on bisheng;
// conversions round to nearest, ties to even (asc_trace_float16.h).
#pragma once
#include "../include/asc_trace_float16.h"

class half {
public:
    uint16_t bits;
    half() = default;
    half(float f) : bits(asc_float16::float_to_half_bits(f)) {}
    operator float() const { return asc_float16::half_bits_to_float(bits); }
    float ToFloat() const { return static_cast<float>(*this); }
    static half FromBits(uint16_t b) { half h; h.bits = b; return h; }
};
static_assert(sizeof(half) == 2, "half is 2 bytes");
