// A plain scalar replay of the reference, stage by stage, in the reference's
// own loop order. It is the oracle that the AVX2 CPU kernels and the CUDA
// kernels are tested against. Two of its functions also score in production:
// the generic kernel table (cpu/kernels.cpp built without AVX2, which
// BestKernels() picks when the processor lacks AVX2 or FMA, and on every
// non-x86 build) runs its horizontal and vertical blur passes through
// BlurRow and BlurColumns. The rest is used by tests only.
#pragma once

#include "blur_constants.h"
#include "constants.h"
#include "plan.h"
#include "planes.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace replay {

// FastGaussian1D: one row, the 4-lane unrolled form with scalar head/tail.
void BlurRow(const BlurConstants& c, const float* in, int width, float* out);
// FastGaussianVertical, one column at a time (`stride` in floats).
void BlurColumns(const BlurConstants& c, const float* in, int width, int height,
                 std::size_t stride, float* out);
// Horizontal then vertical, as jxl::FastGaussian.
void Blur(const BlurConstants& c, const cpu::Plane& in, cpu::Plane* temp, cpu::Plane* out);

// Linear RGB -> positive XYB, in place into `xyb`, with the image's opsin
// matrix (hdr::PremultipliedOpsin; the unscaled one for SDR).
void ToPositiveXyb(const cpu::Image3& linear, cpu::Image3* xyb, const float* opsin = kOpsin);
// 2x2 box downsampling with edge clamp.
void Downsample(const cpu::Image3& in, cpu::Image3* out);

// Sub-scores of one scale and channel: [map][norm] as in Result::features.
void ChannelFeatures(const cpu::Plane& img1, const cpu::Plane& img2, const BlurConstants& c,
                     bool ssim, bool edge, double out[3][2]);

// Whole metric for linear RGB inputs (no alpha), each image with its opsin
// matrix.
Result ComputeLinear(const cpu::Image3& ref_linear, const cpu::Image3& dist_linear,
                     const MetricPlan& plan, const float* ref_opsin = kOpsin,
                     const float* dist_opsin = kOpsin);

// Whole metric for any host image pair, with the reference tool's alpha rule.
Status Compute(const ImageView& reference, const ImageView& distorted, bool all_features,
               Result* result);

}  // namespace replay
}  // namespace ssim2
