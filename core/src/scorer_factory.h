// Backend constructors behind ssim2::Scorer::Create.
#pragma once

#include <memory>

#include "ssim2/ssim2.h"

#if defined(SSIM2_HAVE_CUDA)
#include "ssim2/cuda_engine.h"
#endif

namespace ssim2 {
namespace cpu {
Status CreateCpuScorer(int width, int height, const ScorerOptions& options,
                       std::unique_ptr<Scorer>* out);
}  // namespace cpu

#if defined(SSIM2_HAVE_CUDA)
namespace cuda {
// Fails with kBackendUnavailable when no device can be used.
Status CreateCudaScorer(int width, int height, const ScorerOptions& options,
                        std::unique_ptr<Scorer>* out);
// (DeviceAvailable: ssim2/cuda_engine.h.)
}  // namespace cuda
#endif

}  // namespace ssim2
