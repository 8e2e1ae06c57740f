// asc_trace's host model of the Ascend C API subset that asc_trace emits (CANN 8.x, Atlas A2).
//
// Written from the documented signatures (../shared/reference/ascendc-api.md), not from CANN's
// headers. Goal: code that compiles here compiles under bisheng, and runs here with the
// simulator's semantics, so the lowering is tested end to end on a plain CPU:
// - `half` and `bfloat16_t` are distinct class types (a scalar must have exactly the element type);
// - templates deduce T from every argument, as the real ones do (Duplicate(fTensor, 0, n) fails);
// - param structs have only a default and an all-fields constructor;
// - build with -Werror=narrowing (bisheng/clang rejects narrowing in braces).
// Every core runs on its own 192 KB Unified Buffer (filled with 0xFF, like the simulator's);
// addresses, lengths and queue use are checked, and a violation stops the kernel with a message
// naming the node (ASC_TRACE_NODE) that the Python side maps back to the user's line.
#pragma once

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <deque>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "asc_trace_float16.h"
// the element-wise ops of the registry (generated beside this header by runtime/cpp.py)
#include "asc_trace_model_ops.h"

#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define GM_ADDR uint8_t*
#define KERNEL_TASK_TYPE_DEFAULT(x) ((void)(x))

enum KernelMetaType : uint8_t {
    KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE, KERNEL_TYPE_MIX_VECTOR_CORE, KERNEL_TYPE_MAX
};

enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX };

// ---------------------------------------------------------------------------------------------
// 16-bit floating point types: storage plus exact conversions (round to nearest, ties to even).
// ---------------------------------------------------------------------------------------------

class half {
public:
    uint16_t bits = 0;
    half() = default;
    half(float f) : bits(asc_float16::float_to_half_bits(f)) {}   // implicit, as bisheng's half
    operator float() const { return asc_float16::half_bits_to_float(bits); }
    static half from_bits(uint16_t b) { half h; h.bits = b; return h; }
};
static_assert(sizeof(half) == 2, "half must be 2 bytes");

class bfloat16_t {
public:
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(asc_float16::float_to_bf16_bits(f)) {}
    operator float() const { return asc_float16::bf16_bits_to_float(bits); }
};
static_assert(sizeof(bfloat16_t) == 2, "bfloat16_t must be 2 bytes");

#include "asc_trace_numerics.h"

// ---------------------------------------------------------------------------------------------
// The per-core machine and the error channel back to Python.
// ---------------------------------------------------------------------------------------------
namespace AscendC {
namespace detail {
using namespace asc_num;   // the element arithmetic shared with the CPU-debug intrinsic model
constexpr uint32_t UB_BYTES = 192 * 1024;
constexpr uint32_t UB_USABLE = UB_BYTES - 256;

struct Failure {
    std::string kind;     // "alignment", "bounds", "ub", "queue", "sync"
    std::string message;
};

struct GmRange { const uint8_t* lo; const uint8_t* hi; };

// The cube core's memories (ascend-cube-facts §1; asc_trace/cube_enums.py has the same sizes and alignments)
struct CubeMemories {
    uint8_t l1[512 * 1024];
    uint8_t l0a[64 * 1024];
    uint8_t l0b[64 * 1024];
    uint8_t l0c[128 * 1024];
    uint8_t bt[1024];
};

struct Core {
    int64_t core_idx = 0;      // not block_idx: bisheng (and the host builds' bisheng view) make that a macro
    int64_t core_count = 1;
    uint8_t ub[UB_BYTES];
    CubeMemories cube;         // filled with 0xFF at launch, as the simulator's (asc_trace_cube.h)
    int mix_local = -1;        // in a mixed kernel: 0 the cube core, 1 / 2 its vector cores; -1 otherwise
    std::string out;
    int node = -1;
    bool pipe_made = false;
    uint32_t pipe_next = 0;
    uint8_t event_mask[64] = {};
    int que_buffers[32] = {};    // TQue buffers per TPosition (each holds an event id: at most 8)
    int atomic_op = 0;           // the store-atomic register: 0 plain stores, 1 add, 2 max, 3 min
    int atomic_type = 0;         // its AtomicDtype code (GetStoreAtomicConfig)
    bool mask_counter = false;   // the mask register's mode (SetMaskCount / SetMaskNorm): a mask count's range
};

// The core running on this thread: a mixed kernel's three cores of an AI core run as threads, one at a time
// (asc_trace_mix.h); otherwise the one static core.
inline Core*& current_core() { thread_local Core* c = nullptr; return c; }
inline Core& core()
{
    static Core c;
    Core* cur = current_core();
    return cur != nullptr ? *cur : c;
}
inline std::vector<GmRange>& gm_ranges() { static std::vector<GmRange> r; return r; }

// A core as a launch finds it: UB and the cube memories poisoned (0xFF, as the simulator's), no pipe, no
// queue buffers or event ids taken, plain stores. The launchers (asc_trace/runtime/cpp.py) call it per core.
inline void reset_core(Core& st, int64_t idx, int64_t count)
{
    st.core_idx = idx;
    st.core_count = count;
    std::memset(st.ub, 0xFF, sizeof st.ub);
    std::memset(&st.cube, 0xFF, sizeof st.cube);
    st.out.clear();
    st.node = -1;
    st.pipe_made = false;
    st.atomic_op = 0;
    st.mask_counter = false;     // a kernel starts in NORMAL mode (InitSocState's state)
    st.pipe_next = 0;
    std::memset(st.event_mask, 0, sizeof st.event_mask);
    std::memset(st.que_buffers, 0, sizeof st.que_buffers);
}

[[noreturn]] inline void fail(const char* kind, const char* fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    throw Failure{kind, buf};
}

inline const char* kind_name(int kind)
{
    static const char* const names[] = {"?", "bounds", "scalar", "sync", "alignment", "ub", "queue"};
    return kind >= 1 && kind <= 6 ? names[kind] : "?";
}

inline void check_ub(uint64_t addr, uint64_t nbytes, const char* what)
{
    if (addr % 32 != 0) fail("alignment", "%s starts at UB byte address %llu, which is not 32-byte aligned", what,
                             static_cast<unsigned long long>(addr));
    if (addr + nbytes > UB_USABLE)
        fail("ub", "%s spans UB bytes [%llu, %llu) past the usable %u bytes", what,
             static_cast<unsigned long long>(addr), static_cast<unsigned long long>(addr + nbytes), UB_USABLE);
}

// `count` elements of `size` bytes from element `start` of `base`, all inside one kernel argument
inline void* check_gm_elems(const void* base, uint64_t start, uint64_t count, uint64_t size, const char* what)
{
    const uintptr_t b = reinterpret_cast<uintptr_t>(base);
    const uintptr_t room = UINTPTR_MAX - b;
    if (start > room / size || count > (room - start * size) / size)
        fail("bounds", "%s touches global memory outside the arrays passed to the kernel", what);
    const uintptr_t lo = b + start * size, hi = lo + count * size;
    for (const GmRange& r : gm_ranges())
        if (lo >= reinterpret_cast<uintptr_t>(r.lo) && hi <= reinterpret_cast<uintptr_t>(r.hi))
            return reinterpret_cast<void*>(lo);
    fail("bounds", "%s touches global memory outside the arrays passed to the kernel", what);
}

}  // namespace detail

inline int64_t GetBlockIdx() { return detail::core().core_idx; }
}  // namespace AscendC

// The failure hook of asc_trace_prelude.h's checks: stop the kernel with an asc_trace error.
[[noreturn]] inline void asc_trace_fail(int kind, const char* message)
{
    throw AscendC::detail::Failure{AscendC::detail::kind_name(kind), message};
}

namespace AscendC {
inline int64_t GetBlockNum() { return detail::core().core_count; }

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;

namespace detail {
// Which memory a TPosition names: L1 (A1 / B1 / C1 / TSCM), L0A (A2), L0B (B2), L0C (CO1), the bias table
// (C2); every other position is the Unified Buffer. {name, bytes, address alignment} as cube_enums.py.
struct MemoryInfo { const char* name; uint32_t nbytes; uint32_t align; };
inline int memory_kind(TPosition pos)
{
    switch (pos) {
    case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return 1;
    case TPosition::A2: return 2;
    case TPosition::B2: return 3;
    case TPosition::CO1: return 4;
    case TPosition::C2: return 5;
    default: return 0;
    }
}
inline MemoryInfo memory_info(TPosition pos)
{
    static const MemoryInfo infos[] = {{"UB", UB_USABLE, 32}, {"L1", 512 * 1024, 32}, {"L0A", 64 * 1024, 512},
                                       {"L0B", 64 * 1024, 512}, {"L0C", 128 * 1024, 64}, {"BiasTable", 1024, 64}};
    return infos[memory_kind(pos)];
}
inline uint8_t* memory(TPosition pos)
{
    Core& c = core();
    switch (memory_kind(pos)) {
    case 1: return c.cube.l1;
    case 2: return c.cube.l0a;
    case 3: return c.cube.l0b;
    case 4: return c.cube.l0c;
    case 5: return c.cube.bt;
    default: return c.ub;
    }
}
inline void check_local(TPosition pos, uint64_t addr, uint64_t nbytes)
{
    if (memory_kind(pos) == 0) return check_ub(addr, nbytes, "this LocalTensor");
    const MemoryInfo m = memory_info(pos);
    if (addr % m.align != 0)
        fail("alignment", "a LocalTensor in %s at byte %llu: addresses there are multiples of %u bytes", m.name,
             static_cast<unsigned long long>(addr), m.align);
    if (addr + nbytes > m.nbytes)
        fail("ub", "this tensor spans %s bytes [%llu, %llu) but %s has %u bytes", m.name,
             static_cast<unsigned long long>(addr), static_cast<unsigned long long>(addr + nbytes), m.name, m.nbytes);
}
}  // namespace detail

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3,
    MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};

enum RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

using TEventID = int8_t;

// ---------------------------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------------------------
// The model keeps a GlobalTensor as its buffer's base and an element offset, and checks every access
// in integer arithmetic: an offset so large that the address would wrap around 2**64 (and so land
// inside some array again) is outside global memory, as the simulator says.
// The L2 cache policy of a GlobalTensor's accesses: the host has no L2 cache, so the hint changes nothing.
enum class CacheMode { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL = 1, CACHE_MODE_LAST = 2, CACHE_MODE_PERSISTENT = 4 };
enum class CacheRwMode { READ = 1, WRITE = 2, RW = 3 };

template <typename T> class GlobalTensor {
public:
    GlobalTensor() = default;
    template <CacheRwMode rwMode = CacheRwMode::RW> void SetL2CacheHint(CacheMode) {}
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) { bind(buffer); size_ = bufferSize; sized_ = true; }
    void SetGlobalBuffer(__gm__ T* buffer) { bind(buffer); size_ = 0; sized_ = false; }
    const __gm__ T* GetPhyAddr() const { return base_ + off_; }
    __gm__ T* GetPhyAddr(const uint64_t offset) const { return base_ + off_ + offset; }
    uint64_t GetSize() const { return size_; }
    GlobalTensor operator[](const uint64_t offset) const   // moves the address; the size is not reduced
    {
        GlobalTensor g = *this;
        if (offset > UINT64_MAX - off_) g.wild_ = true;
        else g.off_ = off_ + offset;
        return g;
    }
    T GetValue(const uint64_t offset) const { return *span_at(offset, 1, "GetValue"); }
    void SetValue(const uint64_t offset, T value) { *span_at(offset, 1, "SetValue") = value; }

    // model only: the checked element range [here, here + count)
    T* span(uint64_t count, const char* what) const { return span_at(0, count, what); }

private:
    void bind(__gm__ T* buffer) { base_ = buffer; off_ = 0; wild_ = false; }
    T* span_at(uint64_t offset, uint64_t count, const char* what) const
    {
        if (base_ == nullptr) detail::fail("bounds", "%s on a GlobalTensor without SetGlobalBuffer", what);
        if (wild_ || offset > UINT64_MAX - off_)
            detail::fail("bounds", "%s touches global memory outside the arrays passed to the kernel", what);
        uint64_t start = off_ + offset;
        if (sized_ && (start > size_ || count > size_ - start))
            detail::fail("bounds", "%s reads/writes elements [%llu, %llu) but the GlobalTensor window set by "
                         "SetGlobalBuffer has %llu", what, static_cast<unsigned long long>(start),
                         static_cast<unsigned long long>(start + count), static_cast<unsigned long long>(size_));
        return static_cast<T*>(detail::check_gm_elems(base_, start, count, sizeof(T), what));
    }
    __gm__ T* base_ = nullptr;
    uint64_t off_ = 0;          // elements from base_
    bool wild_ = false;         // an offset past 2**64 elements
    uint64_t size_ = 0;
    bool sized_ = false;
};

template <typename T> class LocalTensor {
public:
    LocalTensor() = default;
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize) : addr_(addr), size_(tileSize), pos_(pos)
    {
        static_assert(std::is_arithmetic<T>::value || std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value,
                      "LocalTensor(pos, addr, tileSize) takes plain element types only");
        detail::check_local(pos, addr, static_cast<uint64_t>(tileSize) * sizeof(T));
    }
    LocalTensor operator[](const uint32_t offset) const
    {
        LocalTensor t = *this;
        t.addr_ = addr_ + offset * static_cast<uint32_t>(sizeof(T));
        t.size_ = offset <= size_ ? size_ - offset : 0;
        return t;
    }
    template <typename U> LocalTensor<U> ReinterpretCast() const
    {
        LocalTensor<U> u;
        u.set(addr_, static_cast<uint32_t>(static_cast<uint64_t>(size_) * sizeof(T) / sizeof(U)), pos_);
        return u;
    }
    uint32_t GetSize() const { return size_; }
    void SetSize(const uint32_t size) { size_ = size; }
    int32_t GetPosition() const { return static_cast<int32_t>(pos_); }
    T GetValue(const uint32_t index) const { return *elem(index); }
    template <typename S> void SetValue(const uint32_t index, const S value) const { *elem(index) = static_cast<T>(value); }

    // model only: `count` elements from here, inside the tensor (the scalar unit and DumpTensor
    // read anywhere; the vector unit and the copies also need 32-byte alignment: span)
    T* span_unaligned(uint32_t count, const char* what) const
    {
        if (count > size_)
            detail::fail("bounds", "%s needs %u elements but its tensor has only %u from here", what, count, size_);
        return reinterpret_cast<T*>(detail::memory(pos_) + addr_);
    }
    T* span(uint32_t count, const char* what) const
    {
        // the API checks the tensor's size when it is called, the instruction the alignment: in that order
        if (count > size_)
            detail::fail("bounds", "%s needs %u elements but its tensor has only %u from here", what, count, size_);
        if (addr_ % 32 != 0)
            detail::fail("alignment", "%s starts at UB byte address %u, which is not 32-byte aligned", what, addr_);
        return reinterpret_cast<T*>(detail::memory(pos_) + addr_);
    }
    uint32_t addr() const { return addr_; }
    TPosition position() const { return pos_; }
    void set(uint32_t addr, uint32_t size, TPosition pos) { addr_ = addr; size_ = size; pos_ = pos; }

private:
    T* elem(uint32_t index) const
    {
        if (index >= size_) detail::fail("bounds", "element %u of a tensor of %u elements", index, size_);
        return reinterpret_cast<T*>(detail::memory(pos_) + addr_) + index;
    }
    uint32_t addr_ = 0;
    uint32_t size_ = 0;
    TPosition pos_ = TPosition::VECCALC;
};

// ---------------------------------------------------------------------------------------------
// Synchronisation: the host runs instructions in program order, so the events only check ids.
// ---------------------------------------------------------------------------------------------
template <HardEvent event> inline void SetFlag(int32_t eventID)
{
    if (eventID < 0 || eventID > 7) detail::fail("sync", "event id %d is outside 0..7", eventID);
}
template <HardEvent event> inline void WaitFlag(int32_t eventID)
{
    if (eventID < 0 || eventID > 7) detail::fail("sync", "event id %d is outside 0..7", eventID);
}
template <pipe_t pipe> inline void PipeBarrier()
{
    static_assert(pipe != PIPE_S, "PipeBarrier<PIPE_S> is not allowed");
}

// ---------------------------------------------------------------------------------------------
// Cache and system calls: the host's memory is coherent and there is no instruction cache, so the
// cache calls change nothing; Trap stops the kernel.
// ---------------------------------------------------------------------------------------------
enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
template <typename T, CacheLine entireType, DcciDst dcciDst> inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}
template <typename T, CacheLine entireType> inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}
template <typename T> inline void DataCachePreload(const GlobalTensor<uint64_t>&, const T) {}
inline void ICachePreLoad(const int64_t) {}
inline int64_t GetICachePreloadStatus() { return 0; }   // 0: idle (no preload in flight)
template <MemDsbT arg0> inline void DataSyncBarrier() {}
inline void GetArchVersion(uint32_t&) {}                // leaves the value: pyasc's get_arch_version returns nothing
inline void InitSocState() {}
[[noreturn]] inline void Trap() { detail::fail("launch", "the kernel called Trap()"); }

// The store-atomic register: DataCopy to GM (count form) combines with GM while an operation is set.
enum class AtomicDtype { ATOMIC_NONE = 0, ATOMIC_F32, ATOMIC_F16, ATOMIC_S16, ATOMIC_S32, ATOMIC_S8, ATOMIC_BF16 };
enum class AtomicOp { ATOMIC_SUM = 0 };
namespace detail {
template <typename T> constexpr int atomic_code()
{
    return std::is_same<T, float>::value ? 1 : std::is_same<T, half>::value ? 2 : std::is_same<T, int16_t>::value ? 3
         : std::is_same<T, int32_t>::value ? 4 : std::is_same<T, int8_t>::value ? 5 : 6;
}
inline void set_atomic(int op, int type) { core().atomic_op = op; core().atomic_type = type; }
}  // namespace detail
template <typename T> inline void SetAtomicAdd() { detail::set_atomic(1, detail::atomic_code<T>()); }
template <typename T> inline void SetAtomicMax() { detail::set_atomic(2, detail::atomic_code<T>()); }
template <typename T> inline void SetAtomicMin() { detail::set_atomic(3, detail::atomic_code<T>()); }
template <typename T> inline void SetAtomicType() { detail::core().atomic_type = detail::atomic_code<T>(); }
inline void SetAtomicNone() { detail::set_atomic(0, 0); }
template <AtomicDtype type, AtomicOp op> inline void SetStoreAtomicConfig()
{
    detail::set_atomic(type == AtomicDtype::ATOMIC_NONE ? 0 : 1, static_cast<int>(type));
}
inline void GetStoreAtomicConfig(uint16_t& atomicType, uint16_t& atomicOp)
{
    atomicType = static_cast<uint16_t>(detail::core().atomic_op ? detail::core().atomic_type : 0);
    atomicOp = 0;
}

// The mask register: each op's mask is taken from the trace (an op with isSetMask = false carries the
// value the register holds there), so the writes change only the mode, which bounds a mask count
// (detail::mask_of, the API's CheckMaskValue).
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
inline void SetMaskCount() { detail::core().mask_counter = true; }
inline void SetMaskNorm() { detail::core().mask_counter = false; }
inline void ResetMask() {}
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(const uint64_t, const uint64_t) {}
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(int32_t) {}

// ---------------------------------------------------------------------------------------------
// TPipe / TQue / TBuf
// ---------------------------------------------------------------------------------------------
template <TPosition pos> class TBuf;

template <TPosition pos, int32_t depth, auto mask = 0> class TQue {
public:
    template <typename T> LocalTensor<T> AllocTensor()
    {
        if (bufs_.empty()) detail::fail("queue", "AllocTensor on a queue without InitBuffer");
        if (free_.empty()) detail::fail("queue", "AllocTensor found every buffer of the queue in use");
        int slot = free_.front();
        free_.pop_front();
        return hold<T>(slot);
    }
    template <typename T> bool EnQue(const LocalTensor<T>& tensor)
    {
        int slot = slot_of(tensor.addr(), "EnQue");
        // depth 0 (CANN 8.5+'s in-place queue) keeps no count: its buffers bound it
        if (depth != 0 && static_cast<int32_t>(inq_.size()) >= depth)
            detail::fail("queue", "EnQue past the queue depth %d", depth);
        release(slot, "EnQue");
        inq_.push_back(slot);
        return true;
    }
    template <typename T> LocalTensor<T> DeQue()
    {
        if (inq_.empty()) detail::fail("queue", "DeQue of an empty queue would wait forever");
        int slot = inq_.front();
        inq_.pop_front();
        return hold<T>(slot);
    }
    // depth 0's in-place forms: AllocTensor(tensor) binds `tensor` to a free buffer; DeQue(tensor) waits for
    // that tensor's own buffer, which must be the oldest enqueued (asc_trace checks the order while tracing)
    template <typename T> void AllocTensor(LocalTensor<T>& tensor)
    {
        static_assert(depth == 0, "can not AllocTensor in place while tque's depth is non zero");
        if (bufs_.empty()) detail::fail("queue", "AllocTensor on a queue without InitBuffer");
        if (free_.empty()) detail::fail("queue", "AllocTensor found every buffer of the queue in use");
        int slot = free_.front();
        free_.pop_front();
        tensor = hold<T>(slot);
    }
    template <typename T> void DeQue(LocalTensor<T>& tensor)
    {
        static_assert(depth == 0, "can not DeQue tensor in place while tque's depth is non zero");
        int slot = slot_of(tensor.addr(), "DeQue");
        if (inq_.empty() || inq_.front() != slot) detail::fail("queue", "DeQue(tensor) of a tensor that is not the oldest enqueued");
        inq_.pop_front();
        tensor = hold<T>(slot);
    }
    template <typename T> void FreeTensor(LocalTensor<T>& tensor)
    {
        int slot = slot_of(tensor.addr(), "FreeTensor");
        release(slot, "FreeTensor");
        free_.push_back(slot);
    }
    bool VacantInQue() { return static_cast<int32_t>(inq_.size()) < depth; }
    bool HasTensorInQue() { return !inq_.empty(); }
    int32_t GetTensorCountInQue() { return static_cast<int32_t>(inq_.size()); }
    bool HasIdleBuffer() { return !free_.empty(); }

    // model only (TPipe::InitBuffer)
    void init(uint32_t base, uint8_t num, uint32_t len)
    {
        if (!bufs_.empty()) detail::fail("queue", "InitBuffer called twice for the same queue");
        for (uint8_t i = 0; i < num; ++i) {
            bufs_.push_back(base + i * len);
            free_.push_back(i);
        }
        len_ = len;
    }

private:
    // The program now holds buffer `slot` (after AllocTensor or DeQue): a tensor over all of it.
    template <typename T> LocalTensor<T> hold(int slot)
    {
        held_.push_back(slot);
        LocalTensor<T> t;
        t.set(bufs_[slot], len_ / sizeof(T), pos);
        return t;
    }
    int slot_of(uint32_t addr, const char* what)
    {
        for (size_t i = 0; i < bufs_.size(); ++i)
            if (bufs_[i] == addr) return static_cast<int>(i);
        detail::fail("queue", "%s of a tensor this queue did not hand out", what);
    }
    void release(int slot, const char* what)
    {
        for (size_t i = 0; i < held_.size(); ++i)
            if (held_[i] == slot) { held_.erase(held_.begin() + static_cast<long>(i)); return; }
        detail::fail("queue", "%s of a tensor that is not held (freed twice, or still enqueued)", what);
    }
    std::vector<uint32_t> bufs_;
    std::deque<int> free_, inq_;
    std::vector<int> held_;
    uint32_t len_ = 0;
};

template <TPosition pos = TPosition::VECCALC> class TBuf {
public:
    template <typename T> LocalTensor<T> Get()
    {
        if (!ready_) detail::fail("queue", "TBuf::Get before InitBuffer");
        LocalTensor<T> t;
        t.set(base_, len_ / sizeof(T), pos);
        return t;
    }
    template <typename T> LocalTensor<T> Get(uint32_t len)
    {
        if (!ready_) detail::fail("queue", "TBuf::Get before InitBuffer");
        if (static_cast<uint64_t>(len) * sizeof(T) > len_) detail::fail("bounds", "TBuf::Get asks for more than the buffer");
        LocalTensor<T> t;
        t.set(base_, len, pos);
        return t;
    }
    // `size` elements at byte `bufOffset` of the buffer (how the lowering places raw LocalTensors:
    // lower/ascendc_pipe.py); the same checks as the raw constructor, then the buffer's own end
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset)
    {
        if (!ready_) detail::fail("queue", "TBuf::GetWithOffset before InitBuffer");
        const uint64_t nbytes = static_cast<uint64_t>(size) * sizeof(T);
        detail::check_ub(static_cast<uint64_t>(base_) + bufOffset, nbytes, "this LocalTensor");
        if (static_cast<uint64_t>(bufOffset) + nbytes > len_)
            detail::fail("ub", "this LocalTensor spans bytes [%u, %llu) of a TBuf of %u bytes", bufOffset,
                         static_cast<unsigned long long>(bufOffset + nbytes), len_);
        LocalTensor<T> t;
        t.set(base_ + bufOffset, size, pos);
        return t;
    }
    void init(uint32_t base, uint32_t len)
    {
        if (ready_) detail::fail("queue", "InitBuffer called twice for the same TBuf");
        base_ = base;
        len_ = len;
        ready_ = true;
    }

private:
    uint32_t base_ = 0;
    uint32_t len_ = 0;
    bool ready_ = false;
};

// What TPipe and TBufPool both do with their memory: carve queues, TBufs and sub-pools out of it, 32-byte
// rounded (a TQue's buffers count against the 8 event ids of its TPosition wherever they come from).
// Self supplies take(bytes) -> UB byte offset (the pipe from the whole UB, a pool from its block).
template <class Self> class UbCarver {
public:
    template <TPosition qpos, int32_t depth, auto mask> bool InitBuffer(TQue<qpos, depth, mask>& que, uint8_t num, uint32_t len)
    {
        len = (len + 31u) / 32u * 32u;
        que.init(carve(static_cast<uint64_t>(num) * len), num, len);
        int& used = detail::core().que_buffers[static_cast<int>(qpos)];
        used += num;
        if (used > 8)
            detail::fail("queue", "%d queue buffers in one TPosition; each holds an event id, so at most 8 fit", used);
        return true;
    }
    template <TPosition bpos> bool InitBuffer(TBuf<bpos>& buf, uint32_t len)
    {
        len = (len + 31u) / 32u * 32u;
        buf.init(carve(len), len);
        return true;
    }
    template <class T> bool InitBufPool(T& pool, uint32_t len)
    {
        len = (len + 31u) / 32u * 32u;
        pool.place(carve(len), len);
        return true;
    }
    template <class T, class U> bool InitBufPool(T& pool, uint32_t len, U& share)
    {
        (void)len;    // a pool sharing another's memory takes that memory whatever its length says
        pool.place(share.start_, share.end_ - share.start_);
        return true;
    }

protected:
    uint32_t carve(uint64_t nbytes) { return static_cast<Self*>(this)->take(nbytes); }
};

// TBufPool: a block of the TPipe's UB memory that queues and TBufs are initialised from; Reset hands it out
// again (asc_trace/graph/ops/buf_pool.py). Model only: place() is what InitBufPool does to the pool.
template <TPosition pos = TPosition::VECCALC, uint32_t bufIDSize = 4> class TBufPool
    : public UbCarver<TBufPool<pos, bufIDSize>> {
    friend class UbCarver<TBufPool<pos, bufIDSize>>;

public:
    void Reset() { start_ = end_ = cursor_ = 0; ready_ = false; }     // ResetPool: no memory until InitBufPool

    // model only
    void place(uint32_t start, uint32_t len)
    {
        start_ = cursor_ = start;
        end_ = start + len;
        ready_ = true;
    }
    uint32_t start_ = 0, end_ = 0, cursor_ = 0;
    bool ready_ = false;

private:
    uint32_t take(uint64_t nbytes)
    {
        if (!ready_) detail::fail("queue", "InitBuffer from a TBufPool that has no memory yet");
        if (cursor_ + nbytes > end_)
            detail::fail("ub", "the TBufPool holds UB bytes [%u, %u); %llu more from byte %u do not fit", start_, end_,
                         static_cast<unsigned long long>(nbytes), cursor_);
        uint32_t base = cursor_;
        cursor_ = static_cast<uint32_t>(cursor_ + nbytes);
        return base;
    }
};

class TPipe : public UbCarver<TPipe> {
    friend class UbCarver<TPipe>;

public:
    TPipe()
    {
        if (detail::core().pipe_made) detail::fail("queue", "a kernel creates exactly one TPipe");
        detail::core().pipe_made = true;
    }
    template <HardEvent evt> TEventID AllocEventID()
    {
        uint8_t& mask = detail::core().event_mask[static_cast<int>(evt)];
        for (int i = 0; i < 8; ++i)
            if (!(mask & (1u << i))) { mask = static_cast<uint8_t>(mask | (1u << i)); return static_cast<TEventID>(i); }
        detail::fail("sync", "AllocEventID: no free event id left");
    }
    template <HardEvent evt> void ReleaseEventID(TEventID id)
    {
        uint8_t& mask = detail::core().event_mask[static_cast<int>(evt)];
        mask = static_cast<uint8_t>(mask & ~(1u << id));
    }

private:
    static uint32_t take(uint64_t nbytes)
    {
        detail::Core& c = detail::core();
        if (c.pipe_next + nbytes > detail::UB_USABLE)
            detail::fail("ub", "InitBuffer asks for %llu bytes at UB byte %u, past the usable %u bytes",
                         static_cast<unsigned long long>(nbytes), c.pipe_next, detail::UB_USABLE);
        uint32_t base = c.pipe_next;
        c.pipe_next += static_cast<uint32_t>(nbytes);
        return base;
    }
};

// ---------------------------------------------------------------------------------------------
// Data movement
// ---------------------------------------------------------------------------------------------
namespace detail {
inline void check_copy(uint64_t nbytes)
{
    if (nbytes % 32 != 0)
        fail("alignment", "DataCopy of %llu bytes is not a multiple of 32 bytes", static_cast<unsigned long long>(nbytes));
}
}  // namespace detail

// The API checks the LocalTensor's size first ("Failed to check dstLocal size"), then the length and the
// global side: a copy both past its tensor and of a bad length is an OutOfBoundsError, as on cpu_debug.
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count)
{
    if (count == 0) return;
    T* d = dst.span(count, "the copy destination");
    detail::check_copy(static_cast<uint64_t>(count) * sizeof(T));
    std::memcpy(d, src.span(count, "the copy source"), count * sizeof(T));
}
template <typename T> inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    if (count == 0) return;
    const T* s = src.span(count, "the copy source");
    detail::check_copy(static_cast<uint64_t>(count) * sizeof(T));
    T* d = dst.span(count, "the copy destination");
    const int op = detail::core().atomic_op;      // the store-atomic register (SetAtomicAdd / Max / Min)
    if (op == 0) {
        std::memcpy(d, s, count * sizeof(T));
        return;
    }
    for (uint32_t i = 0; i < count; ++i)
        d[i] = op == 1 ? detail::wrap_add(d[i], s[i]) : op == 2 ? detail::max_(d[i], s[i]) : detail::min_(d[i], s[i]);
}
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    if (count == 0) return;
    T* d = dst.span(count, "the copy destination");
    const T* s = src.span(count, "the copy source");
    detail::check_copy(static_cast<uint64_t>(count) * sizeof(T));
    std::memmove(d, s, count * sizeof(T));
}

// ---------------------------------------------------------------------------------------------
// Vector ops, count form. Arithmetic follows the element type: 16-bit floats compute in float and
// round back after every operation, integers wrap; NaN handling is NumPy's.
// ---------------------------------------------------------------------------------------------
namespace detail {
// The vendor's count forms of the element-wise ops, Cast and Select run in COUNTER mode and end with SetMaskNorm
// (asc-devkit dav_c220 AddImpl(..., count), CastImpl, VselImpl): whatever mode SetMaskCount set, NORMAL after them.
inline void count_form_ends_normal() { core().mask_counter = false; }

template <typename T, typename F>
inline void binary(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, int32_t count, F f)
{
    count_form_ends_normal();
    if (count <= 0) return;
    uint32_t n = static_cast<uint32_t>(count);
    const T* pa = a.span(n, "src0");
    const T* pb = b.span(n, "src1");
    T* pd = dst.span(n, "dst");
    std::vector<T> tmp(n);
    for (uint32_t i = 0; i < n; ++i) tmp[i] = f(pa[i], pb[i], pd[i]);   // pd[i]: the ops that read dst
    std::memcpy(pd, tmp.data(), n * sizeof(T));
}
template <typename T, typename F>
inline void unary(const LocalTensor<T>& dst, const LocalTensor<T>& a, int32_t count, F f)
{
    count_form_ends_normal();
    if (count <= 0) return;
    uint32_t n = static_cast<uint32_t>(count);
    const T* pa = a.span(n, "src");
    T* pd = dst.span(n, "dst");
    std::vector<T> tmp(n);
    for (uint32_t i = 0; i < n; ++i) tmp[i] = f(pa[i]);
    std::memcpy(pd, tmp.data(), n * sizeof(T));
}
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Parameter structs: a default and an all-fields constructor only (api trap 3).
// ---------------------------------------------------------------------------------------------
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

struct DataCopyParams {
    DataCopyParams() {}
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    union { uint16_t srcGap = 0; uint16_t srcStride; };
    union { uint16_t dstGap = 0; uint16_t dstStride; };
};

struct DataCopyExtParams {
    DataCopyExtParams() {}
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                      const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

template <typename T> struct DataCopyPadExtParams {
    DataCopyPadExtParams() {}
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
};

struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
    uint32_t blockNumber = 8;
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
};

struct UnaryRepeatParams {
    UnaryRepeatParams() {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn) {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
    uint32_t blockNumber = 8;
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false, halfBlock = false;
};

struct ShapeInfo {
    ShapeInfo() {}
    ShapeInfo(const uint8_t dim, const uint32_t shape[]) : shapeDim(dim)
    {
        for (uint8_t i = 0; i < dim && i < 8; ++i) shapeValue[i] = shape[i];
    }
    uint8_t shapeDim = 0;
    uint32_t shapeValue[8] = {};
};

// ---------------------------------------------------------------------------------------------
// Element-wise ops: the count form `Op(dst, src..., count)` and the mask forms
// `Op(dst, src..., uint64_t mask[2] | uint64_t mask, repeatTime, RepeatParams)`.
// ---------------------------------------------------------------------------------------------
namespace detail {

struct MaskSel {
    uint64_t bits[2] = {0, 0};
    bool on(uint32_t e) const { return (bits[e / 64] >> (e % 64)) & 1u; }
};
// the families other than the element-wise mask forms (Lanes below) do not follow COUNTER mode: refused
inline void refuse_counter()
{
    if (core().mask_counter)
        fail("not_provided", "this mask form in counter mask mode (SetMaskCount) is not modelled by asc_trace: only the "
             "element-wise ops' mask forms (binary, unary, scalar, duplicate) follow the register's count");
}
inline MaskSel mask_of(uint64_t count, uint32_t perRepeat)
{
    refuse_counter();
    if (count < 1) fail("bounds", "a mask count must be at least 1, got %llu", static_cast<unsigned long long>(count));
    // in NORMAL mode the API refuses a count past one repeat of a 2-, 4- or 8-byte type (CheckMaskValue:
    // "mask when sizeof(T) == 4", 0..64); 1-byte types are not checked, and COUNTER mode takes any count
    if (!core().mask_counter && perRepeat < 256 && count > perRepeat)
        fail("bounds", "the mask count is 1..%u in normal mask mode (one repeat of a %u-byte type: the API's "
             "'mask when sizeof(T) == %u' check), got %llu", perRepeat, 256 / perRepeat, 256 / perRepeat,
             static_cast<unsigned long long>(count));
    // a count past the repeat selects the whole repeat, as the real SetMask(len) does
    if (count > perRepeat) count = perRepeat;
    MaskSel m;
    for (uint32_t e = 0; e < count; ++e) m.bits[e / 64] |= (1ull << (e % 64));
    return m;
}
inline MaskSel mask_of(const uint64_t mask[], uint32_t)
{
    refuse_counter();
    MaskSel m;
    m.bits[0] = mask[0];
    m.bits[1] = mask[1];
    return m;
}

// the elements a masked operand touches: offset of position e in repeat r
template <typename T> inline uint32_t masked_at(uint32_t r, uint32_t e, uint32_t blk, uint32_t rep)
{
    const uint32_t per_block = 32 / sizeof(T);
    return (r * rep + (e / per_block) * blk) * per_block + e % per_block;
}
// elements from an operand's start to past the last one the selected lanes touch (only those are accessed)
template <typename T> inline uint32_t masked_extent(const MaskSel& sel, uint32_t per, uint32_t repeat, uint32_t blk,
                                                   uint32_t rep)
{
    uint32_t end = 0;
    for (uint32_t e = 0; e < per; ++e)
        if (sel.on(e)) { uint32_t at = masked_at<T>(repeat - 1, e, blk, rep) + 1; if (at > end) end = at; }
    return end;
}

// The register's low word after the API's SetMask (kernel_utils_base.h): COUNTER mode reads it as an element count.
// A count n writes lane bits: all ones when n >= 64 or n is a whole repeat, else (1 << n) - 1; a list its mask[0].
inline uint64_t counter_low(uint64_t n, uint32_t perRepeat)
{
    if (n > 0xFFFFFFFFull)
        fail("bounds", "the mask in counter mode is 0..4294967295 (the API's CheckMaskValue), got %llu",
             static_cast<unsigned long long>(n));
    return (n >= 64 || n == perRepeat) ? ~0ull : (1ull << n) - 1;
}
inline uint64_t counter_low(const uint64_t mask[], uint32_t) { return mask[0]; }

// The elements an element-wise mask form runs (runtime/mask_counter.py is the simulator's same rule): in NORMAL mode
// the mask's lanes of each of `repeat` repeats; in COUNTER mode elements 0 .. count-1, `per` to a repeat, the repeat
// time not read.
struct Lanes {
    MaskSel sel;
    uint32_t per = 0, repeat = 0;
    bool counter = false;
    uint64_t count = 0;
    bool empty() const { return counter ? count == 0 : repeat == 0; }
    template <typename F> void each(F f) const
    {
        if (counter) {
            for (uint64_t k = 0; k < count; ++k) f(static_cast<uint32_t>(k / per), static_cast<uint32_t>(k % per));
            return;
        }
        for (uint32_t r = 0; r < repeat; ++r)
            for (uint32_t e = 0; e < per; ++e)
                if (sel.on(e)) f(r, e);
    }
    // elements from an operand's start to past the last one touched (strides are not negative: the last lane of the
    // last whole repeat or the last element is furthest)
    template <typename T> uint32_t extent(uint32_t blk, uint32_t rep) const
    {
        if (!counter) return masked_extent<T>(sel, per, repeat, blk, rep);
        uint32_t end = 0;
        const uint32_t full = static_cast<uint32_t>(count / per), rest = static_cast<uint32_t>(count % per);
        if (full > 0) end = masked_at<T>(full - 1, per - 1, blk, rep) + 1;
        if (rest > 0) end = std::max(end, masked_at<T>(full, rest - 1, blk, rep) + 1);
        return end;
    }
};
template <typename M> inline Lanes lanes_of(M mask, uint32_t per, uint32_t repeat)
{
    Lanes l;
    l.per = per;
    l.repeat = repeat;
    if (!core().mask_counter) {
        if (repeat > 0) l.sel = mask_of(mask, per);
        return l;
    }
    l.counter = true;
    l.count = counter_low(mask, per);
    const uint64_t most = static_cast<uint64_t>(UB_USABLE / 256) * per;
    if (l.count > most)
        fail("bounds", "counter mode: the mask register's count %llu is more elements than the UB holds (%llu)",
             static_cast<unsigned long long>(l.count), static_cast<unsigned long long>(most));
    return l;
}
}  // namespace detail

namespace detail {
template <typename T, typename M, typename F>
inline void unary_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask, const uint8_t repeatTime,
                         const UnaryRepeatParams& p, F f)
{
    const Lanes l = lanes_of(mask, 256 / sizeof(T), repeatTime);
    if (l.empty()) return;
    T* d = dst.span(l.extent<T>(p.dstBlkStride, p.dstRepStride), "dst");
    const T* a = src.span(l.extent<T>(p.srcBlkStride, p.srcRepStride), "src");
    l.each([&](uint32_t r, uint32_t e) {
        d[masked_at<T>(r, e, p.dstBlkStride, p.dstRepStride)] = f(a[masked_at<T>(r, e, p.srcBlkStride, p.srcRepStride)]);
    });
}
template <typename T, typename M, typename F>
inline void binary_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, M mask,
                          const uint8_t repeatTime, const BinaryRepeatParams& p, F f)
{
    const Lanes l = lanes_of(mask, 256 / sizeof(T), repeatTime);
    if (l.empty()) return;
    T* d = dst.span(l.extent<T>(p.dstBlkStride, p.dstRepStride), "dst");
    const T* a = src0.span(l.extent<T>(p.src0BlkStride, p.src0RepStride), "src0");
    const T* b = src1.span(l.extent<T>(p.src1BlkStride, p.src1RepStride), "src1");
    l.each([&](uint32_t r, uint32_t e) {
        T& out = d[masked_at<T>(r, e, p.dstBlkStride, p.dstRepStride)];
        out = f(a[masked_at<T>(r, e, p.src0BlkStride, p.src0RepStride)], b[masked_at<T>(r, e, p.src1BlkStride, p.src1RepStride)],
                out);
    });
}
}  // namespace detail

#define ASC_MODEL_BINARY(NAME, EXPR)                                                                            \
    template <typename T>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,        \
                     const int32_t& count)                                                                      \
    { detail::binary(dst, src0, src1, count, [](T a, T b, T d) { (void)d; return EXPR; }); }                                  \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,        \
                     uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& p)                    \
    { detail::binary_masked(dst, src0, src1, static_cast<const uint64_t*>(mask), repeatTime, p,                 \
                            [](T a, T b, T d) { (void)d; return EXPR; }); }                                                   \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,        \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p)                      \
    { detail::binary_masked(dst, src0, src1, mask, repeatTime, p, [](T a, T b, T d) { (void)d; return EXPR; }); }
ASC_TRACE_BINARY_OPS   // the registry's ops of the family (graph/ops/cpp_model.py)
#undef ASC_MODEL_BINARY

#define ASC_MODEL_UNARY(NAME, EXPR)                                                                             \
    template <typename T>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)               \
    {                                                                                                           \
        detail::unary(dst, src, count, [](T a) { return EXPR; });                                               \
    }                                                                                                           \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask[],                    \
                     const uint8_t repeatTime, const UnaryRepeatParams& p)                                      \
    {                                                                                                           \
        detail::unary_masked(dst, src, static_cast<const uint64_t*>(mask), repeatTime, p,                       \
                             [](T a) { return EXPR; });                                                         \
    }                                                                                                           \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                      \
                     const uint8_t repeatTime, const UnaryRepeatParams& p)                                      \
    {                                                                                                           \
        detail::unary_masked(dst, src, mask, repeatTime, p, [](T a) { return EXPR; });                          \
    }
ASC_TRACE_UNARY_OPS   // the registry's ops of the family (graph/ops/cpp_model.py)
#undef ASC_MODEL_UNARY

#define ASC_MODEL_SCALAR(NAME, EXPR)                                                                            \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,               \
                     const int32_t& count)                                                                      \
    {                                                                                                           \
        const T s = scalarValue;                                                                                \
        detail::unary(dst, src, count, [s](T a) { return EXPR; });                                              \
    }                                                                                                           \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,               \
                     uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p)                     \
    {                                                                                                           \
        const T s = scalarValue;                                                                                \
        detail::unary_masked(dst, src, static_cast<const uint64_t*>(mask), repeatTime, p, [s](T a) { return EXPR; }); \
    }                                                                                                           \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,               \
                     uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& p)                       \
    {                                                                                                           \
        const T s = scalarValue;                                                                                \
        detail::unary_masked(dst, src, mask, repeatTime, p, [s](T a) { return EXPR; });                         \
    }
ASC_TRACE_SCALAR_OPS   // the registry's ops of the family (graph/ops/cpp_model.py)
#undef ASC_MODEL_SCALAR

template <typename T> inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count)
{
    detail::count_form_ends_normal();
    if (count <= 0) return;
    uint32_t n = static_cast<uint32_t>(count);
    T* pd = dst.span(n, "dst");
    for (uint32_t i = 0; i < n; ++i) pd[i] = scalarValue;
}
namespace detail {
template <typename T, typename M>
inline void duplicate_masked(const LocalTensor<T>& dst, const T& scalarValue, M mask, const uint8_t repeatTime,
                             const uint16_t dstBlockStride, const uint8_t dstRepeatStride)
{
    const Lanes l = lanes_of(mask, 256 / sizeof(T), repeatTime);
    if (l.empty()) return;
    T* d = dst.span(l.extent<T>(dstBlockStride, dstRepeatStride), "dst");
    l.each([&](uint32_t r, uint32_t e) { d[masked_at<T>(r, e, dstBlockStride, dstRepeatStride)] = scalarValue; });
}
}  // namespace detail
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride)
{ detail::duplicate_masked(dst, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride); }
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride)
{ detail::duplicate_masked(dst, scalarValue, static_cast<const uint64_t*>(mask), repeatTime, dstBlockStride,
                           dstRepeatStride); }


// the models records carry whole (OpDef.cpp_model.source, graph/ops/cpp_model.py): e.g. CreateVecIndex
ASC_TRACE_RECORD_MODELS

template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count)
{
    detail::count_form_ends_normal();
    if (count <= 0) return;
    uint32_t n = static_cast<uint32_t>(count);
    const U* a = src.span(n, "src");
    T* d = dst.span(n, "dst");
    for (uint32_t i = 0; i < n; ++i) d[i] = detail::axpy1(d[i], a[i], scalarValue);
}
template <typename T, typename U, bool isSetMask = true, typename M>
inline void Axpy_masked(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, M mask,
                        const uint8_t repeatTime, const UnaryRepeatParams& p)
{
    const detail::Lanes l = detail::lanes_of(mask, 256 / sizeof(U), repeatTime);
    if (l.empty()) return;
    T* d = dst.span(l.extent<T>(p.dstBlkStride, p.dstRepStride), "dst");
    const U* a = src.span(l.extent<U>(p.srcBlkStride, p.srcRepStride), "src");
    l.each([&](uint32_t r, uint32_t e) {
        T& out = d[detail::masked_at<T>(r, e, p.dstBlkStride, p.dstRepStride)];
        out = detail::axpy1(out, a[detail::masked_at<U>(r, e, p.srcBlkStride, p.srcRepStride)], scalarValue);
    });
}
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask[],
                 const uint8_t repeatTime, const UnaryRepeatParams& p)
{ Axpy_masked<T, U, isSetMask>(dst, src, scalarValue, static_cast<const uint64_t*>(mask), repeatTime, p); }
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask,
                 const uint8_t repeatTime, const UnaryRepeatParams& p)
{ Axpy_masked<T, U, isSetMask>(dst, src, scalarValue, mask, repeatTime, p); }

// ---------------------------------------------------------------------------------------------
// Cast: every rounding mode exactly (asc_trace/graph/numerics.py is the same definition).
// ---------------------------------------------------------------------------------------------
namespace detail {
template <typename T> struct TypeName;
template <> struct TypeName<half> { static const char* get() { return "float16"; } };
template <> struct TypeName<float> { static const char* get() { return "float32"; } };
template <> struct TypeName<bfloat16_t> { static const char* get() { return "bfloat16"; } };
template <> struct TypeName<int8_t> { static const char* get() { return "int8"; } };
template <> struct TypeName<int16_t> { static const char* get() { return "int16"; } };
template <> struct TypeName<int32_t> { static const char* get() { return "int32"; } };
template <> struct TypeName<int64_t> { static const char* get() { return "int64"; } };
template <> struct TypeName<uint8_t> { static const char* get() { return "uint8"; } };
template <> struct TypeName<uint16_t> { static const char* get() { return "uint16"; } };
template <> struct TypeName<uint32_t> { static const char* get() { return "uint32"; } };
template <> struct TypeName<uint64_t> { static const char* get() { return "uint64"; } };

}  // namespace detail

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count)
{
    detail::count_form_ends_normal();
    if (count == 0) return;
    const U* a = src.span(count, "src");
    T* d = dst.span(count, "dst");
    std::vector<T> tmp(count);
    for (uint32_t i = 0; i < count; ++i) tmp[i] = detail::cast1<T, U>(a[i], roundMode);
    std::memcpy(d, tmp.data(), count * sizeof(T));
}

// The mask form: a repeat is 256 bytes of the wider type; each operand placed by its own blocks and strides;
// every selected element is read before any is written, and the writes go in repeat, lane order.
namespace detail {
template <typename T, typename U, typename M>
inline void cast_masked(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, M mask,
                        const uint8_t repeatTime, const UnaryRepeatParams& p)
{
    if (repeatTime == 0) return;
    const uint32_t per = static_cast<uint32_t>(256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U)));
    MaskSel sel = mask_of(mask, per);
    T* d = dst.span(masked_extent<T>(sel, per, repeatTime, p.dstBlkStride, p.dstRepStride), "dst");
    const U* a = src.span(masked_extent<U>(sel, per, repeatTime, p.srcBlkStride, p.srcRepStride), "src");
    std::vector<std::pair<uint32_t, T>> out;
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t e = 0; e < per; ++e)
            if (sel.on(e))
                out.emplace_back(masked_at<T>(r, e, p.dstBlkStride, p.dstRepStride),
                                 cast1<T, U>(a[masked_at<U>(r, e, p.srcBlkStride, p.srcRepStride)], roundMode));
    for (const auto& o : out) d[o.first] = o.second;
}
}  // namespace detail
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, uint64_t mask[],
                 const uint8_t repeatTime, const UnaryRepeatParams& p)
{ detail::cast_masked(dst, src, roundMode, static_cast<const uint64_t*>(mask), repeatTime, p); }
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, uint64_t mask,
                 const uint8_t repeatTime, const UnaryRepeatParams& p)
{ detail::cast_masked(dst, src, roundMode, mask, repeatTime, p); }

// ---------------------------------------------------------------------------------------------
// Reductions: asc_trace's summation order (numerics.tree_sum); max / min with NumPy's NaN rule.
// ---------------------------------------------------------------------------------------------
namespace detail {
// the work tensor's elements the vendor's dav_c220 count form touches (graph/ops/reduce_work.py's
// count_form_work_elements): ReduceSum none; ReduceMax / Min the mask form's steps over max(1, count / per)
// repeats, at least one (value, index) pair more with a tail. Its content after the call is scratch.
inline uint32_t count_form_work(bool with_index, uint32_t n, uint32_t size)
{
    const uint32_t per = 256 / size, per_block = 32 / size, repeat = n / per ? n / per : 1;
    auto up = [](uint32_t v, uint32_t b) { return (v + b - 1) / b * b; };
    auto level = [per](uint32_t data) { return data / per * 2 + (data % per ? 2 : 0); };
    uint32_t body;
    if (!with_index) body = 2 * repeat;
    else if (repeat == 1) body = 0;
    else {
        uint32_t data = 2 * repeat;
        const uint32_t second = up(data, per_block);
        data = level(data);
        if (data == 2) body = second + 2;
        else {
            const uint32_t third = up(second + data, per_block);
            body = data > per ? up(third + level(data), per_block) + 2 : third + 2;
        }
    }
    return n > per && n % per && body < 2 ? 2 : body;
}
}  // namespace detail

template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count)
{
    if (count <= 0) return;
    const uint32_t n = static_cast<uint32_t>(count), per = 256 / sizeof(T), reps = (n + per - 1) / per;
    const T* a = src.span(n, "src");
    (void)sharedTmpBuffer;                       // the vendor's count form never touches it
    T* d = dst.span(1, "dst");
    std::vector<T> partial = detail::fold_repeats(std::vector<T>(a, a + n), per);
    (void)reps;
    d[0] = detail::tree_sum(partial, per);
}

#define ASC_MODEL_REDUCE(NAME, WANT_MAX)                                                                        \
    template <typename T>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,\
                     const int32_t count, bool calIndex = 0)                                                    \
    {                                                                                                           \
        if (count <= 0) return;                                                                                 \
        const uint32_t n = static_cast<uint32_t>(count), per = 256 / sizeof(T), reps = (n + per - 1) / per;     \
        const T* a = src.span(n, "src");                                                                        \
        (void)reps;                                                                                             \
        sharedTmpBuffer.span(detail::count_form_work(calIndex, n, sizeof(T)), "the shared tmp buffer");        \
        T* d = dst.span(calIndex ? 2 : 1, "dst");                                                               \
        uint32_t i = detail::pick(a, n, WANT_MAX);                                                              \
        T v = a[i];                                                                                             \
        d[0] = v;                                                                                               \
        if (calIndex) d[1] = detail::index_bits<T>(i);                                                          \
    }
ASC_MODEL_REDUCE(ReduceMax, true)
ASC_MODEL_REDUCE(ReduceMin, false)
#undef ASC_MODEL_REDUCE

namespace detail {
template <typename T, typename M>
inline void whole_reduce(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask, int32_t repeatTime,
                         int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, int kind, ReduceOrder order)
{
    if (repeatTime <= 0) return;
    const uint32_t per = 256 / sizeof(T);
    MaskSel sel = mask_of(mask, per);
    const uint32_t R = static_cast<uint32_t>(repeatTime);
    const uint32_t width = result_width(kind, static_cast<int>(order), sizeof(T));
    const T* a = src.span(masked_extent<T>(sel, per, R, srcBlkStride, srcRepStride), "src");
    T* d = dst.span(((R - 1) * dstRepStride + 1) * width, "dst");
    std::vector<T> vals(per);
    bool on[256];
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t e = 0; e < per; ++e) {
            on[e] = sel.on(e);
            if (on[e]) vals[e] = a[masked_at<T>(r, e, srcBlkStride, srcRepStride)];
        }
        repeat_result(d + r * dstRepStride * width, vals.data(), on, per, kind, static_cast<int>(order));
    }
}
}  // namespace detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride)
{ detail::whole_reduce(dst, src, static_cast<uint64_t>(mask), repeatTime, dstRepStride, srcBlkStride, srcRepStride, 0,
                       ReduceOrder::ORDER_ONLY_VALUE); }
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride)
{ detail::whole_reduce(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, 0,
                       ReduceOrder::ORDER_ONLY_VALUE); }
#define ASC_MODEL_WHOLE(NAME, KIND)                                                                             \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                 \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)            \
    { detail::whole_reduce(dst, src, static_cast<uint64_t>(mask), repeatTime, dstRepStride, srcBlkStride,       \
                           srcRepStride, KIND, order); }                                                        \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],              \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)            \
    { detail::whole_reduce(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, KIND, order); }
ASC_MODEL_WHOLE(WholeReduceMax, 1)
ASC_MODEL_WHOLE(WholeReduceMin, 2)
#undef ASC_MODEL_WHOLE

// ---------------------------------------------------------------------------------------------
// Compare (count form: count * sizeof(T) a multiple of 256 bytes) / Select (any count: counter mode)
// ---------------------------------------------------------------------------------------------
namespace detail {
template <typename T> inline void check_256(uint32_t count, const char* what)
{
    if ((static_cast<uint64_t>(count) * sizeof(T)) % 256 != 0)
        fail("alignment", "%s of %u elements: the count form needs a multiple of 256 bytes", what, count);
}
}  // namespace detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count)
{
    detail::check_256<T>(count, "Compare");
    if (count == 0) return;
    const T* a = src0.span(count, "src0");
    const T* b = src1.span(count, "src1");
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.span(count / 8 / sizeof(U), "the mask dst"));
    std::vector<uint8_t> bytes(count / 8, 0);
    for (uint32_t i = 0; i < count; ++i) {
        const bool bit = detail::compare(static_cast<int>(cmpMode), a[i], b[i]);
        if (bit) bytes[i / 8] = static_cast<uint8_t>(bytes[i / 8] | (1u << (i % 8)));
    }
    std::memcpy(d, bytes.data(), bytes.size());
}

namespace detail {
template <typename T, typename U, typename F>
inline void select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, uint32_t count,
                   F other)
{
    // any count: the API runs the count form in counter mode (SetMaskCount), exactly `count` elements
    count_form_ends_normal();
    if (count == 0) return;
    const uint32_t maskUnits = static_cast<uint32_t>((count + 8 * sizeof(U) - 1) / (8 * sizeof(U)));
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.span(maskUnits, "sel_mask"));
    const T* a = src0.span(count, "src0");
    T* d = dst.span(count, "dst");
    std::vector<T> tmp(count);
    for (uint32_t i = 0; i < count; ++i) tmp[i] = ((m[i / 8] >> (i % 8)) & 1u) ? a[i] : other(i);
    std::memcpy(d, tmp.data(), count * sizeof(T));
}
}  // namespace detail

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count)
{
    const T* b = src1.span(count, "src1");
    detail::select(dst, selMask, src0, count, [b](uint32_t i) { return b[i]; });
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint32_t count)
{
    detail::select(dst, selMask, src0, count, [src1](uint32_t) { return src1; });
}

// ---------------------------------------------------------------------------------------------
// Strided (DataCopyParams) and padded (DataCopyPad) copies.
// ---------------------------------------------------------------------------------------------
namespace detail {
template <typename D, typename S>
inline void blocks(D* dst, const S* src, uint32_t count, uint32_t len, uint32_t dstStep, uint32_t srcStep)
{
    for (uint32_t i = 0; i < count; ++i) std::memmove(dst + i * dstStep, src + i * srcStep, len * sizeof(D));
}
template <typename T> inline uint32_t span_of(uint32_t count, uint32_t len, uint32_t step)
{
    return (count - 1) * step + len;
}
}  // namespace detail

// L1 -> the bias table is a DataCopy with DataCopyParams too, counted in 64-byte blocks of float32: the cube
// model (asc_trace_cube.h) takes the LocalTensor -> LocalTensor form when the destination is C2.
namespace detail {
template <typename D, typename S> inline bool bias_table_copy(const D&, const S&, const DataCopyParams&) { return false; }
template <typename T> bool bias_table_copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p);
}  // namespace detail

#define ASC_MODEL_COPY_PARAMS(DST, SRC)                                                                         \
    template <typename T> inline void DataCopy(const DST<T>& dst, const SRC<T>& src, const DataCopyParams& p)   \
    {                                                                                                           \
        if (detail::bias_table_copy(dst, src, p)) return;                                                       \
        if (p.blockCount == 0 || p.blockLen == 0) return;                                                       \
        if (p.blockCount > 4095) detail::fail("bounds", "DataCopyParams.blockCount is at most 4095");           \
        const uint32_t per = 32 / sizeof(T), len = p.blockLen * per;                                            \
        const uint32_t ds = (p.blockLen + p.dstStride) * per, ss = (p.blockLen + p.srcStride) * per;            \
        T* d = dst.span(detail::span_of<T>(p.blockCount, len, ds), "the copy destination");                    \
        const T* s = src.span(detail::span_of<T>(p.blockCount, len, ss), "the copy source");                   \
        detail::blocks(d, s, p.blockCount, len, ds, ss);                                                        \
    }
ASC_MODEL_COPY_PARAMS(LocalTensor, GlobalTensor)
ASC_MODEL_COPY_PARAMS(GlobalTensor, LocalTensor)
ASC_MODEL_COPY_PARAMS(LocalTensor, LocalTensor)
#undef ASC_MODEL_COPY_PARAMS

template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad)
{
    if (p.blockCount == 0 || p.blockLen == 0) return;
    if (p.blockCount > 4095 || p.blockLen > 2097151) detail::fail("bounds", "DataCopyExtParams out of range");
    if (p.blockLen % sizeof(T) || p.srcStride % sizeof(T))
        detail::fail("alignment", "DataCopyPad lengths and GM strides must be multiples of the element size");
    if ((pad.leftPadding + pad.rightPadding) * sizeof(T) > 64 || pad.leftPadding * sizeof(T) > 32 ||
        pad.rightPadding * sizeof(T) > 32)
        detail::fail("bounds", "left / right padding is at most 32 bytes each");
    const uint32_t n = p.blockLen / sizeof(T), left = pad.leftPadding, right = pad.rightPadding;
    const uint32_t row = ((left + n + right) * sizeof(T) + 31) / 32 * 32 / sizeof(T);
    const uint32_t ds = row + p.dstStride * 32 / sizeof(T), ss = n + p.srcStride / sizeof(T);
    T* d = dst.span((p.blockCount - 1) * ds + row, "the copy destination");
    const T* s = src.span(detail::span_of<T>(p.blockCount, n, ss), "the copy source");
    const T value = pad.paddingValue;
    for (uint32_t i = 0; i < p.blockCount; ++i)
        detail::pad_row(reinterpret_cast<uint8_t*>(d + i * ds), reinterpret_cast<const uint8_t*>(s + i * ss), n,
                        sizeof(T), left, right, row, pad.isPad ? reinterpret_cast<const uint8_t*>(&value) : nullptr);
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p)
{
    if (p.blockCount == 0 || p.blockLen == 0) return;
    if (p.blockCount > 4095 || p.blockLen > 2097151) detail::fail("bounds", "DataCopyExtParams out of range");
    if (p.blockLen % sizeof(T) || p.dstStride % sizeof(T))
        detail::fail("alignment", "DataCopyPad lengths and GM strides must be multiples of the element size");
    const uint32_t n = p.blockLen / sizeof(T);
    const uint32_t ss = (p.blockLen + 31) / 32 * 32 / sizeof(T) + p.srcStride * 32 / sizeof(T);
    const uint32_t ds = n + p.dstStride / sizeof(T);
    // the UB side is read in whole 32-byte blocks: the API refuses a source tensor smaller than the rounded extent
    // (kernel_check_data_copy_overflow.h: blockCount * AlignUp(blockLen, 32) + (blockCount - 1) * srcStride * 32)
    src.span((p.blockCount - 1) * ss + (p.blockLen + 31) / 32 * 32 / sizeof(T), "the copy source (whole 32-byte blocks)");
    T* d = dst.span(detail::span_of<T>(p.blockCount, n, ds), "the copy destination");
    const T* s = src.span(detail::span_of<T>(p.blockCount, n, ss), "the copy source");
    detail::blocks(d, s, p.blockCount, n, ds, ss);
}

// ---------------------------------------------------------------------------------------------
// Debug output: collected per core; the Python side prints it with the core's tag.
// ---------------------------------------------------------------------------------------------
template <class... Args> inline void printf(__gm__ const char* fmt, Args&&... args)
{
    char buf[4096];
    int n = std::snprintf(buf, sizeof buf, fmt, args...);
    if (n > 0) detail::core().out.append(buf, static_cast<size_t>(n) < sizeof buf ? static_cast<size_t>(n) : sizeof buf - 1);
}
template <class... Args> inline void PRINTF(__gm__ const char* fmt, Args&&... args) { printf(fmt, args...); }

namespace detail {
template <typename T> inline std::string dump_cell(T v)
{
    char buf[64];
    if constexpr (std::is_floating_point<T>::value || is_16bit_float<T>::value)
        std::snprintf(buf, sizeof buf, "%f", static_cast<double>(static_cast<float>(v)));
    else
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
}
inline std::string nest(const std::vector<std::string>& cells, const uint32_t* shape, uint32_t dims, uint32_t level,
                        size_t start)
{
    std::string out = "[";
    if (level == dims - 1) {
        for (uint32_t i = 0; i < shape[level]; ++i) out += (i ? ", " : "") + cells[start + i];
        return out + "]";
    }
    size_t step = 1;
    for (uint32_t k = level + 1; k < dims; ++k) step *= shape[k];
    for (uint32_t i = 0; i < shape[level]; ++i) {
        if (i) out += ",\n" + std::string(level + 1, ' ');
        out += nest(cells, shape, dims, level + 1, start + i * step);
    }
    return out + "]";
}
template <typename T>
inline void dump(const T* data, uint32_t desc, uint32_t count, uint64_t addr, const char* where, const ShapeInfo* shape)
{
    char head[256];
    std::snprintf(head, sizeof head, "DumpTensor: desc=%u, addr=%llu, data_type=%s, position=%s, dump_size=%u\n", desc,
                  static_cast<unsigned long long>(addr), TypeName<T>::get(), where, count);
    std::string out = head;
    std::vector<std::string> cells;
    for (uint32_t i = 0; i < count; ++i) cells.push_back(dump_cell(data[i]));
    if (shape == nullptr || shape->shapeDim == 0) {
        out += "[";
        for (uint32_t i = 0; i < count; ++i) out += (i ? ", " : "") + cells[i];
        out += "]\n";
    } else {
        size_t total = 1;
        for (uint32_t k = 0; k < shape->shapeDim; ++k) total *= shape->shapeValue[k];
        if (total > count) {
            out += "shape is [";
            for (uint32_t k = 0; k < shape->shapeDim; ++k) out += (k ? ", " : "") + std::to_string(shape->shapeValue[k]);
            out += "], dumpSize is " + std::to_string(count) + ", data is not enough.\n";
            cells.resize(total, "-");
        }
        out += nest(cells, shape->shapeValue, shape->shapeDim, 0, 0) + "\n";
    }
    core().out += out;
}
inline uint64_t gm_offset(const void* p)
{
    const uint8_t* q = static_cast<const uint8_t*>(p);
    for (const GmRange& r : gm_ranges())
        if (q >= r.lo && q < r.hi) return static_cast<uint64_t>(q - r.lo);
    return 0;
}
}  // namespace detail

template <typename T> inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize)
{
    detail::dump(tensor.span_unaligned(dumpSize, "the dumped tensor"), desc, dumpSize, tensor.addr(), "UB", nullptr);
}
template <typename T>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo& shapeInfo)
{
    detail::dump(tensor.span_unaligned(dumpSize, "the dumped tensor"), desc, dumpSize, tensor.addr(), "UB",
                 &shapeInfo);
}
template <typename T> inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize)
{
    const T* p = tensor.span(dumpSize, "the dumped tensor");
    detail::dump(p, desc, dumpSize, detail::gm_offset(p), "GM", nullptr);
}
template <typename T>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo& shapeInfo)
{
    const T* p = tensor.span(dumpSize, "the dumped tensor");
    detail::dump(p, desc, dumpSize, detail::gm_offset(p), "GM", &shapeInfo);
}
}  // namespace AscendC

// Brcb, Gather, Gatherb (the simulator's semantics and checks)
#include "asc_trace_gather.h"
// the cube core's instructions (L1 / L0A / L0B / L0C / the bias table)
#include "asc_trace_cube.h"
// mixed kernels: the three cores of an AI core and their cross-core flags
#include "asc_trace_mix.h"
// SyncAll / IBSet / IBWait: the cores of a launch as threads taking turns
#include "asc_trace_block_sync.h"
// the high-level API's element-wise activations (Gelu, FasterGelu, Silu, Sigmoid)
#include "asc_trace_adv.h"

// Emitted code marks each statement with its graph node so that a failure names the user's line.
#define ASC_TRACE_NODE(n) (AscendC::detail::core().node = (n))
