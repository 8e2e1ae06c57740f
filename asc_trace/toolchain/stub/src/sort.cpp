// Sort32's vbitsort, MrgSort's vmrgsort4 and Transpose's vtranspose (graph/ops/vec_sort.py and vec_mrg_sort.py have
// the semantics the simulator runs):
// the same bytes as sim, and the same refusals where the documentation leaves the order open.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "state.h"

namespace asc_stub {

namespace {
template <typename T> void bitsort(uint8_t* dst, const T* scores, const uint32_t* idx, uint32_t repeat)
{
    constexpr uint32_t PER = 32;
    for (uint32_t r = 0; r < repeat; ++r) {
        float key[PER];
        bool pos_zero = false, neg_zero = false;
        for (uint32_t k = 0; k < PER; ++k) {
            key[k] = static_cast<float>(scores[r * PER + k]);
            if (std::isnan(key[k]))
                fail("not_provided", "asc.sort32 got a NaN score: where Sort32 places NaN is not documented");
            if (key[k] == 0.0f) (std::signbit(key[k]) ? neg_zero : pos_zero) = true;
        }
        if (pos_zero && neg_zero)
            fail("not_provided", "asc.sort32 got +0 and -0 scores in one repeat: whether Sort32 ties them is not "
                                 "documented");
        uint32_t order[PER];
        std::iota(order, order + PER, 0u);
        // largest first; equal scores keep their input order (the API documentation's tie rule)
        std::stable_sort(order, order + PER, [&](uint32_t a, uint32_t b) { return key[a] > key[b]; });
        for (uint32_t k = 0; k < PER; ++k) {
            uint8_t* s = dst + (static_cast<uint64_t>(r) * PER + k) * 8;
            // the score in the low bytes (a half's 2 reserved bytes after it are left as they were)
            std::memcpy(s, &scores[r * PER + order[k]], sizeof(T));
            std::memcpy(s + 4, &idx[r * PER + order[k]], 4);
        }
    }
}
}  // namespace

void vec_bitsort(void* dst, const void* scores, const uint32_t* idx, DT dt, uint32_t repeat)
{
    const uint64_t n = static_cast<uint64_t>(repeat) * 32;
    check_ub(scores, n * size_of(dt), 32, "Sort32's src0 (the scores)");
    check_ub(idx, n * 4, 32, "Sort32's src1 (the indices)");
    check_ub(dst, n * 8, 32, "Sort32's dst");
    if (dt == DT::F16)
        bitsort(static_cast<uint8_t*>(dst), static_cast<const half*>(scores), idx, repeat);
    else
        bitsort(static_cast<uint8_t*>(dst), static_cast<const float*>(scores), idx, repeat);
}

namespace {
uint64_t g_vms4_sr = 0;

template <typename T> float key_at(const uint8_t* s)
{
    T v;
    std::memcpy(&v, s, sizeof(T));      // the score in the structure's low bytes
    return static_cast<float>(v);
}

// One repeat's merge: the largest head each step, of equal heads the earlier list's; with exhausted suspension
// it stops after the structure that empties a list. The cases the documentation leaves open are refused.
template <typename T>
std::vector<uint8_t> merge(const uint8_t* const lists[4], const uint32_t len[4], int used, bool exhausted,
                           uint64_t& sr)
{
    bool pos_zero = false, neg_zero = false;
    for (int k = 0; k < used; ++k)
        for (uint32_t j = 0; j < len[k]; ++j) {
            const float key = key_at<T>(lists[k] + j * 8ull);
            if (std::isnan(key))
                fail("not_provided", "asc.mrg_sort got a NaN score: where MrgSort places NaN is not documented");
            if (key == 0.0f) (std::signbit(key) ? neg_zero : pos_zero) = true;
            if (j > 0 && key > key_at<T>(lists[k] + (j - 1) * 8ull))
                fail("not_provided", "asc.mrg_sort's list %d is not sorted largest score first: what MrgSort does "
                                     "with others is not documented", k + 1);
        }
    if (pos_zero && neg_zero)
        fail("not_provided", "asc.mrg_sort got +0 and -0 scores in one merge: whether MrgSort ties them is not "
                             "documented");
    uint32_t pos[4] = {0, 0, 0, 0};
    std::vector<uint8_t> out;
    for (;;) {
        int best = -1;
        bool emptied = false;
        for (int k = 0; k < used; ++k) {
            if (pos[k] >= len[k]) {
                emptied = true;
                continue;
            }
            if (best < 0 || key_at<T>(lists[k] + pos[k] * 8ull) > key_at<T>(lists[best] + pos[best] * 8ull)) best = k;
        }
        if (best < 0 || (exhausted && emptied)) break;
        const uint8_t* s = lists[best] + pos[best] * 8ull;
        out.insert(out.end(), s, s + 8);
        ++pos[best];
    }
    sr = 0;
    for (int k = 0; k < 4; ++k) sr |= static_cast<uint64_t>(pos[k] & 0xFFFF) << (16 * k);
    return out;
}
}  // namespace

uint64_t vms4_sr() { return g_vms4_sr; }

void vec_mrgsort4(void* dst, const void* const srcs[4], DT dt, uint64_t lengths, uint64_t config)
{
    const uint32_t repeat = config & 0xFF;
    const uint32_t valid = (config >> 8) & 0xF;
    const bool exhausted = (config >> 12) & 1;
    const int used = valid == 3 ? 2 : valid == 7 ? 3 : valid == 15 ? 4 : 0;
    if (used == 0) fail("bounds", "MrgSort's validBit is 3, 7 or 15, got %u", valid);
    uint32_t len[4];
    uint64_t total = 0;
    for (int k = 0; k < 4; ++k) {
        len[k] = k < used ? static_cast<uint32_t>((lengths >> (16 * k)) & 0xFFFF) : 0;
        total += len[k];
    }
    const uint8_t* base[4] = {nullptr, nullptr, nullptr, nullptr};
    static const char* names[4] = {"MrgSort's list 1", "MrgSort's list 2", "MrgSort's list 3", "MrgSort's list 4"};
    for (int k = 0; k < used; ++k) {
        base[k] = static_cast<const uint8_t*>(srcs[k]);
        const uint64_t span = ((repeat ? repeat - 1 : 0) * total + len[k]) * 8;
        if (span) check_ub(base[k], span, 32, names[k]);
        // a repeat time above 1: four lists back to back (the API documentation's condition)
        if (repeat > 1 && base[k] != base[0] + k * len[0] * 8ull)
            fail("not_provided", "asc.mrg_sort with repeat_time %u needs its four lists back to back: where the "
                                 "instruction reads the next repeat's lists then is not documented", repeat);
    }
    if (repeat * total) check_ub(dst, repeat * total * 8, 32, "MrgSort's dst");
    std::vector<std::vector<uint8_t>> results;
    for (uint32_t r = 0; r < repeat; ++r) {       // every list read before dst is written (they may overlap)
        const uint8_t* lists[4];
        for (int k = 0; k < 4; ++k) lists[k] = k < used ? base[k] + r * total * 8 : nullptr;
        results.push_back(dt == DT::F16 ? merge<half>(lists, len, used, exhausted, g_vms4_sr)
                                        : merge<float>(lists, len, used, exhausted, g_vms4_sr));
    }
    for (uint32_t r = 0; r < repeat; ++r)
        if (!results[r].empty())
            std::memcpy(static_cast<uint8_t*>(dst) + r * total * 8, results[r].data(), results[r].size());
}

void vec_transpose16(uint16_t* dst, const uint16_t* src)
{
    check_ub(src, 512, 32, "Transpose's src");
    check_ub(dst, 512, 32, "Transpose's dst");
    uint16_t tmp[256];
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) tmp[j * 16 + i] = src[i * 16 + j];
    std::memcpy(dst, tmp, sizeof tmp);
}

}  // namespace asc_stub
