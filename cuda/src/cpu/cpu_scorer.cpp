// ssim2::Scorer on the CPU.
#include <memory>
#include <string>

#include "alpha_rule.h"
#include "cpu/convert.h"
#include "cpu/pipeline.h"
#include "scorer_factory.h"

namespace ssim2 {
namespace cpu {
namespace {

class CpuScorer final : public Scorer {
 public:
  CpuScorer(int width, int height, const ScorerOptions& options)
      : Scorer(width, height),
        pool_(options.cpu_threads),
        plan_(MakePlan(width, height, options.all_features)),
        pipeline_(plan_, &pool_, BestKernels()) {}

  Backend backend() const override { return Backend::kCpu; }
  std::size_t memory_bytes() const override {
    std::size_t bytes = pipeline_.memory_bytes() + cached_[0].bytes() + cached_[1].bytes();
    for (const Image3* img : {&linear_, &linear_dist_}) {
      for (const Plane& p : img->plane) bytes += p.bytes();
    }
    return bytes;
  }
  std::string description() const override {
    return std::string("CPU (") + BestKernels().isa + ", " + std::to_string(pool_.size()) +
           (pool_.size() == 1 ? " thread)" : " threads)");
  }

 protected:
  // The one-shot pipeline never touches cached_, and needs far less memory
  // than caching every scale of the reference.
  Status ScorePair(const ImageView& reference, const ImageView& distorted,
                   Result* result) override {
    Result best;
    Status status = ForEachAlphaPass(HasAlpha(reference.format), [&](int pass, float bg) {
      if (Status s = ToLinearRgb(reference, bg, &linear_, &pool_); !s.ok()) return s;
      if (Status s = ToLinearRgb(distorted, bg, &linear_dist_, &pool_); !s.ok()) return s;
      Result r;
      pipeline_.Score(&linear_, &linear_dist_, &r);
      KeepLowerScore(pass, r, &best);
      return Status::Ok();
    });
    if (status.ok()) *result = best;
    return status;
  }

  Status CacheReference(const ImageView& reference) override {
    reference_has_alpha_ = HasAlpha(reference.format);
    return ForEachAlphaPass(reference_has_alpha_, [&](int pass, float bg) {
      if (Status s = ToLinearRgb(reference, bg, &linear_, &pool_); !s.ok()) return s;
      pipeline_.PrepareReference(&linear_, &cached_[pass]);
      return Status::Ok();
    });
  }

  Status ScoreAgainstReference(const ImageView& distorted, Result* result) override {
    Result best;
    Status status = ForEachAlphaPass(reference_has_alpha_, [&](int pass, float bg) {
      if (Status s = ToLinearRgb(distorted, bg, &linear_dist_, &pool_); !s.ok()) return s;
      Result r;
      pipeline_.ScoreCached(cached_[pass], &linear_dist_, &r);
      KeepLowerScore(pass, r, &best);
      return Status::Ok();
    });
    if (status.ok()) *result = best;
    return status;
  }

 private:
  ThreadPool pool_;
  MetricPlan plan_;
  Pipeline pipeline_;
  Image3 linear_;
  Image3 linear_dist_;
  ReferenceCache cached_[kMaxAlphaPasses];
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
