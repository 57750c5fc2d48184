// Content alignment (ssim2/alignment.h): frame signatures of every pixel
// format, and the aligner on clips made from the test data's photographs
// (pans and zooms with scene cuts, a still, black) whose distorted copy has
// a known frame map (offsets, dropped and repeated frames, a trimmed
// reference, a gap) and encoder-like distortions (blur, a brightness
// change, noise, quantisation, Y'CbCr instead of RGB). Every decision is
// checked against the map: no wrong pair, ever.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../assertions.h"
#include "../footage.h"
#include "../testdata.h"
#include "ssim2/alignment.h"

namespace ssim2 {
namespace {

using testing::Encode;
using testing::Footage;
using testing::IsOk;
using testing::LongFootage;
using testing::MovingFootage;
using testing::Rgb;
using testing::StaticFootage;
using Decision = FrameAligner::Decision;
using DecisionKind = FrameAligner::DecisionKind;
using Event = FrameAligner::Event;
using EventKind = FrameAligner::EventKind;
using UnalignedReason = FrameAligner::UnalignedReason;

// ---------------------------------------------------------------------------
// Signatures of synthetic images of every format

FrameSignature SignatureOf(const ImageView& view) {
  FrameSignature s;
  EXPECT_TRUE(IsOk(ComputeFrameSignature(view, &s)));
  return s;
}

// A grey test picture (smooth ramp plus a few edges), 0..255.
int GreyAt(int x, int y, int w, int h) {
  const int ramp = 40 + 150 * x / w;
  const int bar = ((x * 7 / w) + (y * 5 / h)) % 2 ? 50 : 0;
  return std::min(255, ramp + bar + (y * 30 / h));
}

TEST(FrameSignature, GridKeepsTheAspectWithAboutTheSameCellCount) {
  struct Case {
    int w, h, gw, gh;
  } cases[] = {{1920, 1080, 64, 36}, {1280, 720, 64, 36}, {320, 180, 64, 36},
               {640, 480, 55, 42},   {256, 256, 48, 48},  {1080, 1920, 36, 64},
               // Smaller than the grid: one cell per pixel in that direction.
               {17, 33, 17, 33},     {8, 8, 8, 8},        {100, 20, 100, 20}};
  for (const Case& c : cases) {
    std::vector<std::uint8_t> px(static_cast<std::size_t>(c.w) * c.h);
    for (int y = 0; y < c.h; ++y) {
      for (int x = 0; x < c.w; ++x) px[static_cast<std::size_t>(y) * c.w + x] = GreyAt(x, y, c.w, c.h);
    }
    const FrameSignature s =
        SignatureOf(ImageView::Packed(PixelFormat::kGray8, c.w, c.h, px.data(), c.w));
    EXPECT_EQ(s.grid_width, c.gw) << c.w << "x" << c.h;
    EXPECT_EQ(s.grid_height, c.gh) << c.w << "x" << c.h;
    EXPECT_EQ(s.cells.size(), static_cast<std::size_t>(c.gw) * c.gh);
  }
}

// A 4x2 image has one pixel per cell: the cells are the pixels, normalised.
TEST(FrameSignature, CellsAreNormalisedBoxMeans) {
  const std::uint8_t px[8] = {0, 51, 102, 153, 204, 255, 0, 255};
  const FrameSignature s = SignatureOf(ImageView::Packed(PixelFormat::kGray8, 4, 2, px, 4));
  ASSERT_EQ(s.grid_width, 4);
  ASSERT_EQ(s.grid_height, 2);
  double mean = 0.0, squares = 0.0;
  for (std::uint8_t v : px) mean += v / 255.0 / 8;
  for (std::uint8_t v : px) squares += (v / 255.0 - mean) * (v / 255.0 - mean) / 8;
  EXPECT_NEAR(s.mean, mean, 1e-12);
  EXPECT_NEAR(s.contrast, std::sqrt(squares), 1e-12);
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(s.cells[i], (px[i] / 255.0 - mean) / s.contrast, 1e-6) << i;
  }
  // 1920x1080 in 30x30 boxes: each cell is the mean of its box.
  std::vector<std::uint8_t> big(1920 * 1080);
  for (int y = 0; y < 1080; ++y) {
    for (int x = 0; x < 1920; ++x) big[y * 1920 + x] = static_cast<std::uint8_t>((x / 30 * 3 + y / 30 * 5 + (x + y) % 2) % 256);
  }
  const FrameSignature b = SignatureOf(ImageView::Packed(PixelFormat::kGray8, 1920, 1080, big.data(), 1920));
  ASSERT_EQ(b.cells.size(), 64u * 36u);
  for (int cy = 0; cy < 36; cy += 7) {
    for (int cx = 0; cx < 64; cx += 9) {
      const double expected = ((cx * 3 + cy * 5) % 256 + 0.5) / 255.0;
      EXPECT_NEAR(b.cells[cy * 64 + cx] * b.contrast + b.mean, expected, 1e-6) << cx << "," << cy;
    }
  }
}

// The same grey picture in every pixel format gives the same signature.
TEST(FrameSignature, EveryPixelFormatReadsTheSameLuma) {
  constexpr int w = 96, h = 54;
  std::vector<int> grey(w * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) grey[y * w + x] = GreyAt(x, y, w, h);
  }
  std::vector<std::uint8_t> g8(w * h);
  for (int i = 0; i < w * h; ++i) g8[i] = static_cast<std::uint8_t>(grey[i]);
  const FrameSignature expected = SignatureOf(ImageView::Packed(PixelFormat::kGray8, w, h, g8.data(), w));
  ASSERT_GT(expected.contrast, 0.1);

  auto packed8 = [&](PixelFormat f, int channels, int alpha) {
    std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h * channels);
    for (int i = 0; i < w * h; ++i) {
      for (int c = 0; c < channels; ++c) px[i * channels + c] = static_cast<std::uint8_t>(c == alpha ? 77 : grey[i]);
    }
    return SignatureOf(ImageView::Packed(f, w, h, px.data(), w * channels));
  };
  auto packed16 = [&](PixelFormat f, int channels, int alpha) {
    std::vector<std::uint16_t> px(static_cast<std::size_t>(w) * h * channels);
    for (int i = 0; i < w * h; ++i) {
      for (int c = 0; c < channels; ++c) px[i * channels + c] = static_cast<std::uint16_t>(c == alpha ? 900 : grey[i] * 257);
    }
    return SignatureOf(ImageView::Packed(f, w, h, px.data(), w * channels * 2));
  };
  std::map<PixelFormat, FrameSignature> by_format;
  by_format[PixelFormat::kRGB8] = packed8(PixelFormat::kRGB8, 3, -1);
  by_format[PixelFormat::kRGBA8] = packed8(PixelFormat::kRGBA8, 4, 3);
  by_format[PixelFormat::kBGRA8] = packed8(PixelFormat::kBGRA8, 4, 3);
  by_format[PixelFormat::kRGBX8] = packed8(PixelFormat::kRGBX8, 4, 3);
  by_format[PixelFormat::kBGRX8] = packed8(PixelFormat::kBGRX8, 4, 3);
  by_format[PixelFormat::kGrayAlpha8] = packed8(PixelFormat::kGrayAlpha8, 2, 1);
  by_format[PixelFormat::kRGB16] = packed16(PixelFormat::kRGB16, 3, -1);
  by_format[PixelFormat::kRGBA16] = packed16(PixelFormat::kRGBA16, 4, 3);
  by_format[PixelFormat::kGray16] = packed16(PixelFormat::kGray16, 1, -1);
  by_format[PixelFormat::kGrayAlpha16] = packed16(PixelFormat::kGrayAlpha16, 2, 1);
  {
    std::vector<float> plane(w * h);
    for (int i = 0; i < w * h; ++i) plane[i] = grey[i] / 255.0f;
    by_format[PixelFormat::kLinearRGBPlanarF32] = SignatureOf(ImageView::Planar(
        PixelFormat::kLinearRGBPlanarF32, w, h, {plane.data(), plane.data(), plane.data()},
        {w * 4, w * 4, w * 4}));
  }
  // Y'CbCr: limited-range luma (16 + 219 v), neutral chroma.
  std::vector<std::uint8_t> y8(w * h), c8(w * h, 128);
  std::vector<std::uint16_t> y10(w * h), y10msb(w * h), c10(w * h, 512), c10msb(w * h, 512 << 6);
  for (int i = 0; i < w * h; ++i) {
    y8[i] = static_cast<std::uint8_t>(16 + grey[i] * 219 / 255);
    y10[i] = static_cast<std::uint16_t>(64 + grey[i] * 876 / 255);
    y10msb[i] = static_cast<std::uint16_t>(y10[i] << 6 | 0x15);  // low bits are not samples
  }
  by_format[PixelFormat::kI420] = SignatureOf(ImageView::Planar(
      PixelFormat::kI420, w, h, {y8.data(), c8.data(), c8.data()}, {w, w / 2, w / 2}));
  by_format[PixelFormat::kNV12] = SignatureOf(
      ImageView::Planar(PixelFormat::kNV12, w, h, {y8.data(), c8.data(), nullptr}, {w, w, 0}));
  by_format[PixelFormat::kY444] = SignatureOf(
      ImageView::Planar(PixelFormat::kY444, w, h, {y8.data(), c8.data(), c8.data()}, {w, w, w}));
  by_format[PixelFormat::kI420_10LE] = SignatureOf(ImageView::Planar(
      PixelFormat::kI420_10LE, w, h, {y10.data(), c10.data(), c10.data()}, {w * 2, w, w}));
  by_format[PixelFormat::kP010_10LE] = SignatureOf(ImageView::Planar(
      PixelFormat::kP010_10LE, w, h, {y10msb.data(), c10msb.data(), nullptr}, {w * 2, w * 2, 0}));
  ASSERT_EQ(by_format.size() + 1, static_cast<std::size_t>(PixelFormat::kP010_10LE) + 1)
      << "a pixel format is missing from this test";

  for (const auto& [format, s] : by_format) {
    SCOPED_TRACE(PixelFormatName(format));
    EXPECT_EQ(s.grid_width, expected.grid_width);
    EXPECT_EQ(s.grid_height, expected.grid_height);
    // Packed and float formats see the very same values; Y'CbCr a scaled and
    // rounded copy, which normalisation takes out up to the rounding.
    EXPECT_LT(SignatureDistance(s, expected), IsYuvFormat(format) ? 1e-4 : 1e-6);
    if (!IsYuvFormat(format)) {
      EXPECT_NEAR(s.contrast, expected.contrast, 1e-6);
    }
  }
}

TEST(FrameSignature, ColourWeightsAreLuma) {
  // Pure green reads brighter than pure red, which reads brighter than blue.
  const std::uint8_t px[4 * 3] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0};
  const FrameSignature s = SignatureOf(ImageView::Packed(PixelFormat::kRGB8, 4, 1, px, 12));
  EXPECT_GT(s.cells[1], s.cells[0]);
  EXPECT_GT(s.cells[0], s.cells[2]);
  EXPECT_GT(s.cells[2], s.cells[3]);
  EXPECT_NEAR(s.cells[1] * s.contrast + s.mean, 183.0 / 256, 1e-6);
}

TEST(FrameSignature, FlatPictureHasNoContrastAndMatchesNothing) {
  std::vector<std::uint8_t> black(64 * 36 * 3, 16);
  const FrameSignature s =
      SignatureOf(ImageView::Packed(PixelFormat::kRGB8, 64, 36, black.data(), 64 * 3));
  EXPECT_EQ(s.contrast, 0.0);
  EXPECT_NEAR(s.mean, 16 / 255.0, 1e-12);
  for (float c : s.cells) ASSERT_EQ(c, 0.0f);
  EXPECT_EQ(SignatureDistance(s, s), 1.0);
  EXPECT_EQ(SignatureDistance(FrameSignature(), FrameSignature()), 1.0);
}

// The distance's sums in the order docs/ALIGNMENT.md gives: eight float
// lanes (lane j: cells j, j + 8, ... while a full eight remains), then in
// double the cells left over, lanes 0-3 and lanes 4-7. The aligner computes
// several distances side by side; each must still sum in this order.
TEST(FrameSignature, DistanceSumsInTheDocumentedOrder) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> cell(-2.0f, 2.0f);
  for (const auto& grid : {std::pair{64, 36}, std::pair{17, 33}, std::pair{5, 3}}) {
    FrameSignature a, b;
    a.grid_width = b.grid_width = grid.first;
    a.grid_height = b.grid_height = grid.second;
    const std::size_t n = static_cast<std::size_t>(grid.first) * grid.second;
    for (std::size_t i = 0; i < n; ++i) {
      a.cells.push_back(cell(rng));
      b.cells.push_back(cell(rng));
    }
    float lanes[8] = {};
    const std::size_t full = n / 8 * 8;
    for (std::size_t i = 0; i < full; ++i) lanes[i % 8] += a.cells[i] * b.cells[i];
    double dot = 0.0;
    for (std::size_t i = full; i < n; ++i) dot += static_cast<double>(a.cells[i]) * b.cells[i];
    for (float lane : lanes) dot += lane;
    EXPECT_EQ(SignatureDistance(a, b), 1.0 - dot / static_cast<double>(n))
        << grid.first << "x" << grid.second;
  }
}

TEST(FrameSignature, BrightnessAndContrastChangesDoNotMatter) {
  constexpr int w = 64, h = 36;
  std::vector<std::uint8_t> a(w * h), b(w * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      a[y * w + x] = static_cast<std::uint8_t>(GreyAt(x, y, w, h) / 4);
      b[y * w + x] = static_cast<std::uint8_t>(GreyAt(x, y, w, h) / 4 * 3 + 20);
    }
  }
  const FrameSignature sa = SignatureOf(ImageView::Packed(PixelFormat::kGray8, w, h, a.data(), w));
  const FrameSignature sb = SignatureOf(ImageView::Packed(PixelFormat::kGray8, w, h, b.data(), w));
  EXPECT_LT(SignatureDistance(sa, sb), 1e-6);
  EXPECT_NEAR(sb.contrast, 3 * sa.contrast, 1e-9);
  // The negative picture is as far as can be.
  for (auto& v : b) v = static_cast<std::uint8_t>(255 - v);
  const FrameSignature sn = SignatureOf(ImageView::Packed(PixelFormat::kGray8, w, h, b.data(), w));
  EXPECT_GT(SignatureDistance(sa, sn), 1.999);
}

TEST(FrameSignature, BadInputIsAnError) {
  std::vector<std::uint8_t> px(16 * 16 * 3, 0);
  FrameSignature s;
  s.cells.assign(5, 1.0f);
  EXPECT_EQ(ComputeFrameSignature(ImageView::Packed(PixelFormat::kRGB8, 16, 16, px.data(), 10), &s)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(s.empty()) << "a failed call leaves an empty signature";
  // A device image where CUDA cannot run (a build without the engine, or no
  // device): unavailable, said so. (Device signatures: tests/cuda.)
  if (!CudaAvailable()) {
    const Status device = ComputeFrameSignature(
        ImageView::Packed(PixelFormat::kRGB8, 16, 16, px.data(), 48, MemoryLocation::kCudaDevice),
        &s);
    EXPECT_EQ(device.code(), StatusCode::kBackendUnavailable);
    EXPECT_NE(device.message().find("CUDA"), std::string::npos) << device.message();
    EXPECT_TRUE(s.empty());
  }
  EXPECT_EQ(ComputeFrameSignature(ImageView::Packed(PixelFormat::kRGB8, 16, 16, px.data(), 48), nullptr)
                .code(),
            StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// The aligner's API

std::unique_ptr<FrameAligner> NewAligner(const AlignerOptions& options = AlignerOptions()) {
  std::unique_ptr<FrameAligner> aligner;
  EXPECT_TRUE(IsOk(FrameAligner::Create(options, &aligner)));
  return aligner;
}

TEST(FrameAligner, OptionsAreChecked) {
  EXPECT_TRUE(IsOk(ValidateAlignerOptions(AlignerOptions())));
  auto bad = [](auto change, const char* name) {
    AlignerOptions o;
    change(o);
    std::unique_ptr<FrameAligner> aligner;
    const Status s = FrameAligner::Create(o, &aligner);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << name;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
    EXPECT_EQ(aligner, nullptr);
  };
  bad([](AlignerOptions& o) { o.window = -1; }, "window");
  bad([](AlignerOptions& o) { o.window = 108001; }, "window");
  bad([](AlignerOptions& o) { o.block = 0; }, "block");
  bad([](AlignerOptions& o) { o.track_radius = 0; }, "track_radius");
  bad([](AlignerOptions& o) { o.max_distance = 0; }, "max_distance");
  bad([](AlignerOptions& o) { o.min_margin = -1; }, "min_margin");
  bad([](AlignerOptions& o) { o.min_contrast = NAN; }, "min_contrast");
  bad([](AlignerOptions& o) { o.lost_after = 0; }, "lost_after");
}

FrameSignature GreySignature(int w, int h, int seed) {
  std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h);
  std::mt19937 rng(seed);
  for (auto& v : px) v = static_cast<std::uint8_t>(rng() % 256);
  return SignatureOf(ImageView::Packed(PixelFormat::kGray8, w, h, px.data(), w));
}

TEST(FrameAligner, SignaturesOfAnotherSizeAndPushesAfterTheEndAreRefused) {
  auto aligner = NewAligner();
  EXPECT_TRUE(IsOk(aligner->PushReference(GreySignature(320, 180, 1))));
  EXPECT_TRUE(IsOk(aligner->PushReference(FrameSignature())));  // no information: flat
  const Status other = aligner->PushDistorted(GreySignature(640, 480, 2));
  EXPECT_EQ(other.code(), StatusCode::kSizeMismatch);
  EXPECT_NE(other.message().find("55x42"), std::string::npos) << other.message();
  FrameSignature broken = GreySignature(320, 180, 3);
  broken.cells.pop_back();
  EXPECT_EQ(aligner->PushDistorted(broken).code(), StatusCode::kInvalidArgument);
  aligner->EndReference();
  EXPECT_EQ(aligner->PushReference(GreySignature(320, 180, 4)).code(),
            StatusCode::kInvalidArgument);
  aligner->EndDistorted();
  EXPECT_EQ(aligner->PushDistorted(GreySignature(320, 180, 4)).code(),
            StatusCode::kInvalidArgument);
  Decision d;
  EXPECT_FALSE(aligner->NextDecision(&d)) << "the failed pushes added no frame";
  EXPECT_EQ(aligner->counters().unaligned, 0u);
}

// ---------------------------------------------------------------------------
// Footage (tests/footage.h) as the aligner sees it

FrameSignature RgbSignature(const Rgb& frame) {
  return SignatureOf(ImageView::Packed(PixelFormat::kRGB8, frame.width, frame.height,
                                       frame.px.data(), frame.width * 3));
}

// The frame as an 8-bit I420 decoder would hand it out (BT.709 limited).
FrameSignature I420Signature(const Rgb& frame) {
  const int w = frame.width, h = frame.height;
  std::vector<std::uint8_t> y(static_cast<std::size_t>(w) * h);
  std::vector<std::uint8_t> chroma(static_cast<std::size_t>(w / 2) * (h / 2), 128);
  for (int i = 0; i < w * h; ++i) {
    const double luma = 0.2126 * frame.px[i * 3] + 0.7152 * frame.px[i * 3 + 1] + 0.0722 * frame.px[i * 3 + 2];
    y[i] = static_cast<std::uint8_t>(std::lround(16 + luma * 219 / 255));
  }
  return SignatureOf(ImageView::Planar(PixelFormat::kI420, w, h,
                                       {y.data(), chroma.data(), chroma.data()},
                                       {w, w / 2, w / 2}));
}

// A clip pair with a known frame map: reference frame i shows footage frame
// ref_first + i; distorted frame d shows footage frame shown[d]. A distorted
// frame's partner is the reference frame showing the same footage frame, if
// the reference has it.
struct ClipPair {
  const Footage* footage = nullptr;
  std::int64_t ref_first = 0;
  int ref_frames = 0;
  std::vector<std::int64_t> shown;
  bool i420 = false;  // the distorted frames as I420 (the reference stays RGB)
  // The reference's footage when it is not the distorted one's (no partners).
  const Footage* ref_footage = nullptr;

  std::int64_t Partner(std::size_t d) const {
    if (ref_footage != nullptr) return -1;
    const std::int64_t r = shown[d] - ref_first;
    return r >= 0 && r < ref_frames ? r : -1;
  }
};

// The moving footage as the reference, whole, against distorted frames
// showing `shown`.
ClipPair MovingClip(std::vector<std::int64_t> shown) {
  ClipPair clip;
  clip.footage = &MovingFootage();
  clip.ref_frames = MovingFootage().frames();
  clip.shown = std::move(shown);
  return clip;
}

// Distorted frames showing footage frames first, first+1, ... except that
// after each dist index in `drop_after` a footage frame is skipped, and each
// index in `repeat` shows the same frame as the one before it.
std::vector<std::int64_t> Shown(std::int64_t first, int count, std::set<int> drop_after = {},
                                std::set<int> repeat = {}) {
  std::vector<std::int64_t> shown;
  std::int64_t t = first;
  for (int d = 0; d < count; ++d) {
    if (d > 0) {
      if (!repeat.count(d)) ++t;
      if (drop_after.count(d - 1)) ++t;
    }
    shown.push_back(t);
  }
  return shown;
}

// Frames and signatures, made once per footage frame (reference) and per
// footage frame and seed (distorted).
const Rgb& Rendered(const Footage& f, std::int64_t t) {
  static std::map<std::pair<const Footage*, std::int64_t>, Rgb> cache;
  auto it = cache.find({&f, t});
  if (it == cache.end()) it = cache.emplace(std::make_pair(&f, t), f.Render(t)).first;
  return it->second;
}

const FrameSignature& RefSignature(const Footage& f, std::int64_t t) {
  static std::map<std::pair<const Footage*, std::int64_t>, FrameSignature> cache;
  auto it = cache.find({&f, t});
  if (it == cache.end()) it = cache.emplace(std::make_pair(&f, t), RgbSignature(Rendered(f, t))).first;
  return it->second;
}

// The noise seed of distorted frame d: its footage frame and how many
// distorted frames before it showed that frame too (a repeat is encoded
// again, with other noise).
std::uint32_t EncodeSeed(const std::vector<std::int64_t>& shown, std::size_t d) {
  std::uint32_t repeats = 0;
  for (std::size_t i = d; i > 0 && shown[i - 1] == shown[d]; --i) ++repeats;
  return static_cast<std::uint32_t>(shown[d] * 16 + 100000 + repeats);
}

const FrameSignature& DistSignature(const Footage& f, std::int64_t t, std::uint32_t seed, bool i420) {
  static std::map<std::tuple<const Footage*, std::int64_t, std::uint32_t, bool>, FrameSignature> cache;
  const auto key = std::make_tuple(&f, t, seed, i420);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const Rgb encoded = Encode(Rendered(f, t), seed);
    it = cache.emplace(key, i420 ? I420Signature(encoded) : RgbSignature(encoded)).first;
  }
  return it->second;
}

struct AlignmentRun {
  std::vector<Decision> decisions;
  std::vector<Event> events;
  FrameAligner::Counters counters;
};

// Pushes the pair's frames: the reference `ref_lead` frames ahead of the
// distorted stream (negative: behind), taking decisions and events as they
// come; Discontinuity() before each distorted index in `gaps`.
AlignmentRun Align(const ClipPair& clip, int ref_lead = 0, const std::set<int>& gaps = {},
          const AlignerOptions& options = AlignerOptions()) {
  auto aligner = NewAligner(options);
  AlignmentRun run;
  auto take = [&] {
    for (;;) {
      Event e;
      while (aligner->NextEvent(&e)) run.events.push_back(e);
      Decision d;
      if (!aligner->NextDecision(&d)) break;
      run.decisions.push_back(d);
    }
  };
  const int dist_frames = static_cast<int>(clip.shown.size());
  int r = 0, d = 0;
  while (r < clip.ref_frames || d < dist_frames) {
    const bool ref_turn = d >= dist_frames || (r < clip.ref_frames && r - d < ref_lead);
    if (ref_turn) {
      EXPECT_TRUE(IsOk(aligner->PushReference(
          RefSignature(clip.ref_footage ? *clip.ref_footage : *clip.footage, clip.ref_first + r))));
      if (++r == clip.ref_frames) aligner->EndReference();
    } else {
      if (gaps.count(d)) aligner->Discontinuity();
      EXPECT_TRUE(IsOk(aligner->PushDistorted(DistSignature(*clip.footage, clip.shown[d], EncodeSeed(clip.shown, d), clip.i420))));
      if (++d == dist_frames) aligner->EndDistorted();
    }
    take();
  }
  take();
  run.counters = aligner->counters();
  return run;
}

std::string Describe(const AlignmentRun& run) {
  std::ostringstream os;
  for (const Event& e : run.events) {
    os << "event " << static_cast<int>(e.kind) << " at " << e.dist_index << " offset "
       << e.offset << " confidence " << e.confidence << "\n";
  }
  int shown = 0;
  for (const Decision& d : run.decisions) {
    if (d.kind == DecisionKind::kUnaligned && shown++ < 40) {
      os << "unaligned " << d.dist_index << " reason " << static_cast<int>(d.reason) << "\n";
    }
  }
  return os.str();
}

// What the decisions of a run are against the map: one per distorted frame
// in order, every pair the frame's partner (with the pair's own distance).
struct PairCount {
  std::int64_t with_partner = 0, paired = 0, first_partner = -1, first_pair = -1, wrong = 0;
  std::uint64_t dropped = 0, repeated = 0;  // in the map, between frames with partners
};
PairCount ExpectNoWrongPair(const ClipPair& clip, const AlignmentRun& run) {
  PairCount n;
  EXPECT_EQ(run.decisions.size(), clip.shown.size()) << Describe(run);
  for (std::size_t d = 0; d < std::min(clip.shown.size(), run.decisions.size()); ++d) {
    const Decision& decision = run.decisions[d];
    EXPECT_EQ(decision.dist_index, static_cast<std::int64_t>(d));
    const std::int64_t partner = clip.Partner(d);
    if (partner >= 0) {
      ++n.with_partner;
      if (n.first_partner < 0) n.first_partner = static_cast<std::int64_t>(d);
    }
    if (d > 0 && partner >= 0 && clip.Partner(d - 1) >= 0) {
      const std::int64_t step = partner - clip.Partner(d - 1);
      if (step == 0) ++n.repeated;
      if (step > 1) n.dropped += static_cast<std::uint64_t>(step - 1);
    }
    if (decision.kind == DecisionKind::kPair) {
      if (decision.ref_index != partner && n.wrong++ == 0) {
        ADD_FAILURE() << "wrong pair for distorted frame " << d << ": reference frame "
                      << decision.ref_index << " instead of " << partner << "\n"
                      << Describe(run);
      }
      // Its distance, computed among its candidates, is the pair's own.
      const FrameSignature& ref = RefSignature(clip.ref_footage ? *clip.ref_footage : *clip.footage,
                                               clip.ref_first + decision.ref_index);
      const FrameSignature& dist =
          DistSignature(*clip.footage, clip.shown[d], EncodeSeed(clip.shown, d), clip.i420);
      EXPECT_EQ(decision.distance, static_cast<float>(SignatureDistance(dist, ref)))
          << "distorted frame " << d;
      ++n.paired;
      if (n.first_pair < 0) n.first_pair = static_cast<std::int64_t>(d);
    }
  }
  EXPECT_EQ(n.wrong, 0) << "wrong pairs";
  return n;
}

// The targets: one decision per distorted frame in order, no wrong pair,
// at least 95 % of the frames with a partner paired, the first pair within
// 30 frames of the first frame with a partner, and the counters of the map.
void ExpectAligned(const ClipPair& clip, const AlignmentRun& run, double min_paired = 0.95) {
  ASSERT_EQ(run.decisions.size(), clip.shown.size()) << Describe(run);
  const PairCount n = ExpectNoWrongPair(clip, run);
  const std::int64_t paired = n.paired;
  EXPECT_GE(paired, min_paired * n.with_partner) << paired << " of " << n.with_partner << " paired\n"
                                                  << Describe(run);
  ASSERT_GE(n.first_pair, 0);
  EXPECT_LE(n.first_pair - n.first_partner, 30) << Describe(run);
  EXPECT_EQ(run.counters.paired, static_cast<std::uint64_t>(paired));
  EXPECT_EQ(run.counters.unaligned, clip.shown.size() - paired);
  EXPECT_EQ(run.counters.dropped, n.dropped) << Describe(run);
  EXPECT_EQ(run.counters.repeated, n.repeated) << Describe(run);
  ASSERT_FALSE(run.events.empty());
  EXPECT_EQ(run.events.front().kind, EventKind::kLocked);
  EXPECT_GT(run.events.front().confidence, 0.0);
  EXPECT_LE(run.events.front().confidence, 1.0);
}

class Offsets : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { SSIM2_REQUIRE_TESTDATA(); }
};

// Distorted frame d shows reference frame d + offset. A negative offset is a
// trimmed reference: the first distorted frames have no partner.
TEST_P(Offsets, EveryFrameWithAPartnerIsPairedRightly) {
  const int offset = GetParam();
  const ClipPair clip = MovingClip(Shown(offset, MovingFootage().frames() - std::max(offset, 0)));
  const AlignmentRun run = Align(clip);
  ExpectAligned(clip, run);
  EXPECT_EQ(run.events.size(), 1u) << "one lock, never lost:\n" << Describe(run);
  EXPECT_EQ(run.events.front().offset, offset);
}

INSTANTIATE_TEST_SUITE_P(Alignment, Offsets, ::testing::Values(-10, -6, -1, 0, 1, 4, 10));

class Alignment : public ::testing::Test {
 protected:
  void SetUp() override { SSIM2_REQUIRE_TESTDATA(); }
};

TEST_F(Alignment, DroppedFramesMoveTheOffset) {
  // Single drops, two in a row, three in a row, and the first frame after
  // the second cut (distorted frame 198 shows footage frame 209, the last
  // of its shot; 199 shows 211).
  const ClipPair clip = MovingClip(Shown(3, 270, {40, 75, 76, 140, 141, 142, 180, 181, 198}));
  const AlignmentRun run = Align(clip, 20);
  ASSERT_EQ(clip.shown[198], 209);
  ASSERT_EQ(clip.shown[199], 211);
  ExpectAligned(clip, run);
  EXPECT_EQ(run.counters.dropped, 9u);
  EXPECT_EQ(run.counters.losses, 0u) << Describe(run);
}

TEST_F(Alignment, RepeatedFramesPairWithTheSameReferenceFrame) {
  const ClipPair clip = MovingClip(Shown(-4, 290, {}, {30, 90, 91, 150, 200, 201, 202, 260}));
  const AlignmentRun run = Align(clip, -15);
  ExpectAligned(clip, run);
  EXPECT_EQ(run.counters.repeated, 8u);
  EXPECT_EQ(run.counters.losses, 0u) << Describe(run);
}

// The reference starts 12 frames into the distorted clip and the distorted
// stream drops and repeats frames, in Y'CbCr against an RGB reference.
TEST_F(Alignment, TrimmedReferenceWithDropsAndRepeatsInYuv) {
  ClipPair clip;
  clip.footage = &MovingFootage();
  clip.ref_first = 12;
  clip.ref_frames = MovingFootage().frames() - 20;
  clip.shown = Shown(0, 280, {60, 61, 170}, {100, 220, 221});
  clip.i420 = true;
  const AlignmentRun run = Align(clip, 5);
  ExpectAligned(clip, run);
  EXPECT_EQ(run.events.front().offset, -12);
}

// Distorted frames arriving seconds after the reference (it piles up), or
// long before it: the decisions are the same, whatever the interleaving.
TEST_F(Alignment, DecisionsDoNotDependOnArrivalOrder) {
  const ClipPair clip = MovingClip(Shown(7, 280, {50, 120}, {80, 200}));
  const AlignmentRun lockstep = Align(clip, 0);
  ExpectAligned(clip, lockstep);
  for (int lead : {-300, -40, 1, 90, 300}) {
    SCOPED_TRACE(lead);
    const AlignmentRun run = Align(clip, lead);
    ASSERT_EQ(run.decisions.size(), lockstep.decisions.size());
    for (std::size_t i = 0; i < run.decisions.size(); ++i) {
      EXPECT_EQ(run.decisions[i].kind, lockstep.decisions[i].kind) << i;
      EXPECT_EQ(run.decisions[i].ref_index, lockstep.decisions[i].ref_index) << i;
      EXPECT_EQ(run.decisions[i].distance, lockstep.decisions[i].distance) << i;
    }
    ASSERT_EQ(run.events.size(), lockstep.events.size());
    for (std::size_t i = 0; i < run.events.size(); ++i) {
      EXPECT_EQ(run.events[i].dist_index, lockstep.events[i].dist_index);
      EXPECT_EQ(run.events[i].offset, lockstep.events[i].offset);
    }
  }
}

// A still, then black: unaligned, never a guess; the lock holds over them
// (or comes back) and the pan after them pairs again.
TEST_F(Alignment, StillAndBlackContentIsUnaligned) {
  const Footage& footage = StaticFootage();
  ClipPair clip;
  clip.footage = &footage;
  clip.ref_frames = footage.frames();
  clip.shown = Shown(4, footage.frames() - 4);
  const AlignmentRun run = Align(clip);
  ASSERT_EQ(run.decisions.size(), clip.shown.size());
  std::int64_t moving = 0, moving_paired = 0;
  for (std::size_t d = 0; d < clip.shown.size(); ++d) {
    const Decision& decision = run.decisions[d];
    const std::int64_t t = clip.shown[d];
    const bool still_or_black = t >= 59 && t < 150;  // the still starts where the pan ends
    if (decision.kind == DecisionKind::kPair) {
      EXPECT_EQ(decision.ref_index, clip.Partner(d)) << "wrong pair at " << d << "\n" << Describe(run);
      EXPECT_FALSE(still_or_black) << "a pair in still or black content at " << d;
    }
    if (t >= 150 && t < 60 + 50 + 40 + 80) {
      ++moving;
      moving_paired += decision.kind == DecisionKind::kPair;
    }
    if (t >= 110 && t < 150) {
      EXPECT_EQ(decision.reason, UnalignedReason::kFlat) << d;
    }
  }
  EXPECT_GE(moving_paired, 0.9 * moving) << Describe(run);
  EXPECT_GE(run.counters.unaligned, 90u);
}

// Content that the reference does not have: not one pair.
TEST_F(Alignment, UnrelatedContentIsNeverPaired) {
  static const Footage other({
      {"astronaut_256x256", 120, 0.35, 0.40, 0.60, 0.65, 0.60, 0.50},
      {"aitzgorri_1280x720", 80, 0.20, 0.30, 0.40, 0.80, 0.70, 0.40},
  });
  ClipPair clip;
  clip.footage = &MovingFootage();
  clip.ref_footage = &other;
  clip.ref_frames = 200;
  clip.shown = Shown(0, 200);
  const AlignmentRun run = Align(clip);
  ASSERT_EQ(run.decisions.size(), 200u);
  for (const Decision& d : run.decisions) {
    EXPECT_EQ(d.kind, DecisionKind::kUnaligned) << d.dist_index << " -> " << d.ref_index;
  }
  EXPECT_TRUE(run.events.empty()) << Describe(run);
}

// A gap in the distorted stream (40 footage frames missing): with
// Discontinuity() the lock is given up at the gap and acquired again after
// it; without, tracking loses the lock after lost_after frames and
// re-acquires. Never a wrong pair.
// A stream that changes course at distorted frame `from` (a gap, a jump
// back): every pair right, the first pair after it within `within` frames
// and every frame from there on but a few paired (90 % of those after
// `from` when `within` is 30).
void ExpectFoundAgainAfter(const ClipPair& clip, const AlignmentRun& run, std::size_t from,
                           std::int64_t within = 30) {
  ASSERT_EQ(run.decisions.size(), clip.shown.size());
  std::int64_t first_after = -1, paired_after = 0;
  for (std::size_t d = 0; d < clip.shown.size(); ++d) {
    const Decision& decision = run.decisions[d];
    if (decision.kind != DecisionKind::kPair) continue;
    EXPECT_EQ(decision.ref_index, clip.Partner(d)) << "wrong pair at " << d << "\n" << Describe(run);
    if (d >= from) {
      ++paired_after;
      if (first_after < 0) first_after = static_cast<std::int64_t>(d);
    }
  }
  ASSERT_GE(first_after, 0) << Describe(run);
  EXPECT_LE(first_after - static_cast<std::int64_t>(from), within) << Describe(run);
  // 90 % of the frames after `from`, less the frames the search may take
  // beyond the usual 30.
  const double after = static_cast<double>(clip.shown.size() - from);
  EXPECT_GE(paired_after, 0.9 * after - static_cast<double>(within - 30)) << Describe(run);
}

TEST_F(Alignment, GapReacquires) {
  std::vector<std::int64_t> shown = Shown(3, 100);
  for (std::int64_t t : Shown(3 + 100 + 40, 140)) shown.push_back(t);
  const ClipPair clip = MovingClip(shown);
  for (bool announced : {true, false}) {
    SCOPED_TRACE(announced ? "Discontinuity()" : "unannounced");
    const AlignmentRun run = Align(clip, 10, announced ? std::set<int>{100} : std::set<int>{});
    ExpectFoundAgainAfter(clip, run, 100);
    ASSERT_EQ(run.events.size(), 3u) << Describe(run);
    EXPECT_EQ(run.events[0].kind, EventKind::kLocked);
    EXPECT_EQ(run.events[0].offset, 3);
    EXPECT_EQ(run.events[1].kind, EventKind::kLost);
    EXPECT_EQ(run.events[1].offset, 3);
    if (announced) {
      EXPECT_EQ(run.events[1].dist_index, 100);
    }
    EXPECT_EQ(run.events[2].kind, EventKind::kRelocked);
    EXPECT_EQ(run.events[2].offset, 43);
    EXPECT_EQ(run.counters.losses, 1u);
    EXPECT_EQ(run.counters.locks, 2u);
    // A gap is not a drop: the counters count within a lock only.
    EXPECT_EQ(run.counters.dropped, 0u);
  }
}

// A rendition that jumps back 40 frames in the content while it keeps
// delivering (a transcoder replaying a buffered segment): the lock is lost,
// and found again once its content comes past the last pair, whose
// reference frames are the oldest kept while locked (ALIGNMENT.md, Memory);
// no frame meanwhile is paired wrongly.
TEST_F(Alignment, JumpBackIsFoundAgainPastTheLastPair) {
  std::vector<std::int64_t> shown = Shown(3, 120);
  for (std::int64_t t : Shown(3 + 120 - 40, 150)) shown.push_back(t);
  const ClipPair clip = MovingClip(shown);
  const AlignmentRun run = Align(clip, 10);
  ExpectFoundAgainAfter(clip, run, 120, 40 + 30);
  ASSERT_GE(run.events.size(), 3u) << Describe(run);
  EXPECT_EQ(run.events[0].offset, 3);
  EXPECT_EQ(run.events[1].kind, EventKind::kLost);
  EXPECT_EQ(run.events.back().offset, -37) << Describe(run);
}

// Memory: with the reference 90 frames ahead, the reference frames still
// needed advance with the decisions, and the signatures held stay within
// the window plus the lead.
TEST_F(Alignment, MemoryIsBoundedByTheWindow) {
  const ClipPair clip = MovingClip(Shown(2, 290, {100}));
  AlignerOptions options;
  options.window = 30;
  auto aligner = NewAligner(options);
  constexpr int kLead = 90;
  std::int64_t oldest = 0, taken = 0;
  std::size_t most_held = 0;
  for (int step = 0; step < 300 + kLead; ++step) {
    if (step < clip.ref_frames) {
      ASSERT_TRUE(IsOk(aligner->PushReference(RefSignature(*clip.footage, step))));
    } else if (step == clip.ref_frames) {
      aligner->EndReference();
    }
    const int d = step - kLead;
    if (d >= 0 && d < static_cast<int>(clip.shown.size())) {
      ASSERT_TRUE(IsOk(aligner->PushDistorted(DistSignature(*clip.footage, clip.shown[d], EncodeSeed(clip.shown, d), false))));
    } else if (d == static_cast<int>(clip.shown.size())) {
      aligner->EndDistorted();
    }
    Decision decision;
    while (aligner->NextDecision(&decision)) {
      ++taken;
      if (decision.kind == DecisionKind::kPair) {
        EXPECT_GE(decision.ref_index, oldest) << "a decision named a released reference frame";
      }
    }
    const std::int64_t now = aligner->OldestReferenceNeeded();
    EXPECT_GE(now, oldest) << "OldestReferenceNeeded went back";
    EXPECT_GE(now, taken - options.window);
    oldest = now;
    most_held = std::max(most_held, aligner->signatures_held());
  }
  EXPECT_EQ(taken, 290);
  EXPECT_GE(aligner->counters().paired, 270u);
  // Reference: the window behind the oldest undecided frame, the window and
  // block ahead of it, and the lead; distorted: the block and the window.
  EXPECT_LE(most_held, static_cast<std::size_t>(2 * options.window + kLead + 2 * options.block + options.window));
  EXPECT_EQ(aligner->OldestReferenceNeeded(), clip.ref_frames) << "after the end, none";
}

// A distorted stream that stops (a rendition whose source went down) while
// the reference goes on, and comes back later with another delay: with
// reference frame r (footage r) comes distorted frame r - 3 (footage r - 3,
// 3 frames late) until r = 82; then nothing for 117 reference frames; then
// footage r - 6 with reference frame r. The caller says StopDistorted() once 40 reference frames
// came without a distorted one.
struct StopRun {
  AlignmentRun run;
  std::vector<std::int64_t> shown;  // footage frame of each distorted frame
  std::size_t most_held_stopped = 0;  // signatures held while stopped
  std::int64_t oldest_lag_stopped = 0;  // reference frames pushed - OldestReferenceNeeded(), most
};

StopRun AlignWithAStop(bool stop) {
  AlignerOptions options;
  options.window = 30;
  auto aligner = NewAligner(options);
  const Footage& footage = MovingFootage();
  StopRun out;
  int idle = 0;
  bool stopped = false;
  for (int r = 0; r < footage.frames(); ++r) {
    EXPECT_TRUE(IsOk(aligner->PushReference(RefSignature(footage, r))));
    const int delay = r < 83 ? 3 : r >= 200 ? 6 : -1;
    if (delay >= 0 && r >= delay) {
      out.shown.push_back(r - delay);
      const std::size_t d = out.shown.size() - 1;
      EXPECT_TRUE(IsOk(aligner->PushDistorted(DistSignature(footage, out.shown[d], EncodeSeed(out.shown, d), false))));
      idle = 0;
      stopped = false;
    } else if (++idle == options.window + options.block && stop) {
      aligner->StopDistorted();
      stopped = true;
    }
    for (;;) {
      Event e;
      while (aligner->NextEvent(&e)) out.run.events.push_back(e);
      Decision d;
      if (!aligner->NextDecision(&d)) break;
      out.run.decisions.push_back(d);
    }
    if (stopped || (!stop && idle > options.window + options.block)) {
      out.most_held_stopped = std::max(out.most_held_stopped, aligner->signatures_held());
      out.oldest_lag_stopped = std::max(out.oldest_lag_stopped, r + 1 - aligner->OldestReferenceNeeded());
    }
  }
  aligner->EndReference();
  aligner->EndDistorted();
  Decision d;
  while (aligner->NextDecision(&d)) out.run.decisions.push_back(d);
  out.run.counters = aligner->counters();
  return out;
}

TEST_F(Alignment, StoppedStreamHoldsTheWindowAndIsFoundAgain) {
  const StopRun run = AlignWithAStop(true);
  ASSERT_EQ(run.run.decisions.size(), run.shown.size()) << Describe(run.run);
  // While stopped: the last window of reference signatures, no more.
  EXPECT_LE(run.most_held_stopped, 31u);
  EXPECT_LE(run.oldest_lag_stopped, 31);
  std::int64_t paired_before = 0, paired_after = 0;
  for (std::size_t d = 0; d < run.shown.size(); ++d) {
    const Decision& decision = run.run.decisions[d];
    EXPECT_EQ(decision.dist_index, static_cast<std::int64_t>(d));
    if (decision.kind != DecisionKind::kPair) continue;
    EXPECT_EQ(decision.ref_index, run.shown[d]) << "wrong pair at " << d << "\n" << Describe(run.run);
    (d < 80 ? paired_before : paired_after)++;
  }
  EXPECT_GE(paired_before, 70) << Describe(run.run);
  EXPECT_GE(paired_after, 90) << Describe(run.run);
  ASSERT_EQ(run.run.events.size(), 3u) << Describe(run.run);
  EXPECT_EQ(run.run.events[0].kind, EventKind::kLocked);
  EXPECT_EQ(run.run.events[0].offset, 0);  // distorted frame d shows footage d
  EXPECT_EQ(run.run.events[1].kind, EventKind::kLost);
  EXPECT_EQ(run.run.events[1].dist_index, 80);
  EXPECT_EQ(run.run.events[2].kind, EventKind::kRelocked);
  EXPECT_EQ(run.run.events[2].offset, 194 - 80);  // dist frame 80 shows footage 200 - 6
}

// The same without StopDistorted(): the reference frames since the stream
// stopped are all kept, and the frames back, 114 frames further on than
// their index says, are outside the window: never paired. (What the stop
// is for.)
TEST_F(Alignment, WithoutAStopTheReferenceIsHeldAndTheStreamLost) {
  const StopRun run = AlignWithAStop(false);
  ASSERT_EQ(run.run.decisions.size(), run.shown.size());
  EXPECT_GT(run.most_held_stopped, 100u);
  std::int64_t paired_after = 0;
  for (std::size_t d = 80; d < run.shown.size(); ++d) {
    paired_after += run.run.decisions[d].kind == DecisionKind::kPair;
  }
  EXPECT_EQ(paired_after, 0);
}

// Latency: with both streams in step, a decision waits for the window while
// acquiring, and for a few frames once locked.
TEST_F(Alignment, LockedDecisionsComeWithinAFewFrames) {
  const ClipPair clip = MovingClip(Shown(0, 290));
  auto aligner = NewAligner();
  const AlignerOptions& o = aligner->options();
  std::int64_t taken = 0, first_pair = -1;
  for (int i = 0; i < 290; ++i) {
    ASSERT_TRUE(IsOk(aligner->PushReference(RefSignature(*clip.footage, i))));
    ASSERT_TRUE(IsOk(aligner->PushDistorted(
        DistSignature(*clip.footage, clip.shown[i], EncodeSeed(clip.shown, i), false))));
    Decision d;
    while (aligner->NextDecision(&d)) {
      ++taken;
      if (d.kind == DecisionKind::kPair && first_pair < 0) first_pair = d.dist_index;
    }
    const std::int64_t waiting = i + 1 - taken;
    EXPECT_LE(waiting, o.window + o.block) << "frame " << i;
    if (first_pair >= 0 && i > o.window + o.block) {
      EXPECT_LE(waiting, o.track_radius + 2) << "frame " << i;
    }
  }
  EXPECT_EQ(first_pair, 1) << "frame 0 shows the reference's first frame: no neighbour before it";
  EXPECT_GE(taken, 290 - o.track_radius - 2);
}

// Random frame maps (offsets -10..+10, 4 % drops, 4 % repeats, a trimmed
// reference, RGB or I420, either stream ahead), also over the still and
// black footage: never a wrong pair.
TEST_F(Alignment, RandomFrameMapsGiveNoWrongPair) {
  for (int seed = 0; seed < 8; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    const Footage& footage = seed % 3 == 2 ? StaticFootage() : MovingFootage();
    std::set<int> drops, repeats;
    for (int d = 0; d < 260; ++d) {
      const unsigned x = rng() % 100;
      if (x < 4) {
        drops.insert(d);
      } else if (x < 8) {
        repeats.insert(d);
      }
    }
    ClipPair clip;
    clip.footage = &footage;
    clip.ref_first = seed % 4 == 0 ? 7 : 0;
    clip.ref_frames = footage.frames() - static_cast<int>(clip.ref_first);
    clip.shown = Shown(static_cast<int>(rng() % 21) - 10, 260, drops, repeats);
    clip.i420 = seed % 2 == 1;
    const AlignmentRun run = Align(clip, static_cast<int>(rng() % 200) - 100);
    ASSERT_EQ(run.decisions.size(), clip.shown.size());
    std::int64_t with_partner = 0, paired = 0;
    for (std::size_t d = 0; d < clip.shown.size(); ++d) {
      with_partner += clip.Partner(d) >= 0;
      if (run.decisions[d].kind == DecisionKind::kPair) {
        ++paired;
        EXPECT_EQ(run.decisions[d].ref_index, clip.Partner(d)) << "wrong pair at " << d;
      }
    }
    // Moving footage: the targets hold for random maps too.
    if (&footage == &MovingFootage()) {
      EXPECT_GE(paired, 0.95 * with_partner) << Describe(run);
    }
  }
}


// ---------------------------------------------------------------------------
// Renditions that deliver fewer frames than the reference (a transcoder at
// half the frame rate, dropped frames, a starved machine), over runs of
// thousands of frames: the search follows the lock, so that they stay
// paired and the reference frames needed stay within a window of the
// predicted frame instead of growing with the drift.

// A live feed of the long footage: reference frame r, then each distorted
// frame whose footage frame is `delay` frames older than r (a transcode that
// keeps up, `delay` frames late), decisions and events taken as they come.
struct LiveRun {
  AlignmentRun run;
  // How far OldestReferenceNeeded() lags behind the reference frame that the
  // distorted stream has reached (the partner of its newest frame), the most
  // seen after the first lock, and the most while locked. (The reference
  // frames after that one, the rendition's delay and its latest run of drops,
  // are held on top, as for any rendition.)
  std::int64_t most_lag = 0;
  std::int64_t most_lag_locked = 0;
};
LiveRun AlignLive(const ClipPair& clip, int delay, const AlignerOptions& options = AlignerOptions()) {
  auto aligner = NewAligner(options);
  LiveRun out;
  std::int64_t oldest = 0;
  auto take = [&] {
    for (;;) {
      Event e;
      while (aligner->NextEvent(&e)) out.run.events.push_back(e);
      Decision d;
      if (!aligner->NextDecision(&d)) break;
      if (d.kind == DecisionKind::kPair) {
        EXPECT_GE(d.ref_index, oldest) << "a decision named a released reference frame";
      }
      out.run.decisions.push_back(d);
    }
    const std::int64_t now = aligner->OldestReferenceNeeded();
    EXPECT_GE(now, oldest) << "OldestReferenceNeeded went back";
    oldest = now;
  };
  const Footage& footage = *clip.footage;
  std::size_t d = 0;
  auto push_distorted = [&] {
    EXPECT_TRUE(IsOk(aligner->PushDistorted(
        DistSignature(footage, clip.shown[d], EncodeSeed(clip.shown, d), clip.i420))));
    ++d;
  };
  for (int r = 0; r < clip.ref_frames; ++r) {
    EXPECT_TRUE(IsOk(aligner->PushReference(RefSignature(footage, clip.ref_first + r))));
    while (d < clip.shown.size() && clip.shown[d] + delay <= clip.ref_first + r) push_distorted();
    take();
    if (aligner->counters().locks > 0 && d > 0) {
      const std::int64_t lag = clip.shown[d - 1] - clip.ref_first - oldest;
      out.most_lag = std::max(out.most_lag, lag);
      if (aligner->locked()) out.most_lag_locked = std::max(out.most_lag_locked, lag);
    }
  }
  aligner->EndReference();
  while (d < clip.shown.size()) push_distorted();
  aligner->EndDistorted();
  take();
  out.run.counters = aligner->counters();
  return out;
}

// The long footage as the reference, whole, against distorted frames showing
// the footage frames for which `keep` says yes, from footage frame `first` on.
template <typename Keep>
ClipPair LongClip(std::int64_t first, Keep keep) {
  ClipPair clip;
  clip.footage = &LongFootage();
  clip.ref_frames = LongFootage().frames();
  for (std::int64_t t = first; t < clip.ref_frames; ++t) {
    if (keep(t)) clip.shown.push_back(t);
  }
  return clip;
}

// What every long run must show: no wrong pair; `min_paired` of the frames
// with a partner paired, the first within 30 frames; the dropped frames
// counted as the map has them between the pairs of each lock; and the
// reference frames needed close to the frame being decided, not growing with
// the run.
//
// While locked, the oldest reference frame needed is the one before the last
// pair (tracking's lowest candidate). The stream has reached the partner of
// its newest frame: the frames pushed since the last pair are those waiting
// for the reference frames beyond their prediction and those without a
// match (at most lost_after: then the lock is lost), each at most the map's
// longest step (its longest run of drops + 1) on from the one before. So
// the lag is at most 1 + (lost_after + 1) x that step (the feeds here are a
// few frames late: a frame or so waits). While acquiring (before the first
// lock, after a loss), the oldest needed is at most the window before the
// block's first frame, whose block waits for the window beyond its last frame, block - 1
// frames of up to ceil(rate) reference frames later: at most 2 x window +
// ceil(rate) x block.
void ExpectFollowed(const ClipPair& clip, const LiveRun& live, double rate, double min_paired) {
  const AlignerOptions o;
  const AlignmentRun& run = live.run;
  const PairCount n = ExpectNoWrongPair(clip, run);
  EXPECT_GE(n.paired, min_paired * n.with_partner)
      << n.paired << " of " << n.with_partner << " paired\n" << Describe(run);
  ASSERT_GE(n.first_pair, 0) << Describe(run);
  EXPECT_LE(n.first_pair - n.first_partner, 30) << Describe(run);
  EXPECT_EQ(run.counters.paired, static_cast<std::uint64_t>(n.paired));
  // Dropped frames: the reference steps between consecutive pairs of a lock
  // beyond the distorted steps (a loss ends a lock).
  std::uint64_t dropped = 0;
  const Decision* previous = nullptr;
  std::size_t next_event = 0;
  for (const Decision& decision : run.decisions) {
    while (next_event < run.events.size() && run.events[next_event].dist_index <= decision.dist_index) {
      if (run.events[next_event++].kind == EventKind::kLost) previous = nullptr;
    }
    if (decision.kind != DecisionKind::kPair) continue;
    if (previous != nullptr) {
      const std::int64_t step = (decision.ref_index - previous->ref_index) -
                                (decision.dist_index - previous->dist_index);
      if (step > 0) dropped += static_cast<std::uint64_t>(step);
    }
    previous = &decision;
  }
  EXPECT_EQ(run.counters.dropped, dropped);
  std::int64_t longest_drops = 0;
  for (std::size_t d = 1; d < clip.shown.size(); ++d) {
    longest_drops = std::max(longest_drops, clip.shown[d] - clip.shown[d - 1] - 1);
  }
  EXPECT_LE(live.most_lag_locked, 1 + (o.lost_after + 1) * (longest_drops + 1));
  EXPECT_LE(live.most_lag, 2 * o.window + static_cast<int>(std::ceil(rate)) * o.block);
}

// Every other frame dropped (a transcode to half the frame rate), 1,558
// frames against 3,120: one lock, every frame paired.
TEST_F(Alignment, HalfTheFramesStayLockedAndPaired) {
  const ClipPair clip = LongClip(4, [](std::int64_t t) { return t % 2 == 0; });
  const LiveRun live = AlignLive(clip, 3);
  ExpectFollowed(clip, live, 2.0, 1.0);
  EXPECT_EQ(live.run.counters.losses, 0u) << Describe(live.run);
  EXPECT_EQ(live.run.counters.locks, 1u) << Describe(live.run);
}

// Every fifth frame dropped (30 to 24 fps), 2,490 frames against 3,120.
TEST_F(Alignment, FourFifthsOfTheFramesStayLockedAndPaired) {
  const ClipPair clip = LongClip(7, [](std::int64_t t) { return t % 5 != 4; });
  const LiveRun live = AlignLive(clip, 5);
  ExpectFollowed(clip, live, 1.25, 1.0);
  EXPECT_EQ(live.run.counters.losses, 0u) << Describe(live.run);
  EXPECT_EQ(live.run.counters.locks, 1u) << Describe(live.run);
}

// Every fifth frame shown twice (25 to 30 fps: more frames than the
// reference, a rate of 5/6), 3,740 frames against 3,120: one lock, every
// frame paired but the last (the reference's last frame, with no neighbour
// after it: rule 3).
TEST_F(Alignment, RepeatedFramesAtAHigherFrameRateStayLockedAndPaired) {
  ClipPair clip;
  clip.footage = &LongFootage();
  clip.ref_frames = LongFootage().frames();
  for (std::int64_t t = 3; t < clip.ref_frames; ++t) {
    clip.shown.push_back(t);
    if (t % 5 == 0) clip.shown.push_back(t);
  }
  const LiveRun live = AlignLive(clip, 4);
  ExpectFollowed(clip, live, 5.0 / 6.0, 0.999);
  EXPECT_EQ(live.run.counters.losses, 0u) << Describe(live.run);
  EXPECT_EQ(live.run.counters.locks, 1u) << Describe(live.run);
  EXPECT_EQ(live.run.counters.repeated, (clip.shown.size() - 1) / 6) << Describe(live.run);
}

// Frames dropped at random (a starved machine): each footage frame kept with
// a probability of 80 % (2,509 frames) or 60 % (1,856). Runs of more drops
// than tracking follows (4 or more in a row at 80 %: about one in 600 frames;
// 5 or more at 60 %: one in 100) lose the lock for lost_after frames and a
// block: counted, never a wrong pair.
TEST_F(Alignment, RandomlyDroppedFramesStayPaired) {
  struct Case {
    unsigned kept;
    double min_paired;
    std::uint64_t most_losses;
  };
  for (const Case c : {Case{80, 0.98, 3}, Case{60, 0.9, 15}}) {
    SCOPED_TRACE(c.kept);
    std::mt19937 rng(c.kept);
    const ClipPair clip = LongClip(2, [&](std::int64_t) { return rng() % 100 < c.kept; });
    const LiveRun live = AlignLive(clip, 4);
    ExpectFollowed(clip, live, 100.0 / c.kept, c.min_paired);
    EXPECT_LE(live.run.counters.losses, c.most_losses) << Describe(live.run);
  }
}
}  // namespace
}  // namespace ssim2
