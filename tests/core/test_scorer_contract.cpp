// The ssim2::Scorer contract (ssim2.h), run as the same sequences over every
// backend: the cached reference survives Compute(reference, distorted) and
// failed calls, checks fail without side effects, the alpha rule, and every
// pixel format. The CPU cases always run; the CUDA cases skip without a
// device. Built a second time against the emulated CUDA runtime
// (tests/cuda/emulated_runtime.cpp), so CI runs the CUDA cases too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../assertions.h"
#include "../format_images.h"
#include "arith.h"
#include "pixel_format.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace {

using testing::BitIdentical;

// Small (the emulated runtime is slow), odd, and with three scales.
constexpr int kW = 23;
constexpr int kH = 17;

using testing::AlphaFill;
using testing::MakeImage;
using testing::TestImage;

// Three float planes of one linear value (an sRGB-encoded grey, linearised).
TestImage UniformLinear(float encoded, int width, int height) {
  TestImage img = MakeImage(PixelFormat::kLinearRGBPlanarF32, width, height, 0);
  const float linear = arith::SrgbToLinear(encoded);
  for (auto& plane : img.planes) {
    float* values = reinterpret_cast<float*>(plane.data());
    for (std::size_t i = 0; i < plane.size() / 4; ++i) values[i] = linear;
  }
  return img;
}

Result Score(Scorer* scorer, const ImageView& ref, const ImageView& dist) {
  Result r;
  EXPECT_OK(scorer->Compute(ref, dist, &r));
  return r;
}

class ScorerContract : public testing::PerBackendTest {
 protected:
  std::unique_ptr<Scorer> NewScorer(int width = kW, int height = kH) {
    ScorerOptions options;
    options.backend = GetParam();
    options.cpu_threads = 2;
    std::unique_ptr<Scorer> scorer = testing::NewScorerOrFail(width, height, options);
    if (scorer) {
      EXPECT_EQ(scorer->backend(), GetParam());
    }
    return scorer;
  }
};

// SetReference -> Compute(dist) -> Compute(a, b) -> Compute(dist) in one
// format: the cached reference gives the one-shot result and survives a pair.
void RunSequence(Scorer* scorer, PixelFormat format) {
  SCOPED_TRACE(PixelFormatName(format));
  const TestImage ref = MakeImage(format, kW, kH, 1);
  const TestImage dist = MakeImage(format, kW, kH, 2);
  const TestImage a = MakeImage(format, kW, kH, 3, 0.7);
  const TestImage b = MakeImage(format, kW, kH, 4, 0.7);
  const Result one_shot = Score(scorer, ref.view, dist.view);
  EXPECT_LT(one_shot.score, 100.0);
  EXPECT_GT(one_shot.score, -100.0);

  ASSERT_OK(scorer->SetReference(ref.view));
  EXPECT_TRUE(scorer->has_reference());
  Result cached;
  ASSERT_OK(scorer->ComputeWithReference(dist.view, &cached));
  EXPECT_TRUE(BitIdentical(cached, one_shot)) << "cached reference vs one-shot";

  const Result pair = Score(scorer, a.view, b.view);
  EXPECT_FALSE(BitIdentical(one_shot, pair)) << "the two pairs should score differently";
  Result again;
  ASSERT_OK(scorer->ComputeWithReference(dist.view, &again));
  EXPECT_TRUE(BitIdentical(again, one_shot)) << "cached reference after Compute(a, b)";
}

// Longer sequences with and without alpha on the reference: more pairs,
// batches (which re-cache), pairs sharing the cached reference's content.
TEST_P(ScorerContract, LongSequences) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  for (PixelFormat format : {PixelFormat::kRGB8, PixelFormat::kRGBA8}) {
    SCOPED_TRACE(PixelFormatName(format));
    const TestImage ref = MakeImage(format, kW, kH, 1);
    const TestImage dist = MakeImage(format, kW, kH, 2);
    const TestImage a = MakeImage(format, kW, kH, 3, 0.7);
    const TestImage b = MakeImage(format, kW, kH, 4, 0.7);
    const Result one_shot = Score(scorer.get(), ref.view, dist.view);
    const Result pair = Score(scorer.get(), a.view, b.view);
    const Result ref_b = Score(scorer.get(), ref.view, b.view);
    ASSERT_OK(scorer->SetReference(ref.view));
    Result r;
    for (int round = 0; round < 2; ++round) {
      EXPECT_TRUE(BitIdentical(Score(scorer.get(), a.view, b.view), pair));
      EXPECT_TRUE(BitIdentical(Score(scorer.get(), ref.view, b.view), ref_b));
      ASSERT_OK(scorer->ComputeWithReference(dist.view, &r));
      EXPECT_TRUE(BitIdentical(r, one_shot)) << "round " << round;
    }
    std::vector<Result> batch;
    ASSERT_OK(scorer->ComputeBatch(a.view, {b.view, dist.view}, &batch));
    ASSERT_EQ(batch.size(), 2u);
    EXPECT_TRUE(BitIdentical(batch[0], pair)) << "batch";
    EXPECT_TRUE(BitIdentical(Score(scorer.get(), ref.view, dist.view), one_shot));
    ASSERT_OK(scorer->ComputeWithReference(b.view, &r));
    EXPECT_TRUE(BitIdentical(r, pair)) << "the batch's reference is the cached one afterwards";
  }
}

TEST_P(ScorerContract, EveryFormatKeepsTheCachedReference) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  for (const FormatTraits& f : kPixelFormats) RunSequence(scorer.get(), f.format);
}

TEST_P(ScorerContract, ComputeWithReferenceNeedsAReference) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  const TestImage dist = MakeImage(PixelFormat::kRGB8, kW, kH, 2);
  Result r;
  EXPECT_FALSE(scorer->has_reference());
  EXPECT_EQ(scorer->ComputeWithReference(dist.view, &r).code(), StatusCode::kInvalidArgument);
  // A pair does not cache its reference.
  Score(scorer.get(), dist.view, dist.view);
  EXPECT_FALSE(scorer->has_reference());
  EXPECT_EQ(scorer->ComputeWithReference(dist.view, &r).code(), StatusCode::kInvalidArgument);
}

TEST_P(ScorerContract, SizeMismatchChangesNothing) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  const TestImage ref = MakeImage(PixelFormat::kRGB8, kW, kH, 1);
  const TestImage dist = MakeImage(PixelFormat::kRGB8, kW, kH, 2);
  const TestImage small = MakeImage(PixelFormat::kRGB8, kW - 1, kH, 2);
  const TestImage other_ref = MakeImage(PixelFormat::kRGB8, kW, kH + 1, 1);
  const TestImage other_dist = MakeImage(PixelFormat::kRGB8, kW, kH + 1, 2);
  ASSERT_OK(scorer->SetReference(ref.view));
  Result expected;
  ASSERT_OK(scorer->ComputeWithReference(dist.view, &expected));

  Result r;
  Status s = scorer->Compute(ref.view, small.view, &r);
  EXPECT_EQ(s.code(), StatusCode::kSizeMismatch);
  EXPECT_EQ(s.message(), "Image size mismatch: reference 23x17, distorted 22x17");
  s = scorer->Compute(other_ref.view, other_dist.view, &r);
  EXPECT_EQ(s.code(), StatusCode::kSizeMismatch);
  EXPECT_EQ(s.message(), "Image size mismatch: scorer 23x17, image 23x18");
  s = scorer->ComputeWithReference(small.view, &r);
  EXPECT_EQ(s.code(), StatusCode::kSizeMismatch);
  EXPECT_EQ(s.message(), "Image size mismatch: scorer 23x17, image 22x17");
  std::vector<Result> batch;
  EXPECT_EQ(scorer->ComputeBatch(ref.view, {dist.view, small.view}, &batch).code(),
            StatusCode::kSizeMismatch);
  EXPECT_EQ(scorer->ComputeWithReference({dist.view, small.view}, &batch).code(),
            StatusCode::kSizeMismatch);
  EXPECT_EQ(scorer->Compute(ref.view, dist.view, nullptr).code(), StatusCode::kInvalidArgument);

  // None of the failures touched the cached reference.
  EXPECT_TRUE(scorer->has_reference());
  ASSERT_OK(scorer->ComputeWithReference(dist.view, &r));
  EXPECT_TRUE(BitIdentical(r, expected));

  // A failed SetReference leaves no reference.
  EXPECT_EQ(scorer->SetReference(small.view).code(), StatusCode::kSizeMismatch);
  EXPECT_FALSE(scorer->has_reference());
  EXPECT_EQ(scorer->ComputeWithReference(dist.view, &r).code(), StatusCode::kInvalidArgument);
}

// Several distorted images against the cached reference: each result is the
// one-by-one result, bit for bit, whatever the backend spreads them over (the
// CUDA engine scores them on several streams, each lane reading the one
// prepared reference); a new reference is seen by every lane; a pair in
// between leaves the cache alone.
TEST_P(ScorerContract, BatchAgainstTheCachedReference) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  std::vector<Result> batch;
  const TestImage probe = MakeImage(PixelFormat::kRGB8, kW, kH, 9);
  EXPECT_EQ(scorer->ComputeWithReference({probe.view}, &batch).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(scorer->ComputeWithReference({probe.view}, nullptr).code(),
            StatusCode::kInvalidArgument);
  const std::size_t memory_before = scorer->memory_bytes();
  for (PixelFormat format : {PixelFormat::kRGB8, PixelFormat::kRGBA8}) {
    SCOPED_TRACE(PixelFormatName(format));
    std::vector<TestImage> refs, dists;
    for (unsigned i = 0; i < 2; ++i) refs.push_back(MakeImage(format, kW, kH, 100 + i));
    // More images than streams (4 by default), so that one takes two.
    std::vector<ImageView> views;
    for (unsigned i = 0; i < 5; ++i) {
      dists.push_back(MakeImage(format, kW, kH, 200 + i, 0.1 * i));
    }
    for (const TestImage& d : dists) views.push_back(d.view);
    const TestImage a = MakeImage(format, kW, kH, 3, 0.7);
    const TestImage b = MakeImage(format, kW, kH, 4, 0.7);
    for (const TestImage& ref : refs) {
      std::vector<Result> expected(dists.size());
      for (std::size_t i = 0; i < dists.size(); ++i) {
        expected[i] = Score(scorer.get(), ref.view, dists[i].view);
      }
      ASSERT_OK(scorer->SetReference(ref.view));
      ASSERT_OK(scorer->ComputeWithReference(views, &batch));
      ASSERT_EQ(batch.size(), dists.size());
      for (std::size_t i = 0; i < dists.size(); ++i) {
        EXPECT_TRUE(BitIdentical(batch[i], expected[i])) << "image " << i;
      }
      EXPECT_FALSE(BitIdentical(batch[0], batch[1]));
      Score(scorer.get(), a.view, b.view);
      ASSERT_OK(scorer->ComputeWithReference(views, &batch));
      for (std::size_t i = 0; i < dists.size(); ++i) {
        EXPECT_TRUE(BitIdentical(batch[i], expected[i])) << "after a pair, image " << i;
      }
      // An empty batch is fine and changes nothing.
      ASSERT_OK(scorer->ComputeWithReference(std::vector<ImageView>{}, &batch));
      EXPECT_TRUE(batch.empty());
    }
  }
  if (GetParam() == Backend::kCuda) {
    // The reference cache, and three lanes beside the engine's own stream,
    // each at least the distorted image's planes (12 bytes per pixel).
    EXPECT_GE(scorer->memory_bytes(), memory_before + 3 * 12 * kW * kH);
  }
}

// Two batches in flight against two different references: submit A against
// ref1, SetReference(ref2), submit B, collect A, collect B gives what the
// synchronous calls give, bit for bit; handles are collected once; a submit
// with a wrong image fails before anything changes.
TEST_P(ScorerContract, BatchesInFlightKeepTheirReference) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  Scorer::BatchHandle handle = 0;
  const TestImage probe = MakeImage(PixelFormat::kRGB8, kW, kH, 9);
  EXPECT_EQ(scorer->SubmitWithReference({probe.view}, &handle).code(),
            StatusCode::kInvalidArgument)
      << "no reference yet";
  for (PixelFormat format : {PixelFormat::kRGB8, PixelFormat::kRGBA8}) {
    SCOPED_TRACE(PixelFormatName(format));
    const TestImage ref1 = MakeImage(format, kW, kH, 101);
    const TestImage ref2 = MakeImage(format, kW, kH, 102, 0.4);
    std::vector<TestImage> dists;
    std::vector<ImageView> views_a, views_b;
    for (unsigned i = 0; i < 5; ++i) dists.push_back(MakeImage(format, kW, kH, 200 + i, 0.1 * i));
    for (unsigned i = 0; i < 5; ++i) views_a.push_back(dists[i].view);
    for (unsigned i = 0; i < 3; ++i) views_b.push_back(dists[4 - i].view);
    std::vector<Result> expected_a, expected_b;
    ASSERT_OK(scorer->SetReference(ref1.view));
    ASSERT_OK(scorer->ComputeWithReference(views_a, &expected_a));
    ASSERT_OK(scorer->SetReference(ref2.view));
    ASSERT_OK(scorer->ComputeWithReference(views_b, &expected_b));
    ASSERT_FALSE(BitIdentical(expected_a[4], expected_b[0])) << "the references differ";

    ASSERT_OK(scorer->SetReference(ref1.view));
    Scorer::BatchHandle a = 0, b = 0;
    ASSERT_OK(scorer->SubmitWithReference(views_a, &a));
    ASSERT_OK(scorer->SetReference(ref2.view));
    ASSERT_OK(scorer->SubmitWithReference(views_b, &b));
    EXPECT_NE(a, b);
    EXPECT_EQ(scorer->batches_in_flight(), 2u);
    std::vector<Result> got_a, got_b;
    ASSERT_OK(scorer->CollectBatch(a, &got_a));
    ASSERT_OK(scorer->CollectBatch(b, &got_b));
    ASSERT_EQ(got_a.size(), views_a.size());
    ASSERT_EQ(got_b.size(), views_b.size());
    for (std::size_t i = 0; i < got_a.size(); ++i) {
      EXPECT_TRUE(BitIdentical(got_a[i], expected_a[i])) << "batch A, image " << i;
    }
    for (std::size_t i = 0; i < got_b.size(); ++i) {
      EXPECT_TRUE(BitIdentical(got_b[i], expected_b[i])) << "batch B, image " << i;
    }
    EXPECT_EQ(scorer->batches_in_flight(), 0u);

    // Collected handles, and handles never given, are refused.
    std::vector<Result> again;
    EXPECT_EQ(scorer->CollectBatch(a, &again).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(scorer->CollectBatch(b + 100, &again).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(scorer->CollectBatch(b, nullptr).code(), StatusCode::kInvalidArgument);

    // A wrong image fails the submit before anything is started; the cached
    // reference and a batch already in flight are untouched.
    const TestImage small = MakeImage(format, kW - 1, kH, 5);
    ASSERT_OK(scorer->SubmitWithReference(views_b, &b));
    Scorer::BatchHandle bad = 0;
    EXPECT_EQ(scorer->SubmitWithReference({views_b[0], small.view}, &bad).code(),
              StatusCode::kSizeMismatch);
    EXPECT_EQ(scorer->SubmitWithReference(views_b, nullptr).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(scorer->batches_in_flight(), 1u);
    ASSERT_OK(scorer->CollectBatch(b, &got_b));
    for (std::size_t i = 0; i < got_b.size(); ++i) {
      EXPECT_TRUE(BitIdentical(got_b[i], expected_b[i])) << "after a failed submit, image " << i;
    }
    Result r;
    ASSERT_OK(scorer->ComputeWithReference(views_b[0], &r));
    EXPECT_TRUE(BitIdentical(r, expected_b[0]));
  }
  // More images than the CUDA engine takes in one asynchronous batch (its
  // max_batch, 8): scored at submit instead, with the same results.
  const TestImage ref = MakeImage(PixelFormat::kRGB8, kW, kH, 103);
  std::vector<TestImage> many;
  std::vector<ImageView> views;
  for (unsigned i = 0; i < 9; ++i) many.push_back(MakeImage(PixelFormat::kRGB8, kW, kH, 300 + i));
  for (const TestImage& d : many) views.push_back(d.view);
  ASSERT_OK(scorer->SetReference(ref.view));
  std::vector<Result> expected, got;
  ASSERT_OK(scorer->ComputeWithReference(views, &expected));
  Scorer::BatchHandle large = 0;
  ASSERT_OK(scorer->SubmitWithReference(views, &large));
  ASSERT_OK(scorer->CollectBatch(large, &got));
  ASSERT_EQ(got.size(), views.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(BitIdentical(got[i], expected[i])) << "large batch, image " << i;
  }
}

// What ssim2compare does with a ladder: per frame SetReference, submit that
// frame's images, then collect the previous frame's batch, so that a new
// reference is set while a batch is in flight every time (the CUDA backend
// then prepares it on its second engine). Then three batches in flight
// against three references, collected out of order. Every result is the
// synchronous call's, bit for bit.
TEST_P(ScorerContract, ReferencesSetWhileBatchesAreInFlight) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  constexpr int kFrames = 5;
  constexpr int kRenditions = 3;
  std::vector<TestImage> refs, dists;
  for (int t = 0; t < kFrames; ++t) {
    refs.push_back(MakeImage(PixelFormat::kRGB8, kW, kH, 400 + t, 0.3 * t));
    for (int r = 0; r < kRenditions; ++r) {
      dists.push_back(MakeImage(PixelFormat::kRGB8, kW, kH, 500 + 10 * t + r, 0.3 * t + 0.05 * r));
    }
  }
  auto frame_views = [&](int t) {
    std::vector<ImageView> v;
    for (int r = 0; r < kRenditions; ++r) v.push_back(dists[t * kRenditions + r].view);
    return v;
  };
  std::vector<std::vector<Result>> expected(kFrames);
  for (int t = 0; t < kFrames; ++t) {
    ASSERT_OK(scorer->SetReference(refs[t].view));
    ASSERT_OK(scorer->ComputeWithReference(frame_views(t), &expected[t]));
  }
  ASSERT_FALSE(BitIdentical(expected[0][0], expected[1][0])) << "the frames differ";
  auto expect_frame = [&](const std::vector<Result>& got, int t, const char* what) {
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kRenditions));
    for (int r = 0; r < kRenditions; ++r) {
      EXPECT_TRUE(BitIdentical(got[r], expected[t][r])) << what << ", frame " << t << ", image " << r;
    }
  };

  const std::size_t memory_before = scorer->memory_bytes();
  Scorer::BatchHandle previous = 0;
  for (int t = 0; t < kFrames; ++t) {
    ASSERT_OK(scorer->SetReference(refs[t].view));
    Scorer::BatchHandle handle = 0;
    ASSERT_OK(scorer->SubmitWithReference(frame_views(t), &handle));
    if (t > 0) {
      std::vector<Result> got;
      ASSERT_OK(scorer->CollectBatch(previous, &got));
      expect_frame(got, t - 1, "pipelined");
    }
    previous = handle;
  }
  std::vector<Result> got;
  ASSERT_OK(scorer->CollectBatch(previous, &got));
  expect_frame(got, kFrames - 1, "pipelined");
  if (GetParam() == Backend::kCuda) {
    // A second engine for the next reference, and nothing else.
    EXPECT_GT(scorer->second_engine_bytes(), 0u);
    EXPECT_EQ(scorer->memory_bytes(), memory_before + scorer->second_engine_bytes());
  } else {
    EXPECT_EQ(scorer->second_engine_bytes(), 0u);
  }

  // Three in flight: the third reference goes back to the cache whose batch
  // has not been collected yet.
  Scorer::BatchHandle h[3] = {0, 0, 0};
  for (int t = 0; t < 3; ++t) {
    ASSERT_OK(scorer->SetReference(refs[t].view));
    ASSERT_OK(scorer->SubmitWithReference(frame_views(t), &h[t]));
  }
  EXPECT_EQ(scorer->batches_in_flight(), 3u);
  for (int t : {2, 0, 1}) {
    ASSERT_OK(scorer->CollectBatch(h[t], &got));
    expect_frame(got, t, "three in flight");
  }
  // The cached reference is the last one set, whichever engine holds it.
  Result r;
  ASSERT_OK(scorer->ComputeWithReference(dists[2 * kRenditions].view, &r));
  EXPECT_TRUE(BitIdentical(r, expected[2][0]));
  ASSERT_OK(scorer->Compute(refs[4].view, dists[0].view, &r));
  ASSERT_OK(scorer->ComputeWithReference(dists[2 * kRenditions + 1].view, &r));
  EXPECT_TRUE(BitIdentical(r, expected[2][1])) << "a pair left the cached reference alone";
}

TEST_P(ScorerContract, TooSmall) {
  ScorerOptions options;
  options.backend = GetParam();
  std::unique_ptr<Scorer> scorer;
  const Status s = Scorer::Create(7, 8, options, &scorer);
  EXPECT_EQ(s.code(), StatusCode::kImageTooSmall);
  EXPECT_EQ(s.message(), "Minimum image size is 8x8 pixels");
  EXPECT_FALSE(scorer);
}

// A transparent reference is its background: the score must be the lower of
// the dark-grey and the bright-grey comparisons, computed here from uniform
// linear planes.
TEST_P(ScorerContract, ReferenceAlphaTakesTheLowerOfTwoBackgrounds) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  const TestImage ref = MakeImage(PixelFormat::kRGBA8, kW, kH, 1, 0.0, AlphaFill::kTransparent);
  const TestImage dist = MakeImage(PixelFormat::kRGBA8, kW, kH, 2, 0.0, AlphaFill::kOpaque);
  const TestImage dist_rgbx = [&] {
    TestImage t = dist;
    t.view = ImageView::Packed(PixelFormat::kRGBX8, kW, kH, t.planes[0].data(), t.view.strides[0]);
    return t;
  }();
  const Result dark = Score(scorer.get(), UniformLinear(0.1f, kW, kH).view, dist_rgbx.view);
  const Result bright = Score(scorer.get(), UniformLinear(0.9f, kW, kH).view, dist_rgbx.view);
  ASSERT_NE(dark.score, bright.score);
  const Result& lower = dark.score < bright.score ? dark : bright;
  EXPECT_TRUE(BitIdentical(Score(scorer.get(), ref.view, dist.view), lower));
  Result cached;
  ASSERT_OK(scorer->SetReference(ref.view));
  ASSERT_OK(scorer->ComputeWithReference(dist.view, &cached));
  EXPECT_TRUE(BitIdentical(cached, lower));
}

// Without alpha on the reference, a distorted alpha blends against 0.5.
TEST_P(ScorerContract, DistortedAlphaOnlyBlendsAgainstHalfGrey) {
  std::unique_ptr<Scorer> scorer = NewScorer();
  ASSERT_TRUE(scorer);
  const TestImage ref = MakeImage(PixelFormat::kRGB8, kW, kH, 1);
  const TestImage dist = MakeImage(PixelFormat::kRGBA8, kW, kH, 2, 0.0, AlphaFill::kTransparent);
  const Result expected = Score(scorer.get(), ref.view, UniformLinear(0.5f, kW, kH).view);
  EXPECT_TRUE(BitIdentical(Score(scorer.get(), ref.view, dist.view), expected));
  Result cached;
  ASSERT_OK(scorer->SetReference(ref.view));
  ASSERT_OK(scorer->ComputeWithReference(dist.view, &cached));
  EXPECT_TRUE(BitIdentical(cached, expected));
}

INSTANTIATE_TEST_SUITE_P(Backends, ScorerContract,
                         ::testing::Values(Backend::kCpu, Backend::kCuda),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return std::string(BackendName(info.param));
                         });

}  // namespace
}  // namespace ssim2
