// asc_trace's host model of a mixed cube + vector kernel (KERNEL_TYPE_MIX_AIC_1_2), included by
// kernel_operator.h: per AI core, one cube core and two vector cores, each a `detail::Core` of its own
// (its UB or L1 / L0 memories, its node, its printf text), run as threads of which exactly one runs at a
// time - the mixed simulator's deterministic turn-taking (asc_trace/runtime/mix_flags.py): a core gives
// the turn away only when it waits on a counter that is zero, or ends; if no core can run while one
// waits, the wait is never satisfied (on the NPU the kernel would hang there).
//
// The cross-core counters are the simulator's: one per core and flag id (0..10); a set adds one, a wait
// blocks its core until the counter is positive and takes one; at most 15 pending sets. Mode 2: a cube
// set raises both vector cores' counters, and the cube's counter rises once both vector cores have set;
// mode 1: a vector core raises the other vector core's. In pyasc's MIX Matmul mode (graph/matmul_clients.py)
// each Matmul client runs with a cube core of its own (`run_ai_core(cores, body, 1)`): one vector core, whose
// mode-2 set raises the cube's counter directly. What the model cannot see - the order of the
// pipes inside a core, and GM accesses no flag orders between cores - the mixed simulator checks before
// the cpp backend runs the kernel (runtime/cpp.py).
// `if ASCEND_IS_AIC { ... } if ASCEND_IS_AIV { ... }` picks each core's side, as the vendor's two
// compiles do (impl/utils/sys_macros.h makes it a constexpr test of the core type).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#define ASCEND_IS_AIC (AscendC::detail::core().mix_local == 0)
#define ASCEND_IS_AIV (AscendC::detail::core().mix_local > 0)

namespace AscendC {
namespace detail {
constexpr int MIX_FLAGS = 11;          // ids 11..14 belong to SyncAll
constexpr int MIX_MAX_PENDING = 15;

struct MixAbort {};                    // unwinds a core's thread when another core has failed
struct MixFailure {                    // a failed AI core: which of its cores, and why
    int local;
    Failure failure;
};

struct MixBoard {
    std::mutex mu;
    std::condition_variable cv;
    int turn = 0;
    bool done[3] = {false, false, false};
    int wait_fid[3] = {-1, -1, -1};    // the flag a core waits for (-1: it does not wait)
    bool abort = false;
    int stuck = -1;
    int pending[3][MIX_FLAGS] = {};
    int half[3][MIX_FLAGS] = {};       // mode-2 sets of one vector core to the cube, not yet paired
    int setter[3][MIX_FLAGS] = {};     // the node of the last set of each counter
    int setter_core[3][MIX_FLAGS] = {};  // and the core that made it (its node is in that side's graph)
    Failure failure;
    int failed = -1;                   // the local index of the core that failed first
    int failed_node = -1;
    int nvec = 2;                      // vector cores present: 2, or 1 for a Matmul client's pair
};

inline MixBoard*& mix_board() { static MixBoard* b = nullptr; return b; }

// give the turn to the next core that can run (the caller holds the lock)
inline void mix_pass(MixBoard& b, int i)
{
    for (int k = 1; k <= 3; ++k) {
        const int j = (i + k) % 3;
        if (b.done[j]) continue;
        if (b.wait_fid[j] < 0 || b.abort || b.pending[j][b.wait_fid[j]] > 0) {
            b.turn = j;
            b.cv.notify_all();
            return;
        }
    }
    for (int j = 0; j < 3; ++j)
        if (!b.done[j]) {               // every core left waits for a counter nothing will raise
            b.stuck = j;
            b.turn = j;
            b.cv.notify_all();
            return;
        }
}

inline const char* mix_core_name(int local)
{
    static const char* const names[] = {"the cube core", "vector core 0 (sub-block 0)", "vector core 1 (sub-block 1)"};
    return names[local];
}

inline MixBoard& mix_checked(int id, const char* what)
{
    MixBoard* b = mix_board();
    if (b == nullptr || core().mix_local < 0)
        fail("sync", "%s in a kernel that runs on one core type: cross-core flags connect a mixed kernel's cube "
             "core and vector cores", what);
    if (id < 0 || id >= MIX_FLAGS)
        fail("sync", "cross-core flag id %d is outside 0..10: ids 11-14 belong to SyncAll", id);
    return *b;
}

inline void mix_push(MixBoard& b, int local, int id)
{
    if (b.pending[local][id] >= MIX_MAX_PENDING)
        fail("sync", "cross-core flag %d of %s already holds %d sets nobody has waited for: the counter saturates "
             "and this set would be lost on the NPU", id, mix_core_name(local), MIX_MAX_PENDING);
    ++b.pending[local][id];
    b.setter[local][id] = core().node;
    b.setter_core[local][id] = core().mix_local;
}

inline void mix_set(int mode, int id)
{
    MixBoard& b = mix_checked(id, "CrossCoreSetFlag");
    const int me = core().mix_local;
    std::unique_lock<std::mutex> lock(b.mu);
    if (mode == 0)
        fail("not_provided", "cross-core flags in mode 0 (all cube cores or all vector cores of the launch) are "
             "not provided yet; modes 1 and 2 are");
    if (mode == 1) {
        if (me == 0)
            fail("sync", "a cross-core set in mode 1 synchronises the two vector cores of an AI core; the cube core "
                 "sets in mode 2");
        if (b.nvec == 1)
            fail("sync", "a cross-core set in mode 1 synchronises the two vector cores of an AI core, but in pyasc's "
                 "MIX Matmul mode each client runs here with a cube core of its own and no partner vector core");
        mix_push(b, 3 - me, id);
        return;
    }
    if (me == 0) {
        mix_push(b, 1, id);
        if (b.nvec == 2) mix_push(b, 2, id);
        return;
    }
    if (b.nvec == 1) {                  // one vector core: its set raises the cube's counter
        mix_push(b, 0, id);
        return;
    }
    ++b.half[me][id];
    b.setter[me][id] = core().node;
    b.setter_core[me][id] = me;
    if (b.half[1][id] > 0 && b.half[2][id] > 0) {   // both vector cores have set: the cube's counter rises once
        --b.half[1][id];
        --b.half[2][id];
        mix_push(b, 0, id);
    }
}

inline void mix_wait(int id)
{
    MixBoard& b = mix_checked(id, "CrossCoreWaitFlag");
    const int me = core().mix_local;
    std::unique_lock<std::mutex> lock(b.mu);
    while (b.pending[me][id] == 0) {
        b.wait_fid[me] = id;
        mix_pass(b, me);
        b.cv.wait(lock, [&] { return b.turn == me || b.abort; });
        if (b.abort) throw MixAbort{};
        if (b.stuck == me) {
            b.wait_fid[me] = -1;
            fail("sync", "cross-core wait on flag %d by %s is never satisfied: no core of this AI core sets it any "
                 "more, so on the NPU the kernel would hang here", id, mix_core_name(me));
        }
    }
    b.wait_fid[me] = -1;
    --b.pending[me][id];
}

// Run `body` on the three cores of one AI core (cores[0] the cube core); throws MixFailure if one failed
// (the first failure wins, the other cores are unwound) or a counter is left raised at the end.
inline void run_ai_core(Core* const cores[3], const std::function<void()>& body, int nvec = 2)
{
    MixBoard b;
    b.nvec = nvec;
    if (nvec == 1) b.done[2] = true;    // no second vector core: never given the turn
    mix_board() = &b;
    auto main = [&](int i) {
        current_core() = cores[i];
        {
            std::unique_lock<std::mutex> lock(b.mu);
            b.cv.wait(lock, [&] { return b.turn == i || b.abort; });
        }
        try {
            if (!b.abort) body();
        } catch (const MixAbort&) {
        } catch (const Failure& f) {
            std::lock_guard<std::mutex> lock(b.mu);
            if (b.failed < 0) {
                b.failure = f;
                b.failed = i;
                b.failed_node = cores[i]->node;
            }
            b.abort = true;
        }
        std::lock_guard<std::mutex> lock(b.mu);
        b.done[i] = true;
        mix_pass(b, i);
    };
    std::thread t1(main, 1);
    std::thread t2;
    if (nvec == 2) t2 = std::thread(main, 2);
    main(0);                            // the cube core on the calling thread
    t1.join();
    if (t2.joinable()) t2.join();
    current_core() = nullptr;
    mix_board() = nullptr;
    if (b.failed >= 0) {
        cores[b.failed]->node = b.failed_node;
        throw MixFailure{b.failed, b.failure};
    }
    for (int local = 0; local < 3; ++local)     // a set nobody waited for is left raised for the next kernel
        for (int id = 0; id < MIX_FLAGS; ++id) {
            if (b.pending[local][id] > 0 || b.half[local][id] > 0) {
                const int by = b.setter_core[local][id];
                cores[by]->node = b.setter[local][id];
                Failure f{"sync", ""};
                char buf[300];
                std::snprintf(buf, sizeof buf, b.pending[local][id] > 0
                              ? "the kernel ends with %d set(s) of cross-core flag %d that %s never waited for: the "
                                "counter is left raised for the next kernel"
                              : "the kernel ends with %d mode-2 set(s) of cross-core flag %d from %s that the other "
                                "vector core never matched: the cube core counts the two vector cores' sets in pairs",
                              b.pending[local][id] > 0 ? b.pending[local][id] : b.half[local][id], id,
                              mix_core_name(local));
                f.message = buf;
                throw MixFailure{by, f};
            }
        }
}
}  // namespace detail

template <uint8_t modeId, pipe_t pipe> inline void CrossCoreSetFlag(uint16_t flagId) { detail::mix_set(modeId, flagId); }
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S> inline void CrossCoreWaitFlag(uint16_t flagId)
{
    detail::mix_wait(flagId);
}
}  // namespace AscendC
