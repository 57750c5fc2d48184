#include "plan.h"

#include <cmath>
#include <limits>

#include "constants.h"

namespace ssim2 {

int NumScales(int width, int height) {
  // At the top of iteration s the reference checks the size of scale s - 1
  // (scale 0 itself for s = 0), so the last scale computed may be smaller
  // than 8x8: 8x8 gives 8x8 and 4x4.
  int scales = 0;
  int prev_w = width;
  int prev_h = height;
  while (scales < kMaxScales && prev_w >= 8 && prev_h >= 8) {
    if (scales > 0) {
      prev_w = (prev_w + 1) / 2;
      prev_h = (prev_h + 1) / 2;
    }
    ++scales;
  }
  return scales;
}

MetricPlan MakePlan(int width, int height, bool all_features) {
  MetricPlan plan;
  plan.width = width;
  plan.height = height;
  plan.num_scales = NumScales(width, height);
  int w = width;
  int h = height;
  for (int s = 0; s < plan.num_scales; ++s) {
    plan.scales[s] = {w, h};
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  for (int s = 0; s < plan.num_scales; ++s) {
    for (int c = 0; c < kNumChannels; ++c) {
      ChannelNeeds& needs = plan.needs[s][c];
      for (int n = 0; n < kNumNorms; ++n) {
        const int map_ssim = static_cast<int>(ErrorMap::kSsim);
        needs.ssim |= all_features || kWeights[plan.WeightIndex(c, s, map_ssim, n)] != 0.0;
        for (int map : {static_cast<int>(ErrorMap::kArtifact),
                        static_cast<int>(ErrorMap::kDetailLost)}) {
          needs.edge |= all_features || kWeights[plan.WeightIndex(c, s, map, n)] != 0.0;
        }
      }
    }
  }
  return plan;
}

void FeaturesFromSums(const double sums[kNumMapSums], ScaleSize size, ChannelNeeds needs,
                      double out[kNumMaps][kNumNorms]) {
  const double one_per_pixels = 1.0 / (static_cast<double>(size.height) * size.width);
  const auto norms = [&](int map, const double* sum) {
    out[map][0] = one_per_pixels * sum[0];
    out[map][1] = std::sqrt(std::sqrt(one_per_pixels * sum[1]));
  };
  if (needs.ssim) norms(0, sums);
  if (needs.edge) {
    norms(1, sums + 2);
    norms(2, sums + 4);
  }
}

void MarkSkippedFeatures(const MetricPlan& plan, Result* result) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int s = 0; s < kMaxScales; ++s) {
    for (int c = 0; c < kNumChannels; ++c) {
      for (int n = 0; n < kNumNorms; ++n) {
        if (s >= plan.num_scales) {
          result->features[s][c][0][n] = 0.0;
          result->features[s][c][1][n] = 0.0;
          result->features[s][c][2][n] = 0.0;
          continue;
        }
        if (!plan.needs[s][c].ssim) result->features[s][c][0][n] = nan;
        if (!plan.needs[s][c].edge) {
          result->features[s][c][1][n] = nan;
          result->features[s][c][2][n] = nan;
        }
      }
    }
  }
}

double ScoreFromFeatures(const Result& result) {
  // Msssim::Score(): the running weight index and the summation order are
  // the reference's; a skipped (NaN) feature always has weight zero.
  double sum = 0.0;
  int i = 0;
  for (int c = 0; c < kNumChannels; ++c) {
    for (int s = 0; s < result.num_scales; ++s) {
      for (int n = 0; n < kNumNorms; ++n) {
        for (int m = 0; m < kNumMaps; ++m) {
          // Adding w * |f| = +0 for a zero weight leaves the sum unchanged.
          const double w = kWeights[i++];
          if (w != 0.0) sum += w * std::abs(result.features[s][c][m][n]);
        }
      }
    }
  }
  sum = sum * kScoreScale;
  sum = kScoreCubic[0] * sum + kScoreCubic[1] * sum * sum + kScoreCubic[2] * sum * sum * sum;
  return sum > 0 ? 100.0 - 10.0 * std::pow(sum, kScoreExponent) : 100.0;
}

}  // namespace ssim2
