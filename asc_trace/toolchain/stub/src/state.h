// Internal to the CPU-debug intrinsic model (src/*.cpp): the core's state and element access.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernel_bf16.h"
#include "kernel_fp16.h"
#include "../../include/asc_trace_numerics.h"
#include "../asc_stub.h"

namespace asc_stub {

constexpr uint64_t UB_USABLE = 192 * 1024 - 256;   // "at most 192 KB - 256 B is usable" (docs/facts.md#facts-1)
constexpr int PIPES = 16;

struct GmRange {
    uint8_t* lo;
    uint8_t* hi;
    std::string name;
};

struct State {
    uint8_t* ub = nullptr;
    uint64_t ub_bytes = 0;
    std::vector<GmRange> gm;
    int core = -1, core_num = 0, node = -1, gm_root = -1;
    std::map<int, std::pair<const uint8_t*, uint64_t>> windows;   // GlobalTensor node -> SetGlobalBuffer window
    Mask mask{false, ~0ull, ~0ull};
    uint64_t ctrl = 0;
    uint8_t cmpmask[16] = {};
    uint64_t acc = 0, max_min = 0, pad = 0;
    bool pad_set = false;   // the MTE2 padding register holds a value (set_mov_pad_val)
    int atomic_op = 0, atomic_type = 0;   // the store-atomic register (asc_stub.h set_atomic)
    uint8_t flags[PIPES][PIPES] = {};   // bit e: event e of (src pipe, dst pipe) is set
    struct Extent {
        const uint8_t* lo = nullptr;
        uint64_t bytes = 0;
    };
    // the LocalTensors the API's check saw for the instruction about to run: Brcb / Gather(b) (api_extents: dst,
    // src, offsets) or a mask / repeat form (vec_extents: dst, src0 in api_src, src1)
    Extent api_dst, api_src, api_off, api_src1;
    bool vendor_impl = false;     // asc_stub::vendor_impl: inside an adv call's own implementation
    const uint8_t* gather_src = nullptr;   // gather_source
};
State& S();

template <typename T> inline T load(const void* p)
{
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
template <typename T> inline void store(void* p, T v) { std::memcpy(p, &v, sizeof(T)); }

// The address of element `e` of repeat `r` of an operand of element size `size`
// (docs/facts.md#api-reduce-results: blocks of 32 bytes, `blk` blocks apart within a repeat, repeats `rep` blocks apart).
inline uint8_t* addr_of(const Operand& o, size_t size, uint32_t r, uint32_t e)
{
    const uint32_t per_block = static_cast<uint32_t>(32 / size);
    return static_cast<uint8_t*>(o.base) +
           (static_cast<uint64_t>(r) * o.rep + static_cast<uint64_t>(e / per_block) * o.blk) * 32 + (e % per_block) * size;
}

// Calls f(r, e) for every element the vector mask enables: in normal mode element e of each of
// `repeat` repeats of `per` elements when its mask bit is set, in counter mode the first
// `mask.lo` elements, `per` to a repeat (the repeat argument is ignored then).
template <typename F> inline void for_active(uint32_t per, uint32_t repeat, F&& f)
{
    const Mask& m = S().mask;
    if (m.counter) {
        // a count of more elements than the UB holds reaches past it whatever the strides; refused before the walk,
        // which a count of 2^64-1 (SetMask(len) with len >= 64) would never finish with a repeat stride of 0
        if (m.lo > UB_USABLE / 256 * per)
            fail("bounds", "counter mode: the mask register's count %llu is more elements than the UB holds (%llu)",
                 static_cast<unsigned long long>(m.lo), static_cast<unsigned long long>(UB_USABLE / 256 * per));
        for (uint64_t k = 0; k < m.lo; ++k) f(static_cast<uint32_t>(k / per), static_cast<uint32_t>(k % per));
        return;
    }
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t e = 0; e < per; ++e)
            if (e < 128 && (((e < 64 ? m.lo : m.hi) >> (e % 64)) & 1u)) f(r, e);
}

// Repeats the mask covers: `repeat` in normal mode, ceil(count / per) in counter mode.
inline uint32_t repeats_of(uint32_t per, uint32_t repeat)
{
    const Mask& m = S().mask;
    return m.counter ? static_cast<uint32_t>((m.lo + per - 1) / per) : repeat;
}

// Calls fn<T>() with T the host type of `dt`.
template <typename F> inline void by_type(DT dt, F&& fn)
{
    switch (dt) {
        case DT::F16: fn(half()); break;
        case DT::BF16: fn(bfloat16_t()); break;
        case DT::F32: fn(float()); break;
        case DT::S8: fn(int8_t()); break;
        case DT::U8: fn(uint8_t()); break;
        case DT::S16: fn(int16_t()); break;
        case DT::U16: fn(uint16_t()); break;
        case DT::S32: fn(int32_t()); break;
        case DT::U32: fn(uint32_t()); break;
        case DT::S64: fn(int64_t()); break;
        case DT::U64: fn(uint64_t()); break;
    }
}

}  // namespace asc_stub
