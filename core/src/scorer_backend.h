// What ssim2::Scorer is made of: one backend, the CPU path or the CUDA
// engine. Scorer (scorer.cpp) checks the inputs and keeps the contract of
// ssim2.h; a backend only scores inputs it has already checked.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ssim2/ssim2.h"

#if defined(SSIM2_HAVE_CUDA)
#include "cuda/engine.h"
#endif

namespace ssim2 {

// Hidden explicitly: ssim2.h declares the name inside public_api.h's
// default-visibility region, and the interface must not be exported.
class __attribute__((visibility("hidden"))) ScorerBackend {
 public:
  virtual ~ScorerBackend() = default;

  virtual Backend backend() const = 0;
  // Scorer::memory_bytes() and Scorer::description().
  virtual std::size_t memory_bytes() const = 0;
  // Scorer::second_engine_bytes(): only the CUDA backend has one.
  virtual std::size_t second_engine_bytes() const { return 0; }
  virtual std::string description() const = 0;
  // Scorer::limits(); a backend without a memory limit gives up nothing.
  virtual std::string limits() const { return std::string(); }

  // The images have been checked: valid views of the scorer's size, and
  // ScoreAgainstReference is only called after a successful CacheReference.
  // ScorePair must not disturb the cached reference.
  virtual Status ScorePair(const ImageView& reference, const ImageView& distorted,
                           Result* result) = 0;
  virtual Status CacheReference(const ImageView& reference) = 0;
  virtual Status ScoreAgainstReference(const ImageView& distorted, Result* result) = 0;
  // ScoreAgainstReference for each image into results[i]; CacheReference,
  // then that. Backends override them to overlap the images' work.
  virtual Status ScoreBatchAgainstReference(const std::vector<ImageView>& distorted,
                                            Result* results);
  virtual Status ScoreBatch(const ImageView& reference, const std::vector<ImageView>& distorted,
                            Result* results);
  // The backend's half of SubmitWithReference: either scores the images at
  // once into `results` (sized for them) and sets *pending = false (what
  // this default does), or starts them, sets *pending = true and *token
  // (its own name for the batch); FinishBatch(token, results) then waits.
  virtual Status StartBatch(const std::vector<ImageView>& distorted, Result* results,
                            std::uint64_t* token, bool* pending);
  virtual Status FinishBatch(std::uint64_t token, Result* results);
};

namespace cpu {
Status CreateCpuBackend(int width, int height, const ScorerOptions& options,
                        std::unique_ptr<ScorerBackend>* out);
}  // namespace cpu

#if defined(SSIM2_HAVE_CUDA)
namespace cuda {
// Fails with kBackendUnavailable when no device can be used.
Status CreateCudaBackend(int width, int height, const ScorerOptions& options,
                         std::unique_ptr<ScorerBackend>* out);
// (DeviceAvailable: cuda/engine.h.)
}  // namespace cuda
#endif

}  // namespace ssim2
