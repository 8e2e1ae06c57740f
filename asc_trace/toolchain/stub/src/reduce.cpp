// The repeat reductions vcadd / vcmax / vcmin under the CPU-debug stub layer: one result per repeat,
// placed as Order_t says, `dstRepStride` counting whole results (docs ReduceRepeat, table 3); in
// counter mode with the accumulate flag the per-repeat sums are summed again into ACC_VAL
// (get_acc_val), the order asc_trace defines for ReduceSum (asc_num::tree_sum).
#include <algorithm>
#include <vector>

#include "state.h"

namespace asc_stub {
namespace {

// Forgets the LocalTensors the API's check gave (vec_extents) once the reduction they were for has run.
struct ReduceExtentsUsed {
    ~ReduceExtentsUsed() { S().api_dst = S().api_src = S().api_off = S().api_src1 = State::Extent{}; }
};

// A reduction's mask form must not reach past its LocalTensors, even inside the UB, as on the simulator
// (runtime/executors_ops.py, executors_vec_more.py): the source up to the last element an enabled lane reads
// (`src_end`, bytes from its base), the destination up to the last result written (`dst_end`). Checked before
// any result is written, so that a refused reduction writes nothing. An extent that does not start at the
// operand's base is not this operand's tensor (none given, or a left-over) and bounds nothing.
void check_extent(const State::Extent& x, const void* base, uint64_t end, size_t size, DT dt, const char* what)
{
    if (x.lo == nullptr || x.lo != base || end <= x.bytes) return;
    fail("bounds", "%s needs %llu x %s elements but its tensor has only %llu", what,
         static_cast<unsigned long long>((end + size - 1) / size), name_of(dt),
         static_cast<unsigned long long>(x.bytes / size));
}

uint64_t offset_after(const Operand& o, const uint8_t* p, size_t size)
{
    return static_cast<uint64_t>(p - static_cast<const uint8_t*>(o.base)) + size;
}

}  // namespace

void vec_reduce(int kind, const Operand& dst, const Operand& a, uint32_t repeat, int order, bool accumulate)
{
    ReduceExtentsUsed done;
    check_ub(a.base, 0, 32, "src");
    by_type(a.dt, [&](auto tag) {
        using T = decltype(tag);
        const uint32_t per = 256 / sizeof(T);
        const uint32_t reps = repeats_of(per, repeat);
        const uint32_t width = asc_num::result_width(kind, order, sizeof(T));
        std::vector<std::vector<T>> vals(reps, std::vector<T>(per, T(0)));
        std::vector<std::vector<char>> on(reps, std::vector<char>(per, 0));
        uint64_t src_end = 0;
        for_active(per, repeat, [&](uint32_t r, uint32_t e) {
            T* p = reinterpret_cast<T*>(addr_of(a, sizeof(T), r, e));
            check_ub(p, sizeof(T), 1, "src");
            src_end = std::max(src_end, offset_after(a, reinterpret_cast<uint8_t*>(p), sizeof(T)));
            vals[r][e] = *p;
            on[r][e] = 1;
        });
        check_extent(S().api_src, a.base, src_end, sizeof(T), a.dt, "src");
        // one result of `width` elements per repeat, `dst.rep` results apart (none written when accumulating)
        if (!accumulate && reps > 0)
            check_extent(S().api_dst, dst.base, ((static_cast<uint64_t>(reps) - 1) * dst.rep + 1) * width * sizeof(T),
                         sizeof(T), a.dt, "dst");
        std::vector<T> sums;
        for (uint32_t r = 0; r < reps; ++r) {
            bool mask[256];
            for (uint32_t e = 0; e < per; ++e) mask[e] = on[r][e] != 0;
            T out[2];
            asc_num::repeat_result(out, vals[r].data(), mask, per, kind, order);
            if (accumulate) {
                sums.push_back(out[0]);
                continue;
            }
            T* d = static_cast<T*>(dst.base) + static_cast<uint64_t>(r) * dst.rep * width;
            check_ub(d, width * sizeof(T), width == 1 ? sizeof(T) : 2 * sizeof(T), "dst");
            std::memcpy(d, out, width * sizeof(T));
        }
        if (accumulate) {
            const T total = sums.empty() ? T(0) : asc_num::tree_sum(sums, per);
            uint64_t bits = 0;
            std::memcpy(&bits, &total, sizeof(T));
            acc_val() = bits;
        }
    });
}

// One result per 32-byte block of each repeat, the block's active elements reduced as a whole repeat is
// (a pairwise tree for the sum, asc_num::repeat_result); a block with no active element writes nothing.
void vec_block_reduce(int kind, const Operand& dst, const Operand& a, uint32_t repeat)
{
    ReduceExtentsUsed done;
    check_ub(a.base, 0, 32, "src");
    by_type(a.dt, [&](auto tag) {
        using T = decltype(tag);
        const uint32_t per = 256 / sizeof(T), blk = 32 / sizeof(T);
        const uint32_t reps = repeats_of(per, repeat);
        std::vector<std::vector<T>> vals(reps, std::vector<T>(per, T(0)));
        std::vector<std::vector<char>> on(reps, std::vector<char>(per, 0));
        uint64_t src_end = 0;
        for_active(per, repeat, [&](uint32_t r, uint32_t e) {
            T* p = reinterpret_cast<T*>(addr_of(a, sizeof(T), r, e));
            check_ub(p, sizeof(T), 1, "src");
            src_end = std::max(src_end, offset_after(a, reinterpret_cast<uint8_t*>(p), sizeof(T)));
            vals[r][e] = *p;
            on[r][e] = 1;
        });
        check_extent(S().api_src, a.base, src_end, sizeof(T), a.dt, "src");
        // eight results a repeat, `dst.rep` x 8 apart: the destination reaches the last block with an active lane
        uint64_t dst_end = 0;
        for (uint32_t r = 0; r < reps; ++r)
            for (uint32_t e = 0; e < per; ++e)
                if (on[r][e]) dst_end = std::max<uint64_t>(dst_end, (static_cast<uint64_t>(r) * dst.rep * 8 + e / blk + 1) * sizeof(T));
        check_extent(S().api_dst, dst.base, dst_end, sizeof(T), a.dt, "dst");
        for (uint32_t r = 0; r < reps; ++r) {
            for (uint32_t b = 0; b < 8; ++b) {
                bool mask[32];
                bool any = false;
                for (uint32_t e = 0; e < blk; ++e) any |= (mask[e] = on[r][b * blk + e] != 0);
                if (!any) continue;
                T out[2];
                asc_num::repeat_result(out, vals[r].data() + b * blk, mask, blk, kind, 2);
                T* d = static_cast<T*>(dst.base) + static_cast<uint64_t>(r) * dst.rep * 8 + b;
                check_ub(d, sizeof(T), sizeof(T), "dst");
                *d = out[0];
            }
        }
    });
}

// vcpadd (PairReduceSum): one result per two adjacent lanes, half a repeat's results per repeat, `dst.rep`
// counting such halves; a pair with no active lane writes nothing (the PairReduceSum docs for A2); a pair
// with one active lane has no documented result and stops the kernel.
void vec_pair_reduce(const Operand& dst, const Operand& a, uint32_t repeat)
{
    ReduceExtentsUsed done;
    check_ub(a.base, 0, 32, "src");
    by_type(a.dt, [&](auto tag) {
        using T = decltype(tag);
        const uint32_t per = 256 / sizeof(T);
        const uint32_t reps = repeats_of(per, repeat);
        std::vector<std::vector<T>> vals(reps, std::vector<T>(per, T(0)));
        std::vector<std::vector<char>> on(reps, std::vector<char>(per, 0));
        uint64_t src_end = 0;
        for_active(per, repeat, [&](uint32_t r, uint32_t e) {
            T* p = reinterpret_cast<T*>(addr_of(a, sizeof(T), r, e));
            check_ub(p, sizeof(T), 1, "src");
            src_end = std::max(src_end, offset_after(a, reinterpret_cast<uint8_t*>(p), sizeof(T)));
            vals[r][e] = *p;
            on[r][e] = 1;
        });
        check_extent(S().api_src, a.base, src_end, sizeof(T), a.dt, "src");
        // per / 2 results a repeat, `dst.rep` halves apart: the destination reaches the last pair with an active lane
        uint64_t dst_end = 0;
        for (uint32_t r = 0; r < reps; ++r)
            for (uint32_t e = 0; e < per; ++e)
                if (on[r][e])
                    dst_end = std::max<uint64_t>(dst_end, (static_cast<uint64_t>(r) * dst.rep * (per / 2) + e / 2 + 1) * sizeof(T));
        for (uint32_t r = 0; r < reps; ++r)
            for (uint32_t i = 0; i < per / 2; ++i)
                if (on[r][2 * i] != on[r][2 * i + 1]) unmodeled("vcpadd with a mask selecting one lane of a pair");
        check_extent(S().api_dst, dst.base, dst_end, sizeof(T), a.dt, "dst");
        for (uint32_t r = 0; r < reps; ++r) {
            for (uint32_t i = 0; i < per / 2; ++i) {
                if (!on[r][2 * i]) continue;
                T* d = static_cast<T*>(dst.base) + static_cast<uint64_t>(r) * dst.rep * (per / 2) + i;
                check_ub(d, sizeof(T), sizeof(T), "dst");
                *d = asc_num::tree_sum(std::vector<T>{vals[r][2 * i], vals[r][2 * i + 1]}, 2);
            }
        }
    });
}

}  // namespace asc_stub
