// ssim2::Scorer on the CUDA engine (Backend::kCuda). The base class checks
// the inputs and keeps the contract; the engine keeps the same rules for
// its own callers (cuda_engine.h), so each call maps onto one engine call.
#include <memory>
#include <string>

#include "scorer_factory.h"
#include "ssim2/cuda_engine.h"

namespace ssim2 {
namespace cuda {
namespace {

class CudaScorer final : public Scorer {
 public:
  explicit CudaScorer(cuda::Engine engine)
      : Scorer(engine.width(), engine.height()), engine_(std::move(engine)) {}

  Backend backend() const override { return Backend::kCuda; }
  std::size_t memory_bytes() const override { return engine_.memory_bytes(); }
  std::string description() const override { return "CUDA, " + engine_.device_name(); }

 protected:
  Status ScorePair(const ImageView& reference, const ImageView& distorted,
                   Result* result) override {
    return engine_.Compute(reference, distorted, result);
  }
  Status CacheReference(const ImageView& reference) override {
    return engine_.SetReference(reference);
  }
  Status ScoreAgainstReference(const ImageView& distorted, Result* result) override {
    return engine_.Compute(distorted, result);
  }
  Status ScoreBatchAgainstReference(const std::vector<ImageView>& distorted,
                                    Result* results) override {
    return engine_.ComputeBatch(distorted.data(), distorted.size(), results);
  }
  Status ScoreBatch(const ImageView& reference, const std::vector<ImageView>& distorted,
                    Result* results) override {
    return engine_.ComputeBatch(reference, distorted.data(), distorted.size(), results);
  }
  // A batch the engine cannot take at once (more images than max_batch, or
  // tickets held by batches in flight: kInvalidArgument, the images being
  // checked already) is scored here and now.
  Status StartBatch(const std::vector<ImageView>& distorted, Result* results,
                    std::uint64_t* token, bool* pending) override {
    const Status s = engine_.ComputeBatchAsync(distorted.data(), distorted.size(), token);
    *pending = s.ok();
    if (s.code() != StatusCode::kInvalidArgument) return s;
    return engine_.ComputeBatch(distorted.data(), distorted.size(), results);
  }
  Status FinishBatch(std::uint64_t token, Result* results) override {
    return engine_.WaitBatch(token, results);
  }

 private:
  cuda::Engine engine_;
};

}  // namespace

Status CreateCudaScorer(int width, int height, const ScorerOptions& options,
                        std::unique_ptr<Scorer>* out) {
  cuda::EngineOptions eo;
  eo.context = options.cuda_context;
  eo.stream = options.cuda_stream;
  eo.device = options.cuda_device;
  eo.all_features = options.all_features;
  cuda::Engine engine;
  Status s = cuda::Engine::Create(width, height, eo, &engine);
  if (!s.ok()) return s;
  out->reset(new CudaScorer(std::move(engine)));
  return Status::Ok();
}

}  // namespace cuda
}  // namespace ssim2
