// The AI Core intrinsics under the Ascend C headers in CPU-debug mode, as asc_trace models them
// (written by asc_trace from the documentation and from what the dav-c220 vector path of the headers
// calls; not CANN's file). The modeled ones forward to the core model of asc_stub.h; every other
// intrinsic the headers name is a catch-all that stops the kernel with an error naming it.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "asc_stub.h"

namespace asc_stub {
template <> struct dt_of<half> { static constexpr DT value = DT::F16; };
template <> struct dt_of<bfloat16_t> { static constexpr DT value = DT::BF16; };
template <typename T> inline Operand op(T* p, uint64_t blk, uint64_t rep)
{
    return Operand{const_cast<void*>(static_cast<const void*>(p)), dt_of<typename std::remove_cv<T>::type>::value,
                   static_cast<uint32_t>(blk), static_cast<uint32_t>(rep)};
}
template <typename T> inline uint64_t bits(T v)
{
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
}  // namespace asc_stub

// The emitted statements' node markers (runtime/cpp.py instrument): a failure names the user's line.
#define ASC_TRACE_NODE(n) asc_stub::set_node(n)
// The LocalTensors of an API call whose own parameter check does not see them (GetCmpMask, SetCmpMask, the
// register forms of Select; graph/ops/cmpmask.py emits this before the call): the instruction bounds its
// operands by them, as the simulator bounds them by their tensors (asc_stub::vec_extents).
namespace asc_stub {
template <typename D, typename S0, typename S1> inline void api_tensors(const D& d, const S0& s0, const S1& s1)
{
    vec_extents(d.GetPhyAddr(), static_cast<uint64_t>(d.GetSize()) * sizeof(*d.GetPhyAddr()), s0.GetPhyAddr(),
                static_cast<uint64_t>(s0.GetSize()) * sizeof(*s0.GetPhyAddr()), s1.GetPhyAddr(),
                static_cast<uint64_t>(s1.GetSize()) * sizeof(*s1.GetPhyAddr()));
}
}  // namespace asc_stub
#define ASC_TRACE_API_TENSORS(dst, src0, src1) asc_stub::api_tensors((dst), (src0), (src1))

// ---- events, barriers, block index ----------------------------------------------------------------
inline void set_flag(pipe_t src, pipe_t dst, int64_t event) { asc_stub::set_flag(src, dst, static_cast<int>(event)); }
inline void wait_flag(pipe_t src, pipe_t dst, int64_t event) { asc_stub::wait_flag(src, dst, static_cast<int>(event)); }
inline void pipe_barrier(pipe_t pipe) { asc_stub::pipe_barrier(pipe); }
inline int64_t get_block_idx() { return block_idx; }
inline int64_t get_block_num() { return block_num; }

// ---- the vector mask and the control register (CTRL[56] = counter mode) -------------------------------
inline void set_mask_count()
{
    asc_stub::mask().counter = true;
    asc_stub::ctrl() |= (1ull << 56);
}
inline void set_mask_norm()
{
    asc_stub::mask().counter = false;
    asc_stub::ctrl() &= ~(1ull << 56);
}
inline void set_vector_mask(uint64_t hi, uint64_t lo)
{
    asc_stub::mask().hi = hi;
    asc_stub::mask().lo = lo;
}
inline int64_t get_ctrl() { return static_cast<int64_t>(asc_stub::ctrl()); }
inline void set_ctrl(uint64_t value)
{
    asc_stub::ctrl() = value;
    asc_stub::mask().counter = (value >> 56) & 1u;
}
inline uint64_t sbitset0(uint64_t v, uint64_t bit) { return v & ~(1ull << bit); }
inline uint64_t sbitset1(uint64_t v, uint64_t bit) { return v | (1ull << bit); }
// Scalar bit counts (docs: GetBitCount, CountLeadingZero, GetSFFValue, CountBitsCntSameAsSignBit).
inline int64_t bcnt1(uint64_t v) { return __builtin_popcountll(v); }
inline int64_t bcnt0(uint64_t v) { return 64 - __builtin_popcountll(v); }
inline int64_t clz(uint64_t v) { return v ? __builtin_clzll(v) : 64; }
inline int64_t sff1(uint64_t v) { return v ? __builtin_ctzll(v) : -1; }          // first 1 from the LSB, -1 if none
inline int64_t sff0(uint64_t v) { return sff1(~v); }
inline int64_t sflbits(int64_t v)                                                // bits after the sign equal to it
{
    const uint64_t u = static_cast<uint64_t>(v < 0 ? ~v : v) << 1;
    return u ? __builtin_clzll(u) : 63;
}
template <typename T> inline void set_cmpmask(T* src) { asc_stub::set_cmpmask_from(src); }
template <typename T> inline void get_cmpmask(T* dst) { asc_stub::get_cmpmask_to(dst); }
inline int64_t get_acc_val() { return static_cast<int64_t>(asc_stub::acc_val()); }
inline int64_t get_max_min_cnt() { return static_cast<int64_t>(asc_stub::max_min_cnt()); }
inline void set_mov_pad_val(uint64_t value) { asc_stub::set_pad_value(value); }
// The store-atomic register (asc_stub.h set_atomic): copy_ubuf_to_gm combines with GM while an operation
// is set; the TPipe's construction sets plain stores.
inline void set_atomic_none() { asc_stub::set_atomic(0); }
inline void set_atomic_add() { asc_stub::set_atomic(1); }
inline void set_atomic_max() { asc_stub::set_atomic(2); }
inline void set_atomic_min() { asc_stub::set_atomic(3); }
inline void set_atomic_f32() { asc_stub::set_atomic_type(1); }
inline void set_atomic_f16() { asc_stub::set_atomic_type(2); }
inline void set_atomic_s16() { asc_stub::set_atomic_type(3); }
inline void set_atomic_s32() { asc_stub::set_atomic_type(4); }
inline void set_atomic_s8() { asc_stub::set_atomic_type(5); }
inline void set_atomic_bf16() { asc_stub::set_atomic_type(6); }
// the register's fields as GetStoreAtomicConfig reads them: type in bits 0-2, op in bits 3-4 (sum: 0)
template <typename A, typename B> inline void set_st_atomic_cfg(A type, B /*op*/)
{
    const int code = static_cast<int>(type);
    asc_stub::set_atomic(code == 0 ? 0 : 1);
    asc_stub::set_atomic_type(code);
}
inline int64_t get_st_atomic_cfg() { return asc_stub::atomic_op() ? asc_stub::atomic_type() : 0; }

// ---- cache and system: the host's memory is coherent and there is no instruction cache -----------------
// (the headers pass the enums as cache_line_t / dcci_dst_t or as plain integers: any form is taken)
template <typename... Args> inline void dcci(Args&&...) {}
template <typename... Args> inline void dc_preload(Args&&...) {}
template <typename... Args> inline void dsb(Args&&...) {}
inline int64_t get_pc() { return 0; }                  // the preload's start: no instruction memory to name
inline void preload(void*, int64_t) {}
inline int64_t get_icache_prl_st() { return 0; }      // 0: idle
// GetArchVersion's value is not visible to an asc_trace kernel (pyasc's get_arch_version returns nothing)
inline int64_t get_arch_ver() { return 0; }
[[noreturn]] inline void trap() { asc_stub::fail("launch", "the kernel called Trap()"); }

// ---- data movement: lengths and gaps in 32-byte blocks; the _align forms in bytes ----------------------
#define ASC_STUB_COPY(NAME, WHERE)                                                                              \
    template <typename D, typename S>                                                                           \
    inline void NAME(D* dst, S* src, uint64_t /*sid*/, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap,     \
                     uint64_t dstGap)                                                                           \
    {                                                                                                           \
        asc_stub::copy_blocks(WHERE, (void*)dst, (const void*)src, static_cast<uint32_t>(nBurst),               \
                              static_cast<uint32_t>(lenBurst), static_cast<uint32_t>(srcGap),                   \
                              static_cast<uint32_t>(dstGap));                                                   \
    }
ASC_STUB_COPY(copy_gm_to_ubuf, 0)
ASC_STUB_COPY(copy_ubuf_to_gm, 1)
ASC_STUB_COPY(copy_ubuf_to_ubuf, 2)
#undef ASC_STUB_COPY

#define ASC_STUB_COPY_ALIGN(NAME, TO_UB)                                                                        \
    template <typename D, typename S>                                                                           \
    inline void NAME(D* dst, S* src, uint64_t /*sid*/, uint64_t nBurst, uint64_t lenBurst, uint64_t left,       \
                     uint64_t right, uint64_t srcGap, uint64_t dstGap)                                          \
    {                                                                                                           \
        asc_stub::copy_pad(TO_UB, (void*)dst, (const void*)src, static_cast<uint32_t>(nBurst),                  \
                           static_cast<uint32_t>(lenBurst), sizeof(D), static_cast<uint32_t>(left),             \
                           static_cast<uint32_t>(right), srcGap, dstGap);                                       \
    }
ASC_STUB_COPY_ALIGN(copy_gm_to_ubuf_align_b8, true)
ASC_STUB_COPY_ALIGN(copy_gm_to_ubuf_align_b16, true)
ASC_STUB_COPY_ALIGN(copy_gm_to_ubuf_align_b32, true)
ASC_STUB_COPY_ALIGN(copy_ubuf_to_gm_align_b8, false)
ASC_STUB_COPY_ALIGN(copy_ubuf_to_gm_align_b16, false)
ASC_STUB_COPY_ALIGN(copy_ubuf_to_gm_align_b32, false)
#undef ASC_STUB_COPY_ALIGN

// ---- vector instructions: (dst, src..., repeat, block strides..., repeat strides...) --------------------
#define ASC_STUB_BINARY(NAME, OP)                                                                               \
    template <typename T>                                                                                       \
    inline void NAME(T* dst, T* src0, T* src1, uint64_t repeat, uint64_t dstBlk, uint64_t src0Blk,              \
                     uint64_t src1Blk, uint64_t dstRep, uint64_t src0Rep, uint64_t src1Rep)                     \
    {                                                                                                           \
        asc_stub::vec_binary(asc_stub::VOp::OP, asc_stub::op(dst, dstBlk, dstRep), asc_stub::op(src0, src0Blk,  \
                             src0Rep), asc_stub::op(src1, src1Blk, src1Rep), static_cast<uint32_t>(repeat));    \
    }
ASC_STUB_BINARY_INTRINSICS      // one per op record (asc_stub_ops.h)
#undef ASC_STUB_BINARY

#define ASC_STUB_UNARY(NAME, OP)                                                                                \
    template <typename T>                                                                                       \
    inline void NAME(T* dst, T* src, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep,        \
                     uint64_t srcRep)                                                                           \
    {                                                                                                           \
        asc_stub::vec_unary(asc_stub::VOp::OP, asc_stub::op(dst, dstBlk, dstRep), asc_stub::op(src, srcBlk,     \
                            srcRep), static_cast<uint32_t>(repeat));                                            \
    }
ASC_STUB_UNARY_INTRINSICS      // one per op record (asc_stub_ops.h)
#undef ASC_STUB_UNARY

#define ASC_STUB_SCALAR(NAME, OP)                                                                               \
    template <typename D, typename T, typename S>                                                               \
    inline void NAME(D* dst, T* src, S scalar, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk,               \
                     uint64_t dstRep, uint64_t srcRep, bool = false, bool = false)                              \
    {                                                                                                           \
        asc_stub::vec_scalar(asc_stub::VOp::OP, asc_stub::op(dst, dstBlk, dstRep), asc_stub::op(src, srcBlk,    \
                             srcRep), asc_stub::bits(static_cast<T>(scalar)), static_cast<uint32_t>(repeat));   \
    }
ASC_STUB_SCALAR_INTRINSICS      // one per op record (asc_stub_ops.h)
#undef ASC_STUB_SCALAR

template <typename T, typename S>
inline void vector_dup(T* dst, S scalar, uint64_t repeat, uint64_t dstBlk, uint64_t /*srcBlk*/, uint64_t dstRep,
                       uint64_t /*srcRep*/)
{
    asc_stub::vec_dup(asc_stub::op(dst, dstBlk, dstRep), asc_stub::bits(static_cast<T>(scalar)),
                      static_cast<uint32_t>(repeat));
}

template <typename T>
inline void vcopy(T* dst, T* src, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep, uint64_t srcRep)
{
    asc_stub::vec_copy(asc_stub::op(dst, dstBlk, dstRep), asc_stub::op(src, srcBlk, srcRep),
                       static_cast<uint32_t>(repeat));
}

// vconv_<src>2<dst><round>: r rint, f floor, c ceil, a round (away from zero), z trunc, o odd, none
#define ASC_STUB_CONV(NAME, ROUND)                                                                              \
    template <typename D, typename S>                                                                           \
    inline void NAME(D* dst, S* src, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep,        \
                     uint64_t srcRep)                                                                           \
    {                                                                                                           \
        asc_stub::vec_conv(asc_stub::op(dst, dstBlk, dstRep), asc_stub::op(src, srcBlk, srcRep), ROUND,         \
                           static_cast<uint32_t>(repeat));                                                      \
    }
#define ASC_STUB_CONV_MODES(BASE)                                                                               \
    ASC_STUB_CONV(BASE##r, 1) ASC_STUB_CONV(BASE##f, 2) ASC_STUB_CONV(BASE##c, 3) ASC_STUB_CONV(BASE##a, 4)     \
    ASC_STUB_CONV(BASE##z, 5)
ASC_STUB_CONV(vconv_f162f32, 0)
ASC_STUB_CONV(vconv_bf162f32, 0)
ASC_STUB_CONV(vconv_f322f16, 0)
ASC_STUB_CONV(vconv_f322f16o, 6)
ASC_STUB_CONV(vconv_s322f32, 0)
ASC_STUB_CONV(vconv_s162f16, 0)
ASC_STUB_CONV(vconv_s162f32, 0)
ASC_STUB_CONV(vconv_s82f16, 0)
ASC_STUB_CONV(vconv_u82f16, 0)
ASC_STUB_CONV(vconv_f162s8, 0)
ASC_STUB_CONV(vconv_f322bf16o, 6)
ASC_STUB_CONV_MODES(vconv_f322f16)
ASC_STUB_CONV_MODES(vconv_f322bf16)
ASC_STUB_CONV_MODES(vconv_f322f32)
ASC_STUB_CONV_MODES(vconv_f322s32)
ASC_STUB_CONV_MODES(vconv_f322s16)
ASC_STUB_CONV_MODES(vconv_f322s64)
ASC_STUB_CONV_MODES(vconv_f162s32)
ASC_STUB_CONV_MODES(vconv_f162s16)
ASC_STUB_CONV_MODES(vconv_f162s8)
ASC_STUB_CONV_MODES(vconv_f162u8)
ASC_STUB_CONV_MODES(vconv_bf162s32)
ASC_STUB_CONV_MODES(vconv_s322f32)
ASC_STUB_CONV_MODES(vconv_s162f16)
ASC_STUB_CONV_MODES(vconv_s642f32)
#undef ASC_STUB_CONV_MODES
#undef ASC_STUB_CONV

#define ASC_STUB_CMP(MODE, CMP)                                                                                 \
    template <typename D, typename T>                                                                           \
    inline void vcmpv_##MODE(D* dst, T* src0, T* src1, uint64_t repeat, uint64_t /*dstBlk*/, uint64_t src0Blk,  \
                             uint64_t src1Blk, uint64_t /*dstRep*/, uint64_t src0Rep, uint64_t src1Rep)         \
    {                                                                                                           \
        asc_stub::vec_cmp(asc_stub::Cmp::CMP, asc_stub::Operand{(void*)dst, asc_stub::DT::U8, 1, 8},            \
                          asc_stub::op(src0, src0Blk, src0Rep), asc_stub::op(src1, src1Blk, src1Rep),           \
                          static_cast<uint32_t>(repeat));                                                       \
    }                                                                                                           \
    template <typename D, typename T, typename S>                                                               \
    inline void vcmpvs_##MODE(D* dst, T* src0, S scalar, uint64_t repeat, uint64_t /*dstBlk*/, uint64_t srcBlk, \
                              uint64_t /*dstRep*/, uint64_t srcRep)                                             \
    {                                                                                                           \
        asc_stub::vec_cmp_scalar(asc_stub::Cmp::CMP, asc_stub::Operand{(void*)dst, asc_stub::DT::U8, 1, 8},     \
                                 asc_stub::op(src0, srcBlk, srcRep), asc_stub::bits(static_cast<T>(scalar)),    \
                                 static_cast<uint32_t>(repeat));                                                \
    }
// vcmp_* (Compare without dst): one repeat into the CMPMASK register
#define ASC_STUB_CMP_REG(MODE, CMP)                                                                             \
    template <typename T>                                                                                       \
    inline void vcmp_##MODE(T* src0, T* src1, uint64_t /*repeat*/, uint64_t /*dstBlk*/, uint64_t src0Blk,        \
                            uint64_t src1Blk, uint64_t /*dstRep*/, uint64_t src0Rep, uint64_t src1Rep)          \
    {                                                                                                           \
        asc_stub::vec_cmp_reg(asc_stub::Cmp::CMP, asc_stub::op(src0, src0Blk, src0Rep),                        \
                              asc_stub::op(src1, src1Blk, src1Rep));                                            \
    }
ASC_STUB_CMP_REG(lt, LT)
ASC_STUB_CMP_REG(gt, GT)
ASC_STUB_CMP_REG(eq, EQ)
ASC_STUB_CMP_REG(le, LE)
ASC_STUB_CMP_REG(ge, GE)
ASC_STUB_CMP_REG(ne, NE)
#undef ASC_STUB_CMP_REG
// the compares write one bit per element, repeats packed back to back (the dst strides do not apply)
ASC_STUB_CMP(lt, LT)
ASC_STUB_CMP(gt, GT)
ASC_STUB_CMP(eq, EQ)
ASC_STUB_CMP(le, LE)
ASC_STUB_CMP(ge, GE)
ASC_STUB_CMP(ne, NE)
#undef ASC_STUB_CMP

// Sort32 (vbitsort) and Transpose (vtranspose): src/sort.cpp
template <typename T>
inline void vbitsort(T* dst, T* src0, uint32_t* src1, uint64_t repeat)
{
    asc_stub::vec_bitsort((void*)dst, (const void*)src0, src1, asc_stub::dt_of<T>::value, static_cast<uint32_t>(repeat));
}
inline void vtranspose(uint16_t* dst, uint16_t* src) { asc_stub::vec_transpose16(dst, src); }
// MrgSort (vmrgsort4) and its VMS4_SR register: src/sort.cpp
template <typename T>
inline void vmrgsort4(T* dst, T* addrArray[4], uint64_t lengths, uint64_t config)
{
    const void* srcs[4] = {addrArray[0], addrArray[1], addrArray[2], addrArray[3]};
    asc_stub::vec_mrgsort4((void*)dst, srcs, asc_stub::dt_of<T>::value, lengths, config);
}
inline uint64_t get_vms4_sr() { return asc_stub::vms4_sr(); }

// vsel: mode 0 takes the bits from CMPMASK, 1 the bit mask in `src1` and the scalar from CMPMASK,
// 2 the bit mask whose address CMPMASK holds (SELMODE).
template <typename T, typename U>
inline void vsel(T* dst, T* src0, U* src1, uint64_t repeat, uint64_t dstBlk, uint64_t src0Blk, uint64_t src1Blk,
                 uint64_t dstRep, uint64_t src0Rep, uint64_t src1Rep, uint64_t mode = 0)
{
    asc_stub::Operand third{(void*)src1, asc_stub::dt_of<T>::value, static_cast<uint32_t>(src1Blk),
                            static_cast<uint32_t>(src1Rep)};
    asc_stub::vec_select(static_cast<int>(mode), asc_stub::op(dst, dstBlk, dstRep), asc_stub::op(src0, src0Blk, src0Rep),
                         third, static_cast<uint32_t>(repeat));
}

// Repeat reductions: (dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride, order / accumulate)
template <typename T>
inline void vcadd(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep, uint64_t acc)
{
    asc_stub::vec_reduce(0, asc_stub::op(dst, 1, dstRep), asc_stub::op(src, srcBlk, srcRep),
                         static_cast<uint32_t>(repeat), 2, acc != 0);
}
template <typename T>
inline void vcmax(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep, Order_t order)
{
    asc_stub::vec_reduce(1, asc_stub::op(dst, 1, dstRep), asc_stub::op(src, srcBlk, srcRep),
                         static_cast<uint32_t>(repeat), static_cast<int>(order), false);
}
template <typename T>
inline void vcmin(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep, Order_t order)
{
    asc_stub::vec_reduce(2, asc_stub::op(dst, 1, dstRep), asc_stub::op(src, srcBlk, srcRep),
                         static_cast<uint32_t>(repeat), static_cast<int>(order), false);
}

// Brcb: (dst, src, dstBlkStride, dstRepStride, repeat)
template <typename T>
inline void vbrcb(T* dst, T* src, uint64_t dstBlk, uint64_t dstRep, uint64_t repeat)
{
    asc_stub::vec_brcb(dst, src, sizeof(T), static_cast<uint32_t>(dstBlk), static_cast<uint32_t>(dstRep),
                       static_cast<uint32_t>(repeat));
}

// Gather: (dst, byte offsets, the source's 32-bit address (unused: gather_source has it), dstRepStride, repeat)
template <typename T>
inline void vgather(T* dst, uint32_t* off, uint64_t, uint64_t dstRep, uint64_t repeat)
{
    asc_stub::vec_gather(dst, off, sizeof(T), static_cast<uint32_t>(dstRep), static_cast<uint32_t>(repeat));
}
// the register form (dst, offsets, config) no A2 API call reaches: stops naming itself if one ever does
template <typename T> inline void vgather(T*, uint32_t*, uint64_t) { asc_stub::unmodeled("vgather (config form)"); }
// Gatherb: (dst, byte offsets, the source's 32-bit address, dstRepStride, dstBlkStride, repeat)
template <typename T>
inline void vgatherb(T* dst, uint32_t* off, uint64_t, uint64_t dstRep, uint64_t dstBlk, uint64_t repeat)
{
    asc_stub::vec_gatherb(dst, off, sizeof(T), static_cast<uint32_t>(dstBlk), static_cast<uint32_t>(dstRep),
                          static_cast<uint32_t>(repeat));
}

// Block reductions (BlockReduceSum / Max / Min): (dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride)
template <typename T>
inline void vcgadd(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep)
{
    asc_stub::vec_block_reduce(0, asc_stub::op(dst, 1, dstRep), asc_stub::op(src, srcBlk, srcRep),
                               static_cast<uint32_t>(repeat));
}
template <typename T>
inline void vcgmax(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep)
{
    asc_stub::vec_block_reduce(1, asc_stub::op(dst, 1, dstRep), asc_stub::op(src, srcBlk, srcRep),
                               static_cast<uint32_t>(repeat));
}
template <typename T>
inline void vcgmin(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep)
{
    asc_stub::vec_block_reduce(2, asc_stub::op(dst, 1, dstRep), asc_stub::op(src, srcBlk, srcRep),
                               static_cast<uint32_t>(repeat));
}

// PairReduceSum: (dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride)
template <typename T>
inline void vcpadd(T* dst, T* src, uint64_t repeat, uint64_t dstRep, uint64_t srcBlk, uint64_t srcRep)
{
    asc_stub::vec_pair_reduce(asc_stub::op(dst, 1, dstRep), asc_stub::op(src, srcBlk, srcRep),
                              static_cast<uint32_t>(repeat));
}

// ---- TPipe / TQue / TBuf bookkeeping hooks (tikicpulib's buffer checker; src/runtime.cpp) --------------
void AscendCQueCreate(uint8_t src, uint8_t dst, int32_t depth);
void AscendCBufAbsAddr(uint8_t hardware, uint64_t base, uint32_t len);
void AscendCBufInit(uint8_t pos, uint8_t kind, uint8_t num, uint64_t addr, uint64_t len);
void AscendCBufAlloc(uint8_t hardware, uint8_t pos, uint64_t addr, uint64_t len);
void AscendCBufFree(uint8_t hardware, uint8_t pos, uint64_t addr, uint64_t len);
void AscendCBufEnque(uint8_t src, uint8_t dst, uint8_t pos, uint64_t addr);
void AscendCBufDeque(uint8_t src, uint8_t dst, uint8_t pos, uint64_t addr);
void AscendCBufGet(uint8_t pos, uint8_t hardware, uint64_t addr, uint64_t len);
void AscendCTBufPoolInit(uint8_t pos, uint64_t addr, uint64_t len, uint64_t pool);
void AscendCTBufPoolResetCheck(uint8_t pos, uint64_t addr, uint64_t len, uint64_t pool);
void AscendCUpdateTbufPoolStatus(uint64_t pool, bool reset);
void AscendCRecordPoolHierarchy(uint64_t parent, uint64_t child);

#include "stub_unmodeled.h"
