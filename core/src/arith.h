// The reference's per-sample float32 arithmetic, shared by the CPU path and
// the CUDA kernels. Every expression keeps the reference's shape: fmaf where
// its AVX2 build fuses (highway MulAdd/NegMulAdd/NegMulSub), plain operations
// where its scalar code does not. Both sides compile without FP contraction
// (-ffp-contract=off on the host, --fmad=false in nvcc), so a `*` followed by
// `+` below is never fused behind our back.
#pragma once

#include <cmath>
#include <math.h>
#include <cstdint>
#include <cstring>

#include "constants.h"

#if defined(__CUDACC__)
#define SSIM2_HD __host__ __device__ __forceinline__
#else
#define SSIM2_HD inline
#endif
// Unrolls the loop it precedes in device code (the host compiler decides).
#if defined(__CUDA_ARCH__)
#define SSIM2_UNROLL _Pragma("unroll")
#else
#define SSIM2_UNROLL
#endif

namespace ssim2 {
namespace arith {

// a * b + c rounded once: the device's intrinsics, the host's libm (the
// double one is for the libm replay, libm_replay.h).
#if defined(__CUDA_ARCH__)
SSIM2_HD float Fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
SSIM2_HD double Fma(double a, double b, double c) { return __fma_rn(a, b, c); }
#else
SSIM2_HD float Fma(float a, float b, float c) { return std::fma(a, b, c); }
SSIM2_HD double Fma(double a, double b, double c) { return std::fma(a, b, c); }
#endif

// The bits of `from` read as a `To` of the same size (C++20's
// std::bit_cast): memcpy is how C++17 says it, and both compilers make it a
// register move, in device code too.
template <typename To, typename From>
SSIM2_HD To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "BitCast: the sizes differ");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

SSIM2_HD std::uint32_t FloatBits(float f) { return BitCast<std::uint32_t>(f); }
SSIM2_HD float BitsFloat(std::uint32_t u) { return BitCast<float>(u); }
SSIM2_HD std::uint64_t DoubleBits(double d) { return BitCast<std::uint64_t>(d); }
SSIM2_HD double BitsDouble(std::uint64_t u) { return BitCast<double>(u); }

// libjxl's TF_SRGB::DisplayFromEncoded: rational polynomial above the
// threshold (Horner with FMA, IEEE division), linear segment below; the sign
// is stripped and restored.
SSIM2_HD float SrgbToLinear(float encoded) {
  const std::uint32_t sign = FloatBits(encoded) & 0x80000000u;
  const float x = BitsFloat(FloatBits(encoded) & 0x7fffffffu);
  float magnitude;
  if (x > kSrgbThreshold) {
    float yp = kSrgbP4;
    float yq = kSrgbQ4;
    yp = Fma(yp, x, kSrgbP3);
    yq = Fma(yq, x, kSrgbQ3);
    yp = Fma(yp, x, kSrgbP2);
    yq = Fma(yq, x, kSrgbQ2);
    yp = Fma(yp, x, kSrgbP1);
    yq = Fma(yq, x, kSrgbQ1);
    yp = Fma(yp, x, kSrgbP0);
    yq = Fma(yq, x, kSrgbQ0);
    magnitude = yp / yq;
  } else {
    magnitude = x * kSrgbLowDivInv;
  }
  return BitsFloat(FloatBits(magnitude) | sign);
}

// libjxl's CubeRootAndAdd (fast_math-inl.h): bit-trick seed, three
// Newton-Raphson steps on x^(-1/3), a final step, then r^2 * x + add.
// `add` is -cbrtf(bias), computed on the host with glibc.
SSIM2_HD float CubeRootAndAdd(float x, float add) {
  const float xa_3 = kOneThird * x;
  const std::int32_t bits = static_cast<std::int32_t>(FloatBits(x));
  const std::int32_t seed =
      bits == 0 ? 0 : kCbrtExpBias - (bits >> 23) * kCbrtExpMul;
  float r = BitsFloat(static_cast<std::uint32_t>(seed));
  for (int i = 0; i < 3; ++i) {
    const float r2 = r * r;
    r = Fma(-xa_3, r2 * r2, kFourThirds * r);
  }
  float r2 = r * r;
  r = Fma(kOneThird, Fma(-x, r2 * r2, r), r);
  r2 = r * r;
  return Fma(r2, x, add);
}

struct Xyb {
  float x, y, b;
};

// Linear RGB to the reference's "positive XYB" (ToXYB + MakePositiveXYB).
// `opsin` is the opsin absorbance matrix (row-major) as the image's intensity
// target scales it (hdr::PremultipliedOpsin; kOpsin itself for SDR);
// `neg_cbrt_bias` is -cbrtf(kOpsinBias).
SSIM2_HD Xyb LinearToPositiveXyb(float r, float g, float b, const float* opsin,
                                 float neg_cbrt_bias) {
  float m0 = Fma(opsin[0], r, Fma(opsin[1], g, Fma(opsin[2], b, kOpsinBias)));
  float m1 = Fma(opsin[3], r, Fma(opsin[4], g, Fma(opsin[5], b, kOpsinBias)));
  float m2 = Fma(opsin[6], r, Fma(opsin[7], g, Fma(opsin[8], b, kOpsinBias)));
  // ZeroIfNegative: the sign bit decides, so -0 becomes +0 as well.
  if (FloatBits(m0) & 0x80000000u) m0 = 0.0f;
  if (FloatBits(m1) & 0x80000000u) m1 = 0.0f;
  if (FloatBits(m2) & 0x80000000u) m2 = 0.0f;
  m0 = CubeRootAndAdd(m0, neg_cbrt_bias);
  m1 = CubeRootAndAdd(m1, neg_cbrt_bias);
  m2 = CubeRootAndAdd(m2, neg_cbrt_bias);
  const float x = 0.5f * (m0 - m1);
  const float y = 0.5f * (m0 + m1);
  Xyb out;
  out.b = (m2 - y) + 0.55f;
  out.x = x * 14.0f + 0.42f;
  out.y = y + 0.01f;
  return out;
}

// The same with the unscaled matrix (SDR inputs).
SSIM2_HD Xyb LinearToPositiveXyb(float r, float g, float b, float neg_cbrt_bias) {
  const float opsin[9] = {kOpsinM00, kOpsinM01, kOpsinM02, kOpsinM10, kOpsinM11,
                          kOpsinM12, kOpsinM20, kOpsinM21, kOpsinM22};
  return LinearToPositiveXyb(r, g, b, opsin, neg_cbrt_bias);
}

// The reference's AlphaBlend, on sRGB-encoded samples (before linearising).
SSIM2_HD float AlphaBlend(float c, float a, float bg) {
  return a * c + (1.0f - a) * bg;
}

// One pixel of the SSIM error map: max(0, 1 - SSIM') in double, as SSIMMap().
SSIM2_HD double SsimError(float mu1, float mu2, float s11, float s22, float s12) {
  const float mu11 = mu1 * mu1;
  const float mu22 = mu2 * mu2;
  const float mu12 = mu1 * mu2;
  const float diff = mu1 - mu2;
  const float num_m = static_cast<float>(1.0 - static_cast<double>(diff * diff));
  const float num_s = 2.0f * (s12 - mu12) + kC2;
  const float denom_s = (s11 - mu11) + (s22 - mu22) + kC2;
  const double d = 1.0 - static_cast<double>(num_m * num_s / denom_s);
  return d > 0.0 ? d : 0.0;
}

// One pixel of the edge-difference map, as EdgeDiffMap(): > 0 means the
// distorted image has an edge the reference lacks (artifact), < 0 the
// reverse (detail lost).
SSIM2_HD double EdgeDiff(float img1, float mu1, float img2, float mu2) {
  const float a2 = fabsf(img2 - mu2);
  const float a1 = fabsf(img1 - mu1);
  return (1.0 + static_cast<double>(a2)) / (1.0 + static_cast<double>(a1)) - 1.0;
}

SSIM2_HD double ToThe4th(double x) {
  x *= x;
  x *= x;
  return x;
}

// 2x2 box downsampling of one output sample, edge-clamped by the caller:
// float sum from 0 in the order (y0,x0), (y0,x1), (y1,x0), (y1,x1).
SSIM2_HD float Downsample4(float a00, float a01, float a10, float a11) {
  float sum = 0.0f;
  sum += a00;
  sum += a01;
  sum += a10;
  sum += a11;
  return sum * 0.25f;
}

// The reference's recursive Gaussian blur (gauss_blur.h), one output or one
// vector of outputs at a time, for the CPU replay and the kernels: three
// recursive terms k, each with its two previous outputs.

// The horizontal blur: one output from sum = in[n - N - 1] + in[n + N - 1]
// and each term's previous outputs prev[k], prev2[k], which it moves on;
// lane 0 of the reference's vectors, as it runs before and after its vector
// loop. `Constants` is BlurConstants or the kernels' copy (BlurParams).
template <typename Constants>
SSIM2_HD float BlurRowStep(const Constants& c, float sum, float prev[3], float prev2[3]) {
  float o[3];
  SSIM2_UNROLL
  for (int k = 0; k < 3; ++k) {
    o[k] = sum * c.mul_in[k][0];
    o[k] = Fma(c.mul_prev2[k][0], prev2[k], o[k]);
    prev2[k] = prev[k];
    o[k] = Fma(c.mul_prev[k][0], prev[k], o[k]);
    prev[k] = o[k];
  }
  return o[0] + (o[1] + o[2]);
}

// The outputs n .. n + 3 from in_sum[j] = in[n + j - N - 1] + in[n + j + N - 1]:
// one step of the reference's vector loop.
template <typename Constants>
SSIM2_HD void BlurRowStep4(const Constants& c, const float in_sum[4], float prev[3],
                           float prev2[3], float out[4]) {
  float o[3][4];
  SSIM2_UNROLL
  for (int k = 0; k < 3; ++k) {
    SSIM2_UNROLL
    for (int j = 0; j < 4; ++j) {
      float v = in_sum[0] * c.mul_in[k][j];
      // Lanes below t multiply in_sum[t] by a zero shifted in: no change.
      SSIM2_UNROLL
      for (int t = 1; t <= j; ++t) v = Fma(c.mul_in[k][j - t], in_sum[t], v);
      v = Fma(c.mul_prev2[k][j], prev2[k], v);
      v = Fma(c.mul_prev[k][j], prev[k], v);
      o[k][j] = v;
    }
    prev2[k] = o[k][2];
    prev[k] = o[k][3];
  }
  SSIM2_UNROLL
  for (int j = 0; j < 4; ++j) out[j] = o[0][j] + (o[1][j] + o[2][j]);
}

// The vertical blur, one output from sum = in[n - N - 1] + in[n + N - 1]
// and each term's previous outputs y1[k], y2[k], which it moves on:
// y = fma(n2, sum, fma(-d1, y1, -y2)) per term.
SSIM2_HD float BlurColumnStep(const float n2[3], const float neg_d1[3], float sum, float y1[3],
                              float y2[3]) {
  SSIM2_UNROLL
  for (int k = 0; k < 3; ++k) {
    const float y = Fma(n2[k], sum, Fma(neg_d1[k], y1[k], -y2[k]));
    y2[k] = y1[k];
    y1[k] = y;
  }
  return y1[0] + (y1[1] + y1[2]);
}

}  // namespace arith
}  // namespace ssim2
