// The CPU path proper: stages from kernels.h, run over the scales of a
// MetricPlan with rows and columns spread over a thread pool. The reductions
// stay sequential per channel, in the reference's order, so the sub-scores
// are bit-identical to the reference's.
#pragma once

#include <vector>

#include "blur_constants.h"
#include "cpu/kernels.h"
#include "cpu/planes.h"
#include "cpu/thread_pool.h"
#include "plan.h"

namespace ssim2 {
namespace cpu {

// What one scale of the metric needs from the reference image alone.
struct ScaleReference {
  Image3 xyb;    // positive XYB
  Image3 mu;     // blur(xyb), channels with any weight
  Image3 sigma;  // blur(xyb * xyb), channels whose SSIM map has weight
};

struct ReferenceCache {
  std::vector<ScaleReference> scales;
};

class Pipeline {
 public:
  Pipeline(const MetricPlan& plan, ThreadPool* pool, const KernelTable& kernels);

  // `linear` is downsampled in place, scale after scale.
  void PrepareReference(Image3* linear, ReferenceCache* cache);
  void Score(const ReferenceCache& reference, Image3* dist_linear, Result* result);

  std::size_t memory_bytes() const;

 private:
  void Blur(const Plane& in, Plane* out);
  void Multiply(const Plane& a, const Plane& b, Plane* out);
  void ToXyb(const Image3& linear, Image3* xyb);
  void Downsample(Image3* linear);
  void ChannelSums(const ScaleReference& ref, int channel, const ChannelNeeds& needs,
                   double features[3][2]);

  MetricPlan plan_;
  ThreadPool* pool_;
  const KernelTable& k_;
  const BlurConstants& blur_;
  float neg_cbrt_bias_;
  // Scratch for the distorted image, sized for scale 0.
  Plane temp_, product_;
  Image3 xyb2_, mu2_, s22_, s12_, downsampled_;
};

}  // namespace cpu
}  // namespace ssim2
