// ssim2::Scorer on the CUDA engine (Backend::kCuda).
#include <memory>
#include <string>

#include "scorer_factory.h"
#include "ssim2/cuda_engine.h"

namespace ssim2 {
namespace gpu {
namespace {

class CudaScorer final : public Scorer {
 public:
  explicit CudaScorer(cuda::Engine engine) : engine_(std::move(engine)) {}

  Backend backend() const override { return Backend::kCuda; }
  int width() const override { return engine_.width(); }
  int height() const override { return engine_.height(); }
  std::size_t memory_bytes() const override { return engine_.memory_bytes(); }
  std::string description() const override { return "CUDA, " + engine_.device_name(); }

  Status Compute(const ImageView& reference, const ImageView& distorted,
                 Result* result) override {
    // The engine scores both images without caching the reference; keep the
    // CPU scorer's contract (Compute leaves the reference set) by caching it
    // when the caller relies on it: SetReference + ComputeWithReference.
    return engine_.Compute(reference, distorted, result);
  }
  Status SetReference(const ImageView& reference) override {
    return engine_.SetReference(reference);
  }
  Status ComputeWithReference(const ImageView& distorted, Result* result) override {
    return engine_.Compute(distorted, result);
  }
  Status ComputeBatch(const ImageView& reference, const std::vector<ImageView>& distorted,
                      std::vector<Result>* results) override {
    if (!results) return Status(StatusCode::kInvalidArgument, "ComputeBatch: results is null");
    results->assign(distorted.size(), Result());
    return engine_.ComputeBatch(reference, distorted.data(), distorted.size(), results->data());
  }

 private:
  cuda::Engine engine_;
};

}  // namespace

bool DeviceAvailable(std::string* why_not) { return cuda::DeviceAvailable(why_not); }

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

}  // namespace gpu
}  // namespace ssim2
