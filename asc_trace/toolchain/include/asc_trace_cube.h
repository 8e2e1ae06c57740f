// asc_trace's host model of the cube core's instructions (Atlas A2), included by kernel_operator.h:
// DataCopy GM -> L1 with Nd2NzParams, LoadData (2D, and the matmul case of 3D-v2), the L1 -> bias table
// copy, InitConstValue, Mmad and Fixpipe L0C -> GM (Nz -> ND) / L0C -> L1 (Nz).
//
// The semantics are the cube simulator's (asc_trace/runtime/cube_exec.py, cube_exec_l1.py), on the same
// bytes in the same fractal layouts (ascend-cube-facts §2): memories start at 0xFF, padding is memory
// (an Mmad multiplies whatever the K padding of L0A / L0B holds), accumulation is float32 (int32 for
// int8, wrapping). One difference, and it is the only one: Mmad sums the K products in order, one
// float32 at a time, where the simulator asks NumPy (BLAS) for the product; every product of two
// 16-bit floats is exact in float32, so both agree to the bit whenever the partial sums are exact
// (integer-valued data), and otherwise differ by float32 rounding in the order of the sum
// (docs/cube.md "The cpp backend" gives the measured bound).
// The host runs the instructions in program order, so the pipes' flags only check their ids here; the
// simulator (and the eager backend's hazard pass, which the cpp backend shares) judges the order.
// Written from the signatures in asc-devkit's kernel_operator_mm_intf.h / kernel_struct_mm.h /
// kernel_operator_fixpipe_intf.h / kernel_struct_fixpipe.h, not copied from them.
#pragma once

// QuantMode_t is a global enum in the vendor's headers (kernel_struct_fixpipe.h uses it unqualified)
enum class QuantMode_t : uint8_t {
    NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8
};

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// Parameter structs: a default and the vendor's all-fields constructors (field names as theirs).
// ---------------------------------------------------------------------------------------------
struct Nd2NzParams {
    Nd2NzParams() {}
    Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
                const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn, const uint16_t dstNzC0StrideIn,
                const uint16_t dstNzNStrideIn, const uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn),
          srcDValue(srcDValueIn), dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
          dstNzMatrixStride(dstNzMatrixStrideIn) {}
    uint16_t ndNum = 0, nValue = 0, dValue = 0, srcNdMatrixStride = 0, srcDValue = 0, dstNzC0Stride = 0,
             dstNzNStride = 0, dstNzMatrixStride = 0;
};

struct LoadData2DParams {
    LoadData2DParams() {}
    LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                     const uint8_t sidIn, const uint16_t dstGapIn, const bool ifTransposeIn, const uint8_t addrModeIn)
        : startIndex(startIndexIn), dstGap(dstGapIn), srcStride(srcStrideIn), ifTranspose(ifTransposeIn),
          repeatTimes(repeatTimesIn), sid(sidIn), addrMode(addrModeIn) {}
    uint16_t startIndex = 0;
    uint16_t dstGap = 0;
    uint16_t srcStride = 0;
    bool ifTranspose = false;
    uint8_t repeatTimes = 0;
    uint8_t sid = 0;
    uint8_t addrMode = 0;
};

template <typename T> struct LoadData3DParamsV2 {
    LoadData3DParamsV2() {}
    uint8_t padList[4] = {0, 0, 0, 0};
    uint16_t l1H = 0, l1W = 0, channelSize = 0, kExtension = 0, mExtension = 0, kStartPt = 0, mStartPt = 0;
    uint8_t strideW = 1, strideH = 1, filterW = 1, filterH = 1, dilationFilterW = 1, dilationFilterH = 1;
    bool enTranspose = false, enSmallK = false, filterSizeW = false, filterSizeH = false, fMatrixCtrl = false;
    T padValue = 0;
};

struct MmadParams {
    MmadParams() {}
    MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
               const bool cmatrixSourceIn, const bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn),
          cmatrixInitVal(cmatrixInitValIn) {}
    uint16_t m = 0, n = 0, k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false, enWinogradA = false, enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
};

template <typename T> struct InitConstValueParams {
    InitConstValueParams() {}
    InitConstValueParams(const uint16_t repeatTimesIn, const uint16_t blockNumIn, const uint16_t dstGapIn,
                         const T initValueIn)
        : repeatTimes(repeatTimesIn), blockNum(blockNumIn), dstGap(dstGapIn), initValue(initValueIn) {}
    uint16_t repeatTimes = 0, blockNum = 0, dstGap = 0;
    T initValue = 0;
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig { CO2Layout format; };
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};
constexpr FixpipeConfig CFG_COLUMN_MAJOR = {CO2Layout::COLUMN_MAJOR};

struct FixpipeParamsV220 {
    FixpipeParamsV220() {}
    FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                      const uint32_t dstStrideIn, const bool reluEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
    uint16_t nSize = 0, mSize = 0, srcStride = 0;
    uint32_t dstStride = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1, srcNdStride = 0, dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};

// ---------------------------------------------------------------------------------------------
// Checked access to a cube operand (the simulator's Operand.at / Operand.span)
// ---------------------------------------------------------------------------------------------
namespace cube {
constexpr uint32_t FRACTAL_BYTES = 512;
template <typename T> constexpr uint32_t c0() { return 32 / sizeof(T); }

// the first element of `t`, its address aligned to `align`; `last` (an element index from there) inside it
template <typename T> inline T* at(const LocalTensor<T>& t, uint32_t align, uint64_t last, const char* what)
{
    const detail::MemoryInfo m = detail::memory_info(t.position());
    if (t.addr() % align != 0)
        detail::fail("alignment", "%s starts at %s byte %u, which is not %u-byte aligned as this instruction requires",
                     what, m.name, t.addr(), align);
    if (last >= t.GetSize())
        detail::fail("bounds", "%s reaches element %llu of a tensor of %u elements", what,
                     static_cast<unsigned long long>(last), t.GetSize());
    return reinterpret_cast<T*>(detail::memory(t.position()) + t.addr());
}

inline float to_f(float v) { return v; }
inline float to_f(half v) { return static_cast<float>(v); }
inline float to_f(bfloat16_t v) { return static_cast<float>(v); }
inline int64_t to_f(int8_t v) { return v; }
inline int64_t to_f(int32_t v) { return v; }

// float32 -> the destination type, rounding to nearest even (Fixpipe's F322F16 / F322BF16, and NoQuant)
template <typename D, typename S> inline D convert(S v) { return static_cast<D>(v); }
template <> inline half convert<half, float>(float v) { return half(v); }
template <> inline bfloat16_t convert<bfloat16_t, float>(float v) { return bfloat16_t(v); }

template <typename S> inline S relu(S v) { return v != v ? v : (v < S(0) ? S(0) : v); }   // NaN kept, as np.maximum
}  // namespace cube

// ---------------------------------------------------------------------------------------------
// GM -> L1 (MTE2): ND -> Nz
// ---------------------------------------------------------------------------------------------
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p)
{
    if (p.nValue == 0 || p.dValue == 0 || p.ndNum == 0) return;
    constexpr uint32_t C0 = cube::c0<T>();
    uint64_t d_hi = 0, s_ext = 0;
    for (uint32_t mat = 0; mat < p.ndNum; ++mat) {         // the largest element each side touches
        const uint64_t c = p.dValue - 1u, r = p.nValue - 1u;
        d_hi = std::max<uint64_t>(d_hi, uint64_t(mat) * p.dstNzMatrixStride + (c / C0) * p.dstNzC0Stride * C0 +
                                            r * p.dstNzNStride * C0 + c % C0);
        s_ext = std::max<uint64_t>(s_ext, uint64_t(mat) * p.srcNdMatrixStride + r * p.srcDValue + c + 1);
    }
    T* d = cube::at(dst, 32, d_hi, "the destination of asc.data_copy");
    const T* s = src.span(s_ext, "the source of asc.data_copy");
    for (uint32_t mat = 0; mat < p.ndNum; ++mat)
        for (uint32_t r = 0; r < p.nValue; ++r)
            for (uint32_t c = 0; c < p.dValue; ++c)
                d[uint64_t(mat) * p.dstNzMatrixStride + (c / C0) * p.dstNzC0Stride * C0 + uint64_t(r) * p.dstNzNStride * C0 +
                  c % C0] = s[uint64_t(mat) * p.srcNdMatrixStride + uint64_t(r) * p.srcDValue + c];
}

// ---------------------------------------------------------------------------------------------
// L1 -> L0A / L0B (MTE1)
// ---------------------------------------------------------------------------------------------
template <typename T> inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p)
{
    const uint32_t reps = p.repeatTimes;
    if (reps == 0) return;
    constexpr uint32_t F = cube::FRACTAL_BYTES / sizeof(T);
    T* d = cube::at(dst, 512, 0, "dst of asc.load_data");
    const T* s = cube::at(src, 32, 0, "src of asc.load_data");
    const uint64_t s_hi = (uint64_t(p.startIndex) + uint64_t(reps - 1) * p.srcStride) * F + F;
    const uint64_t d_hi = uint64_t(reps - 1) * (1u + p.dstGap) * F + F;
    cube::at(src, 32, s_hi - 1, "src of asc.load_data");
    cube::at(dst, 512, d_hi - 1, "dst of asc.load_data");
    for (uint32_t i = 0; i < reps; ++i) {
        const T* from = s + (uint64_t(p.startIndex) + uint64_t(i) * p.srcStride) * F;
        T* to = d + uint64_t(i) * (1u + p.dstGap) * F;
        if (p.ifTranspose && sizeof(T) == 2) {              // each 16 x 16 fractal transposed (16-bit types)
            for (uint32_t r = 0; r < 16; ++r)
                for (uint32_t c = 0; c < 16; ++c) to[r * 16 + c] = from[c * 16 + r];
        } else {
            std::memmove(to, from, F * sizeof(T));
        }
    }
}

// the matmul case of LoadData3DV2: a 1 x 1 filter, stride 1, no padding (the m x k slice of the Nz matrix
// from (mStartPt, kStartPt), into L0A's Zz order or L0B's Zn order)
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& p)
{
    const uint32_t m_ext = p.mExtension, k_ext = p.kExtension;
    if (m_ext == 0 || k_ext == 0) return;
    constexpr uint32_t C0 = cube::c0<T>();
    if (m_ext % 16 || k_ext % C0 || p.mStartPt % 16 || p.kStartPt % C0)
        detail::fail("alignment", "LoadData3DParamsV2: m_extension and m_start_pt must be multiples of 16, "
                     "k_extension and k_start_pt of %u (32 bytes)", C0);
    if (uint64_t(p.mStartPt) + m_ext > uint64_t(p.l1H) * p.l1W ||
        uint64_t(p.kStartPt) + k_ext > (uint64_t(p.channelSize) + C0 - 1) / C0 * C0)
        detail::fail("bounds", "LoadData3DParamsV2 takes rows [%u, %u) and columns [%u, %u) of a %u x %u feature map",
                     p.mStartPt, p.mStartPt + m_ext, p.kStartPt, p.kStartPt + k_ext, uint32_t(p.l1H) * p.l1W,
                     uint32_t(p.channelSize));
    T* d = cube::at(dst, 512, 0, "dst of asc.load_data");
    const T* s = cube::at(src, 32, 0, "src of asc.load_data");
    const uint64_t plane = uint64_t(p.l1H) * p.l1W * C0;
    const uint64_t last_col = p.kStartPt + k_ext - 1;
    cube::at(src, 32, (last_col / C0) * plane + (uint64_t(p.mStartPt) + m_ext - 1) * C0 + last_col % C0,
             "src of asc.load_data");
    cube::at(dst, 512, uint64_t(m_ext) * k_ext - 1, "dst of asc.load_data");
    // into L0B: Zn of the slice as a K x N matrix (K as m, N as channels: the vendor's Matmul loads a B given
    // K x N so), else L0A's Zz
    const bool zn = detail::memory_kind(dst.position()) == 3;
    if (zn && k_ext % 16)
        detail::fail("alignment", "LoadData3DParamsV2 into L0B: k_extension (%u, L0B's n) must be a multiple of 16, "
                     "whole Zn fractals", k_ext);
    for (uint32_t i = 0; i < m_ext; ++i)
        for (uint32_t j = 0; j < k_ext; ++j) {
            const uint64_t col = p.kStartPt + j;
            const uint64_t to = zn ? ((i / C0) * (k_ext / 16) + j / 16) * (16 * C0) + (j % 16) * C0 + i % C0
                                   : ((i / 16) * (k_ext / C0) + j / C0) * (16 * C0) + (i % 16) * C0 + j % C0;
            d[to] = s[(col / C0) * plane + (uint64_t(p.mStartPt) + i) * C0 + col % C0];
        }
}

// L1 (C1) -> the bias table (C2): 64-byte blocks of float32, converted from the L1 type
template <typename D, typename S>
inline void cube_bias_copy(const LocalTensor<D>& dst, const LocalTensor<S>& src, const DataCopyParams& p)
{
    if (p.srcStride || p.dstStride)
        detail::fail("bounds", "a copy into the bias table with gaps between blocks is not modelled");
    const uint64_t n = uint64_t(p.blockCount) * p.blockLen * 16;
    if (n == 0) return;
    D* d = cube::at(dst, 64, n - 1, "the bias table tensor");
    const S* s = cube::at(src, 32, n - 1, "the L1 source");
    for (uint64_t i = 0; i < n; ++i) d[i] = static_cast<D>(cube::to_f(s[i]));
}
namespace detail {
template <typename T> bool bias_table_copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p)
{
    if (memory_kind(dst.position()) != 5) return false;
    cube_bias_copy(dst, src, p);
    return true;
}
}  // namespace detail
inline void DataCopy(const LocalTensor<float>& dst, const LocalTensor<half>& src, const DataCopyParams& p)
{
    cube_bias_copy(dst, src, p);
}
inline void DataCopy(const LocalTensor<float>& dst, const LocalTensor<bfloat16_t>& src, const DataCopyParams& p)
{
    cube_bias_copy(dst, src, p);
}

// Fill an L1 (32-byte blocks) or L0A / L0B (512-byte fractals) tensor with a constant
template <typename T> inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<T>& p)
{
    const bool l1 = detail::memory_kind(dst.position()) == 1;
    const uint32_t unit = (l1 ? 32u : cube::FRACTAL_BYTES) / sizeof(T);
    if (p.repeatTimes == 0 || p.blockNum == 0) return;
    const uint64_t step = uint64_t(p.blockNum + p.dstGap) * unit, run = uint64_t(p.blockNum) * unit;
    T* d = cube::at(dst, l1 ? 32 : 512, uint64_t(p.repeatTimes - 1) * step + run - 1, "dst of asc.init_const_value");
    for (uint32_t r = 0; r < p.repeatTimes; ++r)
        for (uint64_t i = 0; i < run; ++i) d[r * step + i] = p.initValue;
}

// ---------------------------------------------------------------------------------------------
// Mmad (M): L0C (+)= L0A (Zz) x L0B (Zn) [+ bias], m and n rounded up to 16, k to k0
// ---------------------------------------------------------------------------------------------
namespace cube {
template <typename C, typename A, typename BI>
inline void mmad(const LocalTensor<C>& c, const LocalTensor<A>& a, const LocalTensor<A>& b, const LocalTensor<BI>* bias,
                 const MmadParams& p)
{
    const uint32_t M = p.m, N = p.n, K = p.k;
    if (M == 0 || N == 0 || K == 0) return;
    constexpr uint32_t k0 = c0<A>();
    const uint32_t M1 = (M + 15) / 16, N1 = (N + 15) / 16, K1 = (K + k0 - 1) / k0;
    const uint64_t na = uint64_t(M1) * K1 * 16 * k0, nb = uint64_t(K1) * N1 * 16 * k0, nc = uint64_t(M1) * N1 * 256;
    C* cv = at(c, 1024, 0, "dst of asc.mmad");
    const A* av = at(a, 512, na - 1, "fm of asc.mmad");
    const A* bv = at(b, 512, nb - 1, "filter of asc.mmad");
    if (nc > c.GetSize())
        detail::fail("ub", "this Mmad writes %u x %u x 4 = %llu bytes of L0C from its tensor's start, but its CO1 "
                     "tensor has %llu bytes", M1 * 16, N1 * 16, static_cast<unsigned long long>(nc * 4),
                     static_cast<unsigned long long>(uint64_t(c.GetSize()) * sizeof(C)));
    const bool init = p.cmatrixInitVal && !p.isBias && bias == nullptr;
    std::vector<float> start;
    if (bias != nullptr) {
        const BI* bsrc = at(*bias, detail::memory_kind(bias->position()) == 5 ? 64 : 1024, N - 1, "bias of asc.mmad");
        const uint64_t nbias = std::min<uint64_t>(uint64_t(N1) * 16, bias->GetSize());
        start.assign(uint64_t(N1) * 16, 0.0f);
        for (uint64_t j = 0; j < nbias; ++j) start[j] = static_cast<float>(bsrc[j]);
    }
    using Acc = decltype(to_f(A()));          // float for float types, int64 for int8 (wrapped to int32 below)
    const uint32_t Kp = K1 * k0, Mp = M1 * 16, Np = N1 * 16;
    // L0A's Zz and L0B's Zn unpacked once into row-major A (Mp x Kp) and column-major B (Np x Kp), so the sum
    // over k reads both contiguously; the order of the sum stays k = 0, 1, ... (the stated bound rests on it)
    std::vector<Acc> am(uint64_t(Mp) * Kp), bm(uint64_t(Np) * Kp);
    for (uint32_t i = 0; i < Mp; ++i)
        for (uint32_t kk = 0; kk < Kp; ++kk)
            am[uint64_t(i) * Kp + kk] = to_f(av[uint64_t(i / 16) * K1 * 16 * k0 + (i % 16) * k0 +
                                              uint64_t(kk / k0) * 16 * k0 + kk % k0]);
    for (uint32_t j = 0; j < Np; ++j)
        for (uint32_t kk = 0; kk < Kp; ++kk)
            bm[uint64_t(j) * Kp + kk] = to_f(bv[uint64_t(kk / k0) * N1 * 16 * k0 + uint64_t(j / 16) * 16 * k0 +
                                              (j % 16) * k0 + kk % k0]);
    std::vector<C> out(nc);
    for (uint32_t i = 0; i < Mp; ++i)
        for (uint32_t j = 0; j < Np; ++j) {
            const Acc* ar = &am[uint64_t(i) * Kp];
            const Acc* bc = &bm[uint64_t(j) * Kp];
            Acc acc = 0;
            for (uint32_t kk = 0; kk < Kp; ++kk) acc += ar[kk] * bc[kk];
            const uint64_t ci = (uint64_t(j / 16) * M1 + i / 16) * 256 + (i % 16) * 16 + j % 16;
            if (bias != nullptr) acc += static_cast<Acc>(start[j]);
            else if (!init) acc += static_cast<Acc>(cv[ci]);
            out[ci] = static_cast<C>(acc);        // int64 -> int32 wraps (gcc: modulo 2**32)
        }
    std::memcpy(cv, out.data(), nc * sizeof(C));
}
}  // namespace cube

template <typename C, typename A>
inline void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<A>& filter, const MmadParams& p)
{
    cube::mmad<C, A, C>(dst, fm, filter, nullptr, p);
}
template <typename C, typename A, typename BI>
inline void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<A>& filter,
                 const LocalTensor<BI>& bias, const MmadParams& p)
{
    cube::mmad<C, A, BI>(dst, fm, filter, &bias, p);
}

// ---------------------------------------------------------------------------------------------
// Fixpipe (FIX): L0C (Nz, 16 x 16 blocks) -> GM (ND, row major) or -> L1 (Nz), with ReLU and conversion
// ---------------------------------------------------------------------------------------------
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p)
{
    static_assert(config.format == CO2Layout::ROW_MAJOR, "the model has Fixpipe L0C -> GM in ROW_MAJOR only");
    const uint32_t M = p.mSize, N = p.nSize;
    if (M == 0 || N == 0) return;
    const uint64_t ss = p.srcStride, ds = p.dstStride;
    const U* s = cube::at(src, 64, ((N - 1) / 16) * ss * 16 + uint64_t(M - 1) * 16 + (N - 1) % 16, "src of asc.fixpipe");
    T* d = dst.span(uint64_t(M - 1) * ds + N, "the destination of asc.fixpipe");
    for (uint32_t r = 0; r < M; ++r)
        for (uint32_t col = 0; col < N; ++col) {
            U v = s[uint64_t(col / 16) * ss * 16 + r * 16 + col % 16];
            if (p.reluEn) v = cube::relu(v);
            d[r * ds + col] = cube::convert<T, U>(v);
        }
}

template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p)
{
    static_assert(config.format == CO2Layout::NZ, "the model has Fixpipe L0C -> L1 in NZ only");
    const uint32_t M = p.mSize, N = p.nSize;
    if (M == 0 || N == 0) return;
    if (N % 16) detail::fail("alignment", "a Fixpipe into L1 moves whole 16-column blocks; n_size is %u", N);
    const uint64_t ss = p.srcStride, ds = p.dstStride;
    const U* s = cube::at(src, 64, ((N - 1) / 16) * ss * 16 + uint64_t(M - 1) * 16 + 15, "src of asc.fixpipe");
    T* d = cube::at(dst, 32, ((N - 1) / 16) * ds * 16 + uint64_t(M - 1) * 16 + 15, "dst of asc.fixpipe");
    for (uint32_t col = 0; col < N; ++col)
        for (uint32_t r = 0; r < M; ++r) {
            U v = s[uint64_t(col / 16) * ss * 16 + r * 16 + col % 16];
            if (p.reluEn) v = cube::relu(v);
            d[uint64_t(col / 16) * ds * 16 + r * 16 + col % 16] = cube::convert<T, U>(v);
        }
}

}  // namespace AscendC
