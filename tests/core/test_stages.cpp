// Single stages of the metric against independent computations: textbook
// formulas and float64 models written here from the published definitions,
// not from the library's code. Tolerances reflect float32 vs float64.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "arith.h"
#include "blur_constants.h"
#include "constants.h"
#include "cpu/kernels.h"
#include "cpu/planes.h"
#include "cpu/reference_replay.h"
#include "cpu/thread_pool.h"
#include "hdr_transfer.h"
#include "plan.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace {

// ---------------------------------------------------------------- sRGB curve

double TextbookSrgbToLinear(double v) {
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

TEST(SrgbCurve, CloseToTheTextbookFormulaEverywhere) {
  double worst = 0.0;
  for (int i = 0; i <= 100000; ++i) {
    const float x = static_cast<float>(i) / 100000.0f;
    const double diff = std::fabs(arith::SrgbToLinear(x) - TextbookSrgbToLinear(x));
    worst = std::max(worst, diff);
  }
  EXPECT_LE(worst, 1e-6);
  std::printf("sRGB curve: max |approximation - textbook| = %.3g\n", worst);
}

TEST(SrgbCurve, ExactValues) {
  // 0 and the end of the range.
  EXPECT_EQ(arith::SrgbToLinear(0.0f), 0.0f);
  EXPECT_NEAR(arith::SrgbToLinear(1.0f), 1.0f, 1e-6f);
  // Below the threshold the curve is the linear segment x / 12.92, computed
  // in float as x times the float reciprocal.
  for (float x : {1.0f / 255, 5.0f / 255, 0.04f, 0.04045f}) {
    EXPECT_EQ(arith::SrgbToLinear(x), x * (1.0f / 12.92f)) << x;
  }
  // Odd symmetry: the sign is stripped and put back.
  for (float x : {0.01f, 0.3f, 0.9f})
    EXPECT_EQ(arith::SrgbToLinear(-x), -arith::SrgbToLinear(x)) << x;
}

// ----------------------------------------------------------------------- XYB

struct Xyb64 {
  double x, y, b;
};

// The positive XYB of the notes (opsin matrix, bias, exact cube root), in
// double.
Xyb64 PositiveXyb64(double r, double g, double b) {
  const double m[9] = {0.30, 0.622, 0.078, 0.23, 0.692, 0.078,
                       0.24342268924547819, 0.20476744424496821, 0.5518098665095536};
  const double bias = 0.0037930732552754493;
  double mixed[3];
  for (int i = 0; i < 3; ++i) {
    const double v = m[3 * i] * r + m[3 * i + 1] * g + m[3 * i + 2] * b + bias;
    mixed[i] = std::cbrt(std::max(v, 0.0)) - std::cbrt(bias);
  }
  const double x = 0.5 * (mixed[0] - mixed[1]);
  const double y = 0.5 * (mixed[0] + mixed[1]);
  return {x * 14.0 + 0.42, y + 0.01, (mixed[2] - y) + 0.55};
}

TEST(Xyb, KnownColoursMatchAFloat64Model) {
  const float neg_cbrt_bias = -std::cbrt(kOpsinBias);
  const float colours[][3] = {{0, 0, 0}, {1, 1, 1}, {1, 0, 0}, {0, 1, 0},
                              {0, 0, 1}, {0.18f, 0.18f, 0.18f}, {0.5f, 0.2f, 0.9f}};
  for (const auto& c : colours) {
    const arith::Xyb got = arith::LinearToPositiveXyb(c[0], c[1], c[2], neg_cbrt_bias);
    const Xyb64 want = PositiveXyb64(c[0], c[1], c[2]);
    EXPECT_NEAR(got.x, want.x, 1e-5) << c[0] << "," << c[1] << "," << c[2];
    EXPECT_NEAR(got.y, want.y, 1e-5) << c[0] << "," << c[1] << "," << c[2];
    EXPECT_NEAR(got.b, want.b, 1e-5) << c[0] << "," << c[1] << "," << c[2];
  }
  // Black: mixed = bias, so the cube roots cancel and X, Y, B are the offsets.
  const arith::Xyb black = arith::LinearToPositiveXyb(0, 0, 0, neg_cbrt_bias);
  EXPECT_NEAR(black.x, 0.42f, 1e-6f);
  EXPECT_NEAR(black.y, 0.01f, 1e-6f);
  EXPECT_NEAR(black.b, 0.55f, 1e-6f);
}

// ---------------------------------------------------------------------- blur

// The 9-tap FIR that the recursive Gaussian equals in exact arithmetic
// (taps from the notes), with zero padding.
const double kFirTaps[5] = {0.264621105488199, 0.212928592010422, 0.10933537277746,
                            0.0360111146583644, 0.00941436780965373};

std::vector<double> Fir(const std::vector<float>& in) {
  const int n = static_cast<int>(in.size());
  std::vector<double> out(n, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int k = -4; k <= 4; ++k) {
      if (i + k >= 0 && i + k < n) out[i] += kFirTaps[std::abs(k)] * in[i + k];
    }
  }
  return out;
}

std::vector<float> RandomSamples(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

class BlurSizes : public ::testing::TestWithParam<int> {};

TEST_P(BlurSizes, RowPassMatchesTheFir) {
  const int n = GetParam();
  const std::vector<float> in = RandomSamples(n, 7 + n);
  std::vector<float> out(n);
  replay::BlurRow(GetBlurConstants(), in.data(), n, out.data());
  const std::vector<double> want = Fir(in);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], want[i], 1e-5) << "x = " << i << " of " << n;
}

TEST_P(BlurSizes, ColumnPassMatchesTheFir) {
  const int h = GetParam();
  const int w = 3;
  const std::size_t stride = 5;  // not the width: the stride is honoured
  std::vector<float> plane(stride * h, 0.0f), out(stride * h, -1.0f);
  for (int x = 0; x < w; ++x) {
    const std::vector<float> column = RandomSamples(h, 100 * x + h);
    for (int y = 0; y < h; ++y) plane[stride * y + x] = column[y];
  }
  replay::BlurColumns(GetBlurConstants(), plane.data(), w, h, stride, out.data());
  for (int x = 0; x < w; ++x) {
    std::vector<float> column(h);
    for (int y = 0; y < h; ++y) column[y] = plane[stride * y + x];
    const std::vector<double> want = Fir(column);
    for (int y = 0; y < h; ++y)
      ASSERT_NEAR(out[stride * y + x], want[y], 1e-5) << "x " << x << " y " << y << " of " << h;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, BlurSizes, ::testing::Values(8, 9, 17, 63, 1921));

TEST(Blur, ImpulseResponseIsTheFirTaps) {
  std::vector<float> in(41, 0.0f), out(41);
  in[20] = 1.0f;
  replay::BlurRow(GetBlurConstants(), in.data(), 41, out.data());
  for (int k = -4; k <= 4; ++k) EXPECT_NEAR(out[20 + k], kFirTaps[std::abs(k)], 1e-6) << k;
  EXPECT_NEAR(out[15], 0.0, 1e-6);
  EXPECT_NEAR(out[25], 0.0, 1e-6);
}

// ---------------------------------------------------------------- downsample

TEST(Downsample, OddSizesAverageTheClampedBlock) {
  for (const auto& size : {std::pair<int, int>{9, 7}, {17, 33}, {8, 8}, {1, 3}, {5, 1}}) {
    const int w = size.first, h = size.second;
    cpu::Image3 in, out;
    in.Resize(w, h);
    for (int c = 0; c < 3; ++c) {
      const std::vector<float> v = RandomSamples(w * h, 31 * c + w + 1000 * h);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) in.plane[c].Row(y)[x] = v[y * w + x];
    }
    replay::Downsample(in, &out);
    ASSERT_EQ(out.width(), (w + 1) / 2);
    ASSERT_EQ(out.height(), (h + 1) / 2);
    for (int c = 0; c < 3; ++c) {
      for (int oy = 0; oy < out.height(); ++oy) {
        for (int ox = 0; ox < out.width(); ++ox) {
          double sum = 0.0;
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx)
              sum += in.plane[c].Row(std::min(2 * oy + dy, h - 1))[std::min(2 * ox + dx, w - 1)];
          EXPECT_NEAR(out.plane[c].Row(oy)[ox], sum / 4.0, 1e-6)
              << w << "x" << h << " c" << c << " (" << ox << "," << oy << ")";
        }
      }
    }
  }
}

// -------------------------------------------------------------------- scales

// Expected counts worked out by hand from the rule "at the top of iteration
// s, stop if scale s-1 is under 8 in either dimension":
//   8x8: 8x8, 4x4 -> 2            17x33: 17x33, 9x17, 5x9 -> 3
//   20x20: 20, 10, 5 -> 3         64x64: 64, 32, 16, 8, 4 -> 5
//   112x113: 112x113, 56x57, 28x29, 14x15, 7x8 -> 5 (7 < 8 stops)
//   113x113: 113, 57, 29, 15, 8, 4 -> 6       1920x1080: capped at 6
TEST(Scales, CountsFollowTheReferenceRule) {
  EXPECT_EQ(NumScales(8, 8), 2);
  EXPECT_EQ(NumScales(17, 33), 3);
  EXPECT_EQ(NumScales(20, 20), 3);
  EXPECT_EQ(NumScales(64, 64), 5);
  EXPECT_EQ(NumScales(112, 113), 5);
  EXPECT_EQ(NumScales(113, 112), 5);
  EXPECT_EQ(NumScales(113, 113), 6);
  EXPECT_EQ(NumScales(1920, 1080), 6);
}

TEST(Scales, PlanSizesHalveRoundingUp) {
  const MetricPlan plan = MakePlan(17, 33, false);
  ASSERT_EQ(plan.num_scales, 3);
  EXPECT_EQ(plan.scales[1].width, 9);
  EXPECT_EQ(plan.scales[1].height, 17);
  EXPECT_EQ(plan.scales[2].width, 5);
  EXPECT_EQ(plan.scales[2].height, 9);
}

// ------------------------------------------------------------ CPU kernels

void FillPlane(cpu::Plane* p, int w, int h, unsigned seed, float lo, float hi) {
  p->Resize(w, h);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) p->Row(y)[x] = dist(rng);
}

// Bitwise equality of the first `w` floats of every row.
void ExpectSamePlane(const cpu::Plane& a, const cpu::Plane& b, const char* what) {
  ASSERT_EQ(a.width(), b.width());
  ASSERT_EQ(a.height(), b.height());
  for (int y = 0; y < a.height(); ++y)
    ASSERT_EQ(std::memcmp(a.Row(y), b.Row(y), sizeof(float) * a.width()), 0)
        << what << ": row " << y << " differs (" << a.width() << "x" << a.height() << ")";
}

const std::pair<int, int> kOddSizes[] = {{17, 13}, {63, 9}, {129, 31}, {8, 8}, {1001, 3}};

void CompareTables(const cpu::KernelTable& a, const cpu::KernelTable& b) {
  const BlurConstants& c = GetBlurConstants();
  const float neg_cbrt_bias = -std::cbrt(kOpsinBias);
  for (const auto& size : kOddSizes) {
    const int w = size.first, h = size.second;
    SCOPED_TRACE(::testing::Message() << a.isa << " vs " << b.isa << " at " << w << "x" << h);
    cpu::Plane in, in2, out_a, out_b;
    FillPlane(&in, w, h, w * 7 + h, 0.0f, 1.0f);
    FillPlane(&in2, w, h, w * 11 + h, 0.0f, 1.0f);
    out_a.Resize(w, h);
    out_b.Resize(w, h);
    a.blur_rows(c, in, 0, h, &out_a);
    b.blur_rows(c, in, 0, h, &out_b);
    ExpectSamePlane(out_a, out_b, "blur_rows");
    a.blur_columns(c, in, 0, w, &out_a);
    b.blur_columns(c, in, 0, w, &out_b);
    ExpectSamePlane(out_a, out_b, "blur_columns");
    a.multiply_rows(in, in2, 0, h, &out_a);
    b.multiply_rows(in, in2, 0, h, &out_b);
    ExpectSamePlane(out_a, out_b, "multiply_rows");

    cpu::Image3 linear, xyb_a, xyb_b;
    linear.Resize(w, h);
    for (int ch = 0; ch < 3; ++ch) FillPlane(&linear.plane[ch], w, h, 5 * ch + w, 0.0f, 1.0f);
    xyb_a.Resize(w, h);
    xyb_b.Resize(w, h);
    a.to_xyb_rows(linear, 0, h, kOpsin, neg_cbrt_bias, &xyb_a);
    b.to_xyb_rows(linear, 0, h, kOpsin, neg_cbrt_bias, &xyb_b);
    for (int ch = 0; ch < 3; ++ch) ExpectSamePlane(xyb_a.plane[ch], xyb_b.plane[ch], "to_xyb_rows");
    // An HDR image's matrix (PQ with a MaxCLL of 1234.5 cd/m2) on linear
    // light beyond 1 and below 0, as BT.2020 content gives.
    float hdr_opsin[9];
    hdr::PremultipliedOpsin(1234.5f, hdr_opsin);
    for (int ch = 0; ch < 3; ++ch) FillPlane(&linear.plane[ch], w, h, 3 * ch + h, -0.2f, 40.0f);
    a.to_xyb_rows(linear, 0, h, hdr_opsin, neg_cbrt_bias, &xyb_a);
    b.to_xyb_rows(linear, 0, h, hdr_opsin, neg_cbrt_bias, &xyb_b);
    for (int ch = 0; ch < 3; ++ch) {
      ExpectSamePlane(xyb_a.plane[ch], xyb_b.plane[ch], "to_xyb_rows, HDR matrix");
    }

    // Error maps of one row from plausible blurred statistics.
    cpu::Plane mu1, mu2, s11, s22, s12;
    FillPlane(&mu1, w, 1, 1, 0.0f, 0.6f);
    FillPlane(&mu2, w, 1, 2, 0.0f, 0.6f);
    FillPlane(&s11, w, 1, 3, 0.0f, 0.5f);
    FillPlane(&s22, w, 1, 4, 0.0f, 0.5f);
    FillPlane(&s12, w, 1, 5, 0.0f, 0.5f);
    std::vector<double> d_a(w), d_b(w);
    a.ssim_row(mu1.Row(0), mu2.Row(0), s11.Row(0), s22.Row(0), s12.Row(0), w, d_a.data());
    b.ssim_row(mu1.Row(0), mu2.Row(0), s11.Row(0), s22.Row(0), s12.Row(0), w, d_b.data());
    EXPECT_EQ(std::memcmp(d_a.data(), d_b.data(), sizeof(double) * w), 0) << "ssim_row";
    a.edge_row(in.Row(0), mu1.Row(0), in2.Row(0), mu2.Row(0), w, d_a.data());
    b.edge_row(in.Row(0), mu1.Row(0), in2.Row(0), mu2.Row(0), w, d_b.data());
    EXPECT_EQ(std::memcmp(d_a.data(), d_b.data(), sizeof(double) * w), 0) << "edge_row";
  }
}

TEST(Kernels, Avx2IsBitIdenticalToGeneric) {
  const cpu::KernelTable* avx2 = cpu::Avx2Kernels();
  if (avx2 == nullptr) GTEST_SKIP() << "no AVX2+FMA kernels on this build/processor";
  CompareTables(*avx2, cpu::GenericKernels());
}

// The optimised blur against the scalar replay (the oracle of the reference's
// loop order).
TEST(Kernels, BestBlurEqualsTheReplay) {
  const cpu::KernelTable& k = cpu::BestKernels();
  const BlurConstants& c = GetBlurConstants();
  for (const auto& size : kOddSizes) {
    const int w = size.first, h = size.second;
    cpu::Plane in, temp, want, got_rows, got;
    FillPlane(&in, w, h, 3 * w + h, 0.0f, 1.0f);
    replay::Blur(c, in, &temp, &want);
    got_rows.Resize(w, h);
    got.Resize(w, h);
    k.blur_rows(c, in, 0, h, &got_rows);
    k.blur_columns(c, got_rows, 0, w, &got);
    ExpectSamePlane(got, want, "blur vs replay");
  }
}

// The band-wise forms of the blur (row lists with the product taken on the
// fly, the vertical recursion resumed from its saved state, columns written
// to a strip buffer) against the whole-plane replay, for band splits that
// cut through the start and end of the columns' windows.
void ExpectStreamedBlurEqualsTheReplay(const cpu::KernelTable& k) {
  const BlurConstants& c = GetBlurConstants();
  const std::pair<int, int> sizes[] = {{17, 13}, {129, 31}, {8, 8}, {200, 70}, {70, 3}};
  for (const auto& size : sizes) {
    const int w = size.first, h = size.second;
    cpu::Plane a, b, product, temp, want, rows, got, state;
    FillPlane(&a, w, h, 3 * w + h, 0.0f, 1.0f);
    FillPlane(&b, w, h, 5 * w + h, 0.0f, 1.0f);
    product.Resize(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) product.Row(y)[x] = a.Row(y)[x] * b.Row(y)[x];
    replay::Blur(c, product, &temp, &want);

    rows.Resize(w, h);
    for (int y0 = 0; y0 < h; y0 += 8) {
      const float* pa[8];
      const float* pb[8];
      float* out[8];
      const int count = std::min(8, h - y0);
      for (int i = 0; i < count; ++i) {
        pa[i] = a.Row(y0 + i);
        pb[i] = b.Row(y0 + i);
        out[i] = rows.Row(y0 + i);
      }
      k.blur_row_list(c, pa, pb, count, w, out);
    }
    cpu::Plane want_rows;
    want_rows.Resize(w, h);
    for (int y = 0; y < h; ++y) replay::BlurRow(c, product.Row(y), w, want_rows.Row(y));
    ExpectSamePlane(rows, want_rows, "blur_row_list");

    for (const int band : {1, 5, 7, 16, 1000}) {
      SCOPED_TRACE(::testing::Message() << k.isa << " " << w << "x" << h << " band " << band);
      got.Resize(w, h);
      state.Resize(w, 6);
      for (int r = 0; r < 6; ++r) std::fill(state.Row(r), state.Row(r) + state.stride(), 0.0f);
      constexpr int kStrip = 64;
      std::vector<float> strip(static_cast<std::size_t>(kStrip) * h);
      for (int n0 = 1 - c.radius; n0 < h; n0 += band) {
        const int n1 = std::min(h, n0 + band);
        for (int x0 = 0; x0 < w; x0 += kStrip) {
          const int x1 = std::min(w, x0 + kStrip);
          cpu::ColumnStream cs;
          cs.in = cpu::RowRing{rows.Row(0), rows.stride(), h};
          cs.out = cpu::RowRing{strip.data(), kStrip, h};
          cs.out_first_column = x0;
          cs.state = state.Row(0);
          cs.state_stride = state.stride();
          cs.height = h;
          k.blur_columns_stream(c, cs, n0, n1, x0, x1);
          for (int n = std::max(0, n0); n < n1; ++n)
            std::memcpy(got.Row(n) + x0, strip.data() + kStrip * n, sizeof(float) * (x1 - x0));
        }
      }
      ExpectSamePlane(got, want, "blur_columns_stream");
    }
  }
}

TEST(Kernels, StreamedBlurEqualsTheReplay) {
  ExpectStreamedBlurEqualsTheReplay(cpu::GenericKernels());
  if (const cpu::KernelTable* avx2 = cpu::Avx2Kernels()) ExpectStreamedBlurEqualsTheReplay(*avx2);
}

TEST(Kernels, XybRowEqualsTheRowsForm) {
  const float neg_cbrt_bias = -std::cbrt(kOpsinBias);
  const int w = 37, h = 3;
  cpu::Image3 linear, want, got;
  linear.Resize(w, h);
  for (int ch = 0; ch < 3; ++ch) FillPlane(&linear.plane[ch], w, h, 9 * ch + 1, 0.0f, 1.0f);
  want.Resize(w, h);
  got.Resize(w, h);
  for (const cpu::KernelTable* k : {&cpu::GenericKernels(), cpu::Avx2Kernels()}) {
    if (!k) continue;
    replay::ToPositiveXyb(linear, &want);
    for (int y = 0; y < h; ++y) {
      k->to_xyb_row(linear.plane[0].Row(y), linear.plane[1].Row(y), linear.plane[2].Row(y), w,
                    kOpsin, neg_cbrt_bias, got.plane[0].Row(y), got.plane[1].Row(y), got.plane[2].Row(y));
    }
    for (int ch = 0; ch < 3; ++ch) ExpectSamePlane(got.plane[ch], want.plane[ch], k->isa);
  }
}

// ------------------------------------------------------------ thread pool

// Rounds follow each other closely (the pipeline runs hundreds per pair):
// every task of every round runs exactly once, with an index in range, on a
// thread whose ThreadIndex is in range. Many rounds of two to four empty
// tasks give a worker leaving one round the chance to claim a task of the
// next before it is published (which once ran a task twice and then waited
// for ever: the test then hangs until meson's timeout).
TEST(ThreadPool, EveryTaskRunsOnceInEveryRound) {
  for (const int threads : {1, 2, 3, 8}) {
    cpu::ThreadPool pool(threads);
    for (int round = 0; round < 100000; ++round) {
      const int count = 2 + round % 3;
      std::atomic<int> runs[4] = {};
      std::atomic<int> bad{0};
      pool.ParallelFor(count, [&](int i) {
        const int t = pool.ThreadIndex();
        if (i < 0 || i >= count || t < 0 || t >= pool.size()) {
          bad.fetch_add(1);
          return;
        }
        runs[i].fetch_add(1);
      });
      ASSERT_EQ(bad.load(), 0) << threads << " threads, round " << round;
      for (int i = 0; i < count; ++i) {
        ASSERT_EQ(runs[i].load(), 1) << threads << " threads, round " << round << ", task " << i;
      }
    }
  }
}

// ------------------------------------------------------------ band pipeline

// Smooth content with edges and noise, so every map carries signal.
std::vector<std::uint8_t> SyntheticImage(int w, int h, int channels, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-12, 12);
  std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h * channels);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int c = 0; c < channels; ++c) {
        const int base = 128 + static_cast<int>(90 * std::sin(0.05 * x + 0.03 * y + c)) +
                         ((x / 16 + y / 16) % 2 ? 20 : -20);
        px[(static_cast<std::size_t>(y) * w + x) * channels + c] =
            static_cast<std::uint8_t>(std::clamp(base + noise(rng), 0, 255));
      }
    }
  }
  return px;
}

void ExpectSameResult(const Result& got, const Result& want, const char* what) {
  ASSERT_EQ(got.num_scales, want.num_scales) << what;
  EXPECT_EQ(std::memcmp(got.features, want.features, sizeof(got.features)), 0) << what;
  EXPECT_EQ(got.score, want.score) << what;
}

// The band-wise CPU pipeline gives the replay's sub-scores bit for bit for
// any thread count (which sets the band height), for heights that end bands
// anywhere in the vertical blur's window, one-shot and with a cached
// reference (used twice), with and without alpha, for the weighted maps only
// (where the cache keeps less) and for all of them.
TEST(Pipeline, BandsThreadsAndCacheKeepEverySubScore) {
  // 45x1030 and 31x1600: tall enough for 40- and 64-row bands with more than
  // two threads.
  const std::pair<int, int> sizes[] = {{300, 277}, {1100, 41}, {97, 64}, {8, 8},
                                       {23, 133},  {45, 1030}, {31, 1600}};
  for (const auto& size : sizes) {
    const int w = size.first, h = size.second;
    for (const int channels : {3, 4}) {
      const PixelFormat format = channels == 4 ? PixelFormat::kRGBA8 : PixelFormat::kRGB8;
      const std::vector<std::uint8_t> ref = SyntheticImage(w, h, channels, 1);
      const std::vector<std::uint8_t> dist = SyntheticImage(w, h, channels, 2);
      const ImageView a = ImageView::Packed(format, w, h, ref.data(), w * channels);
      const ImageView b = ImageView::Packed(format, w, h, dist.data(), w * channels);
      for (const bool all_features : {true, false}) {
        Result want;
        ASSERT_TRUE(replay::Compute(a, b, all_features, &want).ok());
        for (const int threads : {1, 2, 16}) {
          SCOPED_TRACE(::testing::Message() << w << "x" << h << " " << PixelFormatName(format)
                                            << " threads " << threads << " all features "
                                            << all_features);
          ScorerOptions options;
          options.backend = Backend::kCpu;
          options.all_features = all_features;
          options.cpu_threads = threads;
          std::unique_ptr<Scorer> scorer;
          ASSERT_TRUE(Scorer::Create(w, h, options, &scorer).ok());
          Result got;
          ASSERT_TRUE(scorer->Compute(a, b, &got).ok());
          ExpectSameResult(got, want, "one-shot");
          ASSERT_TRUE(scorer->SetReference(a).ok());
          for (int repeat = 0; repeat < 2; ++repeat) {
            Result cached;
            ASSERT_TRUE(scorer->ComputeWithReference(b, &cached).ok());
            ExpectSameResult(cached, want, "cached reference");
          }
        }
      }
    }
  }
}

// PQ and HLG inputs, each image with its own intensity target (a PQ
// reference with MaxCLL, a PQ distorted image without; an HLG pair), with and
// without alpha: the pipeline, one-shot and cached, gives the replay's
// sub-scores, so each image's opsin matrix reaches every scale.
TEST(Pipeline, HdrImagesKeepTheirOwnIntensityTarget) {
  const int w = 97, h = 70;
  for (const Transfer transfer : {Transfer::kPq, Transfer::kHlg}) {
    for (const int channels : {3, 4}) {
      const PixelFormat format = channels == 4 ? PixelFormat::kRGBA16 : PixelFormat::kRGB16;
      auto wide = [&](unsigned seed) {
        const std::vector<std::uint8_t> px = SyntheticImage(w, h, channels, seed);
        std::vector<std::uint16_t> out(px.size());
        for (std::size_t i = 0; i < px.size(); ++i) {
          out[i] = static_cast<std::uint16_t>(px[i] * 257 + i % 200);
        }
        return out;
      };
      const std::vector<std::uint16_t> ref = wide(3), dist = wide(4);
      ImageView a = ImageView::Packed(format, w, h, ref.data(), 2 * w * channels);
      ImageView b = ImageView::Packed(format, w, h, dist.data(), 2 * w * channels);
      a.color.transfer = b.color.transfer = transfer;
      a.color.primaries = b.color.primaries = Primaries::kBT2020;
      a.color.max_cll = 1501.0f;
      SCOPED_TRACE(::testing::Message() << TransferName(transfer) << " " << PixelFormatName(format));
      Result want, no_cll;
      ASSERT_TRUE(replay::Compute(a, b, true, &want).ok());
      ScorerOptions options;
      options.backend = Backend::kCpu;
      options.all_features = true;
      options.cpu_threads = 2;
      std::unique_ptr<Scorer> scorer;
      ASSERT_TRUE(Scorer::Create(w, h, options, &scorer).ok());
      Result got, cached;
      ASSERT_TRUE(scorer->Compute(a, b, &got).ok());
      ExpectSameResult(got, want, "one-shot");
      ASSERT_TRUE(scorer->SetReference(a).ok());
      ASSERT_TRUE(scorer->ComputeWithReference(b, &cached).ok());
      ExpectSameResult(cached, want, "cached reference");
      // The reference's MaxCLL is used for PQ only.
      a.color.max_cll = 0.0f;
      ASSERT_TRUE(scorer->Compute(a, b, &no_cll).ok());
      if (transfer == Transfer::kPq) {
        EXPECT_NE(no_cll.score, want.score);
      } else {
        EXPECT_EQ(no_cll.score, want.score);
      }
    }
  }
}

// ------------------------------------------------------------------- alpha

// The production scorer applies the reference tool's alpha rule (two
// backgrounds, lower score) like the scalar replay does.
TEST(Alpha, ScorerMatchesTheReplayOnTranslucentImages) {
  const int w = 23, h = 19;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> ref(w * h * 4), dist(w * h * 4);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ref[i] = static_cast<std::uint8_t>(byte(rng));
    dist[i] = static_cast<std::uint8_t>(std::min(255, ref[i] + byte(rng) % 20));
  }
  for (const PixelFormat distorted_format : {PixelFormat::kRGBA8, PixelFormat::kRGBX8}) {
    const ImageView a = ImageView::Packed(PixelFormat::kRGBA8, w, h, ref.data(), w * 4);
    const ImageView b = ImageView::Packed(distorted_format, w, h, dist.data(), w * 4);
    Result oracle, got;
    ASSERT_TRUE(replay::Compute(a, b, false, &oracle).ok());
    ScorerOptions options;
    options.backend = Backend::kCpu;
    ASSERT_TRUE(ComputeSsimulacra2(a, b, options, &got).ok());
    EXPECT_EQ(got.score, oracle.score) << PixelFormatName(distorted_format);
    EXPECT_LT(got.score, 100.0);
  }
}

}  // namespace
}  // namespace ssim2
