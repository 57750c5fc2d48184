// Backend constructors behind ssim2::Scorer::Create.
#pragma once

#include <memory>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cpu {
Status CreateCpuScorer(int width, int height, const ScorerOptions& options,
                       std::unique_ptr<Scorer>* out);
}  // namespace cpu

#if defined(SSIM2_HAVE_CUDA)
namespace gpu {
// Fails with kBackendUnavailable when no device can be used.
Status CreateCudaScorer(int width, int height, const ScorerOptions& options,
                        std::unique_ptr<Scorer>* out);
bool DeviceAvailable(std::string* why_not);
}  // namespace gpu
#endif

}  // namespace ssim2
