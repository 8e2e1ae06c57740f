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
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

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
namespace asc_model {
inline uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline uint16_t float_to_half_bits(float f)
{
    uint32_t x = f2u(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xFFu;
    uint32_t mant = x & 0x7FFFFFu;
    if (exp == 0xFFu) {                                     // inf / nan
        if (mant == 0) return static_cast<uint16_t>(sign | 0x7C00u);
        return static_cast<uint16_t>(sign | 0x7C00u | 0x200u | (mant >> 13));
    }
    int32_t e = static_cast<int32_t>(exp) - 127 + 15;
    if (e >= 0x1F) return static_cast<uint16_t>(sign | 0x7C00u);   // overflow -> inf
    if (e <= 0) {                                           // subnormal or zero
        if (e < -10) return static_cast<uint16_t>(sign);
        mant |= 0x800000u;
        uint32_t shift = static_cast<uint32_t>(14 - e);
        uint32_t half_mant = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half_mant & 1u))) half_mant++;
        return static_cast<uint16_t>(sign | half_mant);
    }
    uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) half++;   // may carry into the exponent: fine
    return static_cast<uint16_t>(half);
}

inline float half_bits_to_float(uint16_t h)
{
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    if (exp == 0) {
        if (mant == 0) return u2f(sign);
        float v = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -v : v;
    }
    if (exp == 0x1F) return u2f(sign | 0x7F800000u | (mant << 13));
    return u2f(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

inline uint16_t float_to_bf16_bits(float f)
{
    uint32_t x = f2u(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7FC0u);
    uint32_t low = x & 0xFFFFu;
    uint32_t high = x >> 16;
    if (low > 0x8000u || (low == 0x8000u && (high & 1u))) high++;
    return static_cast<uint16_t>(high);
}

inline float bf16_bits_to_float(uint16_t b) { return u2f(static_cast<uint32_t>(b) << 16); }
}  // namespace asc_model

class half {
public:
    uint16_t bits = 0;
    half() = default;
    half(float f) : bits(asc_model::float_to_half_bits(f)) {}   // implicit, as bisheng's half
    operator float() const { return asc_model::half_bits_to_float(bits); }
    static half from_bits(uint16_t b) { half h; h.bits = b; return h; }
};
static_assert(sizeof(half) == 2, "half must be 2 bytes");

class bfloat16_t {
public:
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(asc_model::float_to_bf16_bits(f)) {}
    operator float() const { return asc_model::bf16_bits_to_float(bits); }
};
static_assert(sizeof(bfloat16_t) == 2, "bfloat16_t must be 2 bytes");

// ---------------------------------------------------------------------------------------------
// The per-core machine and the error channel back to Python.
// ---------------------------------------------------------------------------------------------
namespace AscendC {
namespace detail {
constexpr uint32_t UB_BYTES = 192 * 1024;
constexpr uint32_t UB_USABLE = UB_BYTES - 256;

struct Failure {
    std::string kind;     // "alignment", "bounds", "ub", "queue", "sync"
    std::string message;
};

struct GmRange { const uint8_t* lo; const uint8_t* hi; };

struct Core {
    int64_t block_idx = 0;
    int64_t block_num = 1;
    uint8_t ub[UB_BYTES];
    std::string out;
    int node = -1;
    bool pipe_made = false;
    uint32_t pipe_next = 0;
    uint8_t event_mask[64] = {};
};

inline Core& core() { static Core c; return c; }
inline std::vector<GmRange>& gm_ranges() { static std::vector<GmRange> r; return r; }

[[noreturn]] inline void fail(const char* kind, const char* fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    throw Failure{kind, buf};
}

inline void check_ub(uint64_t addr, uint64_t nbytes, const char* what)
{
    if (addr % 32 != 0) fail("alignment", "%s starts at UB byte address %llu, which is not 32-byte aligned", what,
                             static_cast<unsigned long long>(addr));
    if (addr + nbytes > UB_USABLE)
        fail("ub", "%s spans UB bytes [%llu, %llu) past the usable %u bytes", what,
             static_cast<unsigned long long>(addr), static_cast<unsigned long long>(addr + nbytes), UB_USABLE);
}

inline void check_gm(const void* p, uint64_t nbytes, const char* what)
{
    const uint8_t* lo = static_cast<const uint8_t*>(p);
    for (const GmRange& r : gm_ranges())
        if (lo >= r.lo && lo + nbytes <= r.hi) return;
    fail("bounds", "%s touches global memory outside the arrays passed to the kernel", what);
}

template <typename T> struct is_16bit_float : std::false_type {};
template <> struct is_16bit_float<half> : std::true_type {};
template <> struct is_16bit_float<bfloat16_t> : std::true_type {};
}  // namespace detail

inline int64_t GetBlockIdx() { return detail::core().block_idx; }
inline int64_t GetBlockNum() { return detail::core().block_num; }

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;

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
template <typename T> class GlobalTensor {
public:
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) { base_ = buffer; ptr_ = buffer; size_ = bufferSize; sized_ = true; }
    void SetGlobalBuffer(__gm__ T* buffer) { base_ = buffer; ptr_ = buffer; size_ = 0; sized_ = false; }
    const __gm__ T* GetPhyAddr() const { return ptr_; }
    __gm__ T* GetPhyAddr(const uint64_t offset) const { return ptr_ + offset; }
    uint64_t GetSize() const { return size_; }
    GlobalTensor operator[](const uint64_t offset) const   // moves the address; the size is not reduced
    {
        GlobalTensor g = *this;
        g.ptr_ = ptr_ + offset;
        return g;
    }
    T GetValue(const uint64_t offset) const { check(offset, 1, "GetValue"); return ptr_[offset]; }
    void SetValue(const uint64_t offset, T value) { check(offset, 1, "SetValue"); ptr_[offset] = value; }

    // model only: the checked element range [ptr, ptr + count)
    T* span(uint64_t count, const char* what) const { check(0, count, what); return ptr_; }

private:
    void check(uint64_t offset, uint64_t count, const char* what) const
    {
        if (ptr_ == nullptr) detail::fail("bounds", "%s on a GlobalTensor without SetGlobalBuffer", what);
        uint64_t start = static_cast<uint64_t>(ptr_ - base_) + offset;
        if (sized_ && start + count > size_)
            detail::fail("bounds", "%s reads/writes elements [%llu, %llu) but the GlobalTensor window set by "
                         "SetGlobalBuffer has %llu", what, static_cast<unsigned long long>(start),
                         static_cast<unsigned long long>(start + count), static_cast<unsigned long long>(size_));
        detail::check_gm(ptr_ + offset, count * sizeof(T), what);
    }
    __gm__ T* base_ = nullptr;
    __gm__ T* ptr_ = nullptr;
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
        detail::check_ub(addr, static_cast<uint64_t>(tileSize) * sizeof(T), "this LocalTensor");
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

    // model only
    T* span(uint32_t count, const char* what) const
    {
        if (addr_ % 32 != 0)
            detail::fail("alignment", "%s starts at UB byte address %u, which is not 32-byte aligned", what, addr_);
        if (count > size_)
            detail::fail("bounds", "%s needs %u elements but its tensor has only %u from here", what, count, size_);
        return reinterpret_cast<T*>(detail::core().ub + addr_);
    }
    uint32_t addr() const { return addr_; }
    void set(uint32_t addr, uint32_t size, TPosition pos) { addr_ = addr; size_ = size; pos_ = pos; }

private:
    T* elem(uint32_t index) const
    {
        if (index >= size_) detail::fail("bounds", "element %u of a tensor of %u elements", index, size_);
        return reinterpret_cast<T*>(detail::core().ub + addr_) + index;
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
        held_.push_back(slot);
        LocalTensor<T> t;
        t.set(bufs_[slot], len_ / sizeof(T), pos);
        return t;
    }
    template <typename T> bool EnQue(const LocalTensor<T>& tensor)
    {
        int slot = slot_of(tensor.addr(), "EnQue");
        if (static_cast<int32_t>(inq_.size()) >= depth) detail::fail("queue", "EnQue past the queue depth %d", depth);
        release(slot, "EnQue");
        inq_.push_back(slot);
        return true;
    }
    template <typename T> LocalTensor<T> DeQue()
    {
        if (inq_.empty()) detail::fail("queue", "DeQue of an empty queue would wait forever");
        int slot = inq_.front();
        inq_.pop_front();
        held_.push_back(slot);
        LocalTensor<T> t;
        t.set(bufs_[slot], len_ / sizeof(T), pos);
        return t;
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

class TPipe {
public:
    TPipe()
    {
        if (detail::core().pipe_made) detail::fail("queue", "a kernel creates exactly one TPipe");
        detail::core().pipe_made = true;
    }
    template <TPosition pos, int32_t depth, auto mask>
    bool InitBuffer(TQue<pos, depth, mask>& que, uint8_t num, uint32_t len)
    {
        len = (len + 31u) / 32u * 32u;
        uint32_t base = take(static_cast<uint64_t>(num) * len);
        que.init(base, num, len);
        return true;
    }
    template <TPosition pos> bool InitBuffer(TBuf<pos>& buf, uint32_t len)
    {
        len = (len + 31u) / 32u * 32u;
        buf.init(take(len), len);
        return true;
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

template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count)
{
    detail::check_copy(static_cast<uint64_t>(count) * sizeof(T));
    if (count == 0) return;
    std::memcpy(dst.span(count, "the copy destination"), src.span(count, "the copy source"), count * sizeof(T));
}
template <typename T> inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    detail::check_copy(static_cast<uint64_t>(count) * sizeof(T));
    if (count == 0) return;
    std::memcpy(dst.span(count, "the copy destination"), src.span(count, "the copy source"), count * sizeof(T));
}
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    detail::check_copy(static_cast<uint64_t>(count) * sizeof(T));
    if (count == 0) return;
    std::memmove(dst.span(count, "the copy destination"), src.span(count, "the copy source"), count * sizeof(T));
}

// ---------------------------------------------------------------------------------------------
// Vector ops, count form. Arithmetic follows the element type: 16-bit floats compute in float and
// round back after every operation, integers wrap; NaN handling is NumPy's.
// ---------------------------------------------------------------------------------------------
namespace detail {
template <typename T> struct Calc { using type = T; };
template <> struct Calc<half> { using type = float; };
template <> struct Calc<bfloat16_t> { using type = float; };

template <typename T> inline T wrap_add(T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
        return static_cast<T>(static_cast<typename Calc<T>::type>(a) + static_cast<typename Calc<T>::type>(b));
    }
}
template <typename T> inline T wrap_sub(T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    } else {
        return static_cast<T>(static_cast<typename Calc<T>::type>(a) - static_cast<typename Calc<T>::type>(b));
    }
}
template <typename T> inline T wrap_mul(T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    } else {
        return static_cast<T>(static_cast<typename Calc<T>::type>(a) * static_cast<typename Calc<T>::type>(b));
    }
}
template <typename T> inline T div(T a, T b)
{
    return static_cast<T>(static_cast<typename Calc<T>::type>(a) / static_cast<typename Calc<T>::type>(b));
}
template <typename C> inline bool isnan_(C v)
{
    if constexpr (std::is_floating_point<C>::value) return std::isnan(v); else return false;
}
template <typename T> inline T max_(T a, T b)   // numpy.maximum
{
    using C = typename Calc<T>::type;
    C x = static_cast<C>(a), y = static_cast<C>(b);
    if (isnan_(x)) return a;
    if (isnan_(y)) return b;
    return x >= y ? a : b;
}
template <typename T> inline T min_(T a, T b)   // numpy.minimum
{
    using C = typename Calc<T>::type;
    C x = static_cast<C>(a), y = static_cast<C>(b);
    if (isnan_(x)) return a;
    if (isnan_(y)) return b;
    return x <= y ? a : b;
}
template <typename T> inline T abs_(T a)
{
    if constexpr (std::is_integral<T>::value) {
        return a < 0 ? wrap_sub(static_cast<T>(0), a) : a;
    } else {
        return static_cast<T>(std::fabs(static_cast<typename Calc<T>::type>(a)));
    }
}

template <typename T, typename F>
inline void binary(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, int32_t count, F f)
{
    if (count <= 0) return;
    uint32_t n = static_cast<uint32_t>(count);
    const T* pa = a.span(n, "src0");
    const T* pb = b.span(n, "src1");
    T* pd = dst.span(n, "dst");
    std::vector<T> tmp(n);
    for (uint32_t i = 0; i < n; ++i) tmp[i] = f(pa[i], pb[i]);
    std::memcpy(pd, tmp.data(), n * sizeof(T));
}
template <typename T, typename F>
inline void unary(const LocalTensor<T>& dst, const LocalTensor<T>& a, int32_t count, F f)
{
    if (count <= 0) return;
    uint32_t n = static_cast<uint32_t>(count);
    const T* pa = a.span(n, "src");
    T* pd = dst.span(n, "dst");
    std::vector<T> tmp(n);
    for (uint32_t i = 0; i < n; ++i) tmp[i] = f(pa[i]);
    std::memcpy(pd, tmp.data(), n * sizeof(T));
}
}  // namespace detail

#define ASC_MODEL_BINARY(NAME, EXPR)                                                                            \
    template <typename T>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,        \
                     const int32_t& count)                                                                      \
    {                                                                                                           \
        detail::binary(dst, src0, src1, count, [](T a, T b) { return EXPR; });                                  \
    }
ASC_MODEL_BINARY(Add, detail::wrap_add(a, b))
ASC_MODEL_BINARY(Sub, detail::wrap_sub(a, b))
ASC_MODEL_BINARY(Mul, detail::wrap_mul(a, b))
ASC_MODEL_BINARY(Div, detail::div(a, b))
ASC_MODEL_BINARY(Max, detail::max_(a, b))
ASC_MODEL_BINARY(Min, detail::min_(a, b))
#undef ASC_MODEL_BINARY

#define ASC_MODEL_SCALAR(NAME, EXPR)                                                                            \
    template <typename T, bool isSetMask = true>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,               \
                     const int32_t& count)                                                                      \
    {                                                                                                           \
        const T s = scalarValue;                                                                                \
        detail::unary(dst, src, count, [s](T a) { return EXPR; });                                              \
    }
ASC_MODEL_SCALAR(Adds, detail::wrap_add(a, s))
ASC_MODEL_SCALAR(Muls, detail::wrap_mul(a, s))
ASC_MODEL_SCALAR(Maxs, detail::max_(a, s))
ASC_MODEL_SCALAR(Mins, detail::min_(a, s))
#undef ASC_MODEL_SCALAR

#define ASC_MODEL_UNARY(NAME, EXPR)                                                                             \
    template <typename T>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)               \
    {                                                                                                           \
        using C = typename detail::Calc<T>::type;                                                               \
        detail::unary(dst, src, count, [](T a) { C x = static_cast<C>(a); (void)x; return EXPR; });            \
    }
ASC_MODEL_UNARY(Exp, static_cast<T>(std::exp(x)))
ASC_MODEL_UNARY(Ln, static_cast<T>(std::log(x)))
ASC_MODEL_UNARY(Sqrt, static_cast<T>(std::sqrt(x)))
ASC_MODEL_UNARY(Abs, detail::abs_(a))
ASC_MODEL_UNARY(Relu, detail::max_(a, static_cast<T>(0)))
#undef ASC_MODEL_UNARY

template <typename T> inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count)
{
    if (count <= 0) return;
    uint32_t n = static_cast<uint32_t>(count);
    T* pd = dst.span(n, "dst");
    for (uint32_t i = 0; i < n; ++i) pd[i] = scalarValue;
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
}  // namespace AscendC

// Emitted code marks each statement with its graph node so that a failure names the user's line.
#define ASC_TRACE_NODE(n) (AscendC::detail::core().node = (n))
