// What the Ascend C headers leave to tikicpulib in CPU-debug mode and declare themselves: the
// parameter checks `check::CheckFunc*Impl` (called before every vector instruction; a `false`
// makes the API log and abort) and the process lock of the fixpipe / group-barrier paths.
// Compiled against the headers (it needs their parameter structs). The count forms are checked
// here as the simulator checks them: `count` elements must fit each operand's LocalTensor; the mask /
// repeat forms hand their LocalTensors to the intrinsic model (src/vector.cpp), which bounds each
// operand's reach by them; every other form is left to the model's element-by-element UB checks.
#include "kernel_operator.h"   // first: the precompiled header applies only then

#include <algorithm>
#include <cstring>
#include <initializer_list>

#include "asc_stub.h"

namespace AscendC {

ProcessLock* ProcessLock::processLock = nullptr;
ProcessLock::ProcessLock() {}
ProcessLock::~ProcessLock() {}
ProcessLock* ProcessLock::CreateLock() { return new ProcessLock(); }
void ProcessLock::FreeLock() {}
void ProcessLock::UnInit() {}
int ProcessLock::Read() { return 0; }    // the cores run one at a time: nothing to lock against
int ProcessLock::Write() { return 0; }
int ProcessLock::Unlock() { return 0; }

namespace check {
namespace {
struct Extent {
    const char* what;
    uint32_t bytes;    // of one element
    uint64_t size;     // of the operand's LocalTensor, in bytes
};
// `count` elements must fit every operand, as the simulator checks a count form.
bool counts_fit(const char* api, uint32_t count, std::initializer_list<Extent> operands)
{
    asc_stub::vec_extents(nullptr, 0, nullptr, 0, nullptr, 0);   // no mask form's tensors linger past this API
    for (const Extent& o : operands)
        if (static_cast<uint64_t>(count) * o.bytes > o.size)
            asc_stub::fail("bounds", "%s of %u elements: %s has only %llu from there", api, count, o.what,
                           static_cast<unsigned long long>(o.size / (o.bytes ? o.bytes : 1)));
    return true;
}
}  // namespace

bool CheckFuncVecBinaryImpl(VecBinaryApiParams& p, const char* name)
{
    return counts_fit(name, p.calCount, {{"dst", p.dstDtypeBytes, p.dstSize}, {"src0", p.src0DtypeBytes, p.src0Size},
                                         {"src1", p.src1DtypeBytes, p.src1Size}});
}
bool CheckFunVecBinaryScalarImpl(VecBinaryScalarApiParams& p, const char* name)
{
    return counts_fit(name, p.calCount, {{"dst", p.dstDtypeBytes, p.dstSize}, {"src", p.src0DtypeBytes, p.src0Size}});
}
bool CheckFunDupImpl(VecDupApiParams& p, const char* name)
{
    return counts_fit(name, p.calCount, {{"dst", p.dstDtypeBytes, p.dstSize}});
}
bool CheckFuncVecSelectImpl(VecSelectApiParams& p, const char* name)
{
    return counts_fit(name, p.calCount, {{"dst", p.dstDtypeBytes, p.dstSize}, {"src0", p.src0DtypeBytes, p.src0Size}});
}
bool CheckFunReduceImplMode2(VecReduceApiParams& p, const char* name)
{
    return counts_fit(name, p.calCount, {{"src", p.src0DtypeBytes, p.src0Size}});
}
// ReduceSum / ReduceMax / ReduceMin's count form (level 2, the `repeatTime` the API derives): the
// instructions read whole repeats, so a count past the source tensor but inside the UB would run
bool CheckFunReduceImpl(VecReduceApiParams& p, const char* name);
bool CheckFuncCopyImpl(CopyApiParams& p, const char* name)
{
    return counts_fit(name, p.calCount, {{"dst", p.dstDtypeBytes, p.dstSize}, {"src", p.srcDtypeBytes, p.srcSize}});
}

// Brcb, Gather, Gatherb: their LocalTensors, for the instruction to check each element it touches against
// (asc_stub::api_extents), as the simulator bounds each operand by its tensor.
namespace {
void* ptr(uint64_t a) { return reinterpret_cast<void*>(static_cast<uintptr_t>(a)); }
bool gather_extents(VecGatherApiParams& p)
{
    asc_stub::api_extents(ptr(p.dstAddr), p.dstSize, ptr(p.srcAddr), p.srcSize, ptr(p.offsetAddr), p.offsetSize);
    return true;
}
}  // namespace
bool CheckFunBcBImpl(VecBroadCastApiParams& p, uint32_t, const char*)
{
    asc_stub::api_extents(ptr(p.dstAddr), p.dstSize, ptr(p.srcAddr), p.srcSize, nullptr, 0);
    return true;
}
bool CheckFuncGatherbImpl(VecGatherApiParams& p, uint32_t, const char*) { return gather_extents(p); }
bool CheckFuncGatherImpl(VecGatherApiParams& p, const uint64_t, const char*) { return gather_extents(p); }
bool CheckFuncGatherImpl(VecGatherApiParams& p, const uint64_t[], const char*) { return gather_extents(p); }
bool CheckFuncGatherImpl(VecGatherApiParams& p, const char*) { return gather_extents(p); }

// The mask / repeat forms: their LocalTensors, for the element-wise instruction to bound each operand's reach by
// (asc_stub::vec_extents), as the simulator bounds it; the API's own checks of these forms bound only the UB.
namespace {
bool binary_tensors(const VecBinaryApiParams& p)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, ptr(p.src0Addr), p.src0Size, ptr(p.src1Addr), p.src1Size);
    return true;
}
bool scalar_tensors(const VecBinaryScalarApiParams& p)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, ptr(p.src0Addr), p.src0Size, nullptr, 0);
    return true;
}
bool select_tensors(const VecSelectApiParams& p)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, ptr(p.src0Addr), p.src0Size, ptr(p.src1Addr), p.src1Size);
    return true;
}
}  // namespace
bool CheckFuncVecBinaryImplForMaskArray(VecBinaryApiParams& p, const uint64_t[], const char*) { return binary_tensors(p); }
bool CheckFuncVecBinaryImpl(VecBinaryApiParams& p, const uint64_t, const char*) { return binary_tensors(p); }
bool CheckFunVecBinaryScalarImplForMaskArray(VecBinaryScalarApiParams& p, const uint64_t[], const char*)
{
    return scalar_tensors(p);
}
bool CheckFunVecBinaryScalarImpl(VecBinaryScalarApiParams& p, const uint64_t, const char*) { return scalar_tensors(p); }
bool CheckFuncVecBinaryCmpImplForMaskArray(VecBinaryApiParams& p, const uint64_t[], const char*)
{
    return binary_tensors(p);
}
bool CheckFuncVecBinaryCmpImpl(VecBinaryApiParams& p, const uint64_t, const char*) { return binary_tensors(p); }
bool CheckFuncVecBinaryScalarCmpImpl(VecBinaryScalarApiParams& p, const uint64_t, const char*)
{
    return scalar_tensors(p);
}
bool CheckFunDupImplForMaskArray(VecDupApiParams& p, const uint64_t[], const char*)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, nullptr, 0, nullptr, 0);
    return true;
}
bool CheckFunDupImpl(VecDupApiParams& p, const uint64_t, const char*)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, nullptr, 0, nullptr, 0);
    return true;
}
bool CheckFuncVecSelectImplForMaskArray(VecSelectApiParams& p, const uint64_t[], const char*) { return select_tensors(p); }
bool CheckFuncVecSelectImpl(VecSelectApiParams& p, const uint64_t, const char*) { return select_tensors(p); }
bool CheckFuncVecCmpRgtImplForMaskArray(VecCmpRgtApiParams& p, const uint64_t[], const char*)
{
    asc_stub::vec_extents(nullptr, 0, ptr(p.src0Addr), p.src0Size, ptr(p.src1Addr), p.src1Size);
    return true;
}
bool CheckFuncVecCmpRgtImpl(VecCmpRgtApiParams& p, const uint64_t, const char*)
{
    asc_stub::vec_extents(nullptr, 0, ptr(p.src0Addr), p.src0Size, ptr(p.src1Addr), p.src1Size);
    return true;
}

// The reductions' mask forms (WholeReduce*, BlockReduce*, PairReduceSum): their dst and src LocalTensors, for
// src/reduce.cpp to bound the lanes read and the results written by, as the simulator does.
bool CheckFunReduceOtherImplForMaskArray(VecReduceApiParams& p, const uint64_t[], const char*)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, ptr(p.src0Addr), p.src0Size, nullptr, 0);
    return true;
}
bool CheckFunReduceOtherImpl(VecReduceApiParams& p, const uint64_t, const char*)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, ptr(p.src0Addr), p.src0Size, nullptr, 0);
    return true;
}
bool CheckFunReduceOtherWhlImplForMaskArray(VecReduceWhlApiParams& p, const uint64_t[], const char*)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, ptr(p.src0Addr), p.src0Size, nullptr, 0);
    return true;
}
bool CheckFunReduceOtherWhlImpl(VecReduceWhlApiParams& p, const uint64_t, const char*)
{
    asc_stub::vec_extents(ptr(p.dstAddr), p.dstSize, ptr(p.src0Addr), p.src0Size, nullptr, 0);
    return true;
}
// ReduceSum / Max / Min's mask form (with a work tensor): the vendor's several instructions are bounded here, before
// any of them runs, by the three LocalTensors as the simulator bounds them (runtime/executors_reduce_mask.py): src by
// the mask's lanes of every repeat (block stride 1, srcRepStride blocks apart), dst by the result (and its index),
// the work tensor by what the vendor's steps touch (work_elements: graph/ops/reduce_work.py's twin). No earlier
// API's tensors linger into those instructions.
namespace {
uint64_t up(uint64_t n, uint64_t per_block) { return (n + per_block - 1) / per_block * per_block; }
uint64_t level(uint64_t data, uint64_t per) { return data / per * 2 + (data % per ? 2 : 0); }
uint64_t work_elements(bool sum, bool with_index, uint64_t repeat, uint32_t size)
{
    const uint64_t per = 256 / size, per_block = 32 / size;
    if (repeat == 0) return 0;
    if (sum) return repeat;
    if (!with_index) return 2 * repeat;
    if (repeat == 1) return 0;
    uint64_t data = 2 * repeat;
    const uint64_t second = up(data, per_block);
    data = level(data, per);
    if (data == 2) return second + 2;
    const uint64_t third = up(second + data, per_block);
    if (data > per) return up(third + level(data, per), per_block) + 2;
    return third + 2;
}
void need(const char* api, const char* what, uint64_t elements, uint32_t size, uint64_t bytes)
{
    if (elements * size > bytes)
        asc_stub::fail("bounds", "%s: %s needs %llu elements of %u bytes but its tensor has only %llu", api, what,
                       static_cast<unsigned long long>(elements), size, static_cast<unsigned long long>(bytes / size));
}
// `last`: the highest lane the mask selects, or -1 for none
bool reduce_mask_form(const VecReduceApiParams& p, int64_t last, const char* name)
{
    asc_stub::vec_extents(nullptr, 0, nullptr, 0, nullptr, 0);
    const uint32_t size = p.src0DtypeBytes ? p.src0DtypeBytes : 1;
    // an adv call's own implementation (GroupNorm's ReduceSum per group) is bounded by the UB only (asc_stub.h)
    if (asc_stub::in_vendor_impl() || p.repeatTimes == 0 || last < 0) return true;
    const uint64_t per_block = 32 / size, lane = static_cast<uint64_t>(last);
    const uint64_t reach = ((p.repeatTimes - 1ull) * p.src0RepeatStride + lane / per_block) * per_block + lane % per_block + 1;
    const bool sum = std::strcmp(name, "ReduceSum") == 0, with_index = !sum && p.calIndex;
    need(name, "src", reach, size, p.src0Size);
    need(name, "dst", with_index ? 2 : 1, size, p.dstSize);
    need(name, "the shared tmp buffer", work_elements(sum, with_index, p.repeatTimes, size), size, p.src1Size);
    return true;
}
}  // namespace
// ReduceMax / Min's count form (dav_c220: ReduceSum's goes through CheckFunReduceImplMode2 and never touches the work
// tensor): the work tensor by what the mask form's steps over `repeatTimes` touch, a (value, index) pair at least
// when a tail follows (ReduceTailCompute's SetValue(0) / SetValue(1)); count_form_work_elements' twin
bool CheckFunReduceImpl(VecReduceApiParams& p, const char* name)
{
    if (!counts_fit(name, p.calCount, {{"src", p.src0DtypeBytes, p.src0Size}})) return false;
    const uint32_t size = p.src0DtypeBytes ? p.src0DtypeBytes : 1;
    if (asc_stub::in_vendor_impl() || p.calCount == 0) return true;
    const uint64_t per = 256 / size, n = p.calCount;
    uint64_t work = work_elements(false, p.calIndex, p.repeatTimes, size);
    if (n > per && n % per && work < 2) work = 2;
    need(name, "the shared tmp buffer", work, size, p.src1Size);
    return true;
}
bool CheckFunReduceImplForMaskArray(VecReduceApiParams& p, const uint64_t mask[], const char* name)
{
    const int64_t per = 256 / (p.src0DtypeBytes ? p.src0DtypeBytes : 1);
    int64_t last = -1;
    for (int64_t e = 0; e < per && e < 128; ++e)
        if ((mask[e / 64] >> (e % 64)) & 1u) last = e;
    return reduce_mask_form(p, last, name);
}
bool CheckFunReduceImpl(VecReduceApiParams& p, const uint64_t mask, const char* name)
{
    const int64_t per = 256 / (p.src0DtypeBytes ? p.src0DtypeBytes : 1);
    return reduce_mask_form(p, static_cast<int64_t>(std::min<uint64_t>(mask, per)) - 1, name);
}

#define ASC_STUB_ACCEPT(NAME, ...) \
    bool NAME(__VA_ARGS__) { return true; }
ASC_STUB_ACCEPT(CheckFuncMmadImpl, MmadApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncInitConstValueImpl, CubeInitConstValueApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncLoadData2dImpl, LoadData2dApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncLoadData2dv2Impl, LoadData2dv2ApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncLoadData3dv1Impl, LoadData3dv1ApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncLoadData3dv2Impl, LoadData3dv2ApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncLoadData3dv2ProImpl, LoadData3dv2ProApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncLoadImageToLocalImpl, LoadImageToLocalApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncCopyImplForMaskArray, CopyApiParams&, const uint64_t[], const char*)
ASC_STUB_ACCEPT(CheckFuncCopyImpl, CopyApiParams&, const uint64_t, const char*)
ASC_STUB_ACCEPT(CheckFuncDataCopyImpl, DataCopyApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncDataCopyPadImpl, DataCopyPadApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncDataCopySliceImpl, DataCopySliceApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncVecBinaryCmpImpl, VecBinaryApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncVecBinaryScalarCmpImpl, VecBinaryScalarApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncCreateVecIndexImpl, VecCreateVecIndexApiParams&, const uint64_t, const char*)
ASC_STUB_ACCEPT(CheckFuncCreateVecIndexImpl, VecCreateVecIndexApiParams&, const uint64_t[], const char*)
ASC_STUB_ACCEPT(CheckFuncCreateVecIndexImpl, VecCreateVecIndexApiParams&, const char*)
ASC_STUB_ACCEPT(CheckVectorPaddingForMaskArray, VectorPaddingApiParams&, const uint64_t[], const char*)
ASC_STUB_ACCEPT(CheckVectorPadding, VectorPaddingApiParams&, const uint64_t, const char*)
ASC_STUB_ACCEPT(CheckVectorPadding, VectorPaddingApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncBroadCastToMMImpl, VecBroadCastToMMApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFuncVecGatherMaskImpl, VecGatherMaskApiParams&, const uint32_t, const char*)
ASC_STUB_ACCEPT(CheckFuncBilinearInterpolationImpl, VecBilinearInterpolationApiParams&, const uint64_t, const char*)
ASC_STUB_ACCEPT(CheckFuncBilinearInterpolationImpl, VecBilinearInterpolationApiParams&, const uint64_t[], const char*)
ASC_STUB_ACCEPT(CheckFunTransposeImpl, VecTransposeApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFunProposalImpl, VecProposalApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFunScatterImpl, VecScatterApiParams&, const char*)
ASC_STUB_ACCEPT(CheckFunScatterImpl, VecScatterApiParams&, const uint64_t, const char*)
ASC_STUB_ACCEPT(CheckFunScatterImplForMaskArray, VecScatterApiParams&, const uint64_t[], const char*)
ASC_STUB_ACCEPT(CheckSortImpl, SortApiParams&, const char*)
#undef ASC_STUB_ACCEPT

uint64_t GetHardWarebufferSize(uint8_t index)
{
    auto it = ConstDefiner::Instance().bufferInitLen.find(static_cast<Hardware>(index));
    return it == ConstDefiner::Instance().bufferInitLen.end() ? 0 : it->second;
}
}  // namespace check

// Gather / Gatherb's CPU-debug hook: the source's full host address (their instruction field is 32 bits).
void SetModelGatherbSrc0Tensor(uint64_t src0, const uint32_t) { asc_stub::gather_source(src0); }
}  // namespace AscendC
