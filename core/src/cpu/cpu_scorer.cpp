// ssim2::Scorer's backend on the CPU.
#include <climits>
#include <cstdlib>
#include <memory>
#include <string>

#include "alpha_rule.h"
#include "cpu/convert.h"
#include "cpu/pipeline.h"
#include "scorer_backend.h"

namespace ssim2 {
namespace cpu {
namespace {

// SSIM2_CPU_BAND_ROWS=N: bands of N rows instead of the default (see
// Pipeline::BandRows for how N is kept in range), for measuring which band
// height is fastest on a machine (ssim2-cpu-bench --band-rows sweeps it).
// Unset, empty, "auto" or anything but a positive number: the default.
int BandRowsFromEnvironment() {
  const char* text = std::getenv("SSIM2_CPU_BAND_ROWS");
  if (!text || !*text) return 0;
  char* end = nullptr;
  // Out of range, strtol gives LONG_MAX (clamped like any tall band) or
  // LONG_MIN (not positive: the default).
  const long rows = std::strtol(text, &end, 10);
  if (*end != '\0' || rows <= 0) return 0;
  return rows > INT_MAX ? INT_MAX : static_cast<int>(rows);
}

class CpuBackend final : public ScorerBackend {
 public:
  CpuBackend(int width, int height, const ScorerOptions& options)
      : pool_(options.cpu_threads),
        plan_(MakePlan(width, height, options.all_features)),
        band_rows_requested_(BandRowsFromEnvironment()),
        pipeline_(plan_, &pool_, BestKernels(), band_rows_requested_) {}

  Backend backend() const override { return Backend::kCpu; }
  std::size_t memory_bytes() const override {
    return pipeline_.memory_bytes() + cached_[0].bytes() + cached_[1].bytes();
  }
  std::string description() const override {
    // A band height set through the environment is named, so that a
    // measurement says what it measured.
    const std::string bands =
        band_rows_requested_ > 0
            ? ", " + std::to_string(pipeline_.band_rows()) + "-row bands from SSIM2_CPU_BAND_ROWS"
            : "";
    return std::string("CPU (") + BestKernels().isa + ", " + std::to_string(pool_.size()) +
           (pool_.size() == 1 ? " thread" : " threads") + bands + ")";
  }

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
  int band_rows_requested_;  // 0: the pipeline's default
  Pipeline pipeline_;
  ReferenceCache cached_[kMaxAlphaPasses];
  bool reference_has_alpha_ = false;
};

}  // namespace

Status CreateCpuBackend(int width, int height, const ScorerOptions& options,
                        std::unique_ptr<ScorerBackend>* out) {
  try {
    out->reset(new CpuBackend(width, height, options));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  "not enough host memory for a " + std::to_string(width) + "x" +
                      std::to_string(height) + " CPU scorer");
  }
  return Status::Ok();
}

}  // namespace cpu
}  // namespace ssim2
