// asc_trace's host model of SyncAll / IBSet / IBWait (graph/ops/block_sync.py), included by kernel_operator.h.
// The cores of a launch that calls them run as threads, each a `detail::Core` of its own, of which exactly one
// runs at a time - the simulator's deterministic turn-taking (asc_trace/runtime/block_sync_sim.py): a core gives
// the turn away only when it waits at one of these calls, or ends; if no core can run while one waits, the wait
// is never satisfied (on the NPU the kernel would hang there).
//
// As the vendor's code (asc-devkit impl/basic_api/kernel_operator_block_sync_intf_impl.h, dav_c220
// kernel_operator_sync_impl.h): the hardware SyncAll<true>() waits until every core has reached its k-th one;
// the software SyncAll adds one to the core's int32 counter at gm[blockIdx * 8] and waits until the counters
// of the first usedCores (0: all) cores add up to usedCores x its own count; IBSet waits until the word
// gm[blockNum * 8 * eventID + blockIdx * 8] is 0 and writes 1, IBWait until it is 1 and writes 0. What the model
// cannot see - the pipes inside a core, and GM accesses nothing orders between cores - the simulator checks
// before the cpp backend runs the kernel (runtime/cpp.py).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace AscendC {
namespace detail {
struct BlockAbort {};                  // unwinds a core's thread when another core has failed
struct BlockFailure {
    int core;
    Failure failure;
};

struct BlockBoard {
    std::mutex mu;
    std::condition_variable cv;
    int n = 0;
    int turn = 0;
    bool abort = false;
    int stuck = -1;
    std::vector<char> done;
    std::vector<std::function<bool()>> waiting;   // empty: the core does not wait
    std::vector<int> hard;                        // hardware barriers each core has reached
    Failure failure;
    int failed = -1;
    int failed_node = -1;
};

inline BlockBoard*& block_board() { static BlockBoard* b = nullptr; return b; }

// give the turn to the next core that can run (the caller holds the lock)
inline void block_pass(BlockBoard& b, int i)
{
    for (int k = 1; k <= b.n; ++k) {
        const int j = (i + k) % b.n;
        if (b.done[j]) continue;
        if (!b.waiting[j] || b.abort || b.waiting[j]()) {
            b.turn = j;
            b.cv.notify_all();
            return;
        }
    }
    for (int j = 0; j < b.n; ++j)
        if (!b.done[j]) {               // every core left waits for something no core will do
            b.stuck = j;
            b.turn = j;
            b.cv.notify_all();
            return;
        }
}

inline BlockBoard& block_checked(const char* what)
{
    BlockBoard* b = block_board();
    if (b == nullptr) fail("not_provided", "%s outside a launch of the block-synchronised launcher", what);
    return *b;
}

// the calling core (holding the turn and the lock) waits until ready(); hang() fails if it never can be
template <typename Ready, typename Hang>
inline void block_wait(BlockBoard& b, std::unique_lock<std::mutex>& lock, Ready ready, Hang hang)
{
    const int me = static_cast<int>(core().core_idx);
    while (!ready()) {
        b.waiting[me] = ready;
        block_pass(b, me);
        b.cv.wait(lock, [&] { return b.turn == me || b.abort; });
        if (b.abort) throw BlockAbort{};
        if (b.stuck == me) {
            b.waiting[me] = nullptr;
            hang();
        }
    }
    b.waiting[me] = nullptr;
}

// Run `body` once per core of the launch, the cores as threads taking turns; throws BlockFailure for the
// first core that failed (the other cores are unwound).
inline void run_block_launch(const std::vector<Core*>& cores, const std::function<void()>& body)
{
    BlockBoard b;
    b.n = static_cast<int>(cores.size());
    b.done.assign(cores.size(), 0);
    b.waiting.assign(cores.size(), nullptr);
    b.hard.assign(cores.size(), 0);
    block_board() = &b;
    auto main = [&](int i) {
        current_core() = cores[static_cast<size_t>(i)];
        {
            std::unique_lock<std::mutex> lock(b.mu);
            b.cv.wait(lock, [&] { return b.turn == i || b.abort; });
        }
        try {
            if (!b.abort) body();
        } catch (const BlockAbort&) {
        } catch (const Failure& f) {
            std::lock_guard<std::mutex> lock(b.mu);
            if (b.failed < 0) {
                b.failure = f;
                b.failed = i;
                b.failed_node = cores[static_cast<size_t>(i)]->node;
            }
            b.abort = true;
        }
        std::lock_guard<std::mutex> lock(b.mu);
        b.done[static_cast<size_t>(i)] = 1;
        block_pass(b, i);
        current_core() = nullptr;
    };
    std::vector<std::thread> threads;
    for (int i = 1; i < b.n; ++i) threads.emplace_back(main, i);
    main(0);
    for (auto& t : threads) t.join();
    block_board() = nullptr;
    if (b.failed >= 0) {
        cores[static_cast<size_t>(b.failed)]->node = b.failed_node;
        throw BlockFailure{b.failed, b.failure};
    }
}
}  // namespace detail

template <bool isAIVOnly = true> inline void SyncAll()
{
    static_assert(isAIVOnly, "asc_trace models the vector cores' SyncAll only");
    auto& b = detail::block_checked("SyncAll");
    const int me = static_cast<int>(detail::core().core_idx);
    std::unique_lock<std::mutex> lock(b.mu);
    const int k = b.hard[static_cast<size_t>(me)]++;
    auto ready = [&b, k] {
        for (int c = 0; c < b.n; ++c)
            if (b.hard[static_cast<size_t>(c)] <= k) return false;
        return true;
    };
    detail::block_wait(b, lock, ready, [&] {
        int behind = 0;
        while (b.hard[static_cast<size_t>(behind)] > k) ++behind;
        if (b.done[static_cast<size_t>(behind)])
            detail::fail("sync", "core %d waits at its sync_all number %d, but core %d ended the kernel after %d "
                         "sync_all call(s): every core of the launch must make the same sequence of sync_all calls, "
                         "so on the NPU the kernel would hang here", me, k + 1, behind, b.hard[static_cast<size_t>(behind)]);
        detail::fail("sync", "core %d waits at its sync_all number %d, but core %d waits elsewhere and never reaches "
                     "it, so on the NPU the kernel would hang here", me, k + 1, behind);
    });
}

template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                    const int32_t usedCores = 0)
{
    static_assert(isAIVOnly, "asc_trace models the vector cores' SyncAll only");
    auto& b = detail::block_checked("SyncAll");
    const int me = static_cast<int>(detail::core().core_idx);
    if (usedCores < 0) detail::fail("bounds", "used_cores is negative (%d)", usedCores);
    const int total = usedCores != 0 ? usedCores : static_cast<int>(detail::core().core_count);
    const int slots = total > me + 1 ? total : me + 1;
    int32_t* gm = gmWorkspace.span(static_cast<uint64_t>(slots) * 8, "the gm_workspace of sync_all");
    int32_t* ub = ubWorkspace.span(static_cast<uint32_t>(slots) * 8, "the ub_workspace of sync_all");
    std::unique_lock<std::mutex> lock(b.mu);
    const int32_t cur = gm[me * 8] + 1;
    gm[me * 8] = cur;
    const int64_t need = static_cast<int64_t>(total) * cur;
    auto sum = [gm, total] {
        int64_t s = 0;
        for (int i = 0; i < total; ++i) s += gm[i * 8];
        return s;
    };
    detail::block_wait(b, lock, [&] { return sum() >= need; }, [&] {
        detail::fail("sync", "core %d waits at a software sync_all for the workspace counters of cores 0..%d to add "
                     "up to %lld, and they stop at %lld: some core does not reach this barrier (or the workspace was "
                     "not zeroed before the launch), so on the NPU the kernel would hang here", me, total - 1,
                     static_cast<long long>(need), static_cast<long long>(sum()));
    });
    std::memcpy(ub, gm, static_cast<size_t>(total) * 8 * sizeof(int32_t));
}

namespace detail {
template <bool isSet>
inline void ib_flag(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                    int32_t eventID)
{
    const char* what = isSet ? "ib_set" : "ib_wait";
    auto& b = block_checked(isSet ? "IBSet" : "IBWait");
    const int me = static_cast<int>(core().core_idx);
    const int64_t n = core().core_count;
    if (blockIdx < 0 || blockIdx >= n)
        fail("bounds", "%s names core %d, but the launch has cores 0..%lld", what, blockIdx,
             static_cast<long long>(n - 1));
    if (eventID < 0) fail("bounds", "%s event_id is negative (%d)", what, eventID);
    const int64_t word = n * 8 * eventID + static_cast<int64_t>(blockIdx) * 8;
    int32_t* gm = gmWorkspace[static_cast<uint64_t>(word)].span(8, isSet ? "the gm_workspace of ib_set"
                                                                          : "the gm_workspace of ib_wait");
    int32_t* ub = ubWorkspace.span(8, isSet ? "the ub_workspace of ib_set" : "the ub_workspace of ib_wait");
    const int32_t want = isSet ? 0 : 1;
    std::unique_lock<std::mutex> lock(b.mu);
    block_wait(b, lock, [gm, want] { return *gm == want; }, [&] {
        fail("sync", "core %d's %s on the flag of core %d (gm_workspace element %lld, which holds %d) %s, so on the "
             "NPU the kernel would hang here", me, what, blockIdx, static_cast<long long>(word), *gm,
             isSet ? "is never cleared: no ib_wait takes the previous ib_set of this flag"
                   : "is never set: no core makes the matching ib_set");
    });
    std::memcpy(ub, gm, 8 * sizeof(int32_t));
    ub[0] = 1 - want;
    *gm = 1 - want;
}
}  // namespace detail

template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                  int32_t eventID)
{
    static_assert(isAIVOnly, "asc_trace models the vector cores' IBSet only");
    detail::ib_flag<true>(gmWorkspace, ubWorkspace, blockIdx, eventID);
}

template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                   int32_t eventID)
{
    static_assert(isAIVOnly, "asc_trace models the vector cores' IBWait only");
    detail::ib_flag<false>(gmWorkspace, ubWorkspace, blockIdx, eventID);
}
}  // namespace AscendC
