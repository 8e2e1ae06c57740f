// Data movement between the caller's arrays (GM) and the Unified Buffer: the MTE2 / MTE3 bursts of
// copy_gm_to_ubuf / copy_ubuf_to_gm / copy_ubuf_to_ubuf and the byte-exact DataCopyPad forms.
#include <cstring>

#include "state.h"

namespace asc_stub {

// A store to GM under the store-atomic register: each element combined with GM's in the register's type.
static void atomic_store(uint8_t* d, const uint8_t* s, uint64_t len)
{
    static const DT types[] = {DT::F32, DT::F32, DT::F16, DT::S16, DT::S32, DT::S8, DT::BF16};
    const int op = S().atomic_op, code = S().atomic_type;
    if (code < 1 || code > 6) fail("sync", "an atomic store with no element type set (SetAtomicType)");
    by_type(types[code], [&](auto zero) {
        using T = decltype(zero);
        for (uint64_t i = 0; i + sizeof(T) <= len; i += sizeof(T)) {
            const T a = load<T>(d + i), b = load<T>(s + i);
            store<T>(d + i, op == 1 ? asc_num::wrap_add(a, b) : op == 2 ? asc_num::max_(a, b) : asc_num::min_(a, b));
        }
    });
}

static void check_side(bool ub, const void* p, uint64_t nbytes, const char* what)
{
    if (ub)
        check_ub(p, nbytes, 1, what);
    else
        check_gm(p, nbytes, what);
}

void copy_blocks(int where, void* dst, const void* src, uint32_t n_burst, uint32_t len_burst, uint32_t src_gap,
                 uint32_t dst_gap)
{
    const bool dst_ub = where != 1, src_ub = where != 0;
    if (n_burst == 0 || len_burst == 0) return;          // a no-op on A2 (docs/facts.md#facts-4)
    if (n_burst > 4095) fail("bounds", "DataCopyParams.blockCount is at most 4095, got %u", n_burst);
    if (dst_ub) check_ub(dst, 0, 32, "the copy destination");
    if (src_ub) check_ub(src, 0, 32, "the copy source");
    const uint64_t len = static_cast<uint64_t>(len_burst) * 32;
    const uint64_t src_step = len + static_cast<uint64_t>(src_gap) * 32, dst_step = len + static_cast<uint64_t>(dst_gap) * 32;
    for (uint32_t i = 0; i < n_burst; ++i) {
        uint8_t* d = static_cast<uint8_t*>(dst) + i * dst_step;
        const uint8_t* s = static_cast<const uint8_t*>(src) + i * src_step;
        check_side(src_ub, s, len, "the copy source");
        check_side(dst_ub, d, len, "the copy destination");
        if (where == 1 && S().atomic_op != 0)
            atomic_store(d, s, len);
        else
            std::memmove(d, s, len);
    }
}

void copy_pad(bool to_ub, void* dst, const void* src, uint32_t n_burst, uint32_t len, uint32_t elem, uint32_t left,
              uint32_t right, uint64_t src_gap, uint64_t dst_gap)
{
    if (n_burst == 0 || len == 0) return;
    if (n_burst > 4095 || len > 2097151)
        fail("bounds", "DataCopyExtParams allows blockCount <= 4095 and blockLen <= 2097151 bytes, got %u and %u",
             n_burst, len);
    if (len % elem) fail("alignment", "DataCopyPad blockLen %u is not a multiple of the element size %u", len, elem);
    const uint32_t n = len / elem;
    if (to_ub) {
        if (left * elem > 32 || right * elem > 32) fail("bounds", "left / right padding is at most 32 bytes each");
        if (src_gap % elem) fail("alignment", "DataCopyPad srcStride %llu bytes is not a multiple of the element size",
                                 static_cast<unsigned long long>(src_gap));
        check_ub(dst, 0, 32, "the copy destination");
        const uint32_t row = ((left + n + right) * elem + 31) / 32 * 32 / elem;
        const uint64_t src_step = len + src_gap, dst_step = static_cast<uint64_t>(row) * elem + dst_gap * 32;
        const bool padded = S().pad_set;
        for (uint32_t i = 0; i < n_burst; ++i) {
            uint8_t* d = static_cast<uint8_t*>(dst) + i * dst_step;
            const uint8_t* s = static_cast<const uint8_t*>(src) + i * src_step;
            check_gm(s, len, "the copy source");
            check_ub(d, static_cast<uint64_t>(row) * elem, 1, "the copy destination");
            asc_num::pad_row(d, s, n, elem, left, right, row,
                             padded ? reinterpret_cast<const uint8_t*>(&S().pad) : nullptr);
        }
        return;
    }
    if (dst_gap % elem) fail("alignment", "DataCopyPad dstStride %llu bytes is not a multiple of the element size",
                             static_cast<unsigned long long>(dst_gap));
    check_ub(src, 0, 32, "the copy source");
    const uint64_t src_step = (static_cast<uint64_t>(len) + 31) / 32 * 32 + src_gap * 32, dst_step = len + dst_gap;
    for (uint32_t i = 0; i < n_burst; ++i) {
        uint8_t* d = static_cast<uint8_t*>(dst) + i * dst_step;
        const uint8_t* s = static_cast<const uint8_t*>(src) + i * src_step;
        check_ub(s, len, 1, "the copy source");
        check_gm(d, len, "the copy destination");
        std::memmove(d, s, len);
    }
}

}  // namespace asc_stub
