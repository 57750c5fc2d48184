// Sequential sums on the GPU (EngineOptions::sequential_sums): the three
// launches of kernels.h "Sequential sums" give the plain loop `s += x[i]`
// bit for bit on adversarial term arrays (exact ties on both parities, sums
// landing on powers of two, subnormals, huge dynamic ranges, NaN and
// infinities, negative terms, chunk and leaf boundaries everywhere), and an
// engine (or Scorer) that uses them gives every sub-score of the CPU backend
// bit for bit, in pairs, against a cached reference, in batch lanes and in
// two scale groups.
//
// Usage: test_cuda_sequential_sums [--quick] [gtest options]. Exit 77 without
// a CUDA device. The emulated build (tests/cuda/meson.build) runs it on the
// CPU with --quick.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../format_images.h"
#include "cuda/kernels.h"
#include "cuda_test_util.h"

using namespace ssim2;

namespace {

std::uint64_t Bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// A device buffer of `bytes` (the kernels write everything they read).
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) {
    if (cudaMalloc(&ptr, bytes ? bytes : 1) != cudaSuccess) ptr = nullptr;
  }
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr);
  }
};

struct TermArray {
  std::string what;
  int edge;
  std::vector<double> terms;
};

// Sums every series of `arrays` with the kernels (one launch set for all, as a
// pass does) and compares each with the loop.
void ExpectSequential(const std::vector<TermArray>& arrays) {
  ASSERT_LE(arrays.size(), static_cast<std::size_t>(cuda::kSeqMaxJobs));
  cuda::SeqParams p{};
  std::vector<std::unique_ptr<cudatest::DeviceCopy>> copies;
  for (const TermArray& a : arrays) {
    cuda::SeqJob& job = p.jobs[p.num_jobs];
    copies.push_back(std::make_unique<cudatest::DeviceCopy>(a.terms.data(),
                                                            a.terms.size() * sizeof(double)));
    ASSERT_NE(copies.back()->ptr, nullptr);
    job.terms = static_cast<const double*>(copies.back()->ptr);
    job.n = static_cast<long long>(a.terms.size());
    job.first_chunk = p.num_chunks;
    job.num_chunks = static_cast<int>((job.n + cuda::kSeqChunkTerms - 1) / cuda::kSeqChunkTerms);
    job.edge = a.edge;
    job.out = p.num_jobs * cuda::kSeqSeriesSlots;
    p.num_chunks += job.num_chunks;
    ++p.num_jobs;
  }
  const std::size_t slots = static_cast<std::size_t>(p.num_chunks) * cuda::kSeqSeriesSlots;
  DeviceBuffer approx(slots * sizeof(double));
  DeviceBuffer chunk_step(slots * sizeof(seqsum::Step));
  DeviceBuffer leaf_step(slots * cuda::kSeqChunkLeaves * cuda::kSeqLeafSteps *
                         sizeof(seqsum::Step));
  const std::size_t outs = arrays.size() * cuda::kSeqSeriesSlots;
  DeviceBuffer out(outs * sizeof(double));
  DeviceBuffer leaf_grid(slots * cuda::kSeqChunkLeaves * sizeof(int));
  ASSERT_TRUE(approx.ptr && chunk_step.ptr && leaf_step.ptr && leaf_grid.ptr &&
              out.ptr);
  p.scratch = {approx.as<double>(), chunk_step.as<seqsum::Step>(),
               leaf_step.as<seqsum::Step>(), leaf_grid.as<int>()};
  ASSERT_EQ(cuda::LaunchSequentialSums(p, out.as<double>(), nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<double> got(outs);
  ASSERT_EQ(cudaMemcpy(got.data(), out.ptr, outs * sizeof(double), cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (std::size_t j = 0; j < arrays.size(); ++j) {
    const TermArray& a = arrays[j];
    for (int k = 0; k < cuda::SeqSeries(p.jobs[j]); ++k) {
      double want = 0.0;
      for (double v : a.terms) want += cuda::SeqSeriesTerm(a.edge, k, v);
      const double g = got[j * cuda::kSeqSeriesSlots + k];
      EXPECT_EQ(Bits(g), Bits(want)) << a.what << " (" << a.terms.size() << " terms, "
                                     << (a.edge ? "edge" : "ssim") << " series " << k
                                     << "): " << cudatest::Format("%.17g vs %.17g", g, want);
    }
  }
}

std::vector<double> Generate(std::size_t n, const std::function<double(std::mt19937_64&, std::size_t)>& f,
                             std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = f(rng, i);
  return v;
}

TEST(SequentialSums, KernelsEqualTheLoopBitForBit) {
  SSIM2_REQUIRE_DEVICE();
  const bool quick = ssim2::testing::QuickRun();
  const std::size_t chunk = cuda::kSeqChunkTerms, leaf = cuda::kSeqLeafTerms;
  // Quick (emulated): one length within a leaf, one across chunks.
  std::vector<std::size_t> lengths = {5, 2 * chunk + 77};
  if (!quick) {
    for (std::size_t n : {std::size_t(1), leaf - 1, leaf, leaf + 1, chunk - 1, chunk, chunk + 1,
                          33 * chunk + 5, std::size_t(2073600)}) {
      lengths.push_back(n);
    }
  }
  using Rng = std::mt19937_64;
  auto uniform = [](Rng& r, std::size_t) { return std::uniform_real_distribution<double>(0, 1)(r); };
  // Multiples of 2^-54 around 1: with s in [1, 2) (spacing 2^-52) every odd
  // multiple of 2^-53 is a tie, on either parity.
  auto ties = [](Rng& r, std::size_t) {
    const double pick[] = {0.5, 0.25, 0x1p-53, 3 * 0x1p-53, 0x1p-54, 5 * 0x1p-53, 0.0, 1.0};
    return pick[r() % 8];
  };
  auto halves = [](Rng&, std::size_t) { return 0.5; };  // sums land on powers of two
  auto log_uniform = [](Rng& r, std::size_t) {
    return std::ldexp(std::uniform_real_distribution<double>(1, 2)(r), static_cast<int>(r() % 80) - 60);
  };
  auto subnormal = [](Rng& r, std::size_t) {
    return std::ldexp(std::uniform_real_distribution<double>(0, 1)(r), -1030 + static_cast<int>(r() % 12));
  };
  auto sparse = [](Rng& r, std::size_t i) {
    return i % 997 == 3 ? std::uniform_real_distribution<double>(0, 1e3)(r) : (r() % 3 ? 0.0 : 1e-9);
  };
  // The edge map's difference: both signs, as d1 has.
  auto signed_terms = [](Rng& r, std::size_t) {
    return std::uniform_real_distribution<double>(-0.5, 0.5)(r);
  };
  auto nan_at = [](std::size_t where) {
    return [where](Rng& r, std::size_t i) {
      return i == where ? std::nan("") : std::uniform_real_distribution<double>(0, 1)(r);
    };
  };
  auto inf_at = [](std::size_t where) {
    return [where](Rng& r, std::size_t i) {
      return i == where ? std::numeric_limits<double>::infinity()
                        : std::uniform_real_distribution<double>(0, 1)(r);
    };
  };
  std::uint64_t seed = 1;
  for (std::size_t n : lengths) {
    std::vector<TermArray> arrays;
    arrays.push_back({"uniform", 0, Generate(n, uniform, ++seed)});
    arrays.push_back({"uniform", 1, Generate(n, signed_terms, ++seed)});
    arrays.push_back({"ties", 0, Generate(n, ties, ++seed)});
    arrays.push_back({"halves", 0, Generate(n, halves, ++seed)});
    arrays.push_back({"log-uniform", 0, Generate(n, log_uniform, ++seed)});
    arrays.push_back({"subnormal", 0, Generate(n, subnormal, ++seed)});
    arrays.push_back({"sparse", 1, Generate(n, sparse, ++seed)});
    arrays.push_back({"NaN in the middle", 0, Generate(n, nan_at(n / 2), ++seed)});
    arrays.push_back({"infinity at the end", 1, Generate(n, inf_at(n - 1), ++seed)});
    arrays.push_back({"zeros", 0, std::vector<double>(n, 0.0)});
    ExpectSequential(arrays);
  }
}

// Every sub-score of `engine_opt`'s engine against the CPU backend's, bit for
// bit: a pair, then against a cached reference, then a batch on its lanes.
void ExpectCpuSubScores(int w, int h, PixelFormat format, const cuda::EngineOptions& engine_opt) {
  SCOPED_TRACE(cudatest::Format("%s %dx%d", PixelFormatName(format), w, h));
  const ssim2::testing::TestImage ref = ssim2::testing::MakeImage(format, w, h, 3);
  std::vector<ssim2::testing::TestImage> dist;
  for (std::uint32_t seed : {5u, 9u, 11u}) {
    dist.push_back(ssim2::testing::MakeImage(format, w, h, seed, 0.1 * seed));
  }
  std::unique_ptr<Scorer> cpu;
  ScorerOptions so;
  so.backend = Backend::kCpu;
  so.all_features = engine_opt.all_features;
  ASSERT_OK(Scorer::Create(w, h, so, &cpu));
  std::vector<Result> want(dist.size());
  for (std::size_t i = 0; i < dist.size(); ++i) ASSERT_OK(cpu->Compute(ref.view, dist[i].view, &want[i]));
  cuda::Engine engine;
  ASSERT_OK(cuda::Engine::Create(w, h, engine_opt, &engine));
  Result pair;
  ASSERT_OK(engine.Compute(ref.view, dist[0].view, &pair));
  EXPECT_TRUE(ssim2::testing::BitIdentical(pair, want[0])) << "pair";
  ASSERT_OK(engine.SetReference(ref.view));
  Result cached;
  ASSERT_OK(engine.Compute(dist[1].view, &cached));
  EXPECT_TRUE(ssim2::testing::BitIdentical(cached, want[1])) << "cached reference";
  std::vector<ImageView> views;
  for (const auto& d : dist) views.push_back(d.view);
  std::vector<Result> batch(views.size());
  ASSERT_OK(engine.ComputeBatch(views.data(), views.size(), batch.data()));
  for (std::size_t i = 0; i < batch.size(); ++i) {
    EXPECT_TRUE(ssim2::testing::BitIdentical(batch[i], want[i])) << "batch image " << i;
  }
}

TEST(SequentialSums, EngineSubScoresEqualTheCpuBitForBit) {
  SSIM2_REQUIRE_DEVICE();
  cuda::EngineOptions opt;
  opt.sequential_sums = true;
  opt.all_features = true;
  opt.max_batch = 3;
  opt.batch_streams = 3;
  // Sizes with chunk boundaries inside rows, and a single short chunk.
  // Quick (emulated): one size with two chunks per term array at scale 0.
  ExpectCpuSubScores(67, 63, PixelFormat::kRGB8, opt);
  if (!ssim2::testing::QuickRun()) {
    for (auto [w, h] : std::vector<std::pair<int, int>>{{9, 9}, {65, 131}, {641, 361}, {1921, 1081}}) {
      ExpectCpuSubScores(w, h, PixelFormat::kRGB8, opt);
      ExpectCpuSubScores(w, h, PixelFormat::kI420, opt);
    }
  }
  // The map skipping of the default plan, and lanes in two scale groups.
  opt.all_features = false;
  opt.lane_scale_groups = 2;
  ExpectCpuSubScores(ssim2::testing::QuickRun() ? 17 : 67, 63, PixelFormat::kRGBA8, opt);
}

// Through the public API (ScorerOptions::sequential_sums).
TEST(SequentialSums, ScorerOptionReachesTheEngine) {
  SSIM2_REQUIRE_DEVICE();
  const int w = 19, h = 23;
  const ssim2::testing::TestImage ref = ssim2::testing::MakeImage(PixelFormat::kRGB8, w, h, 21);
  const ssim2::testing::TestImage dist = ssim2::testing::MakeImage(PixelFormat::kRGB8, w, h, 22);
  ScorerOptions so;
  so.all_features = true;
  so.backend = Backend::kCpu;
  std::unique_ptr<Scorer> cpu;
  ASSERT_OK(Scorer::Create(w, h, so, &cpu));
  Result want;
  ASSERT_OK(cpu->Compute(ref.view, dist.view, &want));
  so.backend = Backend::kCuda;
  so.sequential_sums = true;
  std::unique_ptr<Scorer> gpu;
  ASSERT_OK(Scorer::Create(w, h, so, &gpu));
  Result got;
  ASSERT_OK(gpu->Compute(ref.view, dist.view, &got));
  EXPECT_TRUE(ssim2::testing::BitIdentical(got, want));
}

}  // namespace
