// ssim2::Scorer on the CPU.
#include <memory>
#include <string>

#include "constants.h"
#include "cpu/convert.h"
#include "cpu/pipeline.h"
#include "scorer_factory.h"

namespace ssim2 {
namespace cpu {
namespace {

class CpuScorer final : public Scorer {
 public:
  CpuScorer(int width, int height, const ScorerOptions& options)
      : width_(width),
        height_(height),
        pool_(options.cpu_threads),
        plan_(MakePlan(width, height, options.all_features)),
        pipeline_(plan_, &pool_, BestKernels()) {}

  Backend backend() const override { return Backend::kCpu; }
  int width() const override { return width_; }
  int height() const override { return height_; }
  std::size_t memory_bytes() const override {
    return pipeline_.memory_bytes() + cached_[0].bytes() + cached_[1].bytes();
  }
  std::string description() const override {
    return std::string("CPU (") + BestKernels().isa + ", " + std::to_string(pool_.size()) +
           (pool_.size() == 1 ? " thread)" : " threads)");
  }

  // One pair without touching the cached reference: the one-shot pipeline
  // needs far less memory than caching every scale of the reference.
  Status Compute(const ImageView& reference, const ImageView& distorted,
                 Result* result) override {
    if (!result) return Status(StatusCode::kInvalidArgument, "result is null");
    if (Status s = CheckPair(reference, distorted); !s.ok()) return s;
    if (Status s = CheckConvertible(reference); !s.ok()) return s;
    if (Status s = CheckConvertible(distorted); !s.ok()) return s;
    const bool alpha = HasAlpha(reference.format);
    Result best;
    for (int i = 0; i < (alpha ? 2 : 1); ++i) {
      const float bg = Background(alpha, i);
      Result r;
      pipeline_.Score(reference, distorted, bg, &r);
      if (i == 0 || r.score < best.score) best = r;
    }
    *result = best;
    return Status::Ok();
  }

  Status SetReference(const ImageView& reference) override {
    has_reference_ = false;
    if (Status s = CheckSize(reference); !s.ok()) return s;
    if (Status s = CheckConvertible(reference); !s.ok()) return s;
    reference_has_alpha_ = HasAlpha(reference.format);
    const int passes = reference_has_alpha_ ? 2 : 1;
    for (int i = 0; i < passes; ++i) {
      const float bg = Background(reference_has_alpha_, i);
      pipeline_.PrepareReference(reference, bg, &cached_[i]);
    }
    has_reference_ = true;
    return Status::Ok();
  }

  Status ComputeWithReference(const ImageView& distorted, Result* result) override {
    if (!result) return Status(StatusCode::kInvalidArgument, "result is null");
    if (!has_reference_) {
      return Status(StatusCode::kInvalidArgument, "no reference set: call SetReference first");
    }
    if (Status s = CheckSize(distorted); !s.ok()) return s;
    if (Status s = CheckConvertible(distorted); !s.ok()) return s;
    const int passes = reference_has_alpha_ ? 2 : 1;
    Result best;
    for (int i = 0; i < passes; ++i) {
      const float bg = Background(reference_has_alpha_, i);
      Result r;
      pipeline_.ScoreCached(cached_[i], distorted, bg, &r);
      if (i == 0 || r.score < best.score) best = r;
    }
    *result = best;
    return Status::Ok();
  }

 private:
  // The reference tool's alpha rule: without alpha on the reference one
  // pass (a distorted alpha blends against 0.5), with it the lower score of a
  // dark and a bright background.
  static float Background(bool reference_has_alpha, int pass) {
    if (!reference_has_alpha) return kAlphaBackgroundDefault;
    return pass == 0 ? kAlphaBackgroundDark : kAlphaBackgroundBright;
  }

  Status CheckSize(const ImageView& image) const {
    if (Status s = ValidateImage(image); !s.ok()) return s;
    if (image.width != width_ || image.height != height_) {
      return Status(StatusCode::kSizeMismatch,
                    "Image size mismatch: scorer is " + std::to_string(width_) + "x" +
                        std::to_string(height_) + ", image is " + std::to_string(image.width) +
                        "x" + std::to_string(image.height));
    }
    return Status::Ok();
  }

  Status CheckPair(const ImageView& reference, const ImageView& distorted) const {
    if (Status s = ValidatePair(reference, distorted); !s.ok()) return s;
    return CheckSize(reference);
  }

  int width_;
  int height_;
  ThreadPool pool_;
  MetricPlan plan_;
  Pipeline pipeline_;
  ReferenceCache cached_[2];
  bool has_reference_ = false;
  bool reference_has_alpha_ = false;
};

}  // namespace

Status CreateCpuScorer(int width, int height, const ScorerOptions& options,
                       std::unique_ptr<Scorer>* out) {
  try {
    out->reset(new CpuScorer(width, height, options));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  "not enough host memory for a " + std::to_string(width) + "x" +
                      std::to_string(height) + " CPU scorer");
  }
  return Status::Ok();
}

}  // namespace cpu
}  // namespace ssim2
