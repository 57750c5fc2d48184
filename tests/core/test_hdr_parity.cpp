// PQ and HLG pairs (tests/data/hdr) against what libjxl's own ssimulacra2
// printed for them (scores.csv), with each file's colour description from its
// cICP and cLLi chunks (colorimetry.csv): every score must print the same 8
// decimals, on the CPU path and in the CUDA engine, PQ and HLG alike.
// tests/cuda builds this file again on the emulated CUDA runtime with
// --quick: the pairs up to 17x33 only. Also the colour descriptions the
// scorer refuses, and the reference's intensity targets.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../assertions.h"
#include "../test_flags.h"
#include "../testdata.h"
#include "image_io.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace {

using testing::HdrTestDataPath;
using testing::ReadCsvFile;

// colorimetry.csv: file -> the description its chunks give (codes as cICP's).
const std::map<std::string, ColorDescription>& Colorimetry() {
  static const std::map<std::string, ColorDescription> table = [] {
    std::map<std::string, ColorDescription> t;
    for (const auto& row : ReadCsvFile(HdrTestDataPath("colorimetry.csv"))) {
      EXPECT_GE(row.size(), 5u);
      if (row.size() < 5) continue;
      ColorDescription c;
      EXPECT_EQ(row[1], "9") << row[0];
      c.primaries = Primaries::kBT2020;
      EXPECT_TRUE(row[2] == "16" || row[2] == "18") << row[0];
      c.transfer = row[2] == "16" ? Transfer::kPq : Transfer::kHlg;
      if (row.size() > 5 && !row[5].empty()) {
        c.max_cll = MaxCllFromClli(static_cast<std::uint32_t>(std::stoul(row[5]) * 10000));
      }
      t[row[0]] = c;
    }
    return t;
  }();
  return table;
}

// An HDR test image with the description of its chunks.
struct HdrImage {
  io::Image image;
  ImageView view;
};

const HdrImage& LoadHdrImage(const std::string& relative) {
  static std::map<std::string, HdrImage> cache;
  auto it = cache.find(relative);
  if (it != cache.end()) return it->second;
  HdrImage h;
  const Status s = io::LoadImage(HdrTestDataPath(relative), &h.image);
  EXPECT_TRUE(s.ok()) << relative << ": " << s.message();
  const auto color = Colorimetry().find(relative);
  EXPECT_NE(color, Colorimetry().end()) << relative << " is not in colorimetry.csv";
  it = cache.emplace(relative, std::move(h)).first;
  it->second.view = it->second.image.view();
  if (color != Colorimetry().end()) it->second.view.color = color->second;
  return it->second;
}

std::string Printed(double score) {
  char text[64];
  std::snprintf(text, sizeof text, "%.8f", score);
  return text;
}

class HdrParity : public testing::PerBackendTest {
 protected:
  std::unique_ptr<Scorer> NewScorer(int width, int height) {
    ScorerOptions options;
    options.backend = GetParam();
    return testing::NewScorerOrFail(width, height, options);
  }
};

// --quick: the pairs this size or smaller (8x8 and 17x33: the emulated runtime is slow).
constexpr int kQuickMaxPixels = 17 * 33;

TEST_P(HdrParity, EveryPairPrintsTheReferenceDigits) {
  const auto rows = ReadCsvFile(HdrTestDataPath("scores.csv"));
  ASSERT_EQ(rows.size(), 58u);
  std::map<Transfer, int> same, scored;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 5u);
    const HdrImage& ref = LoadHdrImage(row[0]);
    const HdrImage& dist = LoadHdrImage(row[1]);
    if (HasFailure()) return;
    if (testing::QuickRun() && ref.view.width * ref.view.height > kQuickMaxPixels) continue;
    std::unique_ptr<Scorer> scorer = NewScorer(ref.view.width, ref.view.height);
    ASSERT_TRUE(scorer);
    Result one_shot, cached;
    Status s = scorer->Compute(ref.view, dist.view, &one_shot);
    ASSERT_TRUE(s.ok()) << row[1] << ": " << s.message();
    EXPECT_EQ(Printed(one_shot.score), row[4]) << row[0] << " vs " << row[1];
    const Transfer transfer = ref.view.color.transfer;
    same[transfer] += Printed(one_shot.score) == row[4];
    ++scored[transfer];
    // Against a cached reference: the same score, bit for bit.
    s = scorer->SetReference(ref.view);
    ASSERT_TRUE(s.ok()) << s.message();
    s = scorer->ComputeWithReference(dist.view, &cached);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(cached.score, one_shot.score) << row[1];
    // In a batch (the CUDA engine's lanes), beside the reference itself.
    std::vector<Result> batch;
    s = scorer->ComputeBatch(ref.view, {ref.view, dist.view, dist.view}, &batch);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(batch.size(), 3u);
    EXPECT_EQ(Printed(batch[0].score), "100.00000000") << row[0];
    EXPECT_EQ(batch[1].score, one_shot.score) << row[1];
    EXPECT_EQ(batch[2].score, one_shot.score) << row[1];
  }
  for (const Transfer transfer : {Transfer::kPq, Transfer::kHlg}) {
    EXPECT_GT(scored[transfer], 0) << TransferName(transfer);
    EXPECT_EQ(same[transfer], scored[transfer]) << TransferName(transfer);
    std::printf("HDR parity (%s%s): %d of %d %s scores print the reference's digits\n",
                BackendName(GetParam()), testing::QuickRun() ? ", pairs up to 17x33" : "",
                same[transfer], scored[transfer], TransferName(transfer));
  }
}

// The file's colour description matters: the same pixels scored as sRGB
// give another number (never a silent SDR score).
TEST_P(HdrParity, TheDescriptionChangesTheScore) {
  const HdrImage& ref = LoadHdrImage("gravel_64x64-pq/reference.png");
  const HdrImage& dist = LoadHdrImage("gravel_64x64-pq/quant10.png");
  if (HasFailure()) return;
  std::unique_ptr<Scorer> scorer = NewScorer(ref.view.width, ref.view.height);
  ASSERT_TRUE(scorer);
  ImageView ref_sdr = ref.view, dist_sdr = dist.view;
  ref_sdr.color = dist_sdr.color = ColorDescription{};
  Result hdr, sdr;
  ASSERT_TRUE(scorer->Compute(ref.view, dist.view, &hdr).ok());
  ASSERT_TRUE(scorer->Compute(ref_sdr, dist_sdr, &sdr).ok());
  EXPECT_NE(hdr.score, sdr.score);
}

INSTANTIATE_TEST_SUITE_P(Backends, HdrParity, ::testing::Values(Backend::kCpu, Backend::kCuda),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return std::string(BackendName(info.param));
                         });

TEST(HdrDescription, IntensityTargetsAreTheReferences) {
  ColorDescription c;
  EXPECT_EQ(IntensityTarget(c), 255.0f);
  c.max_cll = 1501.0f;
  EXPECT_EQ(IntensityTarget(c), 255.0f);  // MaxCLL counts for PQ only
  c.transfer = Transfer::kHlg;
  c.primaries = Primaries::kBT2020;
  EXPECT_EQ(IntensityTarget(c), 1000.0f);
  c.transfer = Transfer::kPq;
  EXPECT_EQ(IntensityTarget(c), 1501.0f);
  c.max_cll = 0.0f;
  EXPECT_EQ(IntensityTarget(c), 10000.0f);
}

TEST(HdrDescription, ClliIsReadAsTheReferenceReadsIt) {
  EXPECT_EQ(MaxCllFromClli(15010000), 1501.0f);
  EXPECT_EQ(MaxCllFromClli(12345000), 1234.5f);
  EXPECT_EQ(MaxCllFromClli(0), 0.0f);
  // Clamped to 10^8 units (10000 cd/m2).
  EXPECT_EQ(MaxCllFromClli(100000001), 10000.0f);
  EXPECT_EQ(MaxCllFromClli(0xffffffffu), 10000.0f);
  // A float division of the float units: 1 unit is not exactly 1e-4.
  EXPECT_EQ(MaxCllFromClli(1), 1.0f / 10000.0f);
}

std::vector<std::uint16_t> Pixels(int w, int h, int channels) {
  return std::vector<std::uint16_t>(static_cast<std::size_t>(w) * h * channels, 30000);
}

Status ScoreWith(PixelFormat format, int channels, ColorDescription color) {
  const int w = 16, h = 16;
  const std::vector<std::uint16_t> pixels = Pixels(w, h, channels);
  ImageView v = ImageView::Packed(format, w, h, pixels.data(), 2 * w * channels);
  v.color = color;
  ScorerOptions options;
  options.backend = Backend::kCpu;
  Result r;
  return ComputeSsimulacra2(v, v, options, &r);
}

TEST(HdrDescription, UnsupportedDescriptionsAreRefusedByName) {
  struct Case {
    PixelFormat format;
    int channels;
    Transfer transfer;
    Primaries primaries;
    float max_cll;
    StatusCode code;
    const char* names;
  };
  const Case cases[] = {
      {PixelFormat::kRGB16, 3, Transfer::kPq, Primaries::kBT709, 0, StatusCode::kUnsupportedFormat,
       "PQ with BT.709 primaries"},
      {PixelFormat::kRGB16, 3, Transfer::kSrgb, Primaries::kBT2020, 0,
       StatusCode::kUnsupportedFormat, "sRGB with BT.2020 primaries"},
      {PixelFormat::kGray16, 1, Transfer::kHlg, Primaries::kBT2020, 0,
       StatusCode::kUnsupportedFormat, "GRAY16 image: HLG with BT.2020 primaries"},
      {PixelFormat::kRGB16, 3, Transfer::kPq, Primaries::kBT2020, -1.0f,
       StatusCode::kInvalidArgument, "MaxCLL"},
      {PixelFormat::kRGB16, 3, Transfer::kPq, Primaries::kBT2020, NAN,
       StatusCode::kInvalidArgument, "MaxCLL"},
      {PixelFormat::kRGB16, 3, static_cast<Transfer>(7), Primaries::kBT709, 0,
       StatusCode::kUnsupportedFormat, "unknown"},
  };
  for (const Case& c : cases) {
    ColorDescription color;
    color.transfer = c.transfer;
    color.primaries = c.primaries;
    color.max_cll = c.max_cll;
    const Status s = ScoreWith(c.format, c.channels, color);
    EXPECT_EQ(s.code(), c.code) << c.names << ": " << s.message();
    EXPECT_NE(s.message().find(c.names), std::string::npos) << s.message();
  }
  ColorDescription ok;
  ok.transfer = Transfer::kPq;
  ok.primaries = Primaries::kBT2020;
  ok.max_cll = 1501.0f;
  EXPECT_TRUE(ScoreWith(PixelFormat::kRGBA16, 4, ok).ok());
  ok.transfer = Transfer::kLinear;
  ok.primaries = Primaries::kBT709;
  EXPECT_TRUE(ScoreWith(PixelFormat::kRGB16, 3, ok).ok());
}

}  // namespace
}  // namespace ssim2
