// The CPU path's band pipeline is exact whatever the band height: real test
// pairs scored with bands of many heights (SSIM2_CPU_BAND_ROWS) and thread
// counts, one-shot and against a cached reference, give the default
// scorer's score and sub-scores bit for bit. Heights below the blur radius,
// not a multiple of the 8-row groups, and taller than the image move every
// band boundary (and the recursion state carried across it) to other rows;
// a boundary handled wrong changes some sub-score. Also: how the variable is
// kept in range.
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../assertions.h"
#include "../testdata.h"
#include "../testdata_images.h"
#include "image_io.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace {

using testing::BitIdentical;
using testing::LoadTestImage;

constexpr const char* kBandRowsVariable = "SSIM2_CPU_BAND_ROWS";

// Sets the variable for its lifetime and restores what was there.
class BandRowsSetting {
 public:
  explicit BandRowsSetting(const std::optional<std::string>& value) {
    if (const char* old = std::getenv(kBandRowsVariable)) saved_ = old;
    if (value) {
      setenv(kBandRowsVariable, value->c_str(), 1);
    } else {
      unsetenv(kBandRowsVariable);
    }
  }
  ~BandRowsSetting() {
    if (saved_) {
      setenv(kBandRowsVariable, saved_->c_str(), 1);
    } else {
      unsetenv(kBandRowsVariable);
    }
  }
  BandRowsSetting(const BandRowsSetting&) = delete;
  BandRowsSetting& operator=(const BandRowsSetting&) = delete;

 private:
  std::optional<std::string> saved_;
};

std::unique_ptr<Scorer> NewCpuScorer(int width, int height, int threads, bool all_features,
                                     const std::optional<std::string>& band_rows) {
  BandRowsSetting setting(band_rows);
  ScorerOptions options;
  options.backend = Backend::kCpu;
  options.cpu_threads = threads;
  options.all_features = all_features;
  return testing::NewScorerOrFail(width, height, options);
}

// Every source size of the test data, from 8x8 to 1920x1080 (odd widths and
// heights included), with a strong and a mild distortion where there are two.
const char* const kPairs[][2] = {
    {"images/coffee_8x8/reference.png", "images/coffee_8x8/jpeg_q10.png"},
    {"images/hubble_17x33/reference.png", "images/hubble_17x33/noise_s5.png"},
    {"images/gravel_64x64/reference.png", "images/gravel_64x64/blur_s1.5.png"},
    {"images/chelsea_127x255/reference.png", "images/chelsea_127x255/jpeg_q30.png"},
    {"images/page_384x191/reference.png", "images/page_384x191/downup2x.png"},
    {"images/astronaut_256x256/reference.png", "images/astronaut_256x256/webp_q50.png"},
    {"images/rocket_640x360/reference.png", "images/rocket_640x360/jpeg_q10.png"},
    {"images/aitzgorri_1280x720/reference.png", "images/aitzgorri_1280x720/blur_s1.5.png"},
    {"images/seeding_1920x1080/reference.png", "images/seeding_1920x1080/jpeg_q30.png"},
};

// 2 rows: fewer than the blur radius (the first bands complete no output
// row); 18 and 42: not whole 8-row groups; 200: taller than most scales.
const int kBandRows[] = {2, 8, 18, 24, 42, 64, 200};
const int kThreadCounts[] = {1, 2, 3};

// `pairs` first entries of kPairs.
void ExpectSameResultsForEveryBandHeight(bool all_features, int pairs) {
  SSIM2_REQUIRE_TESTDATA();
  int compared = 0;
  for (int p = 0; p < pairs; ++p) {
    const auto& pair = kPairs[p];
    const io::Image& ref = LoadTestImage(pair[0]);
    const io::Image& dist = LoadTestImage(pair[1]);
    ASSERT_GT(ref.width(), 0) << pair[0];
    ASSERT_GT(dist.width(), 0) << pair[1];
    const int w = ref.width(), h = ref.height();
    Result expected;
    {
      std::unique_ptr<Scorer> scorer = NewCpuScorer(w, h, 1, all_features, std::nullopt);
      ASSERT_TRUE(scorer);
      ASSERT_OK(scorer->Compute(ref.view(), dist.view(), &expected));
    }
    for (int rows : kBandRows) {
      for (int threads : kThreadCounts) {
        SCOPED_TRACE(std::string(pair[1]) + ", " + std::to_string(rows) + "-row bands, " +
                     std::to_string(threads) + " threads");
        std::unique_ptr<Scorer> scorer =
            NewCpuScorer(w, h, threads, all_features, std::to_string(rows));
        ASSERT_TRUE(scorer);
        // The setting took effect (else this would compare the default with itself).
        EXPECT_NE(scorer->description().find("-row bands from SSIM2_CPU_BAND_ROWS"),
                  std::string::npos)
            << scorer->description();
        Result one_shot, cached;
        ASSERT_OK(scorer->Compute(ref.view(), dist.view(), &one_shot));
        EXPECT_TRUE(BitIdentical(one_shot, expected)) << "one-shot";
        ASSERT_OK(scorer->SetReference(ref.view()));
        ASSERT_OK(scorer->ComputeWithReference(dist.view(), &cached));
        EXPECT_TRUE(BitIdentical(cached, expected)) << "cached reference";
        // A second distorted frame against the same cache: the carried
        // column state starts from zero again on every scale.
        ASSERT_OK(scorer->ComputeWithReference(dist.view(), &cached));
        EXPECT_TRUE(BitIdentical(cached, expected)) << "cached reference, second frame";
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, pairs * 7 * 3);
}

// All 108 sub-scores (every map of every channel computed).
TEST(BandHeights, AllSubScoresAreBitIdentical) {
  ExpectSameResultsForEveryBandHeight(true, std::size(kPairs));
}

// The default plan: channels without a weighted SSIM map keep only
// |xyb - mu| of the reference in the cache, another band path. (Pairs up
// to 640x360: the two large ones take no other path and would triple the
// suite's time.)
TEST(BandHeights, ScoresWithSkippedMapsAreBitIdentical) {
  ExpectSameResultsForEveryBandHeight(false, std::size(kPairs) - 2);
}

// Odd heights are rounded down to even, out-of-range ones clamped to
// [2, 1024] and to the image (rounded up to even); anything but a positive
// number leaves the default.
TEST(BandHeights, VariableIsKeptInRange) {
  const struct {
    const char* value;
    const char* bands;  // what the description names, or null: the default
  } cases[] = {
      {"17", "16-row bands"},   {"1", "2-row bands"},     {"2", "2-row bands"},
      {"64", "64-row bands"},   {"65", "64-row bands"},   {"5000", "66-row bands"},
      {"99999999999999999999", "66-row bands"},           {"0", nullptr},
      {"-8", nullptr},          {"abc", nullptr},         {"12abc", nullptr},
      {"", nullptr},            {"auto", nullptr},
  };
  for (const auto& c : cases) {
    // 66 rows: the clamp to the image height rounds 65 up to even.
    std::unique_ptr<Scorer> scorer = NewCpuScorer(64, 65, 2, false, std::string(c.value));
    ASSERT_TRUE(scorer);
    const std::string description = scorer->description();
    if (c.bands) {
      EXPECT_NE(description.find(std::string(", ") + c.bands + " from SSIM2_CPU_BAND_ROWS"),
                std::string::npos)
          << "SSIM2_CPU_BAND_ROWS=" << c.value << ": " << description;
    } else {
      EXPECT_EQ(description.find("row bands"), std::string::npos)
          << "SSIM2_CPU_BAND_ROWS=" << c.value << ": " << description;
    }
  }
  // Taller than kMaxBandRows on a tall image.
  std::unique_ptr<Scorer> tall = NewCpuScorer(16, 3000, 1, false, std::string("2000"));
  ASSERT_TRUE(tall);
  EXPECT_NE(tall->description().find(", 1024-row bands"), std::string::npos)
      << tall->description();
}

}  // namespace
}  // namespace ssim2
