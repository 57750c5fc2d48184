// Host-side bookkeeping shared by both backends: how many scales an image
// gets, their sizes, and which error maps carry weight. Kept out of the
// kernels so it is tested on the CPU.
#pragma once

#include <array>

#include "ssim2/ssim2.h"

namespace ssim2 {

struct ScaleSize {
  int width;
  int height;
};

// Which blurred maps a (scale, channel) needs. The SSIM map needs all five
// blurs (mu1, mu2, s11, s22, s12); the edge maps need mu1 and mu2 only.
struct ChannelNeeds {
  bool ssim = false;
  bool edge = false;
  bool any() const { return ssim || edge; }
};

struct MetricPlan {
  int width = 0;
  int height = 0;
  int num_scales = 0;
  std::array<ScaleSize, kMaxScales> scales{};
  std::array<std::array<ChannelNeeds, kNumChannels>, kMaxScales> needs{};

  // Index into kWeights of a sub-score, as the reference's running counter
  // assigns it (it depends on num_scales for small images).
  int WeightIndex(int channel, int scale, int map, int norm) const {
    return ((channel * num_scales + scale) * kNumNorms + norm) * kNumMaps + map;
  }
};

// `all_features`: mark every map as needed (to report all sub-scores).
MetricPlan MakePlan(int width, int height, bool all_features);

// The float64 sums of one (scale, channel)'s error maps, in this order: the
// SSIM map's d and d^4, then those of the artifact map, then those of the
// detail-lost map.
constexpr int kNumMapSums = 6;

// The sub-scores ([map][norm] of Result::features) of one (scale, channel)
// of a scale of `size`, from its sums: for each map `needs` includes, the mean
// (L1) and the fourth root of the mean fourth power (L4), as the reference
// computes them. Written once for the CPU path, the replay and the CUDA engine.
void FeaturesFromSums(const double sums[kNumMapSums], ScaleSize size, ChannelNeeds needs,
                      double out[kNumMaps][kNumNorms]);

// Fills the entries of maps the plan skipped with NaN, and the scales past
// num_scales with 0.
void MarkSkippedFeatures(const MetricPlan& plan, Result* result);

}  // namespace ssim2
