// Stage-by-stage parity of the CUDA engine with the CPU replay
// (cpu/reference_replay.cpp), bit for bit, on random linear-RGB images of
// awkward sizes; then the 108 sub-scores and the score, and cached-reference
// / full / batch results against each other.
//
// Usage: test_cuda_stages [--quick] [gtest options]   (--quick: small sizes
// only, for the compute-sanitizer runs). Exit 77 without a CUDA device.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "alpha_rule.h"
#include "blur_constants.h"
#include "cpu/convert.h"
#include "cpu/planes.h"
#include "cpu/reference_replay.h"
#include "cuda_test_util.h"
#include "../format_images.h"
#include "hdr_transfer.h"
#include "image_checks.h"
#include "pixel_format.h"
#include "plan.h"

using namespace ssim2;
using cudatest::BitIdentical;
using cudatest::MaxFeatureDiff;

namespace {

unsigned arith_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Random linear RGB: smooth structure plus noise, with flat patches (where
// sigma cancels and rounding matters most).
void RandomLinear(int w, int h, std::uint32_t seed, cpu::Image3* img) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  img->Resize(w, h);
  const float fx = u(rng) * 0.3f + 0.05f, fy = u(rng) * 0.3f + 0.05f;
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < h; ++y) {
      float* row = img->plane[c].Row(y);
      for (int x = 0; x < w; ++x) {
        const bool flat = ((x / 7) + (y / 5)) % 4 == 0;
        float v = 0.5f + 0.4f * std::sin(fx * x + c) * std::cos(fy * y);
        if (!flat) v += 0.1f * (u(rng) - 0.5f);
        row[x] = flat ? 0.25f : std::min(1.0f, std::max(0.0f, v));
      }
    }
  }
}

void Perturb(const cpu::Image3& in, std::uint32_t seed, cpu::Image3* out) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 0.02f);
  out->Resize(in.width(), in.height());
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < in.height(); ++y)
      for (int x = 0; x < in.width(); ++x) {
        const float v = in.plane[c].Row(y)[x] + ((x + y) % 3 == 0 ? n(rng) : 0.0f);
        out->plane[c].Row(y)[x] = std::min(1.0f, std::max(0.0f, v));
      }
}

ImageView PlanarView(const cpu::Image3& img) {
  return ImageView::Planar(PixelFormat::kLinearRGBPlanarF32, img.width(), img.height(),
                           {img.plane[0].Row(0), img.plane[1].Row(0), img.plane[2].Row(0)},
                           {static_cast<std::ptrdiff_t>(img.plane[0].stride() * 4),
                            static_cast<std::ptrdiff_t>(img.plane[1].stride() * 4),
                            static_cast<std::ptrdiff_t>(img.plane[2].stride() * 4)});
}

// Compares a downloaded plane with the CPU one; prints the first mismatch.
bool ComparePlane(const char* what, int scale, int channel, const cpu::Plane& expected,
                  const std::vector<float>& got, int w, int h) {
  long mismatches = 0;
  int fx = -1, fy = -1;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float e = expected.Row(y)[x];
      const float g = got[static_cast<std::size_t>(y) * w + x];
      if (std::memcmp(&e, &g, 4) != 0) {
        if (mismatches == 0) {
          fx = x;
          fy = y;
        }
        ++mismatches;
      }
    }
  if (mismatches) {
    const float e = expected.Row(fy)[fx];
    const float g = got[static_cast<std::size_t>(fy) * w + fx];
    ADD_FAILURE() << cudatest::Format(
        "stage %s scale %d channel %d (%dx%d): %ld samples differ; first at x=%d y=%d: "
        "cpu %.9g (0x%08x) gpu %.9g (0x%08x)",
        what, scale, channel, w, h, mismatches, fx, fy, e, arith_bits(e), g, arith_bits(g));
    return false;
  }
  return true;
}

void StageTest(int w, int h, std::uint32_t seed) {
  std::printf("-- stages %dx%d\n", w, h);
  cpu::Image3 ref, dist;
  RandomLinear(w, h, seed, &ref);
  Perturb(ref, seed + 1, &dist);
  cuda::EngineOptions opt;
  opt.all_features = true;
  opt.keep_linear_planes = true;  // read back below
  cuda::Engine engine;
  EXPECT_OK(cuda::Engine::Create(w, h, opt, &engine));
  if (!engine.valid()) return;
  EXPECT_OK(engine.SetReference(PlanarView(ref)));
  Result cached;
  EXPECT_OK(engine.Compute(PlanarView(dist), &cached));

  // CPU replay of the per-scale intermediates.
  const MetricPlan plan = MakePlan(w, h, true);
  const BlurConstants& bc = GetBlurConstants();
  cpu::Image3 lin[2] = {ref, dist}, xyb[2], next;
  bool ok = true;
  for (int s = 0; s < plan.num_scales && ok; ++s) {
    const int sw = plan.scales[s].width, sh = plan.scales[s].height;
    std::vector<float> got(static_cast<std::size_t>(sw) * sh);
    for (int i = 0; i < 2; ++i) {
      if (s > 0) {
        replay::Downsample(lin[i], &next);
        std::swap(lin[i], next);
        for (int c = 0; c < 3 && ok; ++c) {
          EXPECT_OK(engine.DebugDownload(i == 0 ? cuda::Engine::DebugPlane::kLinearRef
                                               : cuda::Engine::DebugPlane::kLinearDist,
                                        s, c, got.data(), sw));
          ok &= ComparePlane(i == 0 ? "downsample(ref)" : "downsample(dist)", s, c,
                             lin[i].plane[c], got, sw, sh);
        }
      }
      replay::ToPositiveXyb(lin[i], &xyb[i]);
      for (int c = 0; c < 3 && ok; ++c) {
        EXPECT_OK(engine.DebugDownload(
            i == 0 ? cuda::Engine::DebugPlane::kXybRef : cuda::Engine::DebugPlane::kXybDist, s,
            c, got.data(), sw));
        ok &= ComparePlane(i == 0 ? "xyb(ref)" : "xyb(dist)", s, c, xyb[i].plane[c], got, sw,
                           sh);
      }
    }
    for (int c = 0; c < 3 && ok; ++c) {
      // mu1 = blur(img1): if it differs, say whether the horizontal pass
      // alone already differs (rows) by comparing the GPU's plane with a
      // CPU blur whose vertical pass is applied to the CPU rows.
      cpu::Plane temp, mu, product(sw, sh), sigma;
      replay::Blur(bc, xyb[0].plane[c], &temp, &mu);
      EXPECT_OK(engine.DebugDownload(cuda::Engine::DebugPlane::kMu1, s, c, got.data(), sw));
      ok &= ComparePlane("blur(mu1 = H+V)", s, c, mu, got, sw, sh);
      for (int y = 0; y < sh; ++y)
        for (int x = 0; x < sw; ++x)
          product.Row(y)[x] = xyb[0].plane[c].Row(y)[x] * xyb[0].plane[c].Row(y)[x];
      replay::Blur(bc, product, &temp, &sigma);
      EXPECT_OK(engine.DebugDownload(cuda::Engine::DebugPlane::kSigma11, s, c, got.data(), sw));
      ok &= ComparePlane("blur(sigma11 = H+V of img1^2)", s, c, sigma, got, sw, sh);
    }
  }

  // Whole metric against the replay.
  const Result expected = replay::ComputeLinear(ref, dist, plan);
  std::string where;
  const double fd = MaxFeatureDiff(expected, cached, &where);
  EXPECT_TRUE(fd <= 1e-10) << cudatest::Format("%dx%d: sub-scores differ from the CPU replay by %.3g (%s)", w, h, fd, where.c_str());
  EXPECT_TRUE(std::fabs(expected.score - cached.score) <= 1e-9) << cudatest::Format("%dx%d: score cpu %.12f gpu %.12f", w, h, expected.score, cached.score);
  EXPECT_TRUE(expected.num_scales == cached.num_scales) << cudatest::Format("scales %d vs %d", expected.num_scales, cached.num_scales);

  // Full compute, batch and async against the cached result.
  Result full;
  EXPECT_OK(engine.Compute(PlanarView(ref), PlanarView(dist), &full));
  EXPECT_TRUE(BitIdentical(full, cached)) << cudatest::Format("%dx%d: Compute(ref, dist) %.17g != cached %.17g", w, h, full.score, cached.score);
  ImageView dists[3] = {PlanarView(dist), PlanarView(ref), PlanarView(dist)};
  Result batch[3];
  EXPECT_OK(engine.ComputeBatch(PlanarView(ref), dists, 3, batch));
  EXPECT_TRUE(BitIdentical(batch[0], cached) && BitIdentical(batch[2], cached)) << cudatest::Format("%dx%d: batch %.17g / %.17g != %.17g", w, h, batch[0].score, batch[2].score, cached.score);
  EXPECT_TRUE(batch[1].score == 100.0) << cudatest::Format("%dx%d: identical image in a batch scores %.17g", w, h, batch[1].score);
  std::printf("   score %.10f (cpu replay %.10f), max sub-score rel diff %.3g\n", cached.score,
              expected.score, fd);
}

// Default (non all_features) engines skip zero-weight maps: the score must
// not change and the skipped sub-scores are NaN, like the CPU path.
void SkipTest(int w, int h, std::uint32_t seed) {
  std::printf("-- skipped maps %dx%d\n", w, h);
  cpu::Image3 ref, dist;
  RandomLinear(w, h, seed, &ref);
  Perturb(ref, seed + 7, &dist);
  cuda::Engine all, skip;
  cuda::EngineOptions opt;
  opt.all_features = true;
  EXPECT_OK(cuda::Engine::Create(w, h, opt, &all));
  opt.all_features = false;
  EXPECT_OK(cuda::Engine::Create(w, h, opt, &skip));
  if (!all.valid() || !skip.valid()) return;
  Result a, s;
  EXPECT_OK(all.Compute(PlanarView(ref), PlanarView(dist), &a));
  EXPECT_OK(skip.Compute(PlanarView(ref), PlanarView(dist), &s));
  EXPECT_TRUE(std::fabs(a.score - s.score) <= 1e-12) << cudatest::Format("score all %.17g skip %.17g", a.score, s.score);
  std::unique_ptr<Scorer> cpu;
  ScorerOptions so;
  so.backend = Backend::kCpu;
  EXPECT_OK(Scorer::Create(w, h, so, &cpu));
  Result c;
  EXPECT_OK(cpu->Compute(PlanarView(ref), PlanarView(dist), &c));
  int nan_mismatch = 0;
  for (int sc = 0; sc < kMaxScales; ++sc)
    for (int ch = 0; ch < 3; ++ch)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 2; ++n)
          nan_mismatch +=
              std::isnan(c.features[sc][ch][m][n]) != std::isnan(s.features[sc][ch][m][n]);
  EXPECT_TRUE(nan_mismatch == 0) << cudatest::Format("%d skipped-feature (NaN) positions differ from the CPU path", nan_mismatch);
  EXPECT_TRUE(std::fabs(c.score - s.score) <= 1e-9) << cudatest::Format("cpu %.12f gpu %.12f", c.score, s.score);
}

}  // namespace

struct Size {
  int w, h;
};

// A PQ or HLG image of one format through `engine` (upload and kernels; an
// engine of the image's size that keeps its linear planes) against the CPU path's conversion (cpu::ToLinearRgb; for HLG glibc's exp
// and powf, which the kernels replay): scale 0's XYB and scale 1's linear RGB
// bit for bit, in the last alpha pass. False when the format does not carry
// HDR (ValidateImage refuses it).
bool HdrConversionTest(cuda::Engine& engine, PixelFormat format, Transfer transfer, int w,
                       int h) {
  ssim2::testing::TestImage img = ssim2::testing::MakeImage(format, w, h, 17);
  img.view.color.transfer = transfer;
  img.view.color.primaries = Primaries::kBT2020;
  img.view.yuv.matrix = YuvMatrix::kBT2020;
  if (!ValidateImage(img.view).ok()) return false;
  SCOPED_TRACE(cudatest::Format("%s %s %dx%d", TransferName(transfer), PixelFormatName(format),
                                w, h));
  Result r;
  EXPECT_OK(engine.Compute(img.view, img.view, &r));
  EXPECT_EQ(r.score, 100.0);
  const bool alpha = FindFormat(format)->has_alpha();
  const float background = AlphaBackground(alpha, AlphaPassCount(alpha) - 1);
  cpu::Image3 lin, xyb, next;
  EXPECT_OK(cpu::ToLinearRgb(img.view, background, &lin, nullptr));
  float opsin[9];
  hdr::PremultipliedOpsin(IntensityTarget(img.view.color), opsin);
  replay::ToPositiveXyb(lin, &xyb, opsin);
  replay::Downsample(lin, &next);
  const MetricPlan plan = MakePlan(w, h, true);
  bool ok = true;
  for (int c = 0; c < 3 && ok; ++c) {
    std::vector<float> got(static_cast<std::size_t>(w) * h);
    EXPECT_OK(engine.DebugDownload(cuda::Engine::DebugPlane::kXybRef, 0, c, got.data(), w));
    ok &= ComparePlane("xyb", 0, c, xyb.plane[c], got, w, h);
    if (plan.num_scales < 2) continue;
    const int sw = plan.scales[1].width, sh = plan.scales[1].height;
    EXPECT_OK(engine.DebugDownload(cuda::Engine::DebugPlane::kLinearRef, 1, c, got.data(), sw));
    ok &= ComparePlane("downsampled linear", 1, c, next.plane[c], got, sw, sh);
  }
  return true;
}

TEST(GpuStages, EveryStageEqualsTheReplay) {
  SSIM2_REQUIRE_DEVICE();
  std::vector<Size> sizes = {{8, 8}, {9, 9}, {17, 33}, {33, 17}, {8, 63}, {63, 8}, {63, 65}};
  if (!ssim2::testing::QuickRun()) {
    for (Size s : std::vector<Size>{{1921, 17}, {17, 1921}, {255, 127}, {1921, 1081}}) {
      sizes.push_back(s);
    }
  }
  std::uint32_t seed = 1;
  for (const Size& s : sizes) StageTest(s.w, s.h, seed += 10);
}

// Every format that carries PQ or HLG (packed RGB of 8 and 16 bits, with and
// without alpha, and the Y'CbCr formats of more than 8 bits), on odd sizes.
TEST(GpuStages, HdrInputsConvertAsOnTheCpuPath) {
  SSIM2_REQUIRE_DEVICE();
  auto engine_of = [](int w, int h, cuda::Engine* engine) {
    cuda::EngineOptions opt;
    opt.all_features = true;
    opt.keep_linear_planes = true;  // read back by HdrConversionTest
    EXPECT_OK(cuda::Engine::Create(w, h, opt, engine));
    return engine->valid();
  };
  cuda::Engine engine;
  ASSERT_TRUE(engine_of(37, 29, &engine));
  for (const Transfer transfer : {Transfer::kPq, Transfer::kHlg}) {
    std::string converted;
    for (const FormatTraits& f : kPixelFormats) {
      const bool carries_hdr = f.family == FormatFamily::kYuv
                                   ? f.bit_depth > 8
                                   : f.family == FormatFamily::kPacked && f.r != f.g;
      EXPECT_EQ(HdrConversionTest(engine, f.format, transfer, 37, 29), carries_hdr) << f.name;
      if (carries_hdr) converted += std::string(" ") + f.name;
    }
    std::printf("   %s, 37x29:%s\n", TransferName(transfer), converted.c_str());
  }
  std::vector<std::pair<Size, PixelFormat>> more = {{{9, 8}, PixelFormat::kRGBA16},
                                                    {{33, 17}, PixelFormat::kP010_10LE}};
  if (!ssim2::testing::QuickRun()) {
    more.push_back({{1921, 1081}, PixelFormat::kRGBA16});
    more.push_back({{1921, 1081}, PixelFormat::kP010_10LE});
  }
  for (const auto& [size, format] : more) {
    cuda::Engine other;
    ASSERT_TRUE(engine_of(size.w, size.h, &other));
    EXPECT_TRUE(HdrConversionTest(other, format, Transfer::kHlg, size.w, size.h));
  }
}

// ComputeBatchAsync / WaitBatch: two batches in flight against two cached
// references give ComputeBatch's results bit for bit; the limits (max_batch
// images, free tickets) refuse a submit before anything is enqueued.
TEST(GpuStages, BatchesInFlight) {
  SSIM2_REQUIRE_DEVICE();
  const int w = 17, h = 33;
  cpu::Image3 ref, dist, other;
  RandomLinear(w, h, 3, &ref);
  Perturb(ref, 4, &dist);
  Perturb(ref, 5, &other);
  cuda::EngineOptions opt;
  opt.max_batch = 4;
  cuda::Engine engine;
  EXPECT_OK(cuda::Engine::Create(w, h, opt, &engine));
  if (!engine.valid()) return;
  ImageView dists[3] = {PlanarView(dist), PlanarView(other), PlanarView(ref)};
  Result expected_ref[3], expected_dist[3];
  EXPECT_OK(engine.ComputeBatch(PlanarView(ref), dists, 3, expected_ref));
  EXPECT_OK(engine.ComputeBatch(PlanarView(dist), dists, 3, expected_dist));

  cuda::Engine::BatchTicket a = 0, b = 0, c = 0;
  Result got_a[3], got_b[3];
  EXPECT_OK(engine.SetReference(PlanarView(ref)));
  EXPECT_OK(engine.ComputeBatchAsync(dists, 3, &a));
  EXPECT_OK(engine.SetReference(PlanarView(dist)));
  EXPECT_OK(engine.ComputeBatchAsync(dists, 3, &b));
  EXPECT_TRUE(a != b);
  EXPECT_OK(engine.WaitBatch(a, got_a));
  EXPECT_OK(engine.WaitBatch(b, got_b));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(BitIdentical(got_a[i], expected_ref[i])) << "batch a, image " << i;
    EXPECT_TRUE(BitIdentical(got_b[i], expected_dist[i])) << "batch b, image " << i;
  }
  EXPECT_TRUE(got_a[2].score == 100.0 && got_b[0].score == 100.0);
  EXPECT_EQ(engine.WaitBatch(a, got_a).code(), StatusCode::kInvalidArgument);

  // More than max_batch images at once are refused.
  ImageView many[5] = {dists[0], dists[1], dists[2], dists[0], dists[1]};
  EXPECT_EQ(engine.ComputeBatchAsync(many, 5, &c).code(), StatusCode::kInvalidArgument);
  // On one stream, four tickets: a batch of 4 in flight leaves none.
  cuda::EngineOptions single = opt;
  single.batch_streams = 1;
  cuda::Engine one;
  EXPECT_OK(cuda::Engine::Create(w, h, single, &one));
  if (!one.valid()) return;
  EXPECT_OK(one.SetReference(PlanarView(ref)));
  EXPECT_OK(one.ComputeBatchAsync(many, 4, &a));
  EXPECT_EQ(one.ComputeBatchAsync(many, 1, &b).code(), StatusCode::kInvalidArgument);
  Result four[4], sync[1];
  EXPECT_EQ(one.ComputeBatch(many, 1, sync).code(), StatusCode::kInvalidArgument);
  EXPECT_OK(one.WaitBatch(a, four));
  EXPECT_TRUE(BitIdentical(four[3], expected_ref[0]));
  EXPECT_OK(one.ComputeBatchAsync(many, 1, &b));
  EXPECT_OK(one.WaitBatch(b, sync));
  EXPECT_TRUE(BitIdentical(sync[0], expected_ref[0]));
}

TEST(GpuStages, SkippedMapsChangeNoScore) {
  SSIM2_REQUIRE_DEVICE();
  SkipTest(64, 64, 5);
  SkipTest(17, 33, 6);
  if (!ssim2::testing::QuickRun()) SkipTest(640, 360, 7);
}
