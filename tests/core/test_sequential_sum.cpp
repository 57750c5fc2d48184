// The sequential float64 sum in pieces (core/src/sequential_sum.h, the CUDA
// engine's summation) equals the plain loop `s += x[i]` bit for bit: single
// steps against real additions (ties on both parities, subnormals, every
// distance), steps composed in any tree, and whole sums of adversarial and
// real per-pixel terms, with wrong grid guesses forced.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <png.h>

#include "../testdata.h"
#include "arith.h"
#include "blur_constants.h"
#include "cpu/convert.h"
#include "cpu/planes.h"
#include "cpu/reference_replay.h"
#include "sequential_sum.h"

namespace ssim2 {
namespace {

using seqsum::kLimit;

std::uint64_t Bits(double d) { return seqsum::DoubleBits(d); }

double Sequential(const std::vector<double>& x) {
  double s = 0.0;
  for (double v : x) s += v;
  return s;
}

// Chunk and group sizes that put boundaries everywhere, and prefix biases
// that make grid guesses wrong (1: the engine's own guesses).
struct Split {
  int chunk_terms, group_chunks;
  double bias;
};
const Split kSplits[] = {
    {1024, 32, 1.0}, {1, 1, 1.0},   {7, 3, 1.0},       {32, 32, 1.0},
    {1024, 32, 1.5}, {33, 5, 0.25}, {256, 4, 1 + 1e-9}, {1024, 32, 0.0},
};

// Returns how many terms the engine's own split (the first) added one by one.
long long ExpectExact(const std::vector<double>& x, const std::string& what) {
  const double want = Sequential(x);
  const auto term = [&](long long i) { return x[static_cast<std::size_t>(i)]; };
  long long engine_added = -1;
  for (const Split& split : kSplits) {
    long long added = 0;
    const double got = seqsum::SumInPieces(term, static_cast<long long>(x.size()),
                                           split.chunk_terms, split.group_chunks, split.bias,
                                           &added);
    if (engine_added < 0) engine_added = added;
    EXPECT_EQ(Bits(got), Bits(want))
        << what << ": " << got << " != " << want << " (chunks of " << split.chunk_terms
        << ", groups of " << split.group_chunks << ", prefix bias " << split.bias << ")";
  }
  return engine_added;
}

// One step: where s + x stays in s's grid, the step lands exactly on it;
// where it leaves, the step says so.
void ExpectStep(double s, double x) {
  const int g = seqsum::GridOf(s);
  ASSERT_NE(g, seqsum::kNoGrid);
  const double want = s + x;
  double got = s;
  const bool stayed = seqsum::TryStep(&got, g, seqsum::TermStep(x, g));
  const bool stays = seqsum::GridOf(want) == g;
  // Reaching the next power of two exactly counts as leaving.
  ASSERT_EQ(stayed, stays) << s << " + " << x;
  if (stayed) {
    ASSERT_EQ(Bits(got), Bits(want)) << s << " + " << x;
  } else {
    ASSERT_EQ(Bits(got), Bits(s));
  }
}

TEST(SequentialSum, GridsAndPositionsRoundTrip) {
  EXPECT_EQ(seqsum::GridOf(0.0), 1);
  EXPECT_EQ(seqsum::GridOf(-0.0), 1);
  EXPECT_EQ(seqsum::GridOf(std::numeric_limits<double>::denorm_min()), 1);
  EXPECT_EQ(seqsum::GridOf(std::numeric_limits<double>::min()), 1);  // 2^-1022
  EXPECT_EQ(seqsum::GridOf(2 * std::numeric_limits<double>::min()), 2);
  EXPECT_EQ(seqsum::GridOf(1.0), 1023);
  EXPECT_EQ(seqsum::GridOf(-1.0), seqsum::kNoGrid);
  EXPECT_EQ(seqsum::GridOf(std::numeric_limits<double>::infinity()), seqsum::kNoGrid);
  EXPECT_EQ(seqsum::GridOf(std::nan("")), seqsum::kNoGrid);
  for (double s : {0.0, 4.9e-324, 1e-310, 2.2250738585072014e-308, 1.0, 1.5, 3.0e300,
                   std::numeric_limits<double>::max()}) {
    const int g = seqsum::GridOf(s);
    const std::uint64_t p = seqsum::PositionOf(s);
    EXPECT_LT(p, kLimit);
    if (g > 1) {
      EXPECT_GE(p, seqsum::kImplicitBit);
    }
    EXPECT_EQ(Bits(seqsum::AtPosition(g, p)), Bits(s)) << s;
  }
}

TEST(SequentialSum, TiesRoundToTheEvenPositionOnBothParities) {
  const double u = std::ldexp(1.0, -52);  // ulp of [1, 2)
  for (double s : {1.0, 1.0 + u, 1.0 + 2 * u, 1.5 + 3 * u, 2.0 - u, 2.0 - 2 * u}) {
    for (double k : {0.5, 1.5, 2.5, 7.5, 1024.5, 0.25, 0.75, 3.0, 1e6 + 0.5}) {
      ExpectStep(s, k * u);
    }
  }
  // The same in grid 1, where the spacing is the smallest subnormal.
  const double t = std::numeric_limits<double>::denorm_min();
  for (double s : {0.0, t, 2 * t, 5 * t, std::numeric_limits<double>::min()}) {
    for (double x : {t, 3 * t, std::numeric_limits<double>::min(), 1e-300}) ExpectStep(s, x);
  }
}

TEST(SequentialSum, RandomStepsAtEveryDistance) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int> exponent(-1074, 1023);
  std::uniform_int_distribution<int> distance(-60, 3);
  std::uniform_int_distribution<int> low_bits(0, 3);
  for (int i = 0; i < 300000; ++i) {
    double s = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53), exponent(rng));
    if (!std::isfinite(s)) continue;
    // x about 2^distance times s; sometimes with its low mantissa bits
    // cleared so that it is an exact half of s's spacing (a tie).
    double x = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53),
                          std::ilogb(s) + distance(rng));
    if (low_bits(rng) == 0) {
      std::uint64_t b = Bits(x);
      b &= ~((std::uint64_t(1) << (rng() % 53)) - 1);
      std::memcpy(&x, &b, sizeof x);
    }
    if (!std::isfinite(x) || !std::isfinite(s + x)) continue;
    ExpectStep(s, x);
  }
}

TEST(SequentialSum, StepsComposeInAnyTree) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> term(0.0, 1e-9);
  const int g = seqsum::GridOf(1.0);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<seqsum::Step> steps;
    for (int i = 0; i < 64; ++i) {
      double x = term(rng);
      if (i % 3 == 0) x = std::ldexp(std::floor(x * 0x1p53) + 0.5, -52);  // a tie
      steps.push_back(seqsum::TermStep(x, g));
    }
    seqsum::Step left = seqsum::NoStep();
    for (const seqsum::Step& s : steps) left = seqsum::Compose(left, s);
    std::vector<seqsum::Step> level = steps;
    while (level.size() > 1) {
      std::vector<seqsum::Step> up;
      for (std::size_t i = 0; i + 1 < level.size(); i += 2) up.push_back(seqsum::Compose(level[i], level[i + 1]));
      if (level.size() % 2) up.push_back(level.back());
      level = up;
    }
    EXPECT_EQ(level[0].step[0], left.step[0]);
    EXPECT_EQ(level[0].step[1], left.step[1]);
  }
}

TEST(SequentialSum, UniformAndFourthPowersOfTenMillionTerms) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::vector<double> x(10000000);
  for (double& v : x) v = u01(rng);
  const double want = Sequential(x);
  const auto term = [&](long long i) { return x[static_cast<std::size_t>(i)]; };
  long long added = 0;
  EXPECT_EQ(Bits(seqsum::SumInPieces(term, static_cast<long long>(x.size()), 1024, 32, 1.0, &added)),
            Bits(want));
  // The first chunk (where the sum crosses grids term after term) and the
  // terms around each later crossing, no more.
  EXPECT_LT(added, 4096);
  EXPECT_EQ(Bits(seqsum::SumInPieces(term, static_cast<long long>(x.size()), 1024, 32, 1.01)),
            Bits(want));
  for (double& v : x) v = arith::ToThe4th(v);
  const double want4 = Sequential(x);
  EXPECT_EQ(Bits(seqsum::SumInPieces(term, static_cast<long long>(x.size()), 1024, 32)),
            Bits(want4));
}

TEST(SequentialSum, Adversarial) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double tiny = std::numeric_limits<double>::denorm_min();
  ExpectExact({}, "empty");
  ExpectExact(std::vector<double>(5000, 0.0), "zeros");
  ExpectExact(std::vector<double>(5000, -0.0), "negative zeros");
  {
    std::vector<double> x(6000, 0.0);
    for (std::size_t i = 3000; i < x.size(); ++i) x[i] = u01(rng);
    ExpectExact(x, "zeros, then terms");
  }
  {
    // 1.25, then halves of the spacing of [1, 2): every addition a tie.
    // (Not 1: a sum sitting on a power of two has no sure grid.)
    std::vector<double> x(20000, std::ldexp(1.0, -53));
    x[0] = 1.25;
    for (std::size_t i = 1; i < x.size(); i += 7) x[i] = std::ldexp(3.0, -53);
    // Most of them in steps, not one by one (else the test proves nothing).
    EXPECT_LT(ExpectExact(x, "ties"), 100);
  }
  {
    // Small multiples of a quarter of the spacing around the running sum.
    std::vector<double> x(50000);
    x[0] = 1.25;
    for (std::size_t i = 1; i < x.size(); ++i) x[i] = std::ldexp(static_cast<double>(rng() % 16), -54);
    EXPECT_LT(ExpectExact(x, "quarter spacings"), 100);
  }
  {
    std::vector<double> x(20000);
    for (double& v : x) v = tiny * static_cast<double>(rng() % 1000000);
    ExpectExact(x, "subnormals into normals");
  }
  {
    std::vector<double> x(20000);
    for (double& v : x) v = std::ldexp(u01(rng), static_cast<int>(rng() % 2000) - 1000);
    ExpectExact(x, "every binade, jumps both ways");
  }
  {
    std::vector<double> x(3000);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(1.0 + u01(rng), static_cast<int>(i / 3) - 1074);
    ExpectExact(x, "a binade every few terms");
  }
  {
    std::vector<double> x(30000);
    for (double& v : x) v = (rng() % 5 == 0) ? 0.0 : arith::ToThe4th(u01(rng) * 1e-3);
    x[12345] = 1e300;
    x[20000] = std::numeric_limits<double>::max() / 4;
    ExpectExact(x, "huge jumps");
  }
  {
    std::vector<double> x(30000);
    for (double& v : x) v = u01(rng);
    x[100] = -0.5;
    x[20000] = -1e-3;
    ExpectExact(x, "negative terms (true additions)");
    x[25000] = std::numeric_limits<double>::infinity();
    ExpectExact(x, "infinity");
    x[25000] = std::nan("");
    ExpectExact(x, "NaN");
  }
}

// ---------------------------------------------------------------------------
// Real terms: the six series of every channel of a test pair, per pixel as the
// reference forms them.

cpu::Image3 LinearImage(const std::string& relative) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  const std::string path = testing::TestDataPath(relative);
  cpu::Image3 out;
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    ADD_FAILURE() << path << ": " << image.message;
    return out;
  }
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) {
    ADD_FAILURE() << path << ": " << image.message;
    return out;
  }
  const int w = static_cast<int>(image.width);
  const int h = static_cast<int>(image.height);
  const ImageView view = ImageView::Packed(PixelFormat::kRGB8, w, h, pixels.data(), 3 * w);
  cpu::Image3 linear;
  const Status s = cpu::ToLinearRgb(view, 0.0f, &linear, nullptr);
  EXPECT_TRUE(s.ok()) << s.message();
  replay::ToPositiveXyb(linear, &out);
  return out;
}

TEST(SequentialSum, PerPixelTermsOfTestPairs) {
  const char* const kPairs[][2] = {
      {"images/chelsea_127x255/reference.png", "images/chelsea_127x255/jpeg_q30.png"},
      {"images/rocket_640x360/reference.png", "images/rocket_640x360/jpeg_q10.png"},
      {"images/page_384x191/reference.png", "images/page_384x191/downup2x.png"},
  };
  const BlurConstants& c = GetBlurConstants();
  for (const auto& pair : kPairs) {
    const cpu::Image3 img1 = LinearImage(pair[0]);
    const cpu::Image3 img2 = LinearImage(pair[1]);
    const int w = img1.plane[0].width(), h = img1.plane[0].height();
    for (int ch = 0; ch < 3; ++ch) {
      const cpu::Plane& a = img1.plane[ch];
      const cpu::Plane& b = img2.plane[ch];
      cpu::Plane temp, mu1, mu2, s11, s22, s12, product(w, h);
      replay::Blur(c, a, &temp, &mu1);
      replay::Blur(c, b, &temp, &mu2);
      auto blur_product = [&](const cpu::Plane& p, const cpu::Plane& q, cpu::Plane* dst) {
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) product.Row(y)[x] = p.Row(y)[x] * q.Row(y)[x];
        replay::Blur(c, product, &temp, dst);
      };
      blur_product(a, a, &s11);
      blur_product(b, b, &s22);
      blur_product(a, b, &s12);
      std::vector<double> series[6];
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
          const double d = arith::SsimError(mu1.Row(y)[x], mu2.Row(y)[x], s11.Row(y)[x],
                                            s22.Row(y)[x], s12.Row(y)[x]);
          const double d1 = arith::EdgeDiff(a.Row(y)[x], mu1.Row(y)[x], b.Row(y)[x], mu2.Row(y)[x]);
          const double artifact = std::max(d1, 0.0);
          const double detail_lost = std::max(-d1, 0.0);
          const double terms[6] = {d, arith::ToThe4th(d), artifact, arith::ToThe4th(artifact),
                                   detail_lost, arith::ToThe4th(detail_lost)};
          for (int k = 0; k < 6; ++k) series[k].push_back(terms[k]);
        }
      }
      for (int k = 0; k < 6; ++k) {
        const long long added = ExpectExact(series[k], std::string(pair[1]) + " channel " +
                                                           std::to_string(ch) + " series " +
                                                           std::to_string(k));
        EXPECT_LT(added, static_cast<long long>(series[k].size()) / 10 + 2048);
      }
    }
  }
}

}  // namespace
}  // namespace ssim2
