// Input formats that should, by the reference's rules, give the same score as
// plain RGB8: opaque alpha, grey = R=G=B, and the 16-bit variants of each.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace {

constexpr int kW = 37;
constexpr int kH = 29;

// A smooth pattern with some noise, so that every map is non-trivial.
std::vector<std::uint8_t> MakeRgb(unsigned seed, int noise) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> n(-noise, noise);
  std::vector<std::uint8_t> rgb(kW * kH * 3);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      for (int c = 0; c < 3; ++c) {
        const int base = static_cast<int>(127 + 100 * std::sin(0.2 * x + 0.3 * y + c));
        rgb[(y * kW + x) * 3 + c] = static_cast<std::uint8_t>(std::min(255, std::max(0, base + n(rng))));
      }
    }
  }
  return rgb;
}

// Converts packed 8-bit RGB into another layout (grey takes the R channel).
template <typename T>
std::vector<T> Repack(const std::vector<std::uint8_t>& rgb, int channels, bool grey, T scale,
                      T alpha) {
  std::vector<T> out;
  for (int i = 0; i < kW * kH; ++i) {
    if (grey) {
      out.push_back(static_cast<T>(rgb[3 * i] * scale));
    } else {
      for (int c = 0; c < 3; ++c) out.push_back(static_cast<T>(rgb[3 * i + c] * scale));
    }
    if (channels == (grey ? 2 : 4)) out.push_back(alpha);
  }
  return out;
}

double Score(PixelFormat format, const void* ref, const void* dist, std::ptrdiff_t stride) {
  ScorerOptions options;
  options.backend = Backend::kCpu;
  Result r;
  const Status s = ComputeSsimulacra2(ImageView::Packed(format, kW, kH, ref, stride),
                                      ImageView::Packed(format, kW, kH, dist, stride), options, &r);
  EXPECT_TRUE(s.ok()) << PixelFormatName(format) << ": " << s.message();
  return r.score;
}

struct Inputs {
  std::vector<std::uint8_t> ref = MakeRgb(1, 3);
  std::vector<std::uint8_t> dist = MakeRgb(2, 12);
  // Grey sources: R copied into G and B.
  std::vector<std::uint8_t> ref_grey = Greyed(ref);
  std::vector<std::uint8_t> dist_grey = Greyed(dist);

  static std::vector<std::uint8_t> Greyed(std::vector<std::uint8_t> v) {
    for (std::size_t i = 0; i < v.size(); i += 3) v[i + 1] = v[i + 2] = v[i];
    return v;
  }
};

TEST(Formats, OpaqueAlphaScoresLikeRgb8) {
  Inputs in;
  const double rgb = Score(PixelFormat::kRGB8, in.ref.data(), in.dist.data(), kW * 3);
  ASSERT_LT(rgb, 99.0);  // a real distortion, not a trivial 100
  const auto ref4 = Repack<std::uint8_t>(in.ref, 4, false, 1, 255);
  const auto dist4 = Repack<std::uint8_t>(in.dist, 4, false, 1, 255);
  EXPECT_EQ(Score(PixelFormat::kRGBA8, ref4.data(), dist4.data(), kW * 4), rgb);
}

TEST(Formats, Grey8ScoresLikeRgb8WithEqualChannels) {
  Inputs in;
  const double rgb = Score(PixelFormat::kRGB8, in.ref_grey.data(), in.dist_grey.data(), kW * 3);
  const auto ref1 = Repack<std::uint8_t>(in.ref, 1, true, 1, 0);
  const auto dist1 = Repack<std::uint8_t>(in.dist, 1, true, 1, 0);
  EXPECT_EQ(Score(PixelFormat::kGray8, ref1.data(), dist1.data(), kW), rgb);
  const auto ref2 = Repack<std::uint8_t>(in.ref, 2, true, 1, 255);
  const auto dist2 = Repack<std::uint8_t>(in.dist, 2, true, 1, 255);
  EXPECT_EQ(Score(PixelFormat::kGrayAlpha8, ref2.data(), dist2.data(), kW * 2), rgb);
}

TEST(Formats, SixteenBitVariantsAgreeWithEachOther) {
  Inputs in;
  // 8-bit values times 257 are the same levels in 16 bits.
  const auto ref3 = Repack<std::uint16_t>(in.ref_grey, 3, false, 257, 0);
  const auto dist3 = Repack<std::uint16_t>(in.dist_grey, 3, false, 257, 0);
  const double rgb16 = Score(PixelFormat::kRGB16, ref3.data(), dist3.data(), kW * 6);
  const auto ref4 = Repack<std::uint16_t>(in.ref_grey, 4, false, 257, 65535);
  const auto dist4 = Repack<std::uint16_t>(in.dist_grey, 4, false, 257, 65535);
  EXPECT_EQ(Score(PixelFormat::kRGBA16, ref4.data(), dist4.data(), kW * 8), rgb16);
  const auto ref1 = Repack<std::uint16_t>(in.ref, 1, true, 257, 0);
  const auto dist1 = Repack<std::uint16_t>(in.dist, 1, true, 257, 0);
  EXPECT_EQ(Score(PixelFormat::kGray16, ref1.data(), dist1.data(), kW * 2), rgb16);
  const auto ref2 = Repack<std::uint16_t>(in.ref, 2, true, 257, 65535);
  const auto dist2 = Repack<std::uint16_t>(in.dist, 2, true, 257, 65535);
  EXPECT_EQ(Score(PixelFormat::kGrayAlpha16, ref2.data(), dist2.data(), kW * 4), rgb16);
  // 16-bit input rounds differently from 8-bit (1/65535 vs 1/255 in float),
  // so the score is close to, not equal to, the 8-bit one.
  const double rgb8 = Score(PixelFormat::kRGB8, in.ref_grey.data(), in.dist_grey.data(), kW * 3);
  EXPECT_NEAR(rgb16, rgb8, 0.5);
}

TEST(Formats, IdenticalInputsScoreExactly100) {
  Inputs in;
  EXPECT_EQ(Score(PixelFormat::kRGB8, in.dist.data(), in.dist.data(), kW * 3), 100.0);
  // A copy, not the same buffer.
  const std::vector<std::uint8_t> copy = in.dist;
  EXPECT_EQ(Score(PixelFormat::kRGB8, in.dist.data(), copy.data(), kW * 3), 100.0);
  const auto a = Repack<std::uint8_t>(in.ref, 4, false, 1, 128);
  EXPECT_EQ(Score(PixelFormat::kRGBA8, a.data(), a.data(), kW * 4), 100.0);
}

TEST(Formats, FullyTransparentImagesAreIdentical) {
  // With alpha 0 both images blend to the plain background.
  Inputs in;
  const auto ref4 = Repack<std::uint8_t>(in.ref, 4, false, 1, 0);
  const auto dist4 = Repack<std::uint8_t>(in.dist, 4, false, 1, 0);
  EXPECT_EQ(Score(PixelFormat::kRGBA8, ref4.data(), dist4.data(), kW * 4), 100.0);
}

TEST(Formats, PairChecksFollowTheReference) {
  std::vector<std::uint8_t> px(16 * 16 * 3, 100);
  ScorerOptions options;
  options.backend = Backend::kCpu;
  Result r;
  // Reference 7 wide: too small, whatever the distorted image is.
  Status s = ComputeSsimulacra2(ImageView::Packed(PixelFormat::kRGB8, 7, 8, px.data(), 48),
                                ImageView::Packed(PixelFormat::kRGB8, 16, 16, px.data(), 48),
                                options, &r);
  EXPECT_EQ(s.code(), StatusCode::kImageTooSmall);
  // 8x8 reference, 7x7 distorted: a size mismatch, not "too small".
  s = ComputeSsimulacra2(ImageView::Packed(PixelFormat::kRGB8, 8, 8, px.data(), 48),
                         ImageView::Packed(PixelFormat::kRGB8, 7, 7, px.data(), 48), options, &r);
  EXPECT_EQ(s.code(), StatusCode::kSizeMismatch);
}

}  // namespace
}  // namespace ssim2
