// The 70 reference pairs: scores (scores.csv) and all sub-scores
// (features.csv) against what the reference printed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "../testdata.h"
#include "image_io.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace {

using testing::ReadCsv;
using testing::TestDataPath;

struct Pair {
  io::Image reference;
  io::Image distorted;
};

void LoadPair(const std::string& ref, const std::string& dist, Pair* pair) {
  Status s = io::LoadImage(TestDataPath(ref), &pair->reference);
  ASSERT_TRUE(s.ok()) << ref << ": " << s.message();
  s = io::LoadImage(TestDataPath(dist), &pair->distorted);
  ASSERT_TRUE(s.ok()) << dist << ": " << s.message();
}

Result Score(const Pair& pair, bool all_features) {
  ScorerOptions options;
  options.backend = Backend::kCpu;
  options.all_features = all_features;
  Result result;
  const Status s = ComputeSsimulacra2(pair.reference.view(), pair.distorted.view(), options, &result);
  EXPECT_TRUE(s.ok()) << s.message();
  return result;
}

TEST(Parity, ScoresOfAllPairsMatchTheReference) {
  SSIM2_REQUIRE_TESTDATA();
  const auto rows = ReadCsv("scores.csv");
  ASSERT_EQ(rows.size(), 70u) << "scores.csv should list 70 pairs";
  double worst = -1.0;
  std::string worst_pair;
  int same_print = 0;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 5u);
    Pair pair;
    LoadPair(row[0], row[1], &pair);
    if (HasFailure()) return;
    EXPECT_EQ(pair.reference.width(), std::atoi(row[2].c_str())) << row[0];
    EXPECT_EQ(pair.reference.height(), std::atoi(row[3].c_str())) << row[0];
    const Result r = Score(pair, /*all_features=*/false);
    const double expected = std::strtod(row[4].c_str(), nullptr);
    const double delta = std::fabs(r.score - expected);
    EXPECT_LE(delta, 1e-6) << row[1] << ": got " << r.score << ", reference " << row[4];
    char printed[64];
    std::snprintf(printed, sizeof printed, "%.8f", r.score);
    same_print += row[4] == printed;
    if (delta > worst) {
      worst = delta;
      worst_pair = row[1];
    }
  }
  std::printf("parity: max |delta| = %.3g (%s); %d of %zu scores print identically\n", worst,
              worst_pair.c_str(), same_print, rows.size());
}

TEST(Parity, IdenticalPairsScoreExactly100) {
  SSIM2_REQUIRE_TESTDATA();
  int checked = 0;
  for (const auto& row : ReadCsv("scores.csv")) {
    if (row[1].find("identical") == std::string::npos && row[0] != row[1]) continue;
    Pair pair;
    LoadPair(row[0], row[1], &pair);
    if (HasFailure()) return;
    EXPECT_EQ(Score(pair, false).score, 100.0) << row[1];
    ++checked;
  }
  EXPECT_EQ(checked, 9) << "scores.csv should have one identical pair per source";
}

int ChannelIndex(const std::string& name) {
  if (name == "X") return 0;
  if (name == "Y") return 1;
  if (name == "B") return 2;
  return -1;
}

// features.csv is printed with 17 significant digits, which round-trips a
// double: equality below is exact, not within a tolerance.
TEST(Parity, AllSubScoresEqualTheReference) {
  SSIM2_REQUIRE_TESTDATA();
  const auto rows = ReadCsv("features.csv");
  ASSERT_FALSE(rows.empty());
  std::map<std::string, std::vector<const std::vector<std::string>*>> by_pair;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 8u);
    by_pair[row[0] + "," + row[1]].push_back(&row);
  }
  ASSERT_EQ(by_pair.size(), 70u);
  double max_abs = 0.0;
  std::size_t compared = 0, unequal = 0;
  for (const auto& entry : by_pair) {
    const auto& first = *entry.second.front();
    Pair pair;
    LoadPair(first[0], first[1], &pair);
    if (HasFailure()) return;
    const Result r = Score(pair, /*all_features=*/true);
    // One row per channel, scale and norm: 3 * scales * 2.
    EXPECT_EQ(entry.second.size(), static_cast<std::size_t>(6 * r.num_scales)) << entry.first;
    for (const auto* row : entry.second) {
      const int c = ChannelIndex((*row)[2]);
      const int s = std::atoi((*row)[3].c_str());
      const int n = (*row)[4] == "1" ? 0 : 1;
      ASSERT_TRUE(c >= 0 && s >= 0 && s < r.num_scales) << entry.first;
      for (int m = 0; m < kNumMaps; ++m) {
        const double expected = std::strtod((*row)[5 + m].c_str(), nullptr);
        const double got = r.features[s][c][m][n];
        max_abs = std::max(max_abs, std::fabs(got - expected));
        ++compared;
        if (got != expected) ++unequal;
        EXPECT_EQ(got, expected) << entry.first << " " << (*row)[2] << " scale " << s
                                 << " norm " << (*row)[4] << " map " << m;
      }
    }
  }
  std::printf("features: %zu sub-scores compared, %zu unequal, max |diff| = %.3g\n", compared,
              unequal, max_abs);
}

}  // namespace
}  // namespace ssim2
