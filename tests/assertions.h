// gtest assertions on ssim2 types (Status, Result), for every suite.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace testing {

// Success, or a failure naming the status code and message.
inline ::testing::AssertionResult IsOk(const Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << StatusCodeName(status.code()) << ": "
                                       << status.message();
}

// Whether `text` holds `part`; either way the message shows both, so that
// EXPECT_TRUE and EXPECT_FALSE say what was looked for and in what.
inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  const bool found = text.find(part) != std::string::npos;
  return (found ? ::testing::AssertionSuccess() : ::testing::AssertionFailure())
         << ::testing::PrintToString(part) << (found ? " is in:\n" : " is not in:\n") << text;
}

// Relative difference of two sub-scores (NaN == NaN: maps both skipped).
inline double RelativeDiff(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0.0;
  if (std::isnan(a) || std::isnan(b)) return INFINITY;
  const double m = std::max(std::fabs(a), std::fabs(b));
  return m > 1e-300 ? std::fabs(a - b) / m : std::fabs(a - b);
}

// The same score and sub-scores, bit for bit (NaN == NaN).
inline ::testing::AssertionResult BitIdentical(const Result& a, const Result& b) {
  if (a.num_scales != b.num_scales) {
    return ::testing::AssertionFailure() << "scales " << a.num_scales << " vs " << b.num_scales;
  }
  if (std::memcmp(&a.score, &b.score, sizeof a.score) != 0) {
    return ::testing::AssertionFailure() << "score " << ::testing::PrintToString(a.score)
                                         << " vs " << ::testing::PrintToString(b.score);
  }
  for (int s = 0; s < kMaxScales; ++s)
    for (int c = 0; c < kNumChannels; ++c)
      for (int m = 0; m < kNumMaps; ++m)
        for (int n = 0; n < kNumNorms; ++n) {
          const double x = a.features[s][c][m][n], y = b.features[s][c][m][n];
          if (std::isnan(x) && std::isnan(y)) continue;
          if (std::memcmp(&x, &y, sizeof x) != 0) {
            return ::testing::AssertionFailure() << "sub-score " << s << "/" << c << "/" << m
                                                 << "/" << n << ": " << x << " vs " << y;
          }
        }
  return ::testing::AssertionSuccess();
}

// A scorer of the given size and options; a failure to create it fails the
// test (and returns null).
inline std::unique_ptr<Scorer> NewScorerOrFail(int width, int height,
                                               const ScorerOptions& options) {
  std::unique_ptr<Scorer> scorer;
  const Status s = Scorer::Create(width, height, options, &scorer);
  EXPECT_TRUE(s.ok()) << s.message();
  return scorer;
}

// A test run once per backend (instantiated over Backend::kCpu and
// Backend::kCuda): the CUDA run is skipped, saying why, where no CUDA device
// works.
class PerBackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why;
    if (GetParam() == Backend::kCuda && !CudaAvailable(&why)) GTEST_SKIP() << why;
  }
};

}  // namespace testing
}  // namespace ssim2

#define EXPECT_OK(expr) EXPECT_TRUE(::ssim2::testing::IsOk(expr))
#define ASSERT_OK(expr) ASSERT_TRUE(::ssim2::testing::IsOk(expr))
