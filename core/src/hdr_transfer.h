// The reference's conversion of PQ and HLG samples to the linear light that
// enters XYB (libjxl aea3a06e tools/ssimulacra2 with its default CMS, skcms),
// replayed in float32 operation for operation. docs/HDR.md "The reference"
// says what each step is and where libjxl does it; the names below follow it.
// Pure functions, checked bit for bit against the reference's own values in
// tests/core/test_hdr_transfer.cpp; the CPU path converts with them
// (cpu/convert.cpp).
#pragma once

#include <cmath>
#include <cstdint>

#include "arith.h"
#include "libm_replay.h"

namespace ssim2 {
namespace hdr {

// Intensity targets (cd/m²) the reference assumes without a cLLi chunk.
constexpr float kPqDefaultPeak = 10000.0f;
constexpr float kHlgPeak = 1000.0f;
constexpr float kSdrPeak = 255.0f;  // everything else: the opsin matrix is unscaled

// TF_PQ::DisplayFromEncoded: 4/4 rational polynomial in t = x + x², Horner
// with fused multiply-adds (the reference runs it as AVX2/AVX-512 code), IEEE
// division, then the scale 10000 / peak. The sign is stripped and restored.
// Scalars, not arrays: the kernels use these functions too (constants.h).
SSIM2_CONST float kPqP0 = 2.62975656e-04f, kPqP1 = -6.23553089e-03f, kPqP2 = 7.38602301e-01f,
                  kPqP3 = 2.64553172e+00f, kPqP4 = 5.50034862e-01f;
SSIM2_CONST float kPqQ0 = 4.21350107e+02f, kPqQ1 = -4.28736818e+02f, kPqQ2 = 1.74364667e+02f,
                  kPqQ3 = -3.39078883e+01f, kPqQ4 = 2.67718770e+00f;

// The factor TF_PQ applies after the polynomial, computed once per image as
// the reference does (a float division).
inline float PqScale(float peak) { return 10000.0f / peak; }

SSIM2_HD float PqToDisplay(float encoded, float scale) {
  const std::uint32_t sign = arith::FloatBits(encoded) & 0x80000000u;
  const float x = arith::BitsFloat(arith::FloatBits(encoded) & 0x7fffffffu);
  const float t = arith::Fma(x, x, x);
  const float p[4] = {kPqP0, kPqP1, kPqP2, kPqP3};
  const float q[4] = {kPqQ0, kPqQ1, kPqQ2, kPqQ3};
  float yp = kPqP4;
  float yq = kPqQ4;
  for (int i = 3; i >= 0; --i) {
    yp = arith::Fma(yp, t, p[i]);
    yq = arith::Fma(yq, t, q[i]);
  }
  const float magnitude = (yp / yq) * scale;
  return arith::BitsFloat(arith::FloatBits(magnitude) | sign);
}

// The libm functions HLG's conversion calls: glibc's own where the code runs
// on the host (the CPU path, as the reference calls them), their replay
// where it runs on a GPU (the CUDA kernels, libm_replay.h), bit for bit the
// same results.
struct HostLibm {
  static double Exp(double x) { return std::exp(x); }
  static float Pow(float x, float y) { return std::pow(x, y); }
};
struct ReplayedLibm {
  static SSIM2_HD double Exp(double x) { return libm::Exp(x); }
  static SSIM2_HD float Pow(float x, float y) { return libm::Powf(x, y); }
};

// nvcc: the HLG templates below are __host__ __device__ and are instantiated
// with HostLibm in host code only; this keeps nvcc from warning about the
// host-only calls in the device side that is never generated.
#if defined(__CUDACC__)
#define SSIM2_HD_TEMPLATE _Pragma("nv_exec_check_disable")
#else
#define SSIM2_HD_TEMPLATE
#endif

// TF_HLG_Base::DisplayFromEncoded: the inverse OETF in double (the OOTF is
// the identity there), rounded to float once.
SSIM2_HD_TEMPLATE
template <typename Libm>
SSIM2_HD float HlgInverseOetf(float encoded) {
  const double e = encoded;
  if (e == 0.0) return 0.0f;
  const double a = 0.17883277;
  const double b = 1 - 4 * a;
  const double c = 0.5599107295;
  const double m = e < 0 ? -e : e;
  const double s = m <= 0.5 ? m * m * (1.0 / 3) : (Libm::Exp((m - c) * (1.0 / a)) + b) * (1.0 / 12.0);
  return copysignf(static_cast<float>(s), static_cast<float>(e));
}

// ApplyHlgOotf's constants for one intensity target: the system gamma
// (1.2 at 1000 cd/m², skipped from 295 to 305) and the BT.2020 luminances of
// GetPrimariesLuminances (double arithmetic, stored as float).
struct HlgOotf {
  bool skip;
  float exponent;  // gamma - 1
};

inline HlgOotf MakeHlgOotf(float peak) {
  HlgOotf o{};
  o.skip = 295 <= peak && peak <= 305;
  const float gamma = 1.2f * std::pow(1.111f, std::log2(peak * 1e-3f));
  o.exponent = gamma - 1;
  return o;
}

SSIM2_CONST float kBt2020LuminanceR = 0.2627002000808716f;
SSIM2_CONST float kBt2020LuminanceG = 0.6779980659484863f;
SSIM2_CONST float kBt2020LuminanceB = 0.0593017116189003f;

// Per pixel: Y = r Lr + g Lg + b Lb (not fused, left to right), ratio =
// powf(Y, gamma - 1), applied when finite.
SSIM2_HD_TEMPLATE
template <typename Libm>
SSIM2_HD void ApplyHlgOotf(const HlgOotf& o, float& r, float& g, float& b) {
  if (o.skip) return;
  const float y = r * kBt2020LuminanceR + g * kBt2020LuminanceG + b * kBt2020LuminanceB;
  const float ratio = Libm::Pow(y, o.exponent);
  if (isfinite(ratio)) {
    r *= ratio;
    g *= ratio;
    b *= ratio;
  }
}

// skcms applies libjxl's "linear" source curve (parametric g=1 a=1 b=0 c=1
// d=0, which it does not take for the identity) with its approximate power:
// approx_exp2(approx_log2(x) * 1), exact only at 0 and 1; sign stripped and
// restored (skcms src/Transform_inl.h apply_tf, approx_pow).
SSIM2_HD float SkcmsApproxLog2(float x) {
  const std::int32_t bits = static_cast<std::int32_t>(arith::FloatBits(x));
  const float e = static_cast<float>(bits) * (1.0f / (1 << 23));
  const float m = arith::BitsFloat((static_cast<std::uint32_t>(bits) & 0x007fffffu) | 0x3f000000u);
  return e - 124.225514990f - 1.498030302f * m - 1.725879990f / (0.3520887068f + m);
}

SSIM2_HD float SkcmsApproxExp2(float x) {
  const float fract = x - std::floor(x);
  float fbits = (1.0f * (1 << 23)) * (x + 121.274057500f - 1.490129070f * fract +
                                     27.728023300f / (4.84252568f - fract));
  fbits = fbits > 0.0f ? fbits : 0.0f;                         // max_(fbits, 0)
  fbits = fbits < 2139095040.0f ? fbits : 2139095040.0f;       // min_(fbits, bits of +inf)
  return arith::BitsFloat(static_cast<std::uint32_t>(static_cast<std::int32_t>(fbits)));
}

SSIM2_HD float SkcmsLinearCurve(float v) {
  const std::uint32_t sign = arith::FloatBits(v) & 0x80000000u;
  const float x = arith::BitsFloat(arith::FloatBits(v) & 0x7fffffffu);
  const float y = (x == 0.0f || x == 1.0f) ? x : SkcmsApproxExp2(SkcmsApproxLog2(x) * 1.0f);
  return arith::BitsFloat(arith::FloatBits(y + 0.0f) | sign);
}

// skcms's dst_from_src for linear BT.2020 (D65) to linear sRGB as libjxl's
// ICC profiles describe them (docs/HDR.md "The BT.2020 to BT.709 matrix"),
// row-major, row = output channel. Applied as m0 r + m1 g + m2 b, not fused.
SSIM2_HD void Bt2020ToSrgbMatrix(float m[9]) {
  const std::uint32_t bits[9] = {0x3fd48d1du, 0xbf166fbeu, 0xbd952de0u,  //
                                 0xbdff2839u, 0x3f9102d9u, 0xbc08e492u,  //
                                 0xbc9488e5u, 0xbdcdfc74u, 0x3f8f3212u};
  for (int i = 0; i < 9; ++i) m[i] = arith::BitsFloat(bits[i]);
}

struct Rgb {
  float r, g, b;
};

SSIM2_HD Rgb Bt2020ToLinearSrgb(float r, float g, float b) {
  float m[9];
  Bt2020ToSrgbMatrix(m);
  Rgb out;
  out.r = m[0] * r + m[1] * g + m[2] * b;
  out.g = m[3] * r + m[4] * g + m[5] * b;
  out.b = m[6] * r + m[7] * g + m[8] * b;
  return out;
}

// One pixel of PQ or HLG BT.2020 samples (encoded, 0..1) to the linear sRGB
// that enters XYB, as the reference computes it for an image whose intensity
// target gave `pq_scale` (PqScale) or `ootf` (MakeHlgOotf).
SSIM2_HD Rgb PqToLinearSrgb(float r, float g, float b, float pq_scale) {
  return Bt2020ToLinearSrgb(SkcmsLinearCurve(PqToDisplay(r, pq_scale)),
                            SkcmsLinearCurve(PqToDisplay(g, pq_scale)),
                            SkcmsLinearCurve(PqToDisplay(b, pq_scale)));
}

SSIM2_HD_TEMPLATE
template <typename Libm>
SSIM2_HD Rgb HlgToLinearSrgb(float r, float g, float b, const HlgOotf& ootf) {
  float lr = HlgInverseOetf<Libm>(r);
  float lg = HlgInverseOetf<Libm>(g);
  float lb = HlgInverseOetf<Libm>(b);
  ApplyHlgOotf<Libm>(ootf, lr, lg, lb);
  return Bt2020ToLinearSrgb(SkcmsLinearCurve(lr), SkcmsLinearCurve(lg), SkcmsLinearCurve(lb));
}

// The same for 16-bit samples (the reference's 1/65535 scaling).
SSIM2_HD float SampleFromU16(std::uint16_t u) { return static_cast<float>(u) * (1.0f / 65535.0f); }

inline Rgb PqBt2020ToLinearSrgb(std::uint16_t r, std::uint16_t g, std::uint16_t b, float peak) {
  return PqToLinearSrgb(SampleFromU16(r), SampleFromU16(g), SampleFromU16(b), PqScale(peak));
}

inline Rgb HlgBt2020ToLinearSrgb(std::uint16_t r, std::uint16_t g, std::uint16_t b, float peak) {
  return HlgToLinearSrgb<HostLibm>(SampleFromU16(r), SampleFromU16(g), SampleFromU16(b),
                                   MakeHlgOotf(peak));
}

// ComputePremulAbsorb: the opsin absorbance matrix times peak / 255 (float),
// entry by entry; XYB then runs as for SDR with these nine numbers.
inline void PremultipliedOpsin(float peak, float out[9]) {
  const float mul = peak / 255.0f;
  for (int i = 0; i < 9; ++i) out[i] = kOpsin[i] * mul;
}

}  // namespace hdr
}  // namespace ssim2
