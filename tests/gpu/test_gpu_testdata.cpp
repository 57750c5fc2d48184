// The 70 public pairs of testdata on the CUDA engine: scores against the
// reference's printed scores (<= 1e-6) and against the CPU path (<= 1e-9),
// all 108 sub-scores against the CPU path, device-resident inputs, cached
// reference and batches equal to Compute(ref, dist), identical pairs = 100.
//
// Usage: test_gpu_testdata [TESTDATA_DIR]  (default: $SSIM2_TESTDATA or the
// path compiled in). Exit 77 without a CUDA device.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace ssim2;
using gputest::BitIdentical;
using gputest::MaxFeatureDiff;

#ifndef SSIM2_TESTDATA_DIR
#define SSIM2_TESTDATA_DIR "../shared/testdata"
#endif

namespace {

struct Pair {
  std::string ref, dist;
  int width, height;
  double score;
};

std::vector<Pair> ReadScores(const std::string& dir) {
  std::vector<Pair> pairs;
  std::ifstream in(dir + "/scores.csv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    Pair p;
    std::string f;
    std::getline(ss, p.ref, ',');
    std::getline(ss, p.dist, ',');
    std::getline(ss, f, ',');
    p.width = std::stoi(f);
    std::getline(ss, f, ',');
    p.height = std::stoi(f);
    std::getline(ss, f, ',');
    p.score = std::stod(f);
    pairs.push_back(p);
  }
  return pairs;
}

}  // namespace

int main(int argc, char** argv) {
  gputest::RequireDeviceOrSkip("test_gpu_testdata");
  std::string dir = SSIM2_TESTDATA_DIR;
  if (const char* env = std::getenv("SSIM2_TESTDATA")) dir = env;
  if (argc > 1) dir = argv[1];
  const std::vector<Pair> pairs = ReadScores(dir);
  if (pairs.empty()) {
    std::printf("FAIL: no pairs read from %s/scores.csv\n", dir.c_str());
    return 1;
  }
  double worst_ref = 0, worst_cpu = 0, worst_feature = 0;
  std::string worst_feature_where;
  std::map<std::string, gputest::Rgb8Image> cache;
  auto load = [&](const std::string& rel) -> const gputest::Rgb8Image* {
    auto it = cache.find(rel);
    if (it != cache.end()) return &it->second;
    gputest::Rgb8Image img;
    if (!gputest::LoadPng(dir + "/" + rel, &img)) return nullptr;
    return &cache.emplace(rel, std::move(img)).first->second;
  };
  // Pairs grouped by reference, for the batch check.
  std::map<std::string, std::vector<std::pair<const Pair*, Result>>> by_ref;

  for (const Pair& p : pairs) {
    const gputest::Rgb8Image* ref = load(p.ref);
    const gputest::Rgb8Image* dist = load(p.dist);
    CHECK_TRUE(ref && dist, "cannot load %s or %s", p.ref.c_str(), p.dist.c_str());
    if (!ref || !dist) continue;
    ScorerOptions cpu_opt;
    cpu_opt.backend = Backend::kCpu;
    cpu_opt.all_features = true;
    std::unique_ptr<Scorer> cpu;
    CHECK_OK(Scorer::Create(p.width, p.height, cpu_opt, &cpu));
    Result rc;
    CHECK_OK(cpu->Compute(ref->View(), dist->View(), &rc));

    cuda::EngineOptions opt;
    opt.all_features = true;
    cuda::Engine engine;
    CHECK_OK(cuda::Engine::Create(p.width, p.height, opt, &engine));
    if (!engine.valid()) continue;
    Result rg;
    CHECK_OK(engine.Compute(ref->View(), dist->View(), &rg));
    const double d_ref = std::fabs(rg.score - p.score);
    const double d_cpu = std::fabs(rg.score - rc.score);
    std::string where;
    const double d_feat = MaxFeatureDiff(rc, rg, &where);
    worst_ref = std::max(worst_ref, d_ref);
    worst_cpu = std::max(worst_cpu, d_cpu);
    if (d_feat > worst_feature) {
      worst_feature = d_feat;
      worst_feature_where = p.dist + ": " + where;
    }
    std::printf("%-45s gpu %.8f ref %.8f cpu %.8f |gpu-ref| %.2e |gpu-cpu| %.2e feat %.2e\n",
                p.dist.c_str(), rg.score, p.score, rc.score, d_ref, d_cpu, d_feat);
    CHECK_TRUE(d_ref <= 1e-6, "%s: gpu %.10f reference %.8f", p.dist.c_str(), rg.score, p.score);
    CHECK_TRUE(d_cpu <= 1e-9, "%s: gpu %.12f cpu %.12f", p.dist.c_str(), rg.score, rc.score);
    CHECK_TRUE(d_feat <= 1e-10, "%s: sub-scores differ from the CPU path: %s", p.dist.c_str(),
               where.c_str());
    if (p.ref == p.dist || p.dist.find("identical") != std::string::npos) {
      CHECK_TRUE(rg.score == 100.0, "%s: identical pair scores %.17g", p.dist.c_str(), rg.score);
    }

    // Device-resident inputs give the same result bit for bit.
    gputest::DeviceCopy dref(ref->data.data(), ref->data.size());
    gputest::DeviceCopy ddist(dist->data.data(), dist->data.size());
    CHECK_TRUE(dref.ptr && ddist.ptr, "cudaMalloc for device inputs failed");
    if (dref.ptr && ddist.ptr) {
      const ImageView vr = ImageView::Packed(PixelFormat::kRGB8, p.width, p.height, dref.ptr,
                                             3 * p.width, MemoryLocation::kCudaDevice);
      const ImageView vd = ImageView::Packed(PixelFormat::kRGB8, p.width, p.height, ddist.ptr,
                                             3 * p.width, MemoryLocation::kCudaDevice);
      Result rd;
      CHECK_OK(engine.Compute(vr, vd, &rd));
      CHECK_TRUE(BitIdentical(rd, rg), "%s: device input %.17g != host input %.17g",
                 p.dist.c_str(), rd.score, rg.score);
      // Cached reference (device) + host distorted.
      CHECK_OK(engine.SetReference(vr));
      Result rcached;
      CHECK_OK(engine.Compute(dist->View(), &rcached));
      CHECK_TRUE(BitIdentical(rcached, rg), "%s: cached reference %.17g != compute %.17g",
                 p.dist.c_str(), rcached.score, rg.score);
    }
    by_ref[p.ref].push_back({&p, rg});
  }

  // Batches: all distorted images of a reference in one call.
  for (auto& [ref_path, list] : by_ref) {
    const gputest::Rgb8Image* ref = load(ref_path);
    if (!ref) continue;
    cuda::EngineOptions opt;
    opt.all_features = true;
    opt.max_batch = 4;  // forces several chunks for the 9-image sets
    cuda::Engine engine;
    CHECK_OK(cuda::Engine::Create(ref->width, ref->height, opt, &engine));
    if (!engine.valid()) continue;
    std::vector<ImageView> views;
    for (auto& e : list) views.push_back(load(e.first->dist)->View());
    std::vector<Result> results(views.size());
    CHECK_OK(engine.ComputeBatch(ref->View(), views.data(), views.size(), results.data()));
    for (std::size_t i = 0; i < list.size(); ++i) {
      CHECK_TRUE(BitIdentical(results[i], list[i].second), "%s: batch %.17g != compute %.17g",
                 list[i].first->dist.c_str(), results[i].score, list[i].second.score);
    }
  }

  std::printf("max |gpu - reference| %.3g, max |gpu - cpu| %.3g, max sub-score rel diff %.3g (%s)\n",
              worst_ref, worst_cpu, worst_feature, worst_feature_where.c_str());
  return gputest::Finish("test_gpu_testdata");
}
