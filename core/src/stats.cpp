// Summary statistics of per-frame scores (see ssim2/stats.h).
#include "ssim2/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ssim2 {
namespace {

// numpy.percentile's default ("linear"): rank q/100 * (n - 1) into the
// sorted values, interpolated between the two closest ranks.
double Percentile(const std::vector<double>& sorted, double q) {
  const std::size_t n = sorted.size();
  if (n == 1) return sorted[0];
  const double rank = q / 100.0 * static_cast<double>(n - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, n - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

Summary Summarize(const std::vector<double>& scores) {
  Summary s;
  s.frames = scores.size();
  if (scores.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.stddev = s.min = s.p1 = s.p5 = s.p50 = s.p95 = s.p99 = s.max = nan;
    s.harmonic_mean = nan;
    return s;
  }
  const double n = static_cast<double>(scores.size());
  double sum = 0.0;
  for (double v : scores) sum += v;
  s.mean = sum / n;
  double sq = 0.0;
  for (double v : scores) sq += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(sq / n);

  std::vector<double> sorted(scores);
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.p1 = Percentile(sorted, 1.0);
  s.p5 = Percentile(sorted, 5.0);
  s.p50 = Percentile(sorted, 50.0);
  s.p95 = Percentile(sorted, 95.0);
  s.p99 = Percentile(sorted, 99.0);

  // Harmonic mean of max(score, 0); a frame at 0 or below makes it 0.
  double inv = 0.0;
  bool zero = false;
  for (double v : scores) {
    if (!(v > 0.0)) {
      zero = true;
      break;
    }
    inv += 1.0 / v;
  }
  s.harmonic_mean = zero ? 0.0 : n / inv;
  return s;
}

}  // namespace ssim2
