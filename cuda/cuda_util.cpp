#include "cuda/cuda_util.h"

namespace ssim2 {
namespace cuda {

Status CudaStatus(cudaError_t error, const char* call, const char* file, int line) {
  StatusCode code = StatusCode::kCudaError;
  if (error == cudaErrorMemoryAllocation) code = StatusCode::kOutOfMemory;
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver ||
      error == cudaErrorInvalidDevice) {
    code = StatusCode::kBackendUnavailable;
  }
  return Status(code, std::string(call) + " failed: " + cudaGetErrorName(error) + " (" +
                          cudaGetErrorString(error) + ") at " + file + ":" +
                          std::to_string(line));
}

}  // namespace cuda
}  // namespace ssim2
