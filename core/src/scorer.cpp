// ssim2::Scorer: picks the backend and enforces the contract both backends
// share (checks, the cached-reference rules; see ssim2.h).
#include <algorithm>
#include <new>
#include <string>

#include "image_checks.h"
#include "scorer_backend.h"

namespace ssim2 {
namespace {

// Nothing throws across the API: a backend's host allocation that fails
// while it scores (the CPU path allocates its rings of rows and its cache as
// it first needs them) becomes a kOutOfMemory status.
template <typename Call>
Status WithoutExceptions(int width, int height, Call call) {
  try {
    return call();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  "not enough host memory to score " + std::to_string(width) + "x" +
                      std::to_string(height) + " images");
  }
}

}  // namespace

bool CudaAvailable(std::string* why_not) {
#if defined(SSIM2_HAVE_CUDA)
  return cuda::DeviceAvailable(why_not);
#else
  if (why_not) *why_not = "this build of gst-ssim2 has no CUDA engine (built without nvcc)";
  return false;
#endif
}

namespace {

// Which backend: the one asked for; kAuto takes the CUDA engine when a device
// can be used, else the CPU path.
Status CreateBackend(int width, int height, const ScorerOptions& options,
                     std::unique_ptr<ScorerBackend>* out) {
  if (options.backend == Backend::kCpu) return cpu::CreateCpuBackend(width, height, options, out);
#if defined(SSIM2_HAVE_CUDA)
  Status status = cuda::CreateCudaBackend(width, height, options, out);
  if (status.ok() || options.backend == Backend::kCuda) return status;
  // kAuto: a missing device falls back to the CPU; other failures are real.
  if (status.code() != StatusCode::kBackendUnavailable) return status;
  return cpu::CreateCpuBackend(width, height, options, out);
#else
  if (options.backend == Backend::kCuda) {
    std::string why;
    CudaAvailable(&why);
    return Status(StatusCode::kBackendUnavailable, why);
  }
  return cpu::CreateCpuBackend(width, height, options, out);
#endif
}

}  // namespace

Scorer::Scorer(int width, int height, std::unique_ptr<ScorerBackend> backend)
    : width_(width), height_(height), backend_(std::move(backend)) {}

Scorer::~Scorer() = default;

Status Scorer::Create(int width, int height, const ScorerOptions& options,
                      std::unique_ptr<Scorer>* out) {
  if (!out) return Status(StatusCode::kInvalidArgument, "Scorer::Create: out is null");
  out->reset();
  if (Status s = ValidateMinimumSize(width, height); !s.ok()) return s;
  std::unique_ptr<ScorerBackend> backend;
  if (Status s = CreateBackend(width, height, options, &backend); !s.ok()) return s;
  out->reset(new (std::nothrow) Scorer(width, height, std::move(backend)));
  if (!*out) return Status(StatusCode::kOutOfMemory, "Scorer::Create: out of host memory");
  return Status::Ok();
}

Backend Scorer::backend() const { return backend_->backend(); }
std::size_t Scorer::memory_bytes() const { return backend_->memory_bytes(); }
std::size_t Scorer::second_engine_bytes() const { return backend_->second_engine_bytes(); }
std::string Scorer::description() const { return backend_->description(); }
std::string Scorer::limits() const { return backend_->limits(); }

Status Scorer::Compute(const ImageView& reference, const ImageView& distorted,
                       Result* result) {
  if (!result) return Status(StatusCode::kInvalidArgument, "Compute: result is null");
  if (Status s = ValidatePair(reference, distorted); !s.ok()) return s;
  if (Status s = ValidateSize(reference, width_, height_); !s.ok()) return s;
  return WithoutExceptions(width_, height_,
                           [&] { return backend_->ScorePair(reference, distorted, result); });
}

Status Scorer::SetReference(const ImageView& reference) {
  has_reference_ = false;
  if (Status s = ValidateImage(reference); !s.ok()) return s;
  if (Status s = ValidateSize(reference, width_, height_); !s.ok()) return s;
  if (Status s = WithoutExceptions(width_, height_,
                                   [&] { return backend_->CacheReference(reference); });
      !s.ok()) {
    return s;
  }
  has_reference_ = true;
  return Status::Ok();
}

Status Scorer::CheckAgainstReference(const ImageView* distorted, std::size_t count) const {
  if (!has_reference_) {
    return Status(StatusCode::kInvalidArgument, "no reference set: call SetReference first");
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (Status s = ValidateImage(distorted[i]); !s.ok()) return s;
    if (Status s = ValidateSize(distorted[i], width_, height_); !s.ok()) return s;
  }
  return Status::Ok();
}

Status Scorer::ComputeWithReference(const ImageView& distorted, Result* result) {
  if (!result) return Status(StatusCode::kInvalidArgument, "ComputeWithReference: result is null");
  if (Status s = CheckAgainstReference(&distorted, 1); !s.ok()) return s;
  return WithoutExceptions(width_, height_,
                           [&] { return backend_->ScoreAgainstReference(distorted, result); });
}

Status Scorer::ComputeWithReference(const std::vector<ImageView>& distorted,
                                    std::vector<Result>* results) {
  if (!results) {
    return Status(StatusCode::kInvalidArgument, "ComputeWithReference: results is null");
  }
  if (Status s = CheckAgainstReference(distorted.data(), distorted.size()); !s.ok()) return s;
  results->assign(distorted.size(), Result());
  return WithoutExceptions(width_, height_, [&] {
    return backend_->ScoreBatchAgainstReference(distorted, results->data());
  });
}

Status Scorer::SubmitWithReference(const std::vector<ImageView>& distorted,
                                   BatchHandle* handle) {
  if (!handle) return Status(StatusCode::kInvalidArgument, "SubmitWithReference: handle is null");
  if (Status s = CheckAgainstReference(distorted.data(), distorted.size()); !s.ok()) return s;
  return WithoutExceptions(width_, height_, [&] {
    Submitted batch;
    batch.results.assign(distorted.size(), Result());
    if (Status s = backend_->StartBatch(distorted, batch.results.data(), &batch.token,
                                        &batch.pending);
        !s.ok()) {
      return s;
    }
    batch.handle = next_handle_++;
    *handle = batch.handle;
    submitted_.push_back(std::move(batch));
    return Status::Ok();
  });
}

Status Scorer::CollectBatch(BatchHandle handle, std::vector<Result>* results) {
  if (!results) return Status(StatusCode::kInvalidArgument, "CollectBatch: results is null");
  auto it = std::find_if(submitted_.begin(), submitted_.end(),
                         [&](const Submitted& b) { return b.handle == handle; });
  if (it == submitted_.end()) {
    return Status(StatusCode::kInvalidArgument,
                  "unknown batch handle " + std::to_string(handle) + " (already collected?)");
  }
  Submitted batch = std::move(*it);
  submitted_.erase(it);
  if (batch.pending) {
    if (Status s = WithoutExceptions(
            width_, height_,
            [&] { return backend_->FinishBatch(batch.token, batch.results.data()); });
        !s.ok()) {
      return s;
    }
  }
  *results = std::move(batch.results);
  return Status::Ok();
}

Status ScorerBackend::StartBatch(const std::vector<ImageView>& distorted, Result* results,
                                 std::uint64_t* token, bool* pending) {
  *token = 0;
  *pending = false;
  return ScoreBatchAgainstReference(distorted, results);
}

Status ScorerBackend::FinishBatch(std::uint64_t, Result*) {
  return Status(StatusCode::kInternal, "this backend has no batches pending");
}

Status Scorer::ComputeBatch(const ImageView& reference, const std::vector<ImageView>& distorted,
                            std::vector<Result>* results) {
  if (!results) return Status(StatusCode::kInvalidArgument, "ComputeBatch: results is null");
  // Every image is checked before anything changes.
  if (Status s = ValidateImage(reference); !s.ok()) return s;
  if (Status s = ValidateSize(reference, width_, height_); !s.ok()) return s;
  for (const ImageView& d : distorted) {
    if (Status s = ValidatePair(reference, d); !s.ok()) return s;
  }
  results->assign(distorted.size(), Result());
  has_reference_ = false;
  if (Status s = WithoutExceptions(
          width_, height_,
          [&] { return backend_->ScoreBatch(reference, distorted, results->data()); });
      !s.ok()) {
    return s;
  }
  has_reference_ = true;
  return Status::Ok();
}

Status ScorerBackend::ScoreBatch(const ImageView& reference,
                                 const std::vector<ImageView>& distorted, Result* results) {
  if (Status s = CacheReference(reference); !s.ok()) return s;
  return ScoreBatchAgainstReference(distorted, results);
}

Status ScorerBackend::ScoreBatchAgainstReference(const std::vector<ImageView>& distorted,
                                                 Result* results) {
  for (std::size_t i = 0; i < distorted.size(); ++i) {
    if (Status s = ScoreAgainstReference(distorted[i], &results[i]); !s.ok()) return s;
  }
  return Status::Ok();
}

Status ComputeSsimulacra2(const ImageView& reference, const ImageView& distorted,
                          const ScorerOptions& options, Result* result) {
  if (Status s = ValidatePair(reference, distorted); !s.ok()) return s;
  std::unique_ptr<Scorer> scorer;
  if (Status s = Scorer::Create(reference.width, reference.height, options, &scorer); !s.ok()) {
    return s;
  }
  return scorer->Compute(reference, distorted, result);
}

}  // namespace ssim2
