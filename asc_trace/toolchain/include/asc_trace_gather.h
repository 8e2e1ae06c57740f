// Brcb, Gather and Gatherb in the cpp backend's C++ API model: the simulator's semantics
// (runtime/executors_vec_more.py), checked in the simulator's order and with its words, so that the
// cpp backend refuses what sim, eager and cpu_debug refuse with the same error class.
// - Brcb: per repeat, 8 consecutive src0 elements each fill one 32-byte block of dst (blocks
//   dstBlkStride apart, repeats dstRepStride apart); a repeat's sources are read before its blocks are written.
// - Gather: dst lane <- the element at byte srcBaseOffset + srcOffset[lane] of src (count form: lanes
//   0..count-1; mask form: the mask's lanes of each repeat, dst repeats dstRepStride blocks apart).
// - Gatherb: per repeat, 8 byte offsets (multiples of 32) each pick one 32-byte block of src0.
// Every offset is checked before anything is written, as the simulator does.
#pragma once

namespace AscendC {

struct BrcbRepeatParams {
    BrcbRepeatParams() {}
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
    uint16_t dstRepStride = 8;
    uint16_t dstBlkStride = 1;
};

struct GatherRepeatParams {
    GatherRepeatParams() {}
    GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
    uint16_t dstRepStride = 8;
    uint8_t dstBlkStride = 1;
};

namespace detail {
// The element index of byte offset `v` of the gather source: a multiple of `unit` bytes, inside the
// source's `len` elements (runtime/executors_vec_more.py _offsets_to_index).
inline uint64_t gather_index(uint64_t v, uint64_t lane, uint32_t size, uint32_t unit, uint32_t len)
{
    if (v % unit != 0)
        fail("bounds", "gather offset %llu bytes (lane %llu) is not a multiple of %u bytes",
             static_cast<unsigned long long>(v), static_cast<unsigned long long>(lane), unit);
    if (v / size + unit / size > len)
        fail("bounds", "gather offset %llu bytes (lane %llu) is past the source's %u elements",
             static_cast<unsigned long long>(v), static_cast<unsigned long long>(lane), len);
    return v / size;
}

// The lanes (one per gathered element) and their destination elements.
template <typename T>
inline void gather_run(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& off,
                       uint32_t base, const std::vector<uint32_t>& lanes, const std::vector<uint32_t>& at)
{
    if (base % sizeof(T) != 0)
        fail("bounds", "src_base %u is not a multiple of sizeof(T) = %u bytes", base,
             static_cast<unsigned>(sizeof(T)));
    uint32_t n_off = 0, n_dst = 0;
    for (size_t k = 0; k < lanes.size(); ++k) {
        n_off = std::max(n_off, lanes[k] + 1);
        n_dst = std::max(n_dst, at[k] + 1);
    }
    const uint32_t* o = off.span(n_off, "src_offset");
    const T* s = src.span(src.GetSize(), "src");
    T* d = dst.span(n_dst, "dst");
    std::vector<T> vals(lanes.size());
    for (size_t k = 0; k < lanes.size(); ++k)
        vals[k] = s[gather_index(static_cast<uint64_t>(o[lanes[k]]) + base, k, sizeof(T), sizeof(T), src.GetSize())];
    for (size_t k = 0; k < lanes.size(); ++k) d[at[k]] = vals[k];      // in order: a later lane wins
}

template <typename T, typename M>
inline void gather_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& off,
                          uint32_t base, M mask, uint8_t repeatTime, uint16_t dstRepStride)
{
    if (repeatTime == 0) return;
    const uint32_t per = 256 / sizeof(T), per_block = 32 / sizeof(T);
    MaskSel sel = mask_of(mask, per);
    std::vector<uint32_t> lanes, at;
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t e = 0; e < per; ++e)
            if (sel.on(e)) {
                lanes.push_back(r * per + e);
                at.push_back(r * dstRepStride * per_block + e);
            }
    if (!lanes.empty()) gather_run(dst, src, off, base, lanes, at);
}
}  // namespace detail

template <typename T> inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTime,
                                       const BrcbRepeatParams& p)
{
    if (repeatTime == 0) return;
    const uint32_t per_block = 32 / sizeof(T);
    uint32_t last = 0;
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t b = 0; b < 8; ++b) last = std::max(last, r * p.dstRepStride + b * p.dstBlkStride);
    const T* s = src0.span(static_cast<uint32_t>(repeatTime) * 8, "src");
    T* d = dst.span((last + 1) * per_block, "dst");
    for (uint32_t r = 0; r < repeatTime; ++r) {
        T vals[8];
        for (uint32_t b = 0; b < 8; ++b) vals[b] = s[r * 8 + b];      // the repeat's sources before its blocks
        for (uint32_t b = 0; b < 8; ++b)
            for (uint32_t e = 0; e < per_block; ++e) d[(r * p.dstRepStride + b * p.dstBlkStride) * per_block + e] = vals[b];
    }
}

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseOffset, const uint32_t count)
{
    if (count == 0) return;
    std::vector<uint32_t> lanes(count);
    for (uint32_t k = 0; k < count; ++k) lanes[k] = k;
    detail::gather_run(dst, src, srcOffset, srcBaseOffset, lanes, lanes);
}
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseOffset, const uint64_t mask, const uint8_t repeatTime, const uint16_t dstRepStride)
{ detail::gather_masked(dst, src, srcOffset, srcBaseOffset, mask, repeatTime, dstRepStride); }
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseOffset, const uint64_t mask[], const uint8_t repeatTime,
                   const uint16_t dstRepStride)
{ detail::gather_masked(dst, src, srcOffset, srcBaseOffset, mask, repeatTime, dstRepStride); }

template <typename T>
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offset,
                    const uint8_t repeatTime, const GatherRepeatParams& p)
{
    if (repeatTime == 0) return;
    const uint32_t per_block = 32 / sizeof(T), n = static_cast<uint32_t>(repeatTime) * 8;
    uint32_t last = 0;
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t b = 0; b < 8; ++b) last = std::max(last, r * p.dstRepStride + b * p.dstBlkStride);
    const uint32_t* o = offset.span(n, "offset");
    const T* s = src0.span(src0.GetSize(), "src");
    T* d = dst.span((last + 1) * per_block, "dst");
    std::vector<uint64_t> first(n);
    for (uint32_t k = 0; k < n; ++k) first[k] = detail::gather_index(o[k], k, sizeof(T), 32, src0.GetSize());
    std::vector<T> vals(static_cast<size_t>(n) * per_block);
    for (uint32_t k = 0; k < n; ++k)
        for (uint32_t e = 0; e < per_block; ++e) vals[k * per_block + e] = s[first[k] + e];
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t b = 0; b < 8; ++b)
            for (uint32_t e = 0; e < per_block; ++e)
                d[(r * p.dstRepStride + b * p.dstBlkStride) * per_block + e] = vals[(r * 8 + b) * per_block + e];
}

}  // namespace AscendC
