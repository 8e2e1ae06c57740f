// `bfloat16_t` as a host class (CPU-debug stub layer, written by asc_trace): the top 16 bits of a
// float, converted with round to nearest, ties to even (asc_trace_float16.h).
#pragma once
#include "../include/asc_trace_float16.h"

class bfloat16_t {
public:
    uint16_t bits;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(asc_float16::float_to_bf16_bits(f)) {}
    operator float() const { return asc_float16::bf16_bits_to_float(bits); }
    float ToFloat() const { return static_cast<float>(*this); }
    static bfloat16_t FromBits(uint16_t b) { bfloat16_t h; h.bits = b; return h; }
};
static_assert(sizeof(bfloat16_t) == 2, "bfloat16_t is 2 bytes");
