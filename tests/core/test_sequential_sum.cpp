// The sequential-sum primitives (core/src/sequential_sum.h) against real
// float64 additions, on the CPU: a term's step from every position parity
// (ties included), steps composed in any grouping, float64 units against
// integer steps, and whole runs applied where they fit.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "sequential_sum.h"

namespace ssim2 {
namespace {

std::uint64_t Bits(double d) { return arith::DoubleBits(d); }

// s + x through the step of x in s's grid, where it stays there.
void ExpectStepIsAddition(double s, double x) {
  const int g = seqsum::GridOf(s);
  ASSERT_NE(g, seqsum::kNoGrid);
  const double want = s + x;
  double got = s;
  const bool stayed = seqsum::TryStep(&got, g, seqsum::TermStep(x, g));
  // Ending on the next power of two counts as leaving.
  EXPECT_EQ(stayed, seqsum::GridOf(want) == g) << s << " + " << x;
  EXPECT_EQ(Bits(got), stayed ? Bits(want) : Bits(s)) << s << " + " << x;
  // Units agree with the step wherever they say something.
  const double units = seqsum::TermUnits(x, seqsum::UnitScale(g));
  if (std::isfinite(units)) {
    const seqsum::Step a = seqsum::UnitsStep(units), b = seqsum::TermStep(x, g);
    EXPECT_EQ(a.move[0], b.move[0]) << x << " in grid " << g;
    EXPECT_EQ(a.move[1], b.move[1]) << x << " in grid " << g;
  }
}

TEST(SequentialSum, GridsAndPositionsRoundTrip) {
  EXPECT_EQ(seqsum::GridOf(0.0), 1);
  EXPECT_EQ(seqsum::GridOf(-0.0), 1);
  EXPECT_EQ(seqsum::GridOf(std::numeric_limits<double>::min()), 1);
  EXPECT_EQ(seqsum::GridOf(1.0), 1023);
  EXPECT_EQ(seqsum::GridOf(-1.0), seqsum::kNoGrid);
  EXPECT_EQ(seqsum::GridOf(std::nan("")), seqsum::kNoGrid);
  for (double s : {0.0, 4.9e-324, 1e-310, 1.0, 1.5, 3.0e300}) {
    EXPECT_EQ(Bits(seqsum::AtPosition(seqsum::GridOf(s), seqsum::PositionOf(s))), Bits(s)) << s;
  }
}

TEST(SequentialSum, TiesGoToTheEvenPositionFromBothParities) {
  const double u = std::ldexp(1.0, -52);  // spacing of [1, 2)
  for (double s : {1.0, 1.0 + u, 1.5 + 3 * u, 2.0 - u, 2.0 - 2 * u}) {
    for (double k : {0.5, 1.5, 2.5, 7.5, 1024.5, 0.25, 0.75, 3.0}) ExpectStepIsAddition(s, k * u);
  }
  // A tie has no units: the walk adds it with TermStep.
  EXPECT_TRUE(std::isinf(seqsum::TermUnits(0.5 * u, seqsum::UnitScale(1023))));
}

TEST(SequentialSum, StepsEqualAdditionsOverManyMagnitudes) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  for (int i = 0; i < 200000; ++i) {
    const double s = std::ldexp(unit(rng), static_cast<int>(rng() % 120) - 60);
    const double x = std::ldexp(unit(rng), static_cast<int>(rng() % 140) - 90);
    ExpectStepIsAddition(s, x);
  }
  for (double x : {0.0, 4.9e-324, 1e-300}) ExpectStepIsAddition(1e-310, x);  // grid 1
}

// Steps composed left to right, in a balanced tree, or applied one by one:
// the same sum as the loop, while the run stays in its grid.
TEST(SequentialSum, ComposedStepsEqualTheLoop) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const double start = std::ldexp(1.0 + (rng() % 1000) / 1000.0, static_cast<int>(rng() % 20));
    const int g = seqsum::GridOf(start);
    const double u = std::ldexp(1.0, g - 1075);
    std::vector<double> x(1 + rng() % 64);
    for (double& v : x) v = (rng() % 4 == 0 ? 0.5 + static_cast<double>(rng() % 8) : std::ldexp(
                              static_cast<double>(rng() % 4096), -static_cast<int>(rng() % 12))) * u;
    double want = start;
    for (double v : x) want += v;
    std::vector<seqsum::Step> level;
    for (double v : x) level.push_back(seqsum::TermStep(v, g));
    seqsum::Step left = seqsum::NoStep();
    for (const seqsum::Step& st : level) left = seqsum::Compose(left, st);
    while (level.size() > 1) {  // pairwise tree
      std::vector<seqsum::Step> next;
      for (std::size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(seqsum::Compose(level[i], level[i + 1]));
      if (level.size() % 2) next.push_back(level.back());
      level = next;
    }
    for (const seqsum::Step& run : {left, level[0]}) {
      double got = start;
      if (seqsum::TryStep(&got, g, run)) {
        EXPECT_EQ(Bits(got), Bits(want)) << "trial " << trial;
      } else {
        EXPECT_NE(seqsum::GridOf(want), g) << "trial " << trial << ": a run inside its grid refused";
      }
    }
  }
}

}  // namespace
}  // namespace ssim2
