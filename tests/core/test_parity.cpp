// The 70 reference pairs on every backend: scores (scores.csv) and all
// sub-scores (features.csv) against what the reference printed, the cached
// reference and batches against one-shot scores, and on CUDA device-resident
// inputs against host inputs. The CUDA cases skip without a device.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#if defined(SSIM2_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

#include "../assertions.h"
#include "../testdata.h"
#include "../testdata_images.h"
#include "image_io.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace {

using testing::BitIdentical;
using testing::ReadCsv;
using testing::RelativeDiff;
using testing::LoadTestImage;
using testing::TestDataPath;

// The CPU path replays the reference bit for bit; the CUDA engine sums the
// error maps in float64 in another order, so its sub-scores may differ in
// the last bits (relative), its scores by 1e-9 from the CPU path's.
double SubScoreTolerance(Backend backend) { return backend == Backend::kCpu ? 0.0 : 1e-10; }
constexpr double kScoreToleranceVsCpu = 1e-9;
// The reference prints 8 decimals.
constexpr double kScoreToleranceVsReference = 1e-6;

class Parity : public testing::PerBackendTest {
 protected:
  void SetUp() override {
    PerBackendTest::SetUp();
    if (IsSkipped()) return;
    SSIM2_REQUIRE_TESTDATA();
  }

  std::unique_ptr<Scorer> NewScorer(int width, int height, bool all_features,
                                    Backend backend) {
    ScorerOptions options;
    options.backend = backend;
    options.all_features = all_features;
    return testing::NewScorerOrFail(width, height, options);
  }

  Result Score(const io::Image& ref, const io::Image& dist, bool all_features,
               Backend backend) {
    Result result;
    std::unique_ptr<Scorer> scorer = NewScorer(ref.width(), ref.height(), all_features, backend);
    if (!scorer) return result;
    const Status s = scorer->Compute(ref.view(), dist.view(), &result);
    EXPECT_TRUE(s.ok()) << s.message();
    return result;
  }
  Result Score(const io::Image& ref, const io::Image& dist, bool all_features) {
    return Score(ref, dist, all_features, GetParam());
  }
};

TEST_P(Parity, ScoresOfAllPairsMatchTheReference) {
  const auto rows = ReadCsv("scores.csv");
  ASSERT_EQ(rows.size(), 70u) << "scores.csv should list 70 pairs";
  double worst = -1.0;
  std::string worst_pair;
  int same_print = 0;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 5u);
    const io::Image& ref = LoadTestImage(row[0]);
    const io::Image& dist = LoadTestImage(row[1]);
    if (HasFailure()) return;
    EXPECT_EQ(ref.width(), std::atoi(row[2].c_str())) << row[0];
    EXPECT_EQ(ref.height(), std::atoi(row[3].c_str())) << row[0];
    const Result r = Score(ref, dist, /*all_features=*/false);
    const double expected = std::strtod(row[4].c_str(), nullptr);
    const double delta = std::fabs(r.score - expected);
    EXPECT_LE(delta, kScoreToleranceVsReference)
        << row[1] << ": got " << r.score << ", reference " << row[4];
    char printed[64];
    std::snprintf(printed, sizeof printed, "%.8f", r.score);
    same_print += row[4] == printed;
    if (delta > worst) {
      worst = delta;
      worst_pair = row[1];
    }
  }
  std::printf("parity (%s): max |delta| = %.3g (%s); %d of %zu scores print identically\n",
              BackendName(GetParam()), worst, worst_pair.c_str(), same_print, rows.size());
}

TEST_P(Parity, IdenticalPairsScoreExactly100) {
  int checked = 0;
  for (const auto& row : ReadCsv("scores.csv")) {
    if (row[1].find("identical") == std::string::npos && row[0] != row[1]) continue;
    const io::Image& ref = LoadTestImage(row[0]);
    const io::Image& dist = LoadTestImage(row[1]);
    if (HasFailure()) return;
    EXPECT_EQ(Score(ref, dist, false).score, 100.0) << row[1];
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
// double: on the CPU path the comparison is exact, not within a tolerance.
TEST_P(Parity, AllSubScoresEqualTheReference) {
  const double tolerance = SubScoreTolerance(GetParam());
  const auto rows = ReadCsv("features.csv");
  ASSERT_FALSE(rows.empty());
  std::map<std::string, std::vector<const std::vector<std::string>*>> by_pair;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 8u);
    by_pair[row[0] + "," + row[1]].push_back(&row);
  }
  ASSERT_EQ(by_pair.size(), 70u);
  double max_abs = 0.0, max_rel = 0.0;
  std::size_t compared = 0, unequal = 0;
  for (const auto& entry : by_pair) {
    const auto& first = *entry.second.front();
    const io::Image& ref = LoadTestImage(first[0]);
    const io::Image& dist = LoadTestImage(first[1]);
    if (HasFailure()) return;
    const Result r = Score(ref, dist, /*all_features=*/true);
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
        max_rel = std::max(max_rel, RelativeDiff(got, expected));
        ++compared;
        if (got != expected) ++unequal;
        if (tolerance == 0.0) {
          EXPECT_EQ(got, expected) << entry.first << " " << (*row)[2] << " scale " << s
                                   << " norm " << (*row)[4] << " map " << m;
        } else {
          EXPECT_LE(RelativeDiff(got, expected), tolerance)
              << entry.first << " " << (*row)[2] << " scale " << s << " norm " << (*row)[4]
              << " map " << m << ": " << got << " vs " << expected;
        }
      }
    }
  }
  std::printf("features (%s): %zu sub-scores compared, %zu unequal, max |diff| = %.3g, "
              "max relative %.3g\n",
              BackendName(GetParam()), compared, unequal, max_abs, max_rel);
}

TEST_P(Parity, ScoresMatchTheCpuPath) {
  if (GetParam() == Backend::kCpu) GTEST_SKIP() << "the CPU path is the baseline";
  double worst = 0.0;
  for (const auto& row : ReadCsv("scores.csv")) {
    const io::Image& ref = LoadTestImage(row[0]);
    const io::Image& dist = LoadTestImage(row[1]);
    if (HasFailure()) return;
    const Result cpu = Score(ref, dist, true, Backend::kCpu);
    const Result got = Score(ref, dist, true);
    worst = std::max(worst, std::fabs(got.score - cpu.score));
    EXPECT_LE(std::fabs(got.score - cpu.score), kScoreToleranceVsCpu)
        << row[1] << ": " << got.score << " vs CPU " << cpu.score;
  }
  std::printf("scores (%s) vs CPU: max |diff| = %.3g\n", BackendName(GetParam()), worst);
}

// Per reference: the cached reference and a batch of all its distorted
// images give exactly the one-shot results.
TEST_P(Parity, CachedReferenceAndBatchesEqualCompute) {
  std::map<std::string, std::vector<std::string>> by_ref;
  for (const auto& row : ReadCsv("scores.csv")) by_ref[row[0]].push_back(row[1]);
  ASSERT_EQ(by_ref.size(), 9u);
  for (const auto& [ref_path, dist_paths] : by_ref) {
    const io::Image& ref = LoadTestImage(ref_path);
    std::vector<ImageView> views;
    std::vector<Result> one_shot;
    for (const std::string& d : dist_paths) {
      views.push_back(LoadTestImage(d).view());
      one_shot.push_back(Score(ref, LoadTestImage(d), true));
    }
    if (HasFailure()) return;
    std::unique_ptr<Scorer> scorer = NewScorer(ref.width(), ref.height(), true, GetParam());
    ASSERT_TRUE(scorer);
    ASSERT_OK(scorer->SetReference(ref.view()));
    for (std::size_t i = 0; i < views.size(); ++i) {
      Result r;
      ASSERT_OK(scorer->ComputeWithReference(views[i], &r));
      EXPECT_TRUE(BitIdentical(r, one_shot[i])) << dist_paths[i] << ": cached reference";
    }
    std::vector<Result> batch;
    ASSERT_OK(scorer->ComputeBatch(ref.view(), views, &batch));
    for (std::size_t i = 0; i < views.size(); ++i) {
      EXPECT_TRUE(BitIdentical(batch[i], one_shot[i])) << dist_paths[i] << ": batch";
    }
  }
}

// ScorerOptions::sequential_sums: the CUDA engine sums in the CPU's order, so
// its sub-scores are the reference's too, bit for bit, in pairs and in
// batches against a cached reference (issue 23: users compare
// implementations).
TEST_P(Parity, SequentialSumsEqualTheReferenceBitForBit) {
  if (GetParam() == Backend::kCpu) GTEST_SKIP() << "the CPU path always sums sequentially";
  const auto rows = ReadCsv("features.csv");
  ASSERT_FALSE(rows.empty());
  std::map<std::string, std::vector<std::string>> by_ref;
  for (const auto& row : ReadCsv("scores.csv")) by_ref[row[0]].push_back(row[1]);
  // Per pair: the one-shot result and the batch's.
  std::map<std::string, Result> one_shot, batched;
  for (const auto& [ref_path, dist_paths] : by_ref) {
    const io::Image& ref = LoadTestImage(ref_path);
    if (HasFailure()) return;
    ScorerOptions options;
    options.backend = GetParam();
    options.all_features = true;
    options.sequential_sums = true;
    std::unique_ptr<Scorer> scorer = testing::NewScorerOrFail(ref.width(), ref.height(), options);
    ASSERT_TRUE(scorer);
    std::vector<ImageView> views;
    for (const std::string& d : dist_paths) {
      const io::Image& dist = LoadTestImage(d);
      if (HasFailure()) return;
      views.push_back(dist.view());
      ASSERT_OK(scorer->Compute(ref.view(), dist.view(), &one_shot[ref_path + "," + d]));
    }
    std::vector<Result> batch;
    ASSERT_OK(scorer->ComputeBatch(ref.view(), views, &batch));
    for (std::size_t i = 0; i < views.size(); ++i) batched[ref_path + "," + dist_paths[i]] = batch[i];
  }
  std::size_t compared = 0;
  for (const auto& row : rows) {
    const std::string pair = row[0] + "," + row[1];
    ASSERT_TRUE(one_shot.count(pair) && batched.count(pair)) << pair;
    const int c = ChannelIndex(row[2]);
    const int s = std::atoi(row[3].c_str());
    const int n = row[4] == "1" ? 0 : 1;
    for (int m = 0; m < kNumMaps; ++m) {
      const double expected = std::strtod(row[5 + m].c_str(), nullptr);
      EXPECT_EQ(one_shot[pair].features[s][c][m][n], expected)
          << pair << " " << row[2] << " scale " << s << " norm " << row[4] << " map " << m;
      EXPECT_EQ(batched[pair].features[s][c][m][n], expected)
          << pair << " (batch) " << row[2] << " scale " << s << " norm " << row[4] << " map " << m;
      ++compared;
    }
  }
  EXPECT_EQ(one_shot.size(), 70u);
  std::printf("features (%s, sequential sums): %zu sub-scores of %zu pairs equal the reference's\n",
              BackendName(GetParam()), compared, one_shot.size());
}

#if defined(SSIM2_HAVE_CUDA)
// A device copy of an image's bytes (freed by the destructor).
class DeviceImage {
 public:
  explicit DeviceImage(const io::Image& image) : image_(image) {
    if (cudaMalloc(&ptr_, image.bytes().size()) != cudaSuccess) {
      ptr_ = nullptr;
      return;
    }
    // Synchronous, and finished before the engine's (non-blocking) stream
    // reads it.
    if (cudaMemcpy(ptr_, image.bytes().data(), image.bytes().size(), cudaMemcpyHostToDevice) !=
            cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess) {
      cudaFree(ptr_);
      ptr_ = nullptr;
    }
  }
  ~DeviceImage() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;
  bool ok() const { return ptr_ != nullptr; }
  ImageView view() const {
    return ImageView::Packed(image_.format(), image_.width(), image_.height(), ptr_,
                             static_cast<std::ptrdiff_t>(image_.stride()),
                             MemoryLocation::kCudaDevice);
  }

 private:
  const io::Image& image_;
  void* ptr_ = nullptr;
};

// Device-resident inputs (and a device reference cached, then host
// distorted images) give the host inputs' results bit for bit.
TEST_P(Parity, DeviceInputsEqualHostInputs) {
  if (GetParam() != Backend::kCuda) GTEST_SKIP() << "device memory is read by CUDA only";
  for (const auto& row : ReadCsv("scores.csv")) {
    const io::Image& ref = LoadTestImage(row[0]);
    const io::Image& dist = LoadTestImage(row[1]);
    if (HasFailure()) return;
    const Result host = Score(ref, dist, true);
    DeviceImage dref(ref), ddist(dist);
    ASSERT_TRUE(dref.ok() && ddist.ok()) << "cudaMalloc/cudaMemcpy of the inputs failed";
    std::unique_ptr<Scorer> scorer = NewScorer(ref.width(), ref.height(), true, GetParam());
    ASSERT_TRUE(scorer);
    Result r;
    ASSERT_OK(scorer->Compute(dref.view(), ddist.view(), &r));
    EXPECT_TRUE(BitIdentical(r, host)) << row[1] << ": device inputs";
    ASSERT_OK(scorer->SetReference(dref.view()));
    ASSERT_OK(scorer->ComputeWithReference(dist.view(), &r));
    EXPECT_TRUE(BitIdentical(r, host)) << row[1] << ": cached device reference";
  }
}
#endif

INSTANTIATE_TEST_SUITE_P(Backends, Parity, ::testing::Values(Backend::kCpu, Backend::kCuda),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return std::string(BackendName(info.param));
                         });

}  // namespace
}  // namespace ssim2
