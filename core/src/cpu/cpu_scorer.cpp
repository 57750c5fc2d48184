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
    return pipeline_.memory_bytes() + cached_[0].bytes() + cached_[1].bytes();
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
    if (Status s = CheckConvertible(reference); !s.ok()) return s;
    if (Status s = CheckConvertible(distorted); !s.ok()) return s;
    Result best;
    Status status = ForEachAlphaPass(HasAlpha(reference.format), [&](int pass, float bg) {
      Result r;
      pipeline_.Score(reference, distorted, bg, &r);
      KeepLowerScore(pass, r, &best);
      return Status::Ok();
    });
    if (status.ok()) *result = best;
    return status;
  }

  Status CacheReference(const ImageView& reference) override {
    if (Status s = CheckConvertible(reference); !s.ok()) return s;
    reference_has_alpha_ = HasAlpha(reference.format);
    return ForEachAlphaPass(reference_has_alpha_, [&](int pass, float bg) {
      pipeline_.PrepareReference(reference, bg, &cached_[pass]);
      return Status::Ok();
    });
  }

  Status ScoreAgainstReference(const ImageView& distorted, Result* result) override {
    if (Status s = CheckConvertible(distorted); !s.ok()) return s;
    Result best;
    Status status = ForEachAlphaPass(reference_has_alpha_, [&](int pass, float bg) {
      Result r;
      pipeline_.ScoreCached(cached_[pass], distorted, bg, &r);
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
