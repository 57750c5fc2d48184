// The engine's kernels (cuda/kernels_device.cuh) run on the CPU
// through the emulated runtime (emulated_runtime.cpp, cuda_emulation.h),
// driven with the real layout and job tables (cuda/layout.cpp) and the very
// passes the engine enqueues (PlanPass, LaunchPass). Checks every stage bit
// for bit against the CPU replay and the sub-scores against the replay's,
// with no GPU: indexing, guards, barriers and the shuffle reduction are
// exercised on the very same source.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "alpha_rule.h"
#include "hdr_transfer.h"
#include "cpu/planes.h"
#include "cpu/reference_replay.h"
#include "emulated_runtime.h"
#include "cuda/layout.h"
#include "cuda/engine.h"
#include "cuda/passes.h"
#include "cuda_test_util.h"
#include "yuv_spec.h"

using namespace ssim2;
using namespace ssim2::cuda;

namespace {

unsigned Bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The engine's device memory (working memory and reference cache) and
// tables, in host memory. The linear RGB planes are kept for the checks.
struct EmuEngine {
  Layout layout;
  LaunchTables tables;
  char* base = nullptr;
  char* cache = nullptr;
  EmuEngine(int w, int h, bool all, int groups = 1, bool keep_linear = true) {
    LayoutOptions o;
    o.all_features = all;
    o.result_slots = 4;
    o.groups = groups;
    o.keep_linear = keep_linear;
    layout = MakeLayout(w, h, o);
    auto alloc = [](std::size_t bytes) {
      bytes = (bytes + 255) / 256 * 256;
      char* p = static_cast<char*>(std::aligned_alloc(256, bytes));
      std::memset(p, 0, bytes);
      return p;
    };
    base = alloc(layout.total_bytes);
    cache = alloc(layout.cache.total_bytes);
    tables = MakeTables(layout, base, cache);
    std::memcpy(base + layout.jobs, tables.blob.data(), tables.blob.size());
  }
  ~EmuEngine() {
    std::free(base);
    std::free(cache);
  }
  EmuEngine(const EmuEngine&) = delete;
  EmuEngine& operator=(const EmuEngine&) = delete;

  void Pass(PassMode mode, const InputDesc* ref, const InputDesc* dist, float background,
            int slot) {
    EXPECT_OK(LaunchPass(
        PlanPass(layout, tables, base, cache, mode, ref, dist, background, slot), nullptr));
  }

  Result ResultOf(int slot) const {
    Result r;
    FinishResult(layout.plan, reinterpret_cast<const double*>(base + layout.sums) +
                                  static_cast<std::size_t>(slot) * kSumsPerResult,
                 &r);
    return r;
  }
  const float* Plane(std::size_t offset, int s, int c) const {
    return reinterpret_cast<const float*>(base + offset + c * layout.geom[s].plane_bytes);
  }
  // The cached reference's XYB pyramid, and its planes of one channel.
  const float* CachedXyb(int s, int c) const {
    return reinterpret_cast<const float*>(cache + layout.cache.xyb[s] +
                                          c * layout.geom[s].plane_bytes);
  }
  const float* CachePlane(std::size_t offset) const {
    return reinterpret_cast<const float*>(cache + offset);
  }
};

InputDesc LinearDesc(const cpu::Image3& img) {
  InputDesc d{};
  hdr::PremultipliedOpsin(hdr::kSdrPeak, d.opsin);  // SDR: as upload.cpp fills it
  d.kind = kInLinearF32;
  for (int c = 0; c < 3; ++c) {
    d.plane[c] = reinterpret_cast<const unsigned char*>(img.plane[c].Row(0));
    d.stride[c] = static_cast<long long>(img.plane[c].stride() * 4);
  }
  return d;
}

void RandomLinear(int w, int h, std::uint32_t seed, cpu::Image3* img) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  img->Resize(w, h);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const bool flat = ((x / 7) + (y / 5)) % 4 == 0;
        const float v = 0.5f + 0.4f * std::sin(0.21f * x + c) * std::cos(0.13f * y) +
                        0.05f * (u(rng) - 0.5f);
        img->plane[c].Row(y)[x] = flat ? 0.25f : std::min(1.0f, std::max(0.0f, v));
      }
}

bool ComparePlane(const char* what, int s, int c, const cpu::Plane& cpu, const float* gpu,
                  int pitch) {
  for (int y = 0; y < cpu.height(); ++y)
    for (int x = 0; x < cpu.width(); ++x) {
      const float e = cpu.Row(y)[x], g = gpu[static_cast<std::size_t>(y) * pitch + x];
      if (Bits(e) != Bits(g)) {
        ADD_FAILURE() << cudatest::Format(
            "%s scale %d channel %d (%dx%d) first at x=%d y=%d: cpu %.9g gpu %.9g", what, s, c,
            cpu.width(), cpu.height(), x, y, e, g);
        return false;
      }
    }
  return true;
}

void LinearTest(int w, int h, std::uint32_t seed, int groups) {
  cpu::Image3 ref, dist;
  RandomLinear(w, h, seed, &ref);
  RandomLinear(w, h, seed + 1, &dist);
  // Mostly equal images: distorted = reference with a perturbed patch.
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if ((x * 7 + y * 3) % 5 != 0) dist.plane[c].Row(y)[x] = ref.plane[c].Row(y)[x];
  EmuEngine e(w, h, true, groups);
  const InputDesc rd = LinearDesc(ref), dd = LinearDesc(dist);
  e.Pass(PassMode::kRef, &rd, nullptr, 0.5f, 0);
  const MetricPlan& plan = e.layout.plan;
  const BlurConstants& bc = GetBlurConstants();
  cpu::Image3 lin = ref, xyb, next;
  std::vector<cpu::Image3> xyb_of_scale(plan.num_scales);
  bool ok = true;
  for (int s = 0; s < plan.num_scales && ok; ++s) {
    const ScaleGeom& g = e.layout.geom[s];
    if (s > 0) {
      replay::Downsample(lin, &next);
      std::swap(lin, next);
      for (int c = 0; c < 3 && ok; ++c)
        ok &= ComparePlane("downsample", s, c, lin.plane[c], e.Plane(e.layout.lin[0][s], s, c),
                           g.pitch);
    }
    replay::ToPositiveXyb(lin, &xyb);
    xyb_of_scale[s] = xyb;
    for (int c = 0; c < 3 && ok; ++c) {
      ok &= ComparePlane("xyb", s, c, xyb.plane[c], e.CachedXyb(s, c), g.pitch);
      cpu::Plane temp, mu, sq(g.width, g.height), sigma;
      // The reference pass blurred its rows in place in the cache: mu1 and
      // sigma11 are the vertical pass's (the pair pass below leaves its
      // horizontal rows in temp).
      replay::Blur(bc, xyb.plane[c], &temp, &mu);
      ok &= ComparePlane("blur mu1", s, c, mu, e.CachePlane(e.layout.cache.mu1[s][c]), g.pitch);
      for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x)
          sq.Row(y)[x] = xyb.plane[c].Row(y)[x] * xyb.plane[c].Row(y)[x];
      replay::Blur(bc, sq, &temp, &sigma);
      ok &= ComparePlane("blur sigma11", s, c, sigma, e.CachePlane(e.layout.cache.s11[s][c]),
                         g.pitch);
    }
  }
  e.Pass(PassMode::kCached, nullptr, &dd, 0.5f, 1);
  const Result cached = e.ResultOf(1);
  const Result expected = replay::ComputeLinear(ref, dist, plan);
  std::string where;
  const double fd = cudatest::MaxFeatureDiff(expected, cached, &where);
  EXPECT_TRUE(fd <= 1e-10) << cudatest::Format("%dx%d: sub-scores vs replay: %.3g (%s)", w, h, fd, where.c_str());
  EXPECT_TRUE(std::fabs(expected.score - cached.score) <= 1e-9) << cudatest::Format("%dx%d: score %.12f vs %.12f", w, h, cached.score, expected.score);
  e.Pass(PassMode::kFull, &rd, &dd, 0.5f, 2);
  const Result full = e.ResultOf(2);
  // Horizontal pass alone: the pair pass's rows of the reference's mu1 in
  // temp (scale groups reuse temp, so only the last group's are still there).
  for (int s = 0; s < plan.num_scales && ok; ++s) {
    const ScaleGeom& g = e.layout.geom[s];
    if (e.layout.Group(s) != e.layout.num_groups - 1) continue;
    for (int c = 0; c < 3 && ok; ++c) {
      cpu::Plane rows(g.width, g.height);
      for (int y = 0; y < g.height; ++y)
        replay::BlurRow(bc, xyb_of_scale[s].plane[c].Row(y), g.width, rows.Row(y));
      ok &= ComparePlane("horizontal blur (mu1 rows)", s, c, rows,
                         reinterpret_cast<const float*>(e.base + e.layout.TempPlane(s, c, kMapMu1)),
                         g.pitch);
    }
  }
  EXPECT_TRUE(cudatest::BitIdentical(full, cached)) << cudatest::Format("%dx%d: full %.17g != cached %.17g", w, h, full.score, cached.score);
  // The scale groups change where planes live and when launches run, never
  // a result.
  if (groups > 1) {
    EmuEngine one(w, h, true, 1);
    one.Pass(PassMode::kFull, &rd, &dd, 0.5f, 0);
    EXPECT_TRUE(cudatest::BitIdentical(one.ResultOf(0), full)) << cudatest::Format("%dx%d: %d scale groups %.17g != one %.17g", w, h, groups, full.score, one.ResultOf(0).score);
    // Without the kept planes the smaller scales' XYB lives in temp, where
    // scale 0's horizontal planes reuse it once their group has run.
    EmuEngine lean(w, h, true, groups, false);
    EXPECT_TRUE(lean.layout.num_groups < 2 || lean.layout.plan.num_scales < 2 ||
                (lean.layout.xyb[1][1] >= lean.layout.temp &&
                 lean.layout.xyb[1][1] < lean.layout.temp + lean.layout.temp_bytes))
        << "the smaller scales' XYB is in temp";
    lean.Pass(PassMode::kFull, &rd, &dd, 0.5f, 0);
    lean.Pass(PassMode::kRef, &rd, nullptr, 0.5f, 0);
    lean.Pass(PassMode::kCached, nullptr, &dd, 0.5f, 1);
    EXPECT_TRUE(cudatest::BitIdentical(lean.ResultOf(0), full)) << cudatest::Format("%dx%d: pair, %d scale groups, XYB in temp %.17g != %.17g", w, h, groups, lean.ResultOf(0).score, full.score);
    EXPECT_TRUE(cudatest::BitIdentical(lean.ResultOf(1), full)) << cudatest::Format("%dx%d: cached, %d scale groups, XYB in temp %.17g != %.17g", w, h, groups, lean.ResultOf(1).score, full.score);
  }
  std::printf("   linear %dx%d, %d scale group(s): score %.10f (replay %.10f), sub-scores %.2e\n",
              w, h, groups, cached.score, expected.score, fd);
}

// Packed 8/16-bit inputs with and without alpha, against replay::Compute
// (which applies the reference tool's alpha rule).
void PackedTest(PixelFormat f, int channels, bool sixteen, int r, int g, int b, int a, int w,
                int h) {
  const int bps = sixteen ? 2 : 1;
  const int stride = w * channels * bps + 8;
  std::vector<unsigned char> ref(static_cast<std::size_t>(stride) * h),
      dist(static_cast<std::size_t>(stride) * h);
  std::mt19937 rng(w * 31 + h + channels);
  const int maxv = sixteen ? 65535 : 255;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < channels; ++k) {
        const int v = static_cast<int>((0.5 + 0.45 * std::sin(0.2 * x + k) * std::cos(0.15 * y)) * maxv);
        const int dv = std::min(maxv, std::max(0, v + static_cast<int>(rng() % 9) * (maxv / 255) - 4 * (maxv / 255)));
        for (auto [buf, val] : {std::pair{&ref, v}, std::pair{&dist, dv}}) {
          unsigned char* at = buf->data() + y * stride + (x * channels + k) * bps;
          if (sixteen) {
            const std::uint16_t w16 = static_cast<std::uint16_t>(val);
            std::memcpy(at, &w16, 2);
          } else {
            *at = static_cast<unsigned char>(val);
          }
        }
      }
  const ImageView vr = ImageView::Packed(f, w, h, ref.data(), stride);
  const ImageView vd = ImageView::Packed(f, w, h, dist.data(), stride);
  Result expected;
  EXPECT_OK(replay::Compute(vr, vd, true, &expected));
  auto desc = [&](const std::vector<unsigned char>& buf) {
    InputDesc d{};
    hdr::PremultipliedOpsin(hdr::kSdrPeak, d.opsin);  // SDR: as upload.cpp fills it
    d.kind = sixteen ? kInPacked16 : kInPacked8;
    d.plane[0] = buf.data();
    d.stride[0] = stride;
    d.channels = channels;
    d.r = r;
    d.g = g;
    d.b = b;
    d.a = a;
    d.mul = static_cast<float>(1.0 / (sixteen ? 65535 : 255));
    return d;
  };
  EmuEngine e(w, h, true);
  const InputDesc rd = desc(ref), dd = desc(dist);
  Result best;
  const int passes = a >= 0 ? 2 : 1;
  for (int p = 0; p < passes; ++p) {
    e.Pass(PassMode::kFull, &rd, &dd, AlphaBackground(a >= 0, p), p);
    KeepLowerScore(p, e.ResultOf(p), &best);
  }
  std::string where;
  const double fd = cudatest::MaxFeatureDiff(expected, best, &where);
  EXPECT_TRUE(fd <= 1e-10 && std::fabs(expected.score - best.score) <= 1e-9) << cudatest::Format("%s %dx%d: score %.12f vs replay %.12f, sub-scores %.3g (%s)", PixelFormatName(f), w, h, best.score, expected.score, fd, where.c_str());
  std::printf("   %-8s %dx%d: score %.10f (replay %.10f)\n", PixelFormatName(f), w, h, best.score,
              expected.score);
}

// Y'CbCr inputs against the independent spec conversion + replay.
void YuvTest(PixelFormat f, YuvMatrix m, YuvRange r, int w, int h) {
  YuvColorimetry col;
  col.matrix = m;
  col.range = r;
  const cudatest::Yuv ry = cudatest::MakeYuv(f, w, h, col, 11, 0);
  const cudatest::Yuv dy = cudatest::MakeYuv(f, w, h, col, 12, 5);
  cudatest::Converted rc, dc;
  cudatest::Convert(ry, &rc);
  cudatest::Convert(dy, &dc);
  Result expected;
  EXPECT_OK(replay::Compute(rc.view, dc.view, true, &expected));
  auto desc = [&](const cudatest::Yuv& y) {
    const ImageView v = cudatest::YuvView(y);
    InputDesc d{};
    hdr::PremultipliedOpsin(hdr::kSdrPeak, d.opsin);  // SDR: as upload.cpp fills it
    switch (f) {
      case PixelFormat::kI420: d.kind = kInI420; break;
      case PixelFormat::kNV12: d.kind = kInNV12; break;
      case PixelFormat::kY444: d.kind = kInY444; break;
      case PixelFormat::kI420_10LE: d.kind = kInI420_10; break;
      default: d.kind = kInP010; break;
    }
    for (int p = 0; p < 3; ++p) {
      d.plane[p] = static_cast<const unsigned char*>(v.planes[p]);
      d.stride[p] = v.strides[p];
    }
    d.yuv_matrix = static_cast<int>(m);
    d.yuv_full = r == YuvRange::kFull;
    return d;
  };
  EmuEngine e(w, h, true);
  const InputDesc rd = desc(ry), dd = desc(dy);
  e.Pass(PassMode::kFull, &rd, &dd, 0.5f, 0);
  const Result got = e.ResultOf(0);
  std::string where;
  const double fd = cudatest::MaxFeatureDiff(expected, got, &where);
  EXPECT_TRUE(fd <= 1e-10 && std::fabs(expected.score - got.score) <= 1e-9) << cudatest::Format("%s %dx%d: score %.12f vs spec+replay %.12f, sub-scores %.3g (%s)", PixelFormatName(f), w, h, got.score, expected.score, fd, where.c_str());
  std::printf("   %-9s %dx%d: score %.10f (spec + replay %.10f)\n", PixelFormatName(f), w, h,
              got.score, expected.score);
}

}  // namespace

TEST(GpuEmulation, LinearInputsEveryStage) {
  std::vector<std::pair<int, int>> sizes = {{8, 8}, {9, 9}, {17, 33}, {33, 17}, {8, 63},
                                            {63, 8}, {63, 65}, {21, 12}};
  if (!ssim2::testing::QuickRun()) {
    sizes.push_back({130, 45});
    sizes.push_back({255, 127});
  }
  std::uint32_t seed = 3;
  int groups = 0;
  for (auto [w, h] : sizes) {
    groups = groups % kMaxGroups + 1;  // sizes alternate between the plans
    LinearTest(w, h, seed += 7, groups);
  }
}

TEST(GpuEmulation, PackedInputs) {
  PackedTest(PixelFormat::kRGB8, 3, false, 0, 1, 2, -1, 37, 29);
  PackedTest(PixelFormat::kRGBA8, 4, false, 0, 1, 2, 3, 37, 29);
  PackedTest(PixelFormat::kBGRA8, 4, false, 2, 1, 0, 3, 29, 37);
  PackedTest(PixelFormat::kGrayAlpha8, 2, false, 0, 0, 0, 1, 40, 21);
  PackedTest(PixelFormat::kRGBA16, 4, true, 0, 1, 2, 3, 33, 19);
  PackedTest(PixelFormat::kRGB16, 3, true, 0, 1, 2, -1, 19, 33);
}

TEST(GpuEmulation, YCbCrInputs) {
  YuvTest(PixelFormat::kI420, YuvMatrix::kBT709, YuvRange::kLimited, 37, 29);
  YuvTest(PixelFormat::kI420, YuvMatrix::kBT601, YuvRange::kFull, 38, 28);
  YuvTest(PixelFormat::kNV12, YuvMatrix::kBT709, YuvRange::kLimited, 37, 29);
  YuvTest(PixelFormat::kY444, YuvMatrix::kBT2020, YuvRange::kLimited, 29, 37);
  YuvTest(PixelFormat::kI420_10LE, YuvMatrix::kBT2020, YuvRange::kLimited, 37, 29);
  YuvTest(PixelFormat::kP010_10LE, YuvMatrix::kBT709, YuvRange::kFull, 37, 29);
}

// 16x16 RGB8 noise, for the out-of-memory tests: their subject is what is
// left out, not the content.
namespace {
// The layout an engine with default options makes for its working memory
// (without a memory limit: one scale group, for lanes too).
Layout EngineLayout(int w, int h, Executor executor, int groups = 1) {
  LayoutOptions o;
  o.result_slots = kMaxAlphaPasses * EngineOptions().max_batch;
  o.executor = executor;
  o.groups = groups;
  return MakeLayout(w, h, o);
}

constexpr int kNoiseSide = 16;
std::vector<unsigned char> NoiseImage(std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<unsigned char> rgb(3 * kNoiseSide * kNoiseSide);
  for (unsigned char& v : rgb) v = static_cast<unsigned char>(byte(rng));
  return rgb;
}
}  // namespace

// A batch whose lanes cannot all get device memory still scores every image,
// on the streams it could get, with the same results.
TEST(GpuEmulation, BatchLanesLeftOutWithoutMemory) {
  constexpr int kW = kNoiseSide, kH = kNoiseSide;
  std::mt19937 rng(5);
  auto image = [&]() { return NoiseImage(rng); };
  const std::vector<unsigned char> ref = image();
  std::vector<std::vector<unsigned char>> dists;
  std::vector<ImageView> views;
  for (int i = 0; i < 4; ++i) dists.push_back(image());
  for (const auto& d : dists) views.push_back(ImageView::Packed(PixelFormat::kRGB8, kW, kH, d.data(), 3 * kW));
  const ImageView ref_view = ImageView::Packed(PixelFormat::kRGB8, kW, kH, ref.data(), 3 * kW);

  Engine engine;
  ASSERT_TRUE(Engine::Create(kW, kH, EngineOptions(), &engine).ok());
  std::vector<Result> expected(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    ASSERT_TRUE(engine.Compute(ref_view, views[i], &expected[i]).ok());
  }
  ASSERT_TRUE(engine.SetReference(ref_view).ok());
  const std::size_t one_engine = engine.memory_bytes();
  const std::size_t one_lane = EngineLayout(kW, kH, Executor::kLane).total_bytes;
  ASSERT_LT(one_lane, one_engine) << "a lane has no cache of its own";
  // Room for one lane (of the default three), not two.
  emu::SetDeviceMemoryHeadroom(one_lane + one_lane / 2);
  std::vector<Result> batch(views.size());
  const Status s = engine.ComputeBatch(views.data(), views.size(), batch.data());
  emu::SetDeviceMemoryHeadroom(~std::size_t(0));
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(engine.batch_lanes(), 1);
  EXPECT_EQ(engine.memory_bytes(), one_engine + one_lane);
  for (std::size_t i = 0; i < views.size(); ++i) {
    EXPECT_EQ(std::memcmp(&batch[i], &expected[i], sizeof(Result)), 0) << "image " << i;
  }
  // With batch_streams = 1 there are no lanes at all.
  EngineOptions one_stream;
  one_stream.batch_streams = 1;
  Engine serial;
  ASSERT_TRUE(Engine::Create(kW, kH, one_stream, &serial).ok());
  ASSERT_TRUE(serial.SetReference(ref_view).ok());
  ASSERT_TRUE(serial.ComputeBatch(views.data(), views.size(), batch.data()).ok());
  EXPECT_EQ(serial.batch_lanes(), 0);
  for (std::size_t i = 0; i < views.size(); ++i) {
    EXPECT_EQ(std::memcmp(&batch[i], &expected[i], sizeof(Result)), 0) << "image " << i;
  }
}

// Three reference frames and a batch of two distorted images (16x16 noise),
// with what a CUDA scorer that has all the memory it wants gives for each
// frame's batch, and that scorer's memory afterwards.
struct FramesOfTwo {
  std::vector<std::vector<unsigned char>> refs, dists;
  std::vector<ImageView> batch;
  std::vector<std::vector<Result>> expected;
  std::size_t memory = 0;
  ImageView View(const std::vector<unsigned char>& rgb) const {
    return ImageView::Packed(PixelFormat::kRGB8, kNoiseSide, kNoiseSide, rgb.data(),
                             3 * kNoiseSide);
  }
};

void ScoreFramesOfTwo(unsigned seed, FramesOfTwo* f) {
  std::mt19937 rng(seed);
  for (int t = 0; t < 3; ++t) f->refs.push_back(NoiseImage(rng));
  for (int i = 0; i < 2; ++i) f->dists.push_back(NoiseImage(rng));
  for (const auto& d : f->dists) f->batch.push_back(f->View(d));
  ScorerOptions options;
  options.backend = Backend::kCuda;
  std::unique_ptr<Scorer> scorer;
  ASSERT_TRUE(Scorer::Create(kNoiseSide, kNoiseSide, options, &scorer).ok());
  f->expected.resize(f->refs.size());
  for (std::size_t t = 0; t < f->refs.size(); ++t) {
    ASSERT_TRUE(scorer->SetReference(f->View(f->refs[t])).ok());
    ASSERT_TRUE(scorer->ComputeWithReference(f->batch, &f->expected[t]).ok());
  }
  f->memory = scorer->memory_bytes();
  EXPECT_EQ(scorer->limits(), "");
}

// A scorer made with `options` that has every frame's batch submitted, each
// after its reference, none collected yet.
void SubmitEveryFrame(const FramesOfTwo& f, const ScorerOptions& options,
                      std::unique_ptr<Scorer>* scorer, std::vector<Scorer::BatchHandle>* handles) {
  ASSERT_TRUE(Scorer::Create(kNoiseSide, kNoiseSide, options, scorer).ok());
  handles->resize(f.refs.size());
  for (std::size_t t = 0; t < f.refs.size(); ++t) {
    ASSERT_TRUE((*scorer)->SetReference(f.View(f.refs[t])).ok());
    ASSERT_TRUE((*scorer)->SubmitWithReference(f.batch, &(*handles)[t]).ok());
  }
}

// Collects the batches of the first handles.size() frames, submitted in
// order, and expects what the unlimited scorer gave.
void ExpectCollected(Scorer* scorer, const std::vector<Scorer::BatchHandle>& handles,
                     const FramesOfTwo& f, const char* what) {
  for (std::size_t t = 0; t < handles.size(); ++t) {
    std::vector<Result> got;
    ASSERT_TRUE(scorer->CollectBatch(handles[t], &got).ok());
    ASSERT_EQ(got.size(), f.batch.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(std::memcmp(&got[i], &f.expected[t][i], sizeof(Result)), 0)
          << what << ", frame " << t << ", image " << i;
    }
  }
}

// The CUDA scorer prepares a reference set while a batch is in flight on a
// second engine. When that engine cannot get its memory, the first engine
// does everything, in order, with the same results and no error.
TEST(GpuEmulation, SecondEngineLeftOutWithoutMemory) {
  FramesOfTwo f;
  ASSERT_NO_FATAL_FAILURE(ScoreFramesOfTwo(6, &f));
  ScorerOptions options;
  options.backend = Backend::kCuda;
  std::unique_ptr<Scorer> scorer;
  ASSERT_TRUE(Scorer::Create(kNoiseSide, kNoiseSide, options, &scorer).ok());
  std::vector<Result> warm;
  for (std::size_t t = 0; t < f.refs.size(); ++t) {  // the cache and lanes made
    ASSERT_TRUE(scorer->SetReference(f.View(f.refs[t])).ok());
    ASSERT_TRUE(scorer->ComputeWithReference(f.batch, &warm).ok());
  }
  emu::SetDeviceMemoryHeadroom(0);
  std::vector<Scorer::BatchHandle> handles(f.refs.size());
  Status s;
  for (std::size_t t = 0; t < f.refs.size() && s.ok(); ++t) {
    s = scorer->SetReference(f.View(f.refs[t]));
    if (s.ok()) s = scorer->SubmitWithReference(f.batch, &handles[t]);
  }
  emu::SetDeviceMemoryHeadroom(~std::size_t(0));
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(scorer->memory_bytes(), f.memory) << "no second engine";
  EXPECT_EQ(scorer->second_engine_bytes(), 0u);
  ExpectCollected(scorer.get(), handles, f, "one engine");
  // Memory back: the next reference set with a batch in flight gets its engine.
  handles.assign(2, 0);
  for (std::size_t t = 0; t < 2; ++t) {
    ASSERT_TRUE(scorer->SetReference(f.View(f.refs[t])).ok());
    ASSERT_TRUE(scorer->SubmitWithReference(f.batch, &handles[t]).ok());
  }
  EXPECT_GT(scorer->second_engine_bytes(), 0u);
  EXPECT_EQ(scorer->memory_bytes(), f.memory + scorer->second_engine_bytes());
  ExpectCollected(scorer.get(), handles, f, "second engine");
}

// EngineOptions::lane_scale_groups: lanes blur in one scale group by default,
// in two when asked (less memory) or when memory_limit leaves room for every
// lane of the first batch only in two (limits() says so); the batch's results
// are the same bit for bit every way, and equal the engine's own passes.
TEST(GpuEmulation, LaneScaleGroupsChangeMemoryNotScores) {
  constexpr int kW = 96, kH = 72;  // five scales: the scale groups differ
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::vector<unsigned char>> images(5, std::vector<unsigned char>(3 * kW * kH));
  for (auto& img : images)
    for (unsigned char& v : img) v = static_cast<unsigned char>(byte(rng));
  auto view = [](const std::vector<unsigned char>& rgb) {
    return ImageView::Packed(PixelFormat::kRGB8, kW, kH, rgb.data(), 3 * kW);
  };
  std::vector<ImageView> dists;
  for (std::size_t i = 1; i < images.size(); ++i) dists.push_back(view(images[i]));

  Engine single;
  ASSERT_TRUE(Engine::Create(kW, kH, EngineOptions(), &single).ok());
  std::vector<Result> expected(dists.size());
  for (std::size_t i = 0; i < dists.size(); ++i) {
    ASSERT_TRUE(single.Compute(view(images[0]), dists[i], &expected[i]).ok());
  }
  const std::size_t lane_bytes[] = {EngineLayout(kW, kH, Executor::kLane, 1).total_bytes,
                                    EngineLayout(kW, kH, Executor::kLane, 2).total_bytes};
  ASSERT_LT(lane_bytes[1], lane_bytes[0]) << "a lane in two groups holds less";
  const Layout engine_layout = EngineLayout(kW, kH, Executor::kReference);
  const std::size_t engine_bytes = engine_layout.total_bytes + engine_layout.cache.total_bytes;
  struct Case {
    int option;          // EngineOptions::lane_scale_groups
    std::size_t limit;   // memory_limit
    int groups;          // the lanes' groups
  };
  const Case cases[] = {
      {0, 0, 1},
      {1, 0, 1},
      {2, 0, 2},
      // Room for three lanes of two groups, not of one.
      {0, engine_bytes + 3 * lane_bytes[1] + (3 * (lane_bytes[0] - lane_bytes[1])) / 2, 2},
      {0, engine_bytes + 3 * lane_bytes[0], 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(cudatest::Format("lane_scale_groups %d, memory_limit %zu", c.option, c.limit));
    EngineOptions o;
    o.lane_scale_groups = c.option;
    o.memory_limit = c.limit;
    if (c.limit) emu::SetDeviceMemoryHeadroom(c.limit);
    Engine engine;
    Status s = Engine::Create(kW, kH, o, &engine);
    if (s.ok()) s = engine.SetReference(view(images[0]));
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(engine.memory_bytes(), engine_bytes);
    std::vector<Result> batch(dists.size());
    s = engine.ComputeBatch(dists.data(), dists.size(), batch.data());
    emu::SetDeviceMemoryHeadroom(~std::size_t(0));
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(engine.batch_lanes(), 3);
    EXPECT_EQ(engine.memory_bytes(), engine_bytes + 3 * lane_bytes[c.groups - 1]);
    EXPECT_EQ(engine.limits().find("Batch lanes blur scale 0 after") != std::string::npos,
              c.option == 0 && c.groups == 2) << engine.limits();
    for (std::size_t i = 0; i < dists.size(); ++i) {
      EXPECT_EQ(std::memcmp(&batch[i], &expected[i], sizeof(Result)), 0) << "image " << i;
    }
  }
  for (int bad : {-1, 3}) {
    EngineOptions o;
    o.lane_scale_groups = bad;
    Engine e;
    const Status made = Engine::Create(kW, kH, o, &e);
    EXPECT_EQ(made.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(made.message().find("lane_scale_groups"), std::string::npos) << made.message();
  }
}

// Under EngineOptions::memory_limit the engine gives up speed, never a score:
// it blurs scale 0 after the smaller scales when a pass and the cache do not
// fit otherwise, makes only the batch lanes that fit, says so in limits(), and
// never holds more than the limit (the emulated device has no more either).
// A limit below one pass is a clear error at Create, one without room for the
// reference cache a clear error at SetReference.
namespace {
struct LimitCase {
  std::size_t limit;
  int groups;       // the engine's scale groups, 0: Create fails
  bool pair_fits;   // the working memory grows for a pair
  bool cache_fits;  // SetReference works
  int lanes;        // lanes a batch of four gets
};
}  // namespace

TEST(GpuEmulation, MemoryLimitGivesUpSpeedNotScores) {
  constexpr int kW = 96, kH = 72;  // five scales: the scale groups differ
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  auto image = [&]() {
    std::vector<unsigned char> rgb(3 * kW * kH);
    for (unsigned char& v : rgb) v = static_cast<unsigned char>(byte(rng));
    return rgb;
  };
  auto view = [](const std::vector<unsigned char>& rgb) {
    return ImageView::Packed(PixelFormat::kRGB8, kW, kH, rgb.data(), 3 * kW);
  };
  const std::vector<unsigned char> ref = image();
  std::vector<std::vector<unsigned char>> dists;
  for (int i = 0; i < 4; ++i) dists.push_back(image());
  std::vector<ImageView> views;
  for (const auto& d : dists) views.push_back(view(d));

  Engine unlimited;
  ASSERT_TRUE(Engine::Create(kW, kH, EngineOptions(), &unlimited).ok());
  std::vector<Result> expected(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    ASSERT_TRUE(unlimited.Compute(view(ref), views[i], &expected[i]).ok());
  }
  EXPECT_EQ(unlimited.limits(), "");

  // Working memory before and after the first pair, with one and two groups.
  const Layout one = EngineLayout(kW, kH, Executor::kEngine, 1);
  const Layout two = EngineLayout(kW, kH, Executor::kEngine, 2);
  const std::size_t before_pair[] = {EngineLayout(kW, kH, Executor::kReference, 1).total_bytes,
                                     EngineLayout(kW, kH, Executor::kReference, 2).total_bytes};
  const std::size_t lane = EngineLayout(kW, kH, Executor::kLane).total_bytes;
  const std::size_t lane_two = EngineLayout(kW, kH, Executor::kLane, 2).total_bytes;
  const std::size_t cache = one.cache.total_bytes;
  std::printf("   %dx%d: working memory %zu bytes (two scale groups %zu; before a pair %zu, "
              "%zu), cache %zu, lane %zu\n", kW, kH, one.total_bytes, two.total_bytes,
              before_pair[0], before_pair[1], cache, lane);
  ASSERT_LT(two.total_bytes, one.total_bytes) << "two scale groups need less";
  const std::size_t between = (one.total_bytes - two.total_bytes) / 2;
  const LimitCase cases[] = {
      {before_pair[1] - 1, 0, false, false, 0},
      {(before_pair[1] + two.total_bytes) / 2, 2, false, false, 0},
      {two.total_bytes + cache / 2, 2, true, false, 0},
      {two.total_bytes + cache + between, 2, true, true, 0},
      // Without room for three lanes of one group the lanes take two
      // (LaneScaleGroupsChangeMemoryNotScores), and as many as fit.
      {one.total_bytes + cache + lane_two / 2, 1, true, true, 0},
      {one.total_bytes + cache + 2 * lane_two + lane_two / 2, 1, true, true, 2},
      {one.total_bytes + cache + 3 * lane, 1, true, true, 3},
  };
  for (const LimitCase& c : cases) {
    SCOPED_TRACE(cudatest::Format("limit %zu", c.limit));
    EngineOptions o;
    o.memory_limit = c.limit;
    emu::SetDeviceMemoryHeadroom(c.limit);
    Engine engine;
    const Status created = Engine::Create(kW, kH, o, &engine);
    if (c.groups == 0) {
      emu::SetDeviceMemoryHeadroom(~std::size_t(0));
      EXPECT_EQ(created.code(), StatusCode::kOutOfMemory);
      EXPECT_NE(created.message().find("limit of " + std::to_string(c.limit) + " bytes"),
                std::string::npos) << created.message();
      EXPECT_NE(created.message().find("one pass"), std::string::npos) << created.message();
      continue;
    }
    ASSERT_TRUE(created.ok()) << created.message();
    EXPECT_EQ(engine.memory_bytes(), before_pair[c.groups - 1]);
    EXPECT_EQ(engine.limits().find("Scale 0 is blurred after") != std::string::npos,
              c.groups == 2) << engine.limits();
    Result pair;
    const Status paired = engine.Compute(view(ref), views[0], &pair);
    if (c.pair_fits) {
      ASSERT_TRUE(paired.ok()) << paired.message();
      EXPECT_EQ(std::memcmp(&pair, &expected[0], sizeof(Result)), 0) << "pair";
      EXPECT_EQ(engine.memory_bytes(), (c.groups == 1 ? one : two).total_bytes);
    } else {
      EXPECT_EQ(paired.code(), StatusCode::kOutOfMemory);
      EXPECT_NE(paired.message().find("planes of a pair"), std::string::npos) << paired.message();
    }
    const Status cached = engine.SetReference(view(ref));
    if (!c.cache_fits) {
      emu::SetDeviceMemoryHeadroom(~std::size_t(0));
      EXPECT_EQ(cached.code(), StatusCode::kOutOfMemory);
      EXPECT_NE(cached.message().find("reference cache"), std::string::npos) << cached.message();
      continue;
    }
    ASSERT_TRUE(cached.ok()) << cached.message();
    std::vector<Result> batch(views.size());
    const Status s = engine.ComputeBatch(views.data(), views.size(), batch.data());
    emu::SetDeviceMemoryHeadroom(~std::size_t(0));
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(engine.batch_lanes(), c.lanes);
    EXPECT_LE(engine.memory_bytes(), c.limit);
    EXPECT_EQ(engine.limits().find("Batches run on " + std::to_string(c.lanes + 1) +
                                   " of 4 streams") != std::string::npos,
              c.lanes < 3) << engine.limits();
    for (std::size_t i = 0; i < views.size(); ++i) {
      EXPECT_EQ(std::memcmp(&batch[i], &expected[i], sizeof(Result)), 0) << "image " << i;
    }
  }
}

// Under ScorerOptions::memory_limit the CUDA scorer makes no second engine
// when the first leaves no room for it: a reference set while a batch is in
// flight is prepared after it, with the same results, within the limit, and
// limits() says so. A limit below one pass fails Scorer::Create clearly.
TEST(GpuEmulation, ScorerMemoryLimitLeavesOutTheSecondEngine) {
  FramesOfTwo f;
  ASSERT_NO_FATAL_FAILURE(ScoreFramesOfTwo(8, &f));
  // One engine with its cache and the lane of a batch of two, and half a
  // lane more: no room for a second engine.
  const std::size_t lane = EngineLayout(kNoiseSide, kNoiseSide, Executor::kLane).total_bytes;
  ScorerOptions options;
  options.backend = Backend::kCuda;
  options.memory_limit = f.memory + lane / 2;
  std::unique_ptr<Scorer> scorer;
  std::vector<Scorer::BatchHandle> handles;
  ASSERT_NO_FATAL_FAILURE(SubmitEveryFrame(f, options, &scorer, &handles));
  EXPECT_LE(scorer->memory_bytes(), options.memory_limit);
  EXPECT_EQ(scorer->memory_bytes(), f.memory) << "no second engine";
  EXPECT_NE(scorer->limits().find("No second engine"), std::string::npos) << scorer->limits();
  ExpectCollected(scorer.get(), handles, f, "under the limit");

  options.memory_limit =
      EngineLayout(kNoiseSide, kNoiseSide, Executor::kReference, kMaxGroups).total_bytes - 1;
  std::unique_ptr<Scorer> none;
  const Status s = Scorer::Create(kNoiseSide, kNoiseSide, options, &none);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(s.message().find("below the"), std::string::npos) << s.message();
}

// Under a memory limit with room for the second engine beside lanes of two
// scale groups but not beside lanes of one (a 4K ladder under 2 GB), the CUDA
// scorer keeps both, the lanes in two groups, limits() says so, and the
// results are the unlimited scorer's.
TEST(GpuEmulation, ScorerMemoryLimitKeepsTheSecondEngineWithSmallerLanes) {
  FramesOfTwo f;
  ASSERT_NO_FATAL_FAILURE(ScoreFramesOfTwo(9, &f));
  const std::size_t lane_one = EngineLayout(kNoiseSide, kNoiseSide, Executor::kLane, 1).total_bytes;
  const std::size_t lane_two = EngineLayout(kNoiseSide, kNoiseSide, Executor::kLane, 2).total_bytes;
  ASSERT_LT(lane_two, lane_one);
  LayoutOptions preparer;
  preparer.executor = Executor::kPreparer;
  preparer.result_slots = kMaxAlphaPasses;
  const Layout second = MakeLayout(kNoiseSide, kNoiseSide, preparer);
  const std::size_t second_bytes = second.total_bytes + second.cache.total_bytes;
  // f.memory: the engine, its cache and the one lane of a batch of two.
  const std::size_t with_small_lane = f.memory - lane_one + lane_two + second_bytes;
  ScorerOptions options;
  options.backend = Backend::kCuda;
  options.memory_limit = with_small_lane;
  ASSERT_GT(f.memory + second_bytes, options.memory_limit) << "one-group lanes leave no room";
  std::unique_ptr<Scorer> scorer;
  std::vector<Scorer::BatchHandle> handles;
  ASSERT_NO_FATAL_FAILURE(SubmitEveryFrame(f, options, &scorer, &handles));
  EXPECT_EQ(scorer->second_engine_bytes(), second_bytes);
  EXPECT_EQ(scorer->memory_bytes(), with_small_lane);
  EXPECT_NE(scorer->limits().find("Batch lanes blur scale 0 after"), std::string::npos)
      << scorer->limits();
  EXPECT_EQ(scorer->limits().find("No second engine"), std::string::npos) << scorer->limits();
  ExpectCollected(scorer.get(), handles, f, "lanes in two groups");
}

// EngineOptions::second_engine, as the CUDA scorer uses it: each reference
// set while batches are in flight is prepared by the second engine into the
// cache the batches do not read, and every batch (on the engine's stream and
// its lanes) still gets, bit for bit, what a separate engine gives for its
// reference, an alpha reference among them (its samples kept in the second
// cache, its batch on the engine's stream alone). The second engine holds
// what its layout says, a reference pass's working memory in two scale
// groups and one cache (the ratio to the first engine at video sizes:
// GpuLayout.SecondEngineAQuarterOfTheFirst), and nothing else grows.
TEST(GpuEmulation, SecondEngineBesideBatchesInFlight) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::vector<unsigned char>> refs;
  for (int t = 0; t < 4; ++t) refs.push_back(NoiseImage(rng));
  // Frame 3's reference has alpha: RGBA8 made of its RGB and noise.
  std::vector<unsigned char> rgba(4 * kNoiseSide * kNoiseSide);
  for (int i = 0; i < kNoiseSide * kNoiseSide; ++i) {
    for (int c = 0; c < 3; ++c) rgba[4 * i + c] = refs[3][3 * i + c];
    rgba[4 * i + 3] = static_cast<unsigned char>(byte(rng));
  }
  auto ref_view = [&](int t) {
    return t == 3 ? ImageView::Packed(PixelFormat::kRGBA8, kNoiseSide, kNoiseSide, rgba.data(),
                                      4 * kNoiseSide)
                  : ImageView::Packed(PixelFormat::kRGB8, kNoiseSide, kNoiseSide,
                                      refs[t].data(), 3 * kNoiseSide);
  };
  std::vector<std::vector<unsigned char>> dists;
  std::vector<ImageView> views;
  for (int i = 0; i < 4; ++i) dists.push_back(NoiseImage(rng));
  for (const auto& d : dists) {
    views.push_back(
        ImageView::Packed(PixelFormat::kRGB8, kNoiseSide, kNoiseSide, d.data(), 3 * kNoiseSide));
  }
  std::vector<std::vector<Result>> expected(refs.size(), std::vector<Result>(views.size()));
  {
    Engine separate;
    ASSERT_TRUE(Engine::Create(kNoiseSide, kNoiseSide, EngineOptions(), &separate).ok());
    for (std::size_t t = 0; t < refs.size(); ++t) {
      ASSERT_TRUE(separate
                      .ComputeBatch(ref_view(static_cast<int>(t)), views.data(), views.size(),
                                    expected[t].data())
                      .ok());
    }
  }
  EngineOptions options;
  options.second_engine = true;
  Engine engine;
  ASSERT_TRUE(Engine::Create(kNoiseSide, kNoiseSide, options, &engine).ok());
  // Two batches in flight, as ssim2compare keeps them.
  std::vector<Engine::BatchTicket> tickets(refs.size());
  std::size_t first_engine = 0;
  for (std::size_t t = 0; t < refs.size(); ++t) {
    ASSERT_TRUE(engine.SetReference(ref_view(static_cast<int>(t))).ok()) << "frame " << t;
    if (t == 0) {
      EXPECT_EQ(engine.second_engine_bytes(), 0u) << "nothing in flight: no second engine yet";
    }
    ASSERT_TRUE(engine.ComputeBatchAsync(views.data(), views.size(), &tickets[t]).ok());
    if (t == 0) first_engine = engine.memory_bytes();  // its cache and lanes made
    if (t >= 2) {
      std::vector<Result> got(views.size());
      ASSERT_TRUE(engine.WaitBatch(tickets[t - 2], got.data()).ok());
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(std::memcmp(&got[i], &expected[t - 2][i], sizeof(Result)), 0)
            << "frame " << t - 2 << ", image " << i;
      }
    }
  }
  for (std::size_t t = refs.size() - 2; t < refs.size(); ++t) {
    std::vector<Result> got(views.size());
    ASSERT_TRUE(engine.WaitBatch(tickets[t], got.data()).ok());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(std::memcmp(&got[i], &expected[t][i], sizeof(Result)), 0)
          << "frame " << t << ", image " << i;
    }
  }
  LayoutOptions second;
  second.result_slots = kMaxAlphaPasses;
  second.executor = Executor::kPreparer;
  const Layout second_layout = MakeLayout(kNoiseSide, kNoiseSide, second);
  EXPECT_EQ(engine.second_engine_bytes(),
            second_layout.total_bytes + second_layout.cache.total_bytes);
  // The alpha reference's pair passes grew the engine's working memory.
  const Layout grown = EngineLayout(kNoiseSide, kNoiseSide, Executor::kEngine);
  const Layout before = EngineLayout(kNoiseSide, kNoiseSide, Executor::kReference);
  EXPECT_EQ(engine.memory_bytes(), first_engine + grown.total_bytes - before.total_bytes +
                                       engine.second_engine_bytes());
  EXPECT_EQ(engine.batch_lanes(), 3);
  EXPECT_EQ(engine.limits(), "");
}
