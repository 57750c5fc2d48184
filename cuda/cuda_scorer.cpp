// ssim2::Scorer's backend on the CUDA engine (Backend::kCuda). The Scorer
// checks the inputs and keeps the contract; the engine keeps the same rules
// for its own callers (cuda/engine.h), so each call maps onto one engine call.
//
// A batch submitted against the cached reference (SubmitWithReference) is
// still running when the caller sets the next reference, as ssim2compare
// does in a non-live pipeline: the engine's second engine
// (EngineOptions::second_engine) then prepares the next reference beside the
// batch in flight, into a second cache, instead of after it on the engine's
// stream, and the next batch runs on the same streams as the first. On the
// H200 preparing beside the batch lifted a 1080p ladder of four renditions
// from 3,119 to 3,565 rendition frames/s in the element, and one pair from
// 1,451 to 1,990 pairs/s (docs/PERFORMANCE.md; then with two whole engines).
// The second engine holds only the second reference cache, in which its
// reference passes work (a sixth to a fifth of the first engine with its
// lanes); without its memory (or the
// room under ScorerOptions::memory_limit) the engine goes on alone.
#include <memory>
#include <string>
#include <vector>

#include "cuda/engine.h"
#include "scorer_backend.h"

namespace ssim2 {
namespace cuda {
namespace {

class CudaBackend final : public ScorerBackend {
 public:
  explicit CudaBackend(cuda::Engine engine) : engine_(std::move(engine)) {}

  Backend backend() const override { return Backend::kCuda; }
  std::size_t memory_bytes() const override { return engine_.memory_bytes(); }
  std::size_t second_engine_bytes() const override { return engine_.second_engine_bytes(); }
  std::string description() const override { return "CUDA, " + engine_.device_name(); }
  std::string limits() const override { return engine_.limits(); }

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
    cuda::Engine::BatchTicket ticket = 0;
    const Status s = engine_.ComputeBatchAsync(distorted.data(), distorted.size(), &ticket);
    *pending = s.ok();
    if (s.ok()) {
      *token = ticket;
      return s;
    }
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

Status CreateCudaBackend(int width, int height, const ScorerOptions& options,
                         std::unique_ptr<ScorerBackend>* out) {
  cuda::EngineOptions eo;
  eo.context = options.cuda_context;
  eo.stream = options.cuda_stream;
  eo.cuda_device = options.cuda_device;
  eo.all_features = options.all_features;
  eo.memory_limit = options.memory_limit;
  eo.sequential_sums = options.sequential_sums;
  eo.second_engine = true;
  cuda::Engine engine;
  Status s = cuda::Engine::Create(width, height, eo, &engine);
  if (!s.ok()) return s;
  out->reset(new CudaBackend(std::move(engine)));
  return Status::Ok();
}

}  // namespace cuda
}  // namespace ssim2
