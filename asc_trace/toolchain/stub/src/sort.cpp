// Sort32's vbitsort and Transpose's vtranspose (graph/ops/vec_sort.py has the semantics the simulator runs):
// the same bytes as sim, and the same refusals where the documentation leaves the order open.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

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
