// Pooling of per-frame scores into the summary that the element posts at EOS
// and the ssim2 tool prints. No GStreamer dependency.
#pragma once

#include <cstdint>
#include <vector>

namespace ssim2 {

struct Summary {
  std::uint64_t frames = 0;
  double mean = 0.0;
  double stddev = 0.0;  // population standard deviation
  double min = 0.0;
  double p1 = 0.0, p5 = 0.0, p50 = 0.0, p95 = 0.0, p99 = 0.0;  // percentiles
  double max = 0.0;
  // Harmonic mean of max(score, 0): a pooling that lets bad frames weigh
  // more; 0 as soon as one frame scores 0 or below.
  double harmonic_mean = 0.0;
};

// The summary's pooled values in the order every output lists them (element
// message, CSV, JSON, the tool's printout). `name` is the key in the files;
// the element's GstStructure uses it with '_' written as '-'.
struct SummaryField {
  const char* name;
  double Summary::*value;
};
inline constexpr SummaryField kSummaryFields[] = {
    {"mean", &Summary::mean}, {"stddev", &Summary::stddev},
    {"min", &Summary::min},   {"p1", &Summary::p1},
    {"p5", &Summary::p5},     {"p50", &Summary::p50},
    {"p95", &Summary::p95},   {"p99", &Summary::p99},
    {"max", &Summary::max},   {"harmonic_mean", &Summary::harmonic_mean},
};

// Percentiles interpolate linearly between the closest ranks (the method
// numpy.percentile uses by default). An empty input gives frames = 0 and
// every other field NaN.
Summary Summarize(const std::vector<double>& scores);

}  // namespace ssim2
