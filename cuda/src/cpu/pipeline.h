// The CPU path proper: stages from kernels.h, run over the scales of a
// MetricPlan with rows and columns spread over a thread pool. The reductions
// stay sequential per map, in the reference's order, so the sub-scores are
// bit-identical to the reference's.
//
// Memory is what a first call pays most for (fresh pages are slow to fault
// in), so the pipeline works one channel at a time and downsamples in place:
// a one-shot pair at 1080p holds 19 float planes.
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
  std::size_t bytes() const;
};

class Pipeline {
 public:
  Pipeline(const MetricPlan& plan, ThreadPool* pool, const KernelTable& kernels);

  // One pair, nothing kept. Both linear images are downsampled in place.
  void Score(Image3* ref_linear, Image3* dist_linear, Result* result);

  // Reference-only intermediates of every scale, then pairs against them.
  void PrepareReference(Image3* linear, ReferenceCache* cache);
  void ScoreCached(const ReferenceCache& reference, Image3* dist_linear, Result* result);

  std::size_t memory_bytes() const;

 private:
  // Per-channel maps of one scale; mu1/sigma11 come from `cached` or are
  // computed from xyb1.
  void ScoreScale(int scale, const Image3& xyb1, const ScaleReference* cached, Result* result);
  void Blur(const Plane& in, Plane* out);
  void BlurProduct(const Plane& a, const Plane& b, Plane* out);
  void ToXyb(const Image3& linear, Image3* xyb);
  void Downsample(Image3* linear);
  void SsimSums(const Plane& mu1, const Plane& s11, double out[2]);
  void EdgeSums(const Plane& img1, const Plane& mu1, const Plane& img2, double artifact[2],
                double detail_lost[2]);

  MetricPlan plan_;
  ThreadPool* pool_;
  const KernelTable& k_;
  const BlurConstants& blur_;
  float neg_cbrt_bias_;
  Plane temp_, product_, mu1_, s11_, mu2_, s22_, s12_;
  Image3 xyb1_, xyb2_;
  std::vector<double> ssim_row_, edge_row_;
};

}  // namespace cpu
}  // namespace ssim2
