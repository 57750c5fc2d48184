// The replay of the reference's PQ/HLG conversion (core/src/hdr_transfer.h)
// against the linear values libjxl's ssimulacra2 computes for the same 16-bit
// samples: tests/data/hdr/transfer/*.csv, printed by hdr-reference-probe
// (scripts/make-hdr-reference.sh) from BT.2020 PNGs of 1024 grey codes and
// 1024 random colours. Every sample must match bit for bit. Also HLG with the
// CUDA kernels' replay of glibc's exp and powf (libm_replay.h), and that
// replay against glibc over the arguments HLG gives it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "hdr_transfer.h"
#include "libm_replay.h"
#include "testdata.h"

namespace ssim2 {
namespace {

struct Case {
  const char* file;
  bool pq;
  float peak;  // the intensity target the reference used (cLLi or default)
  bool replayed_libm = false;  // HLG: the kernels' libm (ReplayedLibm), not glibc's
};

float FromHex(const std::string& hex) {
  return arith::BitsFloat(static_cast<std::uint32_t>(std::stoul(hex, nullptr, 16)));
}

void ExpectBitExact(const Case& c) {
  const auto rows = testing::ReadCsvFile(testing::HdrTestDataPath(std::string("transfer/") + c.file));
  ASSERT_EQ(rows.size(), 2048u) << c.file;
  int mismatches = 0;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 6u);
    const auto r = static_cast<std::uint16_t>(std::stoi(row[0]));
    const auto g = static_cast<std::uint16_t>(std::stoi(row[1]));
    const auto b = static_cast<std::uint16_t>(std::stoi(row[2]));
    const hdr::Rgb got =
        c.pq               ? hdr::PqBt2020ToLinearSrgb(r, g, b, c.peak)
        : c.replayed_libm ? hdr::HlgToLinearSrgb<hdr::ReplayedLibm>(
                                 hdr::SampleFromU16(r), hdr::SampleFromU16(g),
                                 hdr::SampleFromU16(b), hdr::MakeHlgOotf(c.peak))
                           : hdr::HlgBt2020ToLinearSrgb(r, g, b, c.peak);
    const float want[3] = {FromHex(row[3]), FromHex(row[4]), FromHex(row[5])};
    const float have[3] = {got.r, got.g, got.b};
    for (int ch = 0; ch < 3; ++ch) {
      if (arith::FloatBits(have[ch]) != arith::FloatBits(want[ch]) && ++mismatches <= 5) {
        ADD_FAILURE() << c.file << " codes " << r << "," << g << "," << b << " channel " << ch << ": replay "
                      << have[ch] << ", reference " << want[ch];
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << c.file;
}

TEST(HdrTransfer, PqMatchesTheReferenceBitForBit) { ExpectBitExact({"pq.csv", true, hdr::kPqDefaultPeak}); }

// A cLLi chunk (MaxCLL 1234.5) changes the intensity target, and with it the
// float rounding of the curve's 10000 / peak factor.
TEST(HdrTransfer, PqWithMaxCllMatchesTheReferenceBitForBit) {
  ExpectBitExact({"pq-clli1234.5.csv", true, 1234.5f});
}

TEST(HdrTransfer, HlgMatchesTheReferenceBitForBit) { ExpectBitExact({"hlg.csv", false, hdr::kHlgPeak}); }

TEST(HdrTransfer, HlgWithTheKernelsLibmMatchesTheReferenceBitForBit) {
  ExpectBitExact({"hlg.csv", false, hdr::kHlgPeak, true});
}

// glibc picks its FMA builds of exp and powf on processors with FMA, which
// is what libm_replay.h replays; elsewhere its SSE2 builds may round a rare
// value differently (and the CPU path then differs from the reference too).
bool GlibcRunsItsFmaBuilds(std::string* why) {
#if defined(__x86_64__) && defined(__GLIBC__)
  if (__builtin_cpu_supports("fma")) return true;
  *why = "this processor has no FMA: glibc runs its SSE2 exp and powf";
  return false;
#else
  *why = "libm_replay.h replays x86-64 glibc's exp and powf";
  return false;
#endif
}

// Every argument HLG's inverse OETF gives exp: (m - c) / a for each float
// m in (0.5, 1].
TEST(LibmReplay, ExpIsGlibcsOnEveryHlgArgument) {
  std::string why;
  if (!GlibcRunsItsFmaBuilds(&why)) GTEST_SKIP() << why;
  const double a = 0.17883277, c = 0.5599107295;
  long long checked = 0, differ = 0;
  for (float m = std::nextafter(0.5f, 1.0f); m <= 1.0f; m = std::nextafter(m, 2.0f)) {
    const double z = (static_cast<double>(m) - c) * (1.0 / a);
    const double want = std::exp(z), got = libm::Exp(z);
    if (arith::DoubleBits(want) != arith::DoubleBits(got) && ++differ <= 5) {
      ADD_FAILURE() << std::hexfloat << "exp(" << z << "): glibc " << want << ", replay " << got;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 1 << 23);
  EXPECT_EQ(differ, 0);
}

// powf(Y, gamma - 1) of HLG's OOTF, Y in [0, 1]: every 127th float (all of
// them agree too; that run takes minutes), the ends, and the special cases
// the replay handles.
TEST(LibmReplay, PowfIsGlibcsForTheHlgExponent) {
  std::string why;
  if (!GlibcRunsItsFmaBuilds(&why)) GTEST_SKIP() << why;
  const float y = hdr::MakeHlgOotf(hdr::kHlgPeak).exponent;
  long long differ = 0;
  auto check = [&](float x) {
    const float want = std::pow(x, y), got = libm::Powf(x, y);
    const bool same = arith::FloatBits(want) == arith::FloatBits(got) ||
                      (std::isnan(want) && std::isnan(got));
    if (!same && ++differ <= 5) {
      ADD_FAILURE() << std::hexfloat << "powf(" << x << ", " << y << "): glibc " << want
                    << ", replay " << got;
    }
  };
  for (std::uint32_t u = 0; u <= 0x3f800000u; u += 127) check(arith::BitsFloat(u));
  for (const float x : {0.0f, -0.0f, 1.0f, 1e-45f, 1.1754942e-38f, 1.1754944e-38f, 3.0f,
                        -0.25f, INFINITY, NAN}) {
    check(x);
  }
  EXPECT_EQ(differ, 0);
}

TEST(HdrTransfer, PqCodeZeroIsNotExactlyBlack) {
  // The rational polynomial's constant terms: p0 / q0, scaled by 10000 / peak.
  EXPECT_EQ(hdr::PqToDisplay(0.0f, 1.0f), 2.62975656e-04f / 4.21350107e+02f);
  EXPECT_GT(hdr::PqToDisplay(0.0f, 1.0f), 0.0f);
}

TEST(HdrTransfer, SkcmsCurveIsExactOnlyAtZeroAndOne) {
  EXPECT_EQ(hdr::SkcmsLinearCurve(0.0f), 0.0f);
  EXPECT_EQ(hdr::SkcmsLinearCurve(1.0f), 1.0f);
  EXPECT_EQ(hdr::SkcmsLinearCurve(-1.0f), -1.0f);
  int inexact = 0;
  double worst = 0.0;
  for (int i = 1; i < 1000; ++i) {
    const float x = static_cast<float>(i) / 997.0f * 3.0f;
    const float y = hdr::SkcmsLinearCurve(x);
    inexact += y != x;
    worst = std::fmax(worst, std::fabs(static_cast<double>(y) / x - 1.0));
    EXPECT_EQ(hdr::SkcmsLinearCurve(-x), -y) << x;  // odd: the sign is stripped and restored
  }
  EXPECT_GT(inexact, 900);
  EXPECT_LT(worst, 2e-4);
  std::printf("skcms linear curve: max relative error %.3g\n", worst);
}

TEST(HdrTransfer, HlgSystemGammaFollowsThePeak) {
  // 1000 * 1e-3f rounds to 1.0f, so the gamma is exactly 1.2f at 1000 cd/m².
  EXPECT_EQ(hdr::MakeHlgOotf(1000.0f).exponent, 1.2f - 1);
  EXPECT_FALSE(hdr::MakeHlgOotf(1000.0f).skip);
  EXPECT_TRUE(hdr::MakeHlgOotf(300.0f).skip);
  EXPECT_GT(hdr::MakeHlgOotf(2000.0f).exponent, hdr::MakeHlgOotf(1000.0f).exponent);
}

TEST(HdrTransfer, PremultipliedOpsinIsTheSdrMatrixAtPeak255) {
  float m[9];
  hdr::PremultipliedOpsin(255.0f, m);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(m[i], kOpsin[i]) << i;  // SDR's XYB is unchanged
}

}  // namespace
}  // namespace ssim2
