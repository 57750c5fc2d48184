// ssim2::Summarize (core/src/stats.cpp) against hand-computed values.
#include "ssim2/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ssim2 {
namespace {

TEST(Summarize, FourValues) {
  const Summary s = Summarize({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(s.frames, 4u);
  EXPECT_NEAR(s.mean, 2.5, 1e-12);
  EXPECT_NEAR(s.stddev, std::sqrt(1.25), 1e-12);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 4.0);
  // numpy.percentile([1,2,3,4], q): rank q/100*3 interpolated.
  EXPECT_NEAR(s.p1, 1.03, 1e-12);
  EXPECT_NEAR(s.p5, 1.15, 1e-12);
  EXPECT_NEAR(s.p50, 2.5, 1e-12);
  EXPECT_NEAR(s.p95, 3.85, 1e-12);
  EXPECT_NEAR(s.p99, 3.97, 1e-12);
  EXPECT_NEAR(s.harmonic_mean, 4.0 / (1.0 + 0.5 + 1.0 / 3.0 + 0.25), 1e-12);
}

TEST(Summarize, SingleAndEmpty) {
  const Summary one = Summarize({42.0});
  EXPECT_EQ(one.frames, 1u);
  EXPECT_EQ(one.mean, 42.0);
  EXPECT_EQ(one.stddev, 0.0);
  EXPECT_EQ(one.p1, 42.0);
  EXPECT_EQ(one.p99, 42.0);
  EXPECT_EQ(one.harmonic_mean, 42.0);

  const Summary none = Summarize({});
  EXPECT_EQ(none.frames, 0u);
  for (const SummaryField& f : kSummaryFields) EXPECT_TRUE(std::isnan(none.*f.value)) << f.name;
}

TEST(Summarize, NonPositiveScoresZeroTheHarmonicMean) {
  Summary s = Summarize({80.0, -5.0, 60.0});
  EXPECT_EQ(s.harmonic_mean, 0.0);
  EXPECT_EQ(s.min, -5.0);
  EXPECT_EQ(s.p50, 60.0);
  s = Summarize({80.0, 0.0});
  EXPECT_EQ(s.harmonic_mean, 0.0);
}

TEST(Summarize, HundredValues) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Summary s = Summarize(v);
  EXPECT_NEAR(s.p1, 1.99, 1e-9);
  EXPECT_NEAR(s.p5, 5.95, 1e-9);
  EXPECT_NEAR(s.p50, 50.5, 1e-9);
  EXPECT_NEAR(s.p95, 95.05, 1e-9);
  EXPECT_NEAR(s.p99, 99.01, 1e-9);
}

}  // namespace
}  // namespace ssim2
