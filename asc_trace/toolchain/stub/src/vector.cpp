// The vector instructions (PIPE_V) under the CPU-debug stub layer: every element the vector mask
// enables, addressed by block and repeat strides, computed with asc_trace's element arithmetic
// (asc_trace_numerics.h, the definitions the simulator uses).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "state.h"

namespace asc_stub {
namespace {

using namespace asc_num;

template <typename T> T* at(const Operand& o, uint32_t r, uint32_t e, const char* what)
{
    uint8_t* p = addr_of(o, sizeof(T), r, e);
    check_ub(p, sizeof(T), 1, what);
    return reinterpret_cast<T*>(p);
}

void check_base(const Operand& o, const char* what) { check_ub(o.base, 0, 32, what); }

// The element each instruction computes: the op records' C++ expressions (graph/ops/cpp_model.py generates
// asc_stub_ops.h), for the dtypes each record supports. `d`: the destination's old value, which vmadd
// (dst = src0 * dst + src1), vmaddrelu and vmla (dst = src0 * src1 + dst) read.
template <typename T> T binary_op(VOp op, T a, T b, [[maybe_unused]] T d)
{
    if constexpr (std::is_integral<T>::value) {
        switch (op) { ASC_STUB_BINARY_INT_CASES default: break; }
    } else {
        switch (op) { ASC_STUB_BINARY_FLOAT_CASES default: break; }
    }
    fail("api", "the vector instruction %d does not apply to %s operands", static_cast<int>(op), "these");
}

template <typename T> T unary_op(VOp op, T a)
{
    if constexpr (std::is_integral<T>::value) {
        switch (op) { ASC_STUB_UNARY_INT_CASES default: break; }
    } else {
        switch (op) { ASC_STUB_UNARY_FLOAT_CASES default: break; }
    }
    fail("api", "the vector instruction %d does not apply to these operands", static_cast<int>(op));
}

template <typename T> T scalar_op(VOp op, T a, T s)
{
    if constexpr (std::is_integral<T>::value) {
        switch (op) { ASC_STUB_SCALAR_INT_CASES default: break; }
    } else {
        switch (op) { ASC_STUB_SCALAR_FLOAT_CASES default: break; }
    }
    fail("api", "the vector instruction %d does not take a scalar", static_cast<int>(op));
}

uint32_t per_repeat(DT a, DT b) { return static_cast<uint32_t>(256 / std::max(size_of(a), size_of(b))); }

// Forgets the extents of api_extents / vec_extents once the instruction they were for has run.
struct ExtentsUsed {
    ~ExtentsUsed() { S().api_dst = S().api_src = S().api_off = S().api_src1 = State::Extent{}; }
};

// The LocalTensor vec_extents gave for the operand named `what`, or null.
const State::Extent* tensor_of(const char* what)
{
    State& s = S();
    if (std::strcmp(what, "dst") == 0) return &s.api_dst;
    if (std::strcmp(what, "src0") == 0 || std::strcmp(what, "src") == 0) return &s.api_src;
    if (std::strcmp(what, "src1") == 0) return &s.api_src1;
    return nullptr;
}

// A mask / repeat form's operand must not reach past its LocalTensor, even inside the UB. Its reach is the
// simulator's: the last element any enabled lane of any repeat touches, placed by the block and repeat strides
// (runtime/executors_ops.py masked_index; here addr_of over for_active, the lanes the instruction then runs).
// Checked before any lane runs, so that a refused instruction writes nothing, as on the simulator.
// `every_lane`: the instruction reads each lane of each repeat whatever the mask (vcmpv / vcmpvs).
void check_reach(const Operand& o, uint32_t per, uint32_t repeat, const char* what, bool every_lane = false)
{
    const State::Extent* x = tensor_of(what);
    if (x == nullptr || x->lo == nullptr || x->lo != o.base) return;   // not given, or not this operand's tensor
    const size_t size = size_of(o.dt);
    uint64_t end = 0;
    const auto touch = [&](uint32_t r, uint32_t e) {
        end = std::max<uint64_t>(end, static_cast<uint64_t>(addr_of(o, size, r, e) - x->lo) + size);
    };
    const Mask& m = S().mask;
    if (every_lane && repeat > 0) {
        touch(repeat - 1, per - 1);     // the strides are not negative: the last lane of the last repeat is furthest
    } else if (!every_lane && m.counter) {
        // counter mode: elements 0 .. lo-1, `per` to a repeat. The strides are not negative, so the furthest is the
        // last lane of the last whole repeat or the last element; found without walking a count that may be 2^64-1
        // (a mask count n >= 64 sets lo to all ones through SetMask(len)) - walking it hung the kernel
        if (m.lo >= per) touch(static_cast<uint32_t>(std::min<uint64_t>(m.lo / per - 1, UINT32_MAX)), per - 1);
        if (m.lo % per != 0)
            touch(static_cast<uint32_t>(std::min<uint64_t>(m.lo / per, UINT32_MAX)),
                  static_cast<uint32_t>(m.lo % per - 1));
    } else if (!every_lane) {
        for_active(per, repeat, touch);
    }
    if (end > x->bytes)
        fail("bounds", "%s needs %llu x %s elements but its tensor has only %llu", what,
             static_cast<unsigned long long>(end / size), name_of(o.dt),
             static_cast<unsigned long long>(x->bytes / size));
}

}  // namespace

void vec_extents(const void* dst, uint64_t dst_bytes, const void* src0, uint64_t src0_bytes, const void* src1,
                 uint64_t src1_bytes)
{
    State& s = S();
    if (s.vendor_impl) {          // the vendor's own code: bounded by the UB, as its API checks do (asc_stub.h)
        s.api_dst = s.api_src = s.api_src1 = s.api_off = State::Extent{};
        return;
    }
    s.api_dst = {static_cast<const uint8_t*>(dst), dst_bytes};
    s.api_src = {static_cast<const uint8_t*>(src0), src0_bytes};
    s.api_src1 = {static_cast<const uint8_t*>(src1), src1_bytes};
    s.api_off = State::Extent{};
}

void vec_binary(VOp op, const Operand& dst, const Operand& a, const Operand& b, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(dst, "dst"), check_base(a, "src0"), check_base(b, "src1");
    const uint32_t per = static_cast<uint32_t>(256 / size_of(dst.dt));
    check_reach(a, per, repeat, "src0"), check_reach(b, per, repeat, "src1"), check_reach(dst, per, repeat, "dst");
    by_type(dst.dt, [&](auto tag) {
        using T = decltype(tag);
        for_active(256 / sizeof(T), repeat, [&](uint32_t r, uint32_t e) {
            T x = *at<T>(a, r, e, "src0"), y = *at<T>(b, r, e, "src1");
            T* out = at<T>(dst, r, e, "dst");
            *out = binary_op(op, x, y, *out);
        });
    });
}

void vec_unary(VOp op, const Operand& dst, const Operand& a, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(dst, "dst"), check_base(a, "src");
    const uint32_t per = static_cast<uint32_t>(256 / size_of(dst.dt));
    check_reach(a, per, repeat, "src"), check_reach(dst, per, repeat, "dst");
    by_type(dst.dt, [&](auto tag) {
        using T = decltype(tag);
        for_active(256 / sizeof(T), repeat, [&](uint32_t r, uint32_t e) {
            *at<T>(dst, r, e, "dst") = unary_op(op, *at<T>(a, r, e, "src"));
        });
    });
}

void vec_scalar(VOp op, const Operand& dst, const Operand& a, uint64_t scalar, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(dst, "dst"), check_base(a, "src");
    {
        const uint32_t per = op == VOp::Axpy ? per_repeat(dst.dt, a.dt) : static_cast<uint32_t>(256 / size_of(dst.dt));
        check_reach(a, per, repeat, "src"), check_reach(dst, per, repeat, "dst");
    }
    if (op == VOp::Axpy) {                     // dst += src * scalar; dst may be wider than src
        by_type(dst.dt, [&](auto dtag) {
            by_type(a.dt, [&](auto stag) {
                using D = decltype(dtag);
                using U = decltype(stag);
                const U s = load<U>(&scalar);
                for_active(per_repeat(dst.dt, a.dt), repeat, [&](uint32_t r, uint32_t e) {
                    D* out = at<D>(dst, r, e, "dst");
                    *out = axpy1(*out, *at<U>(a, r, e, "src"), s);
                });
            });
        });
        return;
    }
    by_type(dst.dt, [&](auto tag) {
        using T = decltype(tag);
        const T s = load<T>(&scalar);
        for_active(256 / sizeof(T), repeat, [&](uint32_t r, uint32_t e) {
            *at<T>(dst, r, e, "dst") = scalar_op(op, *at<T>(a, r, e, "src"), s);
        });
    });
}

void vec_dup(const Operand& dst, uint64_t scalar, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(dst, "dst");
    check_reach(dst, static_cast<uint32_t>(256 / size_of(dst.dt)), repeat, "dst");
    by_type(dst.dt, [&](auto tag) {
        using T = decltype(tag);
        const T s = load<T>(&scalar);
        for_active(256 / sizeof(T), repeat, [&](uint32_t r, uint32_t e) { *at<T>(dst, r, e, "dst") = s; });
    });
}

void vec_copy(const Operand& dst, const Operand& a, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(dst, "dst"), check_base(a, "src");
    check_reach(a, static_cast<uint32_t>(256 / size_of(dst.dt)), repeat, "src");
    check_reach(dst, static_cast<uint32_t>(256 / size_of(dst.dt)), repeat, "dst");
    const size_t size = size_of(dst.dt);
    for_active(static_cast<uint32_t>(256 / size), repeat, [&](uint32_t r, uint32_t e) {
        uint8_t* d = addr_of(dst, size, r, e);
        const uint8_t* s = addr_of(a, size, r, e);
        check_ub(s, size, 1, "src"), check_ub(d, size, 1, "dst");
        std::memmove(d, s, size);
    });
}

namespace {
// The bytes [p, p + n) of an operand must lie in the UB and in the LocalTensor the API's check saw (api_extents).
void check_extent(const State::Extent& x, const void* p, uint64_t n, uint32_t align, const char* api, const char* what)
{
    check_ub(p, n, align, what);
    const uint8_t* q = static_cast<const uint8_t*>(p);
    if (x.lo != nullptr && (q < x.lo || q + n > x.lo + x.bytes))
        fail("bounds", "%s: %s reaches byte %lld of its tensor, which has %llu bytes", api, what,
             static_cast<long long>(q + n - x.lo), static_cast<unsigned long long>(x.bytes));
}

// The source address of byte offset `v` of a gather: a multiple of `unit` inside the source tensor (the
// simulator's runtime/executors_vec_more.py _offsets_to_index, with its words).
const uint8_t* gather_at(uint64_t v, uint64_t lane, uint32_t size, uint32_t unit)
{
    State& s = S();
    if (s.gather_src == nullptr) fail("api", "a gather instruction ran without SetModelGatherbSrc0Tensor");
    const uint8_t* p = s.gather_src + v;
    const State::Extent& x = s.api_src;
    // the offsets count from the source tensor's start (Gather adds srcBaseOffset to the address it passes)
    const uint64_t from = x.lo != nullptr ? static_cast<uint64_t>(p - x.lo) : v;
    if (from % unit != 0)
        fail("bounds", "gather offset %llu bytes (lane %llu) is not a multiple of %u bytes",
             static_cast<unsigned long long>(from), static_cast<unsigned long long>(lane), unit);
    if (x.lo != nullptr && (p < x.lo || p + unit > x.lo + x.bytes))
        fail("bounds", "gather offset %llu bytes (lane %llu) is past the source's %llu elements",
             static_cast<unsigned long long>(from), static_cast<unsigned long long>(lane),
             static_cast<unsigned long long>(x.bytes / size));
    check_ub(p, unit, 1, "the gather source");
    return p;
}
}  // namespace

void api_extents(const void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, const void* off,
                 uint64_t off_bytes)
{
    State& s = S();
    s.api_dst = {static_cast<const uint8_t*>(dst), dst_bytes};
    s.api_src = {static_cast<const uint8_t*>(src), src_bytes};
    s.api_off = {static_cast<const uint8_t*>(off), off_bytes};
    s.api_src1 = State::Extent{};
}

void gather_source(uint64_t addr) { S().gather_src = reinterpret_cast<const uint8_t*>(addr); }

void vec_brcb(void* dst, const void* src, size_t size, uint32_t dstBlk, uint32_t dstRep, uint32_t repeat)
{
    ExtentsUsed done;
    const State& st = S();
    for (uint32_t r = 0; r < repeat; ++r) {
        uint8_t vals[8][8];
        for (uint32_t i = 0; i < 8; ++i) {      // the repeat's sources are read before any block is written
            const uint8_t* s = static_cast<const uint8_t*>(src) + (static_cast<uint64_t>(r) * 8 + i) * size;
            check_extent(st.api_src, s, size, 1, "Brcb", "src0");
            std::memcpy(vals[i], s, size);
        }
        for (uint32_t i = 0; i < 8; ++i) {
            uint8_t* d = static_cast<uint8_t*>(dst) + (static_cast<uint64_t>(r) * dstRep + i * dstBlk) * 32;
            check_extent(st.api_dst, d, 32, 32, "Brcb", "dst");
            for (uint32_t e = 0; e < 32 / size; ++e) std::memcpy(d + e * size, vals[i], size);
        }
    }
}

void vec_gather(void* dst, const uint32_t* off, size_t size, uint32_t dstRep, uint32_t repeat)
{
    ExtentsUsed done;
    const State& st = S();
    const uint32_t per = static_cast<uint32_t>(256 / size);
    const uint32_t sz = static_cast<uint32_t>(size);
    struct Lane {
        uint8_t* d;
        const uint8_t* s;
    };
    std::vector<Lane> lanes;     // every lane's source is read before any is written (the simulator's order)
    uint64_t k = 0;
    for_active(per, repeat, [&](uint32_t r, uint32_t e) {
        const uint32_t* o = off + static_cast<uint64_t>(r) * per + e;
        check_extent(st.api_off, o, 4, 1, "Gather", "srcOffset");
        uint8_t* d = static_cast<uint8_t*>(dst) + static_cast<uint64_t>(r) * dstRep * 32 + static_cast<uint64_t>(e) * sz;
        check_extent(st.api_dst, d, sz, 1, "Gather", "dst");
        lanes.push_back({d, gather_at(load<uint32_t>(o), k++, sz, sz)});
    });
    std::vector<uint8_t> vals(lanes.size() * sz);
    for (size_t i = 0; i < lanes.size(); ++i) std::memcpy(&vals[i * sz], lanes[i].s, sz);
    for (size_t i = 0; i < lanes.size(); ++i) std::memcpy(lanes[i].d, &vals[i * sz], sz);   // in order: the later wins
}

void vec_gatherb(void* dst, const uint32_t* off, size_t size, uint32_t dstBlk, uint32_t dstRep, uint32_t repeat)
{
    ExtentsUsed done;
    const State& st = S();
    std::vector<uint8_t> vals(static_cast<uint64_t>(repeat) * 8 * 32);
    for (uint64_t k = 0; k < static_cast<uint64_t>(repeat) * 8; ++k) {
        check_extent(st.api_off, off + k, 4, 1, "Gatherb", "offset");
        std::memcpy(&vals[k * 32], gather_at(load<uint32_t>(off + k), k, static_cast<uint32_t>(size), 32), 32);
    }
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t i = 0; i < 8; ++i) {
            uint8_t* d = static_cast<uint8_t*>(dst) + (static_cast<uint64_t>(r) * dstRep + i * dstBlk) * 32;
            check_extent(st.api_dst, d, 32, 32, "Gatherb", "dst");
            std::memcpy(d, &vals[(static_cast<uint64_t>(r) * 8 + i) * 32], 32);
        }
}

void vec_conv(const Operand& dst, const Operand& a, int round, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(dst, "dst"), check_base(a, "src");
    check_reach(a, per_repeat(dst.dt, a.dt), repeat, "src"), check_reach(dst, per_repeat(dst.dt, a.dt), repeat, "dst");
    by_type(dst.dt, [&](auto dtag) {
        by_type(a.dt, [&](auto stag) {
            using D = decltype(dtag);
            using U = decltype(stag);
            for_active(per_repeat(dst.dt, a.dt), repeat, [&](uint32_t r, uint32_t e) {
                *at<D>(dst, r, e, "dst") = cast1<D, U>(*at<U>(a, r, e, "src"), round);
            });
        });
    });
}

namespace {
// Writes bit `k` of a bit mask in the UB (bit i of byte i / 8, LSB first).
void put_bit(uint8_t* bits, uint64_t k, bool on)
{
    uint8_t* byte = bits + k / 8;
    check_ub(byte, 1, 1, "the bit mask dst");
    *byte = static_cast<uint8_t>(on ? (*byte | (1u << (k % 8))) : (*byte & ~(1u << (k % 8))));
}

bool get_bit(const uint8_t* bits, uint64_t k)
{
    check_ub(bits + k / 8, 1, 1, "the select mask");
    return (bits[k / 8] >> (k % 8)) & 1u;
}

// The compare instructions write one bit per element, repeats packed one after another.
template <typename T, typename Get> void compare_bits(Cmp op, const Operand& dst, const Operand& a, uint32_t repeat, Get y)
{
    const uint32_t per = 256 / sizeof(T);
    uint8_t* bits = static_cast<uint8_t*>(dst.base);
    check_reach(a, per, repeat, "src0", true);
    const State::Extent& x = S().api_dst;     // the bit mask: one bit per lane, repeats packed
    if (x.lo != nullptr && x.lo == bits && static_cast<uint64_t>(repeat) * per / 8 > x.bytes)
        fail("bounds", "the mask dst needs %llu bytes but its tensor has only %llu",
             static_cast<unsigned long long>(static_cast<uint64_t>(repeat) * per / 8),
             static_cast<unsigned long long>(x.bytes));
    // vcmpv / vcmpvs compare every lane of each repeat whatever the mask register holds, as the simulator does:
    // the A2 implementation never sets the mask for them (its mask-form VcmpvImpl drops the mask argument, and
    // the count form CompareCompute issues whole repeats without SetMask, which would be wrong after any op that
    // left a partial mask if the instruction read it)
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t e = 0; e < per; ++e)
            put_bit(bits, static_cast<uint64_t>(r) * per + e,
                    compare(static_cast<int>(op), *at<T>(a, r, e, "src0"), y(r, e)));
}
}  // namespace

void vec_cmp(Cmp op, const Operand& dst, const Operand& a, const Operand& b, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(a, "src0"), check_base(b, "src1"), check_ub(dst.base, 0, 32, "the bit mask dst");
    check_reach(b, static_cast<uint32_t>(256 / size_of(a.dt)), repeat, "src1", true);
    by_type(a.dt, [&](auto tag) {
        using T = decltype(tag);
        compare_bits<T>(op, dst, a, repeat, [&](uint32_t r, uint32_t e) { return *at<T>(b, r, e, "src1"); });
    });
}

void vec_cmp_reg(Cmp op, const Operand& a, const Operand& b)
{
    ExtentsUsed done;
    check_base(a, "src0"), check_base(b, "src1");
    check_reach(a, static_cast<uint32_t>(256 / size_of(a.dt)), 1, "src0");
    check_reach(b, static_cast<uint32_t>(256 / size_of(a.dt)), 1, "src1");
    by_type(a.dt, [&](auto tag) {
        using T = decltype(tag);
        const uint32_t per = 256 / sizeof(T);
        uint8_t bits[16] = {};
        for_active(per, 1, [&](uint32_t r, uint32_t e) {
            if (r == 0 && compare(static_cast<int>(op), *at<T>(a, r, e, "src0"), *at<T>(b, r, e, "src1")))
                bits[e / 8] = static_cast<uint8_t>(bits[e / 8] | (1u << (e % 8)));
        });
        for (uint32_t k = per / 8; k < 16; ++k) bits[k] = 0xFF;   // a 32-bit repeat: the high 64 bits undefined
        std::memcpy(S().cmpmask, bits, 16);
    });
}

void vec_cmp_scalar(Cmp op, const Operand& dst, const Operand& a, uint64_t scalar, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(a, "src0"), check_ub(dst.base, 0, 32, "the bit mask dst");
    by_type(a.dt, [&](auto tag) {
        using T = decltype(tag);
        const T s = load<T>(&scalar);
        compare_bits<T>(op, dst, a, repeat, [&](uint32_t, uint32_t) { return s; });
    });
}

void vec_select(int mode, const Operand& dst, const Operand& a, const Operand& b, uint32_t repeat)
{
    ExtentsUsed done;
    check_base(dst, "dst"), check_base(a, "src0");
    {
        const uint32_t per = static_cast<uint32_t>(256 / size_of(dst.dt));
        check_reach(a, per, repeat, "src0"), check_reach(dst, per, repeat, "dst");
        if (mode != 1) check_reach(b, per, repeat, "src1");
    }
    const uint8_t* reg = S().cmpmask;
    by_type(dst.dt, [&](auto tag) {
        using T = decltype(tag);
        const uint32_t per = 256 / sizeof(T);
        const uint8_t* bits = mode == 1 ? static_cast<const uint8_t*>(b.base)
                            : mode == 2 ? reinterpret_cast<const uint8_t*>(load<uint64_t>(reg)) : reg;
        const T scalar = load<T>(reg);
        for_active(per, repeat, [&](uint32_t r, uint32_t e) {
            const bool take0 = mode == 0 ? ((reg[e / 8] >> (e % 8)) & 1u) : get_bit(bits, static_cast<uint64_t>(r) * per + e);
            const T x = *at<T>(a, r, e, "src0");
            const T y = mode == 1 ? scalar : *at<T>(b, r, e, "src1");
            *at<T>(dst, r, e, "dst") = take0 ? x : y;
        });
    });
}

}  // namespace asc_stub
