// Enqueues one pass (PassLaunches, planned by layout.cpp) on a stream. The
// engine calls it; the emulation tests call it too, with the launchers of
// their emulated runtime.
#pragma once

#include <cuda_runtime.h>

#include "cuda/layout.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cuda {

Status LaunchPass(const PassLaunches& pass, cudaStream_t stream);

}  // namespace cuda
}  // namespace ssim2
