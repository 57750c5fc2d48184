// ssim2::Scorer's backend on the CUDA engine (Backend::kCuda). The Scorer
// checks the inputs and keeps the contract; the engine keeps the same rules
// for its own callers (cuda/engine.h), so each call maps onto one engine call.
//
// Two engines, taken in turn. A batch submitted against the cached
// reference (SubmitWithReference) is still running when the caller sets the
// next reference, as ssim2compare does in a non-live pipeline: the next
// reference is then prepared on a second engine, with its own stream, cache
// and lanes, beside the batch in flight, instead of after it on the first
// engine's stream (an engine's one cache may be rewritten only once its
// batches have read it). On the H200 this lifts a 1080p ladder of four
// renditions from 3,119 to 3,565 rendition frames/s in the element, and one
// pair from 1,451 to 1,990 pairs/s (docs/PERFORMANCE.md). The second engine
// is made on first need, as large as the first; when it cannot be made (no
// device memory, or none left under ScorerOptions::memory_limit after the
// first engine's) the scorer goes on with the first one alone.
#include <cuda_runtime.h>

#include <array>
#include <memory>
#include <string>

#include "cuda/cuda_util.h"
#include "cuda/engine.h"
#include "scorer_backend.h"

namespace ssim2 {
namespace cuda {
namespace {

class CudaBackend final : public ScorerBackend {
 public:
  CudaBackend(cuda::Engine engine, const cuda::EngineOptions& options) : options_(options) {
    engines_[0] = std::move(engine);
  }

  Backend backend() const override { return Backend::kCuda; }
  std::size_t memory_bytes() const override {
    return engines_[0].memory_bytes() + engines_[1].memory_bytes();
  }
  std::string description() const override { return "CUDA, " + engines_[0].device_name(); }
  std::string limits() const override {
    std::string s = engines_[0].limits();
    auto add = [&s](const std::string& more) {
      if (!more.empty()) s += (s.empty() ? "" : " ") + more;
    };
    add(second_engine_limit_);
    if (!engines_[1].limits().empty()) add("The second engine: " + engines_[1].limits());
    return s;
  }

  Status ScorePair(const ImageView& reference, const ImageView& distorted,
                   Result* result) override {
    return current().Compute(reference, distorted, result);
  }
  Status CacheReference(const ImageView& reference) override {
    ChooseEngineForReference();
    return current().SetReference(reference);
  }
  Status ScoreAgainstReference(const ImageView& distorted, Result* result) override {
    return current().Compute(distorted, result);
  }
  Status ScoreBatchAgainstReference(const std::vector<ImageView>& distorted,
                                    Result* results) override {
    return current().ComputeBatch(distorted.data(), distorted.size(), results);
  }
  Status ScoreBatch(const ImageView& reference, const std::vector<ImageView>& distorted,
                    Result* results) override {
    ChooseEngineForReference();
    return current().ComputeBatch(reference, distorted.data(), distorted.size(), results);
  }
  // A batch the engine cannot take at once (more images than max_batch, or
  // tickets held by batches in flight: kInvalidArgument, the images being
  // checked already) is scored here and now. The token says which engine
  // holds the batch: its ticket times two, plus the engine's index.
  Status StartBatch(const std::vector<ImageView>& distorted, Result* results,
                    std::uint64_t* token, bool* pending) override {
    cuda::Engine::BatchTicket ticket = 0;
    const Status s = current().ComputeBatchAsync(distorted.data(), distorted.size(), &ticket);
    *pending = s.ok();
    if (s.ok()) {
      *token = ticket * 2 + static_cast<std::uint64_t>(current_);
      ++in_flight_[current_];
      return s;
    }
    if (s.code() != StatusCode::kInvalidArgument) return s;
    return current().ComputeBatch(distorted.data(), distorted.size(), results);
  }
  Status FinishBatch(std::uint64_t token, Result* results) override {
    const int e = static_cast<int>(token % 2);
    if (in_flight_[e] > 0) --in_flight_[e];
    return engines_[e].WaitBatch(token / 2, results);
  }

 private:
  cuda::Engine& current() { return engines_[current_]; }

  // Where the next reference goes: the engine in use, unless it has
  // batches in flight and the other engine is there or can be made. The
  // second engine only saves time: when it cannot be made (out of memory,
  // most likely) the first one goes on alone, and the next reference set
  // with a batch in flight tries again, as a batch tries its lanes again.
  void ChooseEngineForReference() {
    if (in_flight_[current_] == 0) return;
    const int other = 1 - current_;
    if (!engines_[other].width()) {
      cuda::EngineOptions o = options_;
      o.stream = nullptr;  // its own stream: the point is to run beside the first
      const std::size_t used = engines_[0].memory_bytes();
      if (options_.memory_limit) {
        // What the first engine left; below the limit a Create fails.
        o.memory_limit = options_.memory_limit > used ? options_.memory_limit - used : 1;
      }
      const Status made =
          cuda::Engine::Create(engines_[0].width(), engines_[0].height(), o, &engines_[other]);
      // Under a limit it must hold a reference too, with a pass of one scale
      // group: the second engine only saves time, and must not cost it.
      if (made.ok() && options_.memory_limit &&
          (engines_[other].memory_bytes() + engines_[other].reference_cache_bytes() >
               o.memory_limit ||
           !engines_[other].limits().empty())) {
        engines_[other] = cuda::Engine();
      }
      if (engines_[other].valid() && options_.memory_limit) {
        // The first engine's later lanes must leave the second its share.
        engines_[0].set_memory_limit(options_.memory_limit - engines_[other].memory_bytes() -
                                     engines_[other].reference_cache_bytes());
      }
      if (!engines_[other].valid()) {
        if (options_.memory_limit && second_engine_limit_.empty()) {
          second_engine_limit_ =
              "No second engine: a reference set while a batch is in flight is prepared after "
              "it (the device memory limit of " +
              std::to_string(options_.memory_limit) + " bytes leaves " +
              std::to_string(options_.memory_limit > used ? options_.memory_limit - used : 0) +
              " beside the first engine's " + std::to_string(used) + ").";
        }
        return;
      }
    }
    current_ = other;
  }

  cuda::EngineOptions options_;
  std::array<cuda::Engine, 2> engines_;
  std::string second_engine_limit_;  // why there is no second engine, under a limit
  int current_ = 0;
  std::array<int, 2> in_flight_{{0, 0}};  // batches submitted, not yet finished
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
  cuda::Engine engine;
  Status s = cuda::Engine::Create(width, height, eo, &engine);
  if (!s.ok()) return s;
  // The second engine, made later, goes on the device this one chose.
  if (!eo.context && eo.cuda_device < 0) SSIM2_CUDA_CHECK(cudaGetDevice(&eo.cuda_device));
  out->reset(new CudaBackend(std::move(engine), eo));
  return Status::Ok();
}

}  // namespace cuda
}  // namespace ssim2
