// The machine under asc_trace's CPU-debug stub layer: one AI Vector core's registers (vector mask
// and its mode, CMPMASK, the reduction results), its Unified Buffer, the caller's GM arrays, the
// hardware event flags, and the failure channel back to Python. The intrinsics in stub_fun.h call
// into the functions declared here (src/*.cpp), which the cpu_debug backend compiles once.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include "asc_stub_ops.h"   // generated from the op registry: the element-wise instructions

namespace asc_stub {

// Element types of the intrinsics' operands (the dtype codes of src/*.cpp).
enum class DT : uint8_t { F16, BF16, F32, S8, U8, S16, U16, S32, U32, S64, U64 };
size_t size_of(DT dt);
const char* name_of(DT dt);

// A UB operand of a repeat-structured vector instruction: base address, element type, and its
// block / repeat strides in 32-byte blocks.
struct Operand {
    void* base;
    DT dt;
    uint32_t blk;
    uint32_t rep;
};

// -- the failure channel -------------------------------------------------------------------------
// Stops the core: prints `@@ASC_TRACE_FAIL kind=.. node=.. core=..<TAB>message` on stderr and exits
// the core's process. Kinds: alignment, bounds, ub, queue, sync, unmodeled, api.
[[noreturn]] void fail(const char* kind, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// An intrinsic the headers reach that this layer does not model: stops with its name.
[[noreturn]] void unmodeled(const char* name);
[[noreturn]] void vfail(const char* kind, const char* fmt, va_list ap);
void set_node(int node);
// The statements of the current node are the vendor's own implementation of a high-level call (asc.adv): its
// basic calls may reach past the views they pass (the vendor's code, run as written on the NPU), so the
// operands of a mask / repeat form are bounded by the UB there, not by the user-level tensor rule. Until set_node.
void vendor_impl();
bool in_vendor_impl();   // vendor_impl() was called for the current node

// -- memory checks -------------------------------------------------------------------------------
// [p, p + nbytes) must lie in the usable Unified Buffer; `align` is the address alignment required.
void check_ub(const void* p, uint64_t nbytes, uint32_t align, const char* what);
// [p, p + nbytes) must lie inside one of the caller's arrays, and inside the window of the
// GlobalTensor the running statement uses (gm_operand), when SetGlobalBuffer gave it a size.
void check_gm(const void* p, uint64_t nbytes, const char* what);
// GlobalTensor `root` (its graph node) has the window [base, base + nbytes) (0: no size given).
void gm_window(int root, const void* base, uint64_t nbytes);
// The running statement's global memory operand is GlobalTensor `root` (until the next node marker).
void gm_operand(int root);

// -- the launcher's side ---------------------------------------------------------------------------
void add_gm_range(void* lo, uint64_t nbytes, const char* name);
// Start core `core` of `core_num` on the Unified Buffer at `ub` (`ub_bytes` long): poison it,
// reset the registers and the flags.
void begin_core(int core, int core_num, uint8_t* ub, uint64_t ub_bytes);
// The core's end: every flag set must have been waited.
void end_core();
void install_signal_handlers();

// -- registers -------------------------------------------------------------------------------------
struct Mask {
    bool counter;      // counter mode: `lo` is the element count, processed in whole repeats
    uint64_t hi, lo;   // normal mode: bit e of (hi:lo) enables element e of every repeat
};
Mask& mask();
void set_cmpmask_from(const void* src);
void get_cmpmask_to(void* dst);
uint64_t& acc_val();
uint64_t& max_min_cnt();
void set_pad_value(uint64_t bits);
uint64_t& ctrl();
// the store-atomic register: op 0 plain stores, 1 add, 2 max, 3 min; type: the AtomicDtype code
// (1 f32, 2 f16, 3 s16, 4 s32, 5 s8, 6 bf16), which copy_ubuf_to_gm combines elements as
void set_atomic(int op);
void set_atomic_type(int code);
int atomic_op();
int atomic_type();

// -- events ------------------------------------------------------------------------------------------
void set_flag(int src_pipe, int dst_pipe, int event);
void wait_flag(int src_pipe, int dst_pipe, int event);
void pipe_barrier(int pipe);

// -- Sort32 and Transpose (src/sort.cpp) ---------------------------------------------------------
// vbitsort: per repeat, 32 scores of `dt` (half / float) with their uint32 indices sorted largest first (ties
// in input order) into 8-byte (score, index) structures; vtranspose: one 16 x 16 matrix of 2-byte elements.
void vec_bitsort(void* dst, const void* scores, const uint32_t* idx, DT dt, uint32_t repeat);
void vec_transpose16(uint16_t* dst, const uint16_t* src);
// vmrgsort4 (MrgSort): merge up to four sorted lists of 8-byte structures (largest score first, of equal scores the
// earlier list's); `lengths` the four 16-bit counts, `config` repeat [7:0], valid bits [11:8], exhausted [12]. The
// counts each list gave (the last repeat) are what get_vms4_sr() reads back.
void vec_mrgsort4(void* dst, const void* const srcs[4], DT dt, uint64_t lengths, uint64_t config);
uint64_t vms4_sr();

// -- data movement (src/copy.cpp) -----------------------------------------------------------------
// `where`: 0 GM -> UB, 1 UB -> GM, 2 UB -> UB. Lengths and gaps in 32-byte blocks.
void copy_blocks(int where, void* dst, const void* src, uint32_t n_burst, uint32_t len_burst, uint32_t src_gap,
                 uint32_t dst_gap);
// DataCopyPad: `len` bytes per burst, `elem` bytes per element; GM strides in bytes, UB strides in
// 32-byte blocks; left / right padding in elements (GM -> UB only, filled from pad_value()).
void copy_pad(bool to_ub, void* dst, const void* src, uint32_t n_burst, uint32_t len, uint32_t elem, uint32_t left,
              uint32_t right, uint64_t src_gap, uint64_t dst_gap);

// -- vector instructions (src/vector.cpp, src/vector_reduce.cpp) ---------------------------------
// the element-wise instructions, one per op record (asc_stub_ops.h, generated from the registry)
enum class VOp : uint8_t { ASC_STUB_VOPS };
enum class Cmp : uint8_t { LT, GT, EQ, LE, GE, NE };

void vec_binary(VOp op, const Operand& dst, const Operand& a, const Operand& b, uint32_t repeat);
void vec_unary(VOp op, const Operand& dst, const Operand& a, uint32_t repeat);
// `scalar` holds the scalar's bits in the element type of `a`.
void vec_scalar(VOp op, const Operand& dst, const Operand& a, uint64_t scalar, uint32_t repeat);
void vec_dup(const Operand& dst, uint64_t scalar, uint32_t repeat);
void vec_conv(const Operand& dst, const Operand& a, int round, uint32_t repeat);
void vec_cmp(Cmp op, const Operand& dst_bits, const Operand& a, const Operand& b, uint32_t repeat);
// vcmp_*: one repeat compared into CMPMASK (lanes the mask leaves out 0; a 32-bit type's high 64 bits poison)
void vec_cmp_reg(Cmp op, const Operand& a, const Operand& b);
void vec_cmp_scalar(Cmp op, const Operand& dst_bits, const Operand& a, uint64_t scalar, uint32_t repeat);
// mode 0: the bits in CMPMASK for every repeat; 1: `b` is the bit mask, the scalar is in CMPMASK;
// 2: CMPMASK holds the address of the bit mask tensor.
void vec_select(int mode, const Operand& dst, const Operand& a, const Operand& b, uint32_t repeat);
// kind 0 sum, 1 max, 2 min; `order` as Order_t; `accumulate`: the sum goes to ACC_VAL only.
void vec_reduce(int kind, const Operand& dst, const Operand& a, uint32_t repeat, int order, bool accumulate);
// Block reductions (vcgadd / vcgmax / vcgmin): one result per 32-byte block, 8 per repeat, written
// contiguously; `dst.rep` counts whole repeats' results (8 elements).
void vec_block_reduce(int kind, const Operand& dst, const Operand& a, uint32_t repeat);
// vcpadd (PairReduceSum): lanes (2i, 2i+1) added; half a repeat's results per repeat, `dst.rep` counting such halves.
void vec_pair_reduce(const Operand& dst, const Operand& a, uint32_t repeat);
void vec_copy(const Operand& dst, const Operand& a, uint32_t repeat);
// vbrcb (Brcb): per repeat 8 consecutive src elements, each filling one 32-byte block of dst; blocks
// dstBlk blocks apart, repeats dstRep blocks apart; no mask.
void vec_brcb(void* dst, const void* src, size_t size, uint32_t dstBlk, uint32_t dstRep, uint32_t repeat);
// The LocalTensors the API's parameter check (check::CheckFunBcBImpl, CheckFuncGather*Impl) saw for the
// Brcb / Gather / Gatherb about to run: the instruction checks every element it touches against them (the
// simulator's tensor bounds), then forgets them. A null pointer: that operand is not checked.
void api_extents(const void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, const void* off,
                 uint64_t off_bytes);
// The LocalTensors the API's parameter check of a mask / repeat form (check::CheckFuncVecBinaryImpl with a
// mask, ...) saw for the element-wise instruction about to run: it bounds each operand's reach, the
// last byte its enabled lanes touch, by its tensor, as the simulator does, then forgets them. A null pointer:
// that operand is not checked. An instruction whose operand does not start where the tensor does ignores it.
void vec_extents(const void* dst, uint64_t dst_bytes, const void* src0, uint64_t src0_bytes, const void* src1,
                 uint64_t src1_bytes);
// SetModelGatherbSrc0Tensor: the gather source's host address (the instruction's own 32-bit field cannot hold it).
void gather_source(uint64_t addr);
// vgather (Gather): lane e of repeat r (the vector mask's lanes) takes the element at byte offset[r * lanes + e]
// of the gather source into dst + r * dstRep blocks + e elements. vgatherb (Gatherb): per repeat 8 byte
// offsets each pick one 32-byte block of the source, written dstBlk blocks apart, repeats dstRep blocks apart.
void vec_gather(void* dst, const uint32_t* off, size_t size, uint32_t dstRep, uint32_t repeat);
void vec_gatherb(void* dst, const uint32_t* off, size_t size, uint32_t dstBlk, uint32_t dstRep, uint32_t repeat);

// -- host type codes -------------------------------------------------------------------------------
template <typename T> struct dt_of;
template <> struct dt_of<int8_t> { static constexpr DT value = DT::S8; };
template <> struct dt_of<uint8_t> { static constexpr DT value = DT::U8; };
template <> struct dt_of<int16_t> { static constexpr DT value = DT::S16; };
template <> struct dt_of<uint16_t> { static constexpr DT value = DT::U16; };
template <> struct dt_of<int32_t> { static constexpr DT value = DT::S32; };
template <> struct dt_of<uint32_t> { static constexpr DT value = DT::U32; };
template <> struct dt_of<int64_t> { static constexpr DT value = DT::S64; };
template <> struct dt_of<uint64_t> { static constexpr DT value = DT::U64; };
template <> struct dt_of<float> { static constexpr DT value = DT::F32; };

}  // namespace asc_stub
