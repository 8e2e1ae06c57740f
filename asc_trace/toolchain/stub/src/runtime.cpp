// The core under the CPU-debug stub layer: globals the headers read, the failure channel,
// memory checks, registers, events, and the TPipe / TQue bookkeeping hooks.
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "stub_def.h"
#include "state.h"

int64_t block_idx = 0;
int64_t block_num = 1;
int64_t sub_block_idx = 0;
int32_t g_coreType = 2;       // AscendC::AIV: a vector-only kernel
uint32_t g_taskRation = 1;    // one AIV per block in AIV_MODE
uint64_t g_fixpipeNdNzParam = 0;
uint8_t* g_ubBase = nullptr;
namespace AscendC {
bool g_isVdeq = false;
bool g_isAtomic = false;
}  // namespace AscendC

namespace asc_stub {

State& S()
{
    static State s;
    return s;
}

size_t size_of(DT dt)
{
    switch (dt) {
        case DT::S8: case DT::U8: return 1;
        case DT::F16: case DT::BF16: case DT::S16: case DT::U16: return 2;
        case DT::F32: case DT::S32: case DT::U32: return 4;
        default: return 8;
    }
}

const char* name_of(DT dt)
{
    static const char* names[] = {"float16", "bfloat16", "float32", "int8", "uint8", "int16", "uint16",
                                  "int32", "uint32", "int64", "uint64"};
    return names[static_cast<int>(dt)];
}

static void report(const char* tag, const char* kind, const char* msg)
{
    std::fflush(stdout);
    char line[1200];
    int n = std::snprintf(line, sizeof line, "@@ASC_TRACE_%s\t%s\t%d\t%d\t%s\n", tag, kind, S().node, S().core, msg);
    if (n > 0) {
        ssize_t w = write(2, line, static_cast<size_t>(n) < sizeof line ? static_cast<size_t>(n) : sizeof line - 1);
        (void)w;
    }
}

void fail(const char* kind, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(kind, fmt, ap);
}

void unmodeled(const char* name)
{
    fail("unmodeled", "the AI Core intrinsic %s is reached but asc_trace's CPU-debug layer does not model it", name);
}

void set_node(int node)
{
    S().node = node;
    S().gm_root = -1;
    S().vendor_impl = false;
}

void vendor_impl() { S().vendor_impl = true; }
bool in_vendor_impl() { return S().vendor_impl; }

void gm_window(int root, const void* base, uint64_t nbytes) { S().windows[root] = {static_cast<const uint8_t*>(base), nbytes}; }
void gm_operand(int root) { S().gm_root = root; }

void vfail(const char* kind, const char* fmt, va_list ap)
{
    char msg[1024];
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    for (char* c = msg; *c; ++c)
        if (*c == '\n' || *c == '\t') *c = ' ';
    report("FAIL", kind, msg);
    _exit(86);
}

static void on_signal(int sig)
{
    const char* what = sig == SIGABRT ? "abort" : sig == SIGSEGV ? "segfault" : sig == SIGBUS ? "bus error" :
                       sig == SIGFPE ? "arithmetic exception" : "signal";
    report("SIGNAL", what, "");
    _exit(87);
}

void install_signal_handlers()
{
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_signal);
}

void check_ub(const void* p, uint64_t nbytes, uint32_t align, const char* what)
{
    const uint8_t* q = static_cast<const uint8_t*>(p);
    State& s = S();
    if (q < s.ub || q + nbytes > s.ub + UB_USABLE) {
        for (const GmRange& g : s.gm)
            if (q >= g.lo && q < g.hi) fail("bounds", "%s points into global memory (%s) where the Unified Buffer is expected", what, g.name.c_str());
        fail("ub", "%s spans UB bytes [%lld, %lld), outside the usable %llu bytes", what,
             static_cast<long long>(q - s.ub), static_cast<long long>(q - s.ub + nbytes),
             static_cast<unsigned long long>(UB_USABLE));
    }
    if (align > 1 && (q - s.ub) % align != 0)
        fail("alignment", "%s starts at UB byte address %lld, which is not %u-byte aligned", what,
             static_cast<long long>(q - s.ub), align);
}

static void check_window(const uint8_t* q, uint64_t nbytes, const char* what)
{
    auto w = S().windows.find(S().gm_root);
    if (w == S().windows.end() || w->second.second == 0) return;
    const uint8_t* lo = w->second.first;
    if (q < lo || q + nbytes > lo + w->second.second)
        fail("bounds", "%s reads/writes bytes [%lld, %lld) of its GlobalTensor, but the window set by SetGlobalBuffer "
             "has %llu bytes", what, static_cast<long long>(q - lo), static_cast<long long>(q - lo + nbytes),
             static_cast<unsigned long long>(w->second.second));
}

void check_gm(const void* p, uint64_t nbytes, const char* what)
{
    const uint8_t* q = static_cast<const uint8_t*>(p);
    check_window(q, nbytes, what);
    for (const GmRange& g : S().gm)
        if (q >= g.lo && q + nbytes <= g.hi) return;
    const GmRange* near = nullptr;                  // the array the access starts in, or last starts after
    for (const GmRange& g : S().gm)
        if (g.lo <= q && (near == nullptr || g.lo > near->lo)) near = &g;
    if (near != nullptr)
        fail("bounds", "%s reads or writes bytes [%lld, %lld) of `%s`, which has %lld", what,
             static_cast<long long>(q - near->lo), static_cast<long long>(q - near->lo + nbytes), near->name.c_str(),
             static_cast<long long>(near->hi - near->lo));
    fail("bounds", "%s touches global memory outside the arrays passed to the kernel", what);
}

void add_gm_range(void* lo, uint64_t nbytes, const char* name)
{
    uint8_t* p = static_cast<uint8_t*>(lo);
    S().gm.push_back({p, p + nbytes, name});
}

void begin_core(int core, int core_num, uint8_t* ub, uint64_t ub_bytes)
{
    State& s = S();
    s.ub = ub;
    s.ub_bytes = ub_bytes;
    s.core = core;
    s.core_num = core_num;
    s.node = -1;
    s.gm_root = -1;
    s.windows.clear();
    s.mask = Mask{false, ~0ull, ~0ull};
    s.ctrl = 0;
    std::memset(s.cmpmask, 0xFF, sizeof s.cmpmask);   // undefined until written: the poison
    std::memset(s.flags, 0, sizeof s.flags);
    s.pad_set = false;
    s.api_dst = s.api_src = s.api_off = State::Extent{};
    s.gather_src = nullptr;
    std::memset(ub, 0xFF, ub_bytes);      // the simulator's poison: unwritten UB reads as NaN / -1
    block_idx = core;
    block_num = core_num;
    g_ubBase = ub;
}

void end_core()
{
    State& s = S();
    for (int a = 0; a < PIPES; ++a)
        for (int b = 0; b < PIPES; ++b)
            for (int e = 0; e < 8; ++e)
                if (s.flags[a][b] & (1u << e))
                    fail("sync", "the kernel ends with the flag of pipe %d -> pipe %d, event %d still set (no wait_flag "
                         "consumed it)", a, b, e);
}

Mask& mask() { return S().mask; }
void set_atomic(int op) { S().atomic_op = op; }
void set_atomic_type(int code) { S().atomic_type = code; }
int atomic_op() { return S().atomic_op; }
int atomic_type() { return S().atomic_type; }
uint64_t& acc_val() { return S().acc; }
uint64_t& max_min_cnt() { return S().max_min; }
void set_pad_value(uint64_t bits)
{
    S().pad = bits;
    S().pad_set = true;
}
uint64_t& ctrl() { return S().ctrl; }

// The 16 bytes at `p` must lie in the tensor ASC_TRACE_API_TENSORS gave (when it is this operand's), as the
// simulator bounds them; the tensors are then forgotten.
static void check_cmpmask_operand(const void* p, State::Extent& x, const char* what)
{
    const State::Extent t = x;
    S().api_dst = S().api_src = S().api_src1 = S().api_off = State::Extent{};
    if (t.lo != nullptr && t.lo == p && t.bytes < 16)
        fail("bounds", "%s needs 16 bytes but its tensor has only %llu", what, static_cast<unsigned long long>(t.bytes));
}

void set_cmpmask_from(const void* src)
{
    check_cmpmask_operand(src, S().api_src, "src");
    check_ub(src, 16, 1, "set_cmpmask's source");
    std::memcpy(S().cmpmask, src, 16);
}

void get_cmpmask_to(void* dst)
{
    check_cmpmask_operand(dst, S().api_dst, "dst");
    check_ub(dst, 16, 1, "get_cmpmask's destination");
    std::memcpy(dst, S().cmpmask, 16);
}

static void check_event(int src, int dst, int event, const char* what)
{
    if (src < 0 || src >= PIPES || dst < 0 || dst >= PIPES) fail("sync", "%s between unknown pipes %d and %d", what, src, dst);
    if (event < 0 || event > 7) fail("sync", "%s: event id %d is outside 0..7", what, event);
}

void set_flag(int src, int dst, int event)
{
    check_event(src, dst, event, "set_flag");
    uint8_t& f = S().flags[src][dst];
    if (f & (1u << event))
        fail("sync", "set_flag of pipe %d -> pipe %d, event %d, while it is already set (a second set before its wait)",
             src, dst, event);
    f = static_cast<uint8_t>(f | (1u << event));
}

void wait_flag(int src, int dst, int event)
{
    check_event(src, dst, event, "wait_flag");
    uint8_t& f = S().flags[src][dst];
    if (!(f & (1u << event)))
        fail("sync", "wait_flag of pipe %d -> pipe %d, event %d, which no set_flag has set: the core would wait forever",
             src, dst, event);
    f = static_cast<uint8_t>(f & ~(1u << event));
}

void pipe_barrier(int) {}   // the host runs every pipe's instructions in program order

}  // namespace asc_stub

// The failure hook of the emitted code's runtime checks (the ASC_CHECK_* macros of the lowering's
// prelude header, when it has them): kinds 1 bounds, 2 scalar, 3 sync, 4 alignment, 5 ub, 6 queue.
[[noreturn]] void asc_trace_fail(int kind, const char* message)
{
    static const char* const kinds[] = {"bounds", "bounds", "scalar", "sync", "alignment", "ub", "queue"};
    asc_stub::fail(kind >= 1 && kind <= 6 ? kinds[kind] : "bounds", "%s", message);
}

// TPipe / TQue / TBuf report their buffers here in CPU-debug mode (tikicpulib checks them); the
// API's own bookkeeping already refuses misuse on this path, so the others only accept.
void AscendCQueCreate(uint8_t, uint8_t, int32_t) {}
// The CPU-debug TPipe fills every buffer with pseudo-random words before it reports them here; the
// Unified Buffer gets the simulator's poison back, so unwritten bytes read the same on every backend.
void AscendCBufAbsAddr(uint8_t, uint64_t base, uint32_t len)
{
    asc_stub::State& s = asc_stub::S();
    if (reinterpret_cast<uint8_t*>(base) == s.ub) std::memset(s.ub, 0xFF, len < s.ub_bytes ? len : s.ub_bytes);
}
void AscendCBufInit(uint8_t, uint8_t, uint8_t, uint64_t, uint64_t) {}
void AscendCBufAlloc(uint8_t, uint8_t, uint64_t, uint64_t) {}
void AscendCBufFree(uint8_t, uint8_t, uint64_t, uint64_t) {}
void AscendCBufEnque(uint8_t, uint8_t, uint8_t, uint64_t) {}
void AscendCBufDeque(uint8_t, uint8_t, uint8_t, uint64_t) {}
void AscendCBufGet(uint8_t, uint8_t, uint64_t, uint64_t) {}
void AscendCTBufPoolInit(uint8_t, uint64_t, uint64_t, uint64_t) {}
void AscendCTBufPoolResetCheck(uint8_t, uint64_t, uint64_t, uint64_t) {}
void AscendCUpdateTbufPoolStatus(uint64_t, bool) {}
void AscendCRecordPoolHierarchy(uint64_t, uint64_t) {}
